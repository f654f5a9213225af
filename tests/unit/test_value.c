/* The value types shared by profile keys and workload options
 * (src/util/value.c): each type's parser and both wordings of its error,
 * table-driven. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/value.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define R(t, lo, hi)                                                                               \
	{                                                                                          \
		.type = SB_VT_##t, .min = lo, .max = hi                                            \
	}
#define FS_CHOICES                                                                                 \
	{                                                                                          \
		.type = SB_VT_CHOICE, .choices = "ext4|xfs|btrfs"                                  \
	}

static void test_parse(void **state)
{
	static const struct {
		struct sb_vrule rule;
		const char *in;
		int rc;
		uint64_t u;
		bool pct;
	} cases[] = {
	    {R(UINT, 0, 64), "0", 0, 0, false},
	    {R(UINT, 0, 64), "64", 0, 64, false},
	    {R(UINT, 0, 64), "65", -ERANGE, 65, false},
	    {R(UINT, 1, 0), "0", -ERANGE, 0, false},
	    {R(UINT, 1, 0), "18446744073709551615", 0, UINT64_MAX, false},
	    /* too large for 64 bits is not a number at all */
	    {R(UINT, 0, 0), "18446744073709551616", -EINVAL, 0, false},
	    {R(UINT, 0, 0), "-1", -EINVAL, 0, false},
	    {R(UINT, 0, 0), "", -EINVAL, 0, false},
	    {R(SIZE, 0, 0), "4k", 0, 4096, false},
	    {R(SIZE, 0, 0), "0", 0, 0, false},
	    {R(SIZE, 1, 0), "0", -ERANGE, 0, false},
	    {R(SIZE, 512, 1 << 20), "2M", -ERANGE, 2 << 20, false},
	    {R(SIZE, 0, 0), "50%", -EINVAL, 0, false},
	    {R(SIZE, 0, 0), "lots", -EINVAL, 0, false},
	    {R(SIZEPCT, 1, 0), "50%", 0, 50, true},
	    {R(SIZEPCT, 1, 0), "2G", 0, 2ull << 30, false},
	    {R(SIZEPCT, 1, 0), "0%", -ERANGE, 0, true},
	    {R(DURATION, 0, 0), "250ms", 0, 250, false},
	    {R(DURATION, 0, 0), "10m", 0, 600000, false},
	    {R(DURATION, 1, 0), "0", -ERANGE, 0, false},
	    {R(DURATION, 0, 0), "soon", -EINVAL, 0, false},
	    {R(BOOL, 0, 0), "Yes", 0, 1, false},
	    {R(BOOL, 0, 0), "off", 0, 0, false},
	    {R(BOOL, 0, 0), "1", 0, 1, false},
	    {R(BOOL, 0, 0), "maybe", -EINVAL, 0, false},
	    {R(BOOL, 0, 0), "", -EINVAL, 0, false},
	    {FS_CHOICES, "ext4", 0, 0, false},
	    {FS_CHOICES, "btrfs", 0, 2, false},
	    {FS_CHOICES, "xf", -EINVAL, 0, false},
	    {FS_CHOICES, "ext4|xfs", -EINVAL, 0, false},
	    {R(SIZES, 0, 0), "50%,50%", 0, 0, false},
	    {R(SIZES, 0, 0), "10G, rest", 0, 0, false},
	    {R(SIZES, 0, 0), "rest,10G", -EINVAL, 0, false},
	    {R(SIZES, 0, 0), "10G,0", -EINVAL, 0, false},
	    {R(SIZES, 0, 0), "60%,50%", -ERANGE, 0, false},
	    {R(STRING, 0, 0), "", 0, 0, false},
	    {R(STRING, 0, 0), "any thing", 0, 0, false},
	    {{.type = SB_VT_N}, "1", -EINVAL, 0, false},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sb_value v = {.u = 12345, .pct = !cases[i].pct};
		int r = sb_value_parse(&cases[i].rule, cases[i].in, &v);
		/* a value out of range is still read: the caller may say which */
		bool read = r == 0 || r == -ERANGE;
		if (r != cases[i].rc || (read && (v.u != cases[i].u || v.pct != cases[i].pct)) ||
		    (r == -EINVAL && (v.u || v.pct)))
			fail_msg("case %zu '%s': rc %d u %llu pct %d", i, cases[i].in, r,
				 (unsigned long long)v.u, v.pct);
	}
}

static void test_errors(void **state)
{
	static const struct {
		struct sb_vrule rule;
		const char *in;
		const char *key, *opt; /* the two wordings */
	} cases[] = {
	    {R(UINT, 0, 64), "two", "expected a whole number from 0 to 64, got 'two'",
	     "bad value 'two' for k: expected a number"},
	    {R(UINT, 1, 256), "0", "expected a whole number from 1 to 256, got '0'",
	     "k=0 out of range"},
	    {R(UINT, 0, 0), "x", "expected a whole number from 0 to 18446744073709551615, got 'x'",
	     "bad value 'x' for k: expected a number"},
	    {R(SIZE, 1, 0), "2Q", "expected a size such as 512M or 2G, got '2Q'",
	     "bad value '2Q' for k: expected a size such as 4k, 512M, 2G"},
	    {R(SIZEPCT, 1, 0), "half",
	     "expected a size such as 20G or a percentage such as 50%, got 'half'",
	     "bad value 'half' for k: expected a size such as 4k, 512M, 2G or a percentage "
	     "such as 50%"},
	    {R(DURATION, 1, 0), "soon", "expected a duration such as 30s or 10m, got 'soon'",
	     "bad value 'soon' for k: expected a duration such as 30s, 5m, 250ms"},
	    {R(BOOL, 0, 1), "maybe", "expected yes or no, got 'maybe'",
	     "bad value 'maybe' for k: expected 0 or 1"},
	    {FS_CHOICES, "zfs", "expected one of ext4, xfs, btrfs, got 'zfs'",
	     "bad value 'zfs' for k: expected one of ext4, xfs, btrfs"},
	    {R(SIZES, 0, 0), "rest,1G", "'rest' must be the last size, got 'rest,1G'",
	     "bad value 'rest,1G' for k: expected sizes such as '50%,50%' or '10G,rest'"},
	    {R(SIZES, 0, 0), "1G, 2Q ,rest",
	     "expected sizes such as '50%,50%' or '10G,rest', got '2Q'",
	     "bad value '1G, 2Q ,rest' for k: expected sizes such as '50%,50%' or '10G,rest'"},
	    {R(SIZES, 0, 0), "60%,50%,rest", "percentages add up to 110%, more than 100%",
	     "bad value '60%,50%,rest' for k: expected sizes such as '50%,50%' or '10G,rest'"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sb_value v;
		int r = sb_value_parse(&cases[i].rule, cases[i].in, &v);
		if (r == 0)
			fail_msg("case %zu '%s' accepted", i, cases[i].in);
		char *k = sb_value_error(&cases[i].rule, SB_VSTYLE_KEY, "k", cases[i].in, r);
		char *o = sb_value_error(&cases[i].rule, SB_VSTYLE_OPT, "k", cases[i].in, r);
		assert_non_null(k);
		assert_non_null(o);
		assert_string_equal(k, cases[i].key);
		assert_string_equal(o, cases[i].opt);
		free(k);
		free(o);
	}
}

static void test_choices_text(void **state)
{
	char *t = sb_value_choices_text("none|0|1|10");
	assert_string_equal(t, "none, 0, 1, 10");
	free(t);
	t = sb_value_choices_text("one");
	assert_string_equal(t, "one");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_choices_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
