/* libFuzzer target: /dev/kmsg records (the kernel's text, read after a failed
 * step) and mount option lists checked against the removed-options table.
 * The text found must lie inside the record. */
#include "fuzz.h"
#include "util/kmsg.h"

SB_FUZZ_TARGET(kmsg)
{
	const char *t;
	size_t tl;
	unsigned prio;
	unsigned long long seq;

	if (sb_kmsg_parse_record((const char *)data, size, &t, &tl, &prio, &seq) == 0) {
		SB_FUZZ_CHECK(t >= (const char *)data && t + tl <= (const char *)data + size);
		SB_FUZZ_CHECK(prio < 8);
	}
	char *s = sb_fuzz_strndup(data, size);
	char *fs = s, *opts = strchr(s, ' ');
	if (opts)
		*opts++ = '\0';
	free(sb_mount_removed_options(fs, opts ? opts : s));
	free(s);
	return 0;
}
