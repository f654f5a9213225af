/* libFuzzer target: what md and btrfs report about a rebuild and a check,
 * read by the scenario code (stack/scenario.c): sysfs sync_completed,
 * /proc/mdstat's progress line, `btrfs scrub start -B -R`'s counters, and
 * the member names users write (scenario.degrade). Invariants: a parsed
 * progress is within its total, per mille within 1000, counters add up. */
#include "fuzz.h"
#include "profile/profile.h"
#include "stack/scenario.h"

#include <errno.h>

SB_FUZZ_TARGET(scen)
{
	char *s = sb_fuzz_strndup(data, size);
	uint64_t done = 0, total = 0, kbps = 0;
	unsigned pm = 0;
	struct sb_scrub_counts c;
	struct sb_scen_target t;
	char *why = NULL;
	int r;

	r = sb_md_parse_sync_completed(s, &done, &total);
	SB_FUZZ_CHECK(r == 0 || r == 1 || r == -EINVAL);
	if (r == 0)
		SB_FUZZ_CHECK(done <= total);

	r = sb_mdstat_progress(s, "md127", &pm, &kbps);
	SB_FUZZ_CHECK(r == 0 || r == 1 || r == -ENOENT || r == -EINVAL);
	if (r == 0)
		SB_FUZZ_CHECK(pm <= 1009); /* "100.9%" at most */

	r = sb_btrfs_parse_scrub(s, &c);
	SB_FUZZ_CHECK(r == 0 || r == -EINVAL);
	SB_FUZZ_CHECK((r == 0) == (c.seen > 0));

	r = sb_scen_target_parse(s, &t, &why);
	SB_FUZZ_CHECK(r == 0 || r == -EINVAL);
	SB_FUZZ_CHECK((r == 0) == (why == NULL));
	if (r == 0)
		SB_FUZZ_CHECK(t.role < SB_ROLE_N && t.slot <= 64 && t.part <= 128);
	free(why);
	free(s);
	return 0;
}
