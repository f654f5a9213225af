/* --repeat auto: the spread of a variant's headline metrics decides whether
 * it needs another repeat (src/result/result.c); the RSE is still reported.
 * RSE = stdev / sqrt(n) / |mean|; e.g. [100 101 102]: 1 / sqrt(3) / 101 =
 * 0.0057163393; [100 150 120]: 25.166 / sqrt(3) / 123.33 = 0.11780808
 * (python3: statistics.stdev). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "result/result.h"

#include <math.h>
#include <string.h>

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
#define ABSENT -1.0

static void test_repeat_auto(void **state)
{
	static const struct {
		const char *what;
		double iops[5]; /* headline: IOPS, higher is better; ABSENT: not measured */
		double cpu[5];	/* %CPU: never a headline */
		double info[5]; /* better "none": never a headline */
		size_t n, cap;
		bool more;
		double rse; /* NAN: undefined */
	} cases[] = {
	    {"stable", {100, 101, 102}, {5, 50, 90}, {1, 900, 3}, 3, 10, false, 0.0057163392989},
	    {"noisy", {100, 150, 120}, {5, 5, 5}, {0, 0, 0}, 3, 10, true, 0.1178080795552},
	    {"noisy at the cap",
	     {100, 150, 120},
	     {5, 5, 5},
	     {0, 0, 0},
	     3,
	     3,
	     false,
	     0.1178080795552},
	    {"too few", {100, 100}, {5, 5}, {0, 0}, 2, 10, true, 0},
	    {"one", {100}, {5}, {0}, 1, 10, true, NAN},
	    {"absent once",
	     {100, ABSENT, 101, 102},
	     {5, 5, 5, 5},
	     {0, 0, 0, 0},
	     4,
	     10,
	     false,
	     0.0057163392989},
	    {"constant zero", {0, 0, 0}, {5, 5, 5}, {0, 0, 0}, 3, 10, false, 0},
	};
	for (size_t i = 0; i < N_OF(cases); i++) {
		struct sb_resultset *rs = sb_resultset_new("run");
		struct sb_variant *v = sb_resultset_variant(rs, "A", NULL);
		const char *spec = NULL, *metric = NULL;
		for (size_t k = 0; k < cases[i].n; k++) {
			struct sb_wl_result *w = sb_wl_result_new("rand", "rand:4k");
			if (cases[i].iops[k] != ABSENT)
				sb_wl_add_metric(w, "read_iops", "IOPS", SB_BETTER_HIGHER,
						 cases[i].iops[k]);
			sb_wl_add_metric(w, "read_cpu", "%CPU", SB_BETTER_LOWER, cases[i].cpu[k]);
			sb_wl_add_metric(w, "size", "MB", SB_BETTER_NONE, cases[i].info[k]);
			assert_int_equal(sb_variant_add_repeat(v, (unsigned)k, &w, 1), 0);
		}
		double rse = sb_variant_max_rse(v, &spec, &metric);
		if (isnan(cases[i].rse) ? !isnan(rse) : !(fabs(rse - cases[i].rse) < 1e-6))
			fail_msg("%s: rse %g, want %g", cases[i].what, rse, cases[i].rse);
		if (sb_variant_needs_repeat(v, cases[i].cap) != cases[i].more)
			fail_msg("%s: needs_repeat %d", cases[i].what, !cases[i].more);
		if (!isnan(rse) && rse > 0)
			assert_string_equal(metric, "read_iops");
		sb_resultset_free(rs);
	}
}

/* A command's wall time is its headline; its user and sys times (often
 * near zero, so with a huge relative error) are not. */
static void test_command_headline(void **state)
{
	static const double wall[] = {0.30, 0.301, 0.299}, user[] = {0.001, 0, 0.004};
	struct sb_resultset *rs = sb_resultset_new("run");
	struct sb_variant *v = sb_resultset_variant(rs, "A", NULL);
	const char *metric = NULL;
	for (size_t k = 0; k < N_OF(wall); k++) {
		struct sb_wl_result *w = sb_wl_result_new("command", "command:sleep 0.3");
		sb_wl_add_metric(w, "wall", "s", SB_BETTER_LOWER, wall[k]);
		sb_wl_add_metric(w, "user", "s", SB_BETTER_LOWER, user[k]);
		sb_wl_add_metric(w, "sys", "s", SB_BETTER_LOWER, user[k]);
		assert_int_equal(sb_variant_add_repeat(v, (unsigned)k, &w, 1), 0);
	}
	/* python3: stdev([.3, .301, .299]) / sqrt(3) / .3 = 0.0019245 */
	assert_true(fabs(sb_variant_max_rse(v, NULL, &metric) - 0.0019245009) < 1e-8);
	assert_string_equal(metric, "wall");
	assert_false(sb_variant_needs_repeat(v, 10));
	sb_resultset_free(rs);
}

/* --repeat auto stops on the interval of a difference, not on the RSE:
 * half-width t(0.975, 2n - 2) * sd * sqrt(2 / n) / |mean| < 5%
 * (python3 + mpmath): [100 101 102] 0.0224451281 stops; [100 104 108] has
 * an RSE of 2.2% (below the old 2.5% rule, which stopped there) but a
 * half-width of 8.7%, so it goes on. */
static void test_repeat_halfwidth(void **state)
{
	static const struct {
		double v[6];
		size_t n;
		double hw;
		bool more;
	} cases[] = {
	    {{100, 101, 102}, 3, 0.0224451280745299, false},
	    {{100, 104, 108}, 3, 0.0871906898279815, true},
	    {{5, 5, 5}, 3, 0, false},
	};
	for (size_t i = 0; i < N_OF(cases); i++) {
		struct sb_resultset *rs = sb_resultset_new("run");
		struct sb_variant *v = sb_resultset_variant(rs, "A", NULL);
		for (size_t k = 0; k < cases[i].n; k++) {
			struct sb_wl_result *w = sb_wl_result_new("rand", "rand:4k");
			sb_wl_add_metric(w, "read_mbs", "MB/s", SB_BETTER_HIGHER, cases[i].v[k]);
			assert_int_equal(sb_variant_add_repeat(v, (unsigned)k, &w, 1), 0);
		}
		double hw = sb_variant_max_diff_halfwidth(v, NULL, NULL);
		if (!(fabs(hw - cases[i].hw) < 1e-9))
			fail_msg("case %zu: half-width %.12g, want %.12g", i, hw, cases[i].hw);
		assert_int_equal(sb_variant_needs_repeat(v, 10), cases[i].more);
		sb_resultset_free(rs);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_repeat_auto),
					   cmocka_unit_test(test_command_headline),
					   cmocka_unit_test(test_repeat_halfwidth)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
