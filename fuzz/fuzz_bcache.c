/* libFuzzer target: bcache_sysfs.c's parsers of what the kernel and make-bcache
 * leave: the on-disk superblock (the input as its 4 KiB), a sysfs value
 * (stats_total counts, dirty_data's "1.5M") and a choice list ("[writeback]
 * ..."). Plain counts are checked against an independent computation, and
 * UUIDs must be the 36 characters the kernel names /sys/fs/bcache by. */
#include "fuzz.h"
#include "stack/bcache.h"

#include <ctype.h>
#include <errno.h>

static void check_uuid(const char *u, bool may_be_empty)
{
	size_t n = strlen(u);
	SB_FUZZ_CHECK(n == 36 || (may_be_empty && n == 0));
	for (size_t i = 0; i < n; i++)
		SB_FUZZ_CHECK(i == 8 || i == 13 || i == 18 || i == 23 ? u[i] == '-'
								      : isxdigit((unsigned char)u[i]));
}

/* "  DIGITS \n" only: the value itself, or false. */
static bool plain_count(const char *s, unsigned __int128 *v)
{
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	size_t n = strspn(s, "0123456789");
	if (n == 0 || n > 30 || s[n + strspn(s + n, " \t\n")] != '\0')
		return false;
	*v = 0;
	for (size_t i = 0; i < n; i++)
		*v = *v * 10 + (unsigned)(s[i] - '0');
	return true;
}

SB_FUZZ_TARGET(bcache)
{
	struct sb_bcache_sb sb;
	uint64_t v;
	unsigned __int128 want;
	char buf[32];

	if (sb_bcache_sb_parse(data, size, &sb) == 0) {
		check_uuid(sb.uuid, false);
		check_uuid(sb.set_uuid, !sb.cache);
	}
	char *s = sb_fuzz_strndup(data, size);
	int r = sb_bcache_parse_value(s, &v);
	SB_FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE);
	if (plain_count(s, &want))
		SB_FUZZ_CHECK(want > UINT64_MAX ? r == -ERANGE : (r == 0 && v == (uint64_t)want));
	if (sb_bcache_parse_choice(s, buf, sizeof(buf)) == 0) {
		SB_FUZZ_CHECK(*buf && strlen(buf) < sizeof(buf) && !strchr(buf, ' '));
		SB_FUZZ_CHECK(strstr(s, buf) != NULL);
	}
	free(s);
	return 0;
}
