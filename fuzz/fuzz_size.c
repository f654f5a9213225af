/* libFuzzer target: sizes ("2G", "50%") and durations ("30s") as users write
 * them in profiles, workload specs and options, and the other shared value
 * parsers of util/parse.c (bool, uint, a queue/scheduler file, a modules.dep
 * line, a SCSI VPD page 0x80 from sysfs), and the value types option
 * tables share over them (util/value.c). Plain integer inputs are checked
 * against an independent computation, so wrong values count too. */
#include "fuzz.h"
#include "util/parse.h"
#include "util/size.h"
#include "util/value.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>

/* "DIGITS" + SUFFIX exactly, with SUFFIX one of the given list: the integer and
 * the multiplier, or false when the text has another shape. */
static bool size_plain(const char *s, const char *const *suffixes, const uint64_t *mults,
		       unsigned __int128 *val, uint64_t *mult)
{
	size_t n = strspn(s, "0123456789");
	unsigned __int128 v = 0;

	if (n == 0 || n > 30)
		return false;
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (unsigned)(s[i] - '0');
	for (size_t i = 0; suffixes[i]; i++)
		if (strcmp(s + n, suffixes[i]) == 0) {
			*val = v;
			*mult = mults[i];
			return true;
		}
	return false;
}

static void check_size(const char *s)
{
	static const char *const sfx[] = {"", "K", "M", "G", "T", "P", "k", NULL};
	static const uint64_t mul[] = {1,	   1ULL << 10, 1ULL << 20, 1ULL << 30,
				       1ULL << 40, 1ULL << 50, 1ULL << 10};
	unsigned __int128 v, want;
	uint64_t out = 0, mult, back;
	bool pct = false;
	char buf[16];
	int r;

	r = sb_parse_size(s, &out, true, &pct);
	SB_FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE);
	if (r != 0)
		return;
	if (pct) {
		SB_FUZZ_CHECK(out <= 100);
		return;
	}
	if (size_plain(s, sfx, mul, &v, &mult)) {
		want = v * mult;
		/* Parsing goes through a double: exact up to 2^53, then within its
		 * precision; never off by orders of magnitude, never past 2^64. */
		SB_FUZZ_CHECK(want <= UINT64_MAX);
		unsigned __int128 diff = want > out ? want - out : out - want;
		SB_FUZZ_CHECK(diff <= want / (1ULL << 50) + 1);
	}
	/* What we print for a size, we can read back (to within the one
	 * decimal printed), except at the very top of the range. */
	sb_format_size(out, buf, sizeof(buf));
	SB_FUZZ_CHECK(strlen(buf) < sizeof(buf) - 1);
	r = sb_parse_size(buf, &back, false, NULL);
	if (r == -ERANGE)
		SB_FUZZ_CHECK(out > UINT64_MAX / 100 * 95);
	else {
		SB_FUZZ_CHECK(r == 0);
		uint64_t d = back > out ? back - out : out - back;
		SB_FUZZ_CHECK(d <= out / 20 + 1);
	}
}

static void check_duration(const char *s)
{
	static const char *const sfx[] = {"", "s", "ms", "m", "min", "h", NULL};
	static const uint64_t mul[] = {1000, 1000, 1, 60000, 60000, 3600000};
	unsigned __int128 v;
	uint64_t out = 0, mult;
	int r;

	r = sb_parse_duration_ms(s, &out);
	SB_FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE);
	if (!size_plain(s, sfx, mul, &v, &mult))
		return;
	/* A well-formed duration is accepted unless it overflows. */
	if (v * mult > (unsigned __int128)1 << 53) {
		/* beyond a double's exact range: either refused, or close */
		if (r == 0) {
			SB_FUZZ_CHECK(v * mult <= UINT64_MAX);
			unsigned __int128 want = v * mult;
			unsigned __int128 diff = want > out ? want - out : out - want;
			SB_FUZZ_CHECK(diff <= want / (1ULL << 50) + 1);
		}
		return;
	}
	SB_FUZZ_CHECK(r == 0);
	SB_FUZZ_CHECK(out == (uint64_t)(v * mult));
}

