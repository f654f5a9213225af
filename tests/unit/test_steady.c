/* The SNIA steady-state test (src/stack/steady.c) on synthetic series:
 * range and slope limits at and just past their edges, too short a
 * series, only the last window counting, a stalled device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stack/precond.h"

#include <math.h>

static void test_window(void **state)
{
	(void)state;
	static const struct {
		const char *what;
		double y[10];
		size_t n;
		bool steady;
	} cases[] = {
	    {"flat", {100, 100, 100, 100, 100}, 5, true},
	    {"noise within 20%, no trend", {95, 105, 100, 96, 104}, 5, true},
	    /* mean 100, range 20: exactly at the limit; line excursion 0 */
	    {"range at 20%", {90, 110, 100, 110, 90}, 5, true},
	    {"range past 20%", {89, 111, 100, 111, 89}, 5, false},
	    /* a straight line 96..104: range 8%, excursion 8% of the mean */
	    {"slope 8%", {96, 98, 100, 102, 104}, 5, true},
	    /* 94..106: range 12% (fine), excursion 12% (too steep) */
	    {"slope 12%", {94, 97, 100, 103, 106}, 5, false},
	    {"falling 12%", {106, 103, 100, 97, 94}, 5, false},
	    {"four rounds only", {100, 100, 100, 100}, 4, false},
	    /* the write cliff before the window does not count */
	    {"cliff, then steady", {900, 800, 300, 101, 99, 100, 100, 100}, 8, true},
	    {"steady, then a cliff", {100, 100, 100, 100, 100, 40}, 6, false},
	    {"stalled", {0, 0, 0, 0, 0}, 5, false},
	    {"not a number", {100, 100, NAN, 100, 100}, 5, false},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sb_steady st;
		bool got = sb_steady_check(cases[i].y, cases[i].n, SB_STEADY_WINDOW, &st);
		if (got != cases[i].steady || st.steady != got)
			fail_msg("%s: steady %d, want %d (mean %g range %g slope %g)",
				 cases[i].what, got, cases[i].steady, st.mean, st.range, st.slope);
	}
}

static void test_figures(void **state)
{
	(void)state;
	const double y[] = {96, 98, 100, 102, 104};
	struct sb_steady st;
	sb_steady_check(y, 5, 5, &st);
	assert_true(fabs(st.mean - 100) < 1e-9);
	assert_true(fabs(st.range - 8) < 1e-9);
	assert_true(fabs(st.slope - 2) < 1e-9);
	assert_false(sb_steady_check(y, 5, 1, &st));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_window),
	    cmocka_unit_test(test_figures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
