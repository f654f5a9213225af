/* The time left (src/workload/progress.c): each variant's mean run time
 * for its runs left, an untimed variant at the mean of the timed ones; and
 * durations as a person reads them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "workload/progress.h"

#include <string.h>

static void test_eta(void **state)
{
	static const struct {
		double secs[3];
		unsigned runs[3], left[3];
		double want;
	} cases[] = {
	    {{0, 0, 0}, {0, 0, 0}, {3, 3, 3}, -1},	       /* nothing timed yet */
	    {{10, 0, 0}, {1, 0, 0}, {2, 3, 3}, 80},	       /* 2x10 + 6 untimed at 10 */
	    {{20, 30, 0}, {2, 1, 0}, {1, 2, 3}, 10 + 60 + 60}, /* untimed: mean of 10 and 30 */
	    {{20, 30, 40}, {2, 2, 2}, {0, 0, 0}, 0},	       /* done */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_float_equal(sb_progress_eta(cases[i].secs, cases[i].runs, cases[i].left, 3),
				   cases[i].want, 1e-9);
}

static void test_duration(void **state)
{
	static const struct {
		double s;
		const char *want;
	} cases[] = {
	    {0, "0s"},	    {-3, "0s"},	      {44.6, "45s"},   {59.4, "59s"},	{60, "1m00s"},
	    {185, "3m05s"}, {3599, "59m59s"}, {3600, "1h00m"}, {7650, "2h07m"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[24];
		sb_progress_duration(cases[i].s, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].want);
	}
}

static void test_where(void **state)
{
	assert_string_equal(sb_progress_where(), "");
	sb_progress_plan(4, 3, false);
	sb_progress_variant_begin(1, 0, "x");
	assert_string_equal(sb_progress_where(), "variant 2 of 4, repeat 1 of 3");
	sb_progress_variant_end();
	assert_string_equal(sb_progress_where(), "");
	sb_progress_plan(2, 10, true);
	sb_progress_variant_begin(0, 4, "y");
	assert_string_equal(sb_progress_where(), "variant 1 of 2, repeat 5 of at most 10");
	sb_progress_variant_end();
	sb_progress_done();
	assert_string_equal(sb_progress_where(), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_eta),
	    cmocka_unit_test(test_duration),
	    cmocka_unit_test(test_where),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