static void check_parse(const char *s)
{
	uint64_t v = 0;
	bool b;
	char cur[64], names[256];
	size_t n = strspn(s, "0123456789");

	int r = sb_parse_uint(s, 0, UINT64_MAX, &v);
	SB_FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE);
	/* accepted exactly when all digits and it fits */
	SB_FUZZ_CHECK((r == -EINVAL) == (!*s || s[n] != '\0'));
	if (r == 0 && n < 20)
		SB_FUZZ_CHECK(v == strtoull(s, NULL, 10));
	r = sb_parse_bool(s, &b);
	SB_FUZZ_CHECK(r == 0 || r == -EINVAL);
	/* a modules.dep line that names bfq's module holds its name and .ko */
	if (sb_modules_dep_has_iosched(s, "bfq"))
		SB_FUZZ_CHECK(strstr(s, "bfq") && strstr(s, ".ko") && strchr(s, ':'));
	r = sb_scheduler_parse(s, cur, sizeof(cur), names, sizeof(names));
	SB_FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOBUFS);
	if (r == 0) {
		/* the one in use is one of the offered, and has no brackets */
		SB_FUZZ_CHECK(*cur && !strpbrk(cur, "[] \t\n"));
		SB_FUZZ_CHECK(strstr(names, cur) != NULL);
	}
}

/* Every value type: a known answer, and a refusal always worded both ways. */
static void check_value(const char *s)
{
	static const struct sb_vrule rules[] = {
	    {SB_VT_UINT, 0, 0, NULL},	{SB_VT_UINT, 1, 64, NULL},
	    {SB_VT_SIZE, 1, 0, NULL},	{SB_VT_SIZEPCT, 1, 0, NULL},
	    {SB_VT_SIZES, 0, 0, NULL},	{SB_VT_DURATION, 0, 0, NULL},
	    {SB_VT_BOOL, 0, 1, NULL},	{SB_VT_CHOICE, 0, 0, "none|0|1|10"},
	    {SB_VT_STRING, 0, 0, NULL},
	};
	uint64_t u;
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		struct sb_value v;
		int r = sb_value_parse(&rules[i], s, &v);
		SB_FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE || r == -ENOMEM);
		if (rules[i].type == SB_VT_UINT && rules[i].max == 0)
			SB_FUZZ_CHECK((r == 0) == (sb_parse_uint(s, 0, UINT64_MAX, &u) == 0) &&
				      (r != 0 || v.u == u));
		if (rules[i].type == SB_VT_STRING)
			SB_FUZZ_CHECK(r == 0);
		if (r != -EINVAL && r != -ERANGE)
			continue;
		for (int style = SB_VSTYLE_KEY; style <= SB_VSTYLE_OPT; style++) {
			char *m = sb_value_error(&rules[i], (enum sb_vstyle)style, "k", s, r);
			SB_FUZZ_CHECK(m && *m);
			free(m);
		}
	}
}

/* device/vpd_pg80 bytes: a serial is printable, unpadded, and inside the data. */
static void check_vpd80(const uint8_t *data, size_t size)
{
	char out[300];
	int r = sb_vpd80_serial(data, size, out, sizeof(out));
	SB_FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOBUFS);
	if (r != 0)
		return;
	size_t n = strlen(out);
	SB_FUZZ_CHECK(n > 0 && n + 4 <= size && out[0] != ' ' && out[n - 1] != ' ');
	for (size_t i = 0; i < n; i++)
		SB_FUZZ_CHECK(out[i] >= 0x20 && out[i] <= 0x7e);
}

SB_FUZZ_TARGET(size)
{
	char *s = sb_fuzz_strndup(data, size);

	check_vpd80(data, size);

	check_size(s);
	check_duration(s);
	check_parse(s);
	check_value(s);
	free(s);
	return 0;
}
