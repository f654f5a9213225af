/* libFuzzer target: dm-cache and dm-writecache status and table lines
 * (stack/dmstatus.c), as `dmsetup status` / `dmsetup table` print them and
 * the lvmcache layer reads them through libdevmapper for its per-phase
 * counters and capture. A line parses whole or not at all; what it gives
 * is consistent (used <= total, counters named, within their limits). */
#include "fuzz.h"
#include "stack/dmstatus.h"

SB_FUZZ_TARGET(dmstatus)
{
	char *s = sb_fuzz_strndup(data, size);
	struct sb_dmstatus st;
	struct sb_lcnt_val v[SB_LCNT_MAX];
	char kind = 0;

	if (sb_dmstatus_parse(s, &st) == 0) {
		size_t n = sb_dmstatus_counters(&st, v);
		SB_FUZZ_CHECK(n <= SB_LCNT_MAX);
		for (size_t i = 0; i < n; i++)
			SB_FUZZ_CHECK(v[i].name && *v[i].name && strlen(v[i].name) <= 15);
		if (st.type == SB_DMS_CACHE && !st.fail)
			SB_FUZZ_CHECK(st.used <= st.total && st.md_used <= st.md_total &&
				      *st.policy && *st.mode && *st.md_mode);
		SB_FUZZ_CHECK(st.wc_n <= SB_DMS_WC_N);
		SB_FUZZ_CHECK(st.type != SB_DMS_WRITECACHE || st.wc_n >= 3);
		SB_FUZZ_CHECK(st.type != SB_DMS_OTHER || n == 0);
	} else {
		SB_FUZZ_CHECK(st.type == SB_DMS_OTHER && sb_dmstatus_counters(&st, v) == 0);
	}
	uint64_t bs = sb_dmtable_wc_block(s, &kind);
	SB_FUZZ_CHECK(bs == 0 || ((bs & (bs - 1)) == 0 && bs >= 512 && bs <= 4096 &&
				  (kind == 's' || kind == 'p')));
	free(s);
	return 0;
}
