/* Statistics (src/result/stats.c) against independently computed values.
 *
 * Reference values: Student t 97.5% quantiles agree with the NIST/SEMATECH
 * e-Handbook table 1.3.6.7.2 (12.706, 4.303, 2.571, 2.228, 2.042, 1.984) and
 * were computed to 17 digits with python3 + mpmath by integrating the t
 * density numerically (mp.quad) and solving with mp.findroot, a method
 * independent of the incomplete-beta code under test. The three Welch data
 * sets are the worked examples of the Wikipedia article "Welch's t-test"
 * (t = -2.46, df = 25.0, p = 0.021; t = -1.57, df = 9.9, p = 0.149;
 * t = -2.22, p = 0.036); the exact figures below come from the same python
 * script (statistics.mean/stdev/variance, the same density integration). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "result/stats.h"

#include <errno.h>
#include <math.h>

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static void near(double got, double want, double rel, const char *what, double arg1, double arg2)
{
	double tol = rel * fmax(1, fabs(want));
	if (!(fabs(got - want) <= tol))
		fail_msg("%s(%g, %g): got %.17g, want %.17g", what, arg1, arg2, got, want);
}

static void test_t_quantile(void **state)
{
	static const struct {
		double df, want;
	} cases[] = {
	    {1, 12.706204736174705},   {2, 4.3026527297494639},	   {3, 3.1824463052837096},
	    {4, 2.7764451051977944},   {5, 2.5705818356363155},	   {9, 2.2621571627982055},
	    {10, 2.2281388519862747},  {30, 2.0422724563012383},   {100, 1.9839715185235523},
	    {2.5, 3.5746548420036832}, {25.0, 2.0595385527532977},
	};
	for (size_t i = 0; i < N_OF(cases); i++) {
		near(sb_t_quantile(0.975, cases[i].df), cases[i].want, 1e-12, "t_quantile", 0.975,
		     cases[i].df);
		/* symmetry */
		near(sb_t_quantile(0.025, cases[i].df), -cases[i].want, 1e-12, "t_quantile", 0.025,
		     cases[i].df);
	}
	/* large df tends to the normal quantile 1.959963984540054 */
	near(sb_t_quantile(0.975, 1e7), 1.959963984540054, 1e-6, "t_quantile", 0.975, 1e7);
	assert_true(sb_t_quantile(0.5, 3) == 0);
	assert_true(isnan(sb_t_quantile(0.975, 0)));
	assert_true(isnan(sb_t_quantile(1.5, 3)));
}

static void test_t_cdf(void **state)
{
	static const struct {
		double t, df, want;
	} cases[] = {
	    {2.0, 5, 0.94903026058507082},
	    {1.0, 1, 0.75},
	    {-1.5, 3, 0.11529193262241153},
	    {3.0, 10, 0.99332817248871521},
	    {0.5, 2.5, 0.67115104006514266},
	    {6.0, 4, 0.99805873147651974},
	    {0, 7, 0.5},
	};
	for (size_t i = 0; i < N_OF(cases); i++)
		near(sb_t_cdf(cases[i].t, cases[i].df), cases[i].want, 1e-13, "t_cdf", cases[i].t,
		     cases[i].df);
	/* I_x(1, 1) = x and I_x(a, b) = 1 - I_{1-x}(b, a) */
	near(sb_betainc(1, 1, 0.3), 0.3, 1e-14, "betainc", 1, 1);
	near(sb_betainc(2.5, 0.5, 0.8) + sb_betainc(0.5, 2.5, 0.2), 1, 1e-14, "betainc", 2.5, 0.5);
}

static const double wa1[] = {27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1,
			     21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4};
static const double wa2[] = {27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0,
			     24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4};
static const double wb1[] = {17.2, 20.9, 22.6, 18.1, 21.7, 21.4, 23.5, 24.2, 14.7, 21.8};
static const double wb2[] = {21.5, 22.8, 21.0, 23.0, 21.6, 23.6, 22.5, 20.7, 23.4, 21.8,
			     20.7, 21.7, 21.5, 22.5, 23.6, 21.5, 22.5, 23.5, 21.5, 21.8};
static const double wc1[] = {19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3, 18.9, 19.5, 22.0};
static const double wc2[] = {28.2, 26.6, 20.1, 23.3, 25.2, 22.1, 17.7, 27.6, 20.6, 13.7,
			     23.2, 17.5, 20.6, 18.0, 23.9, 21.6, 24.3, 20.4, 23.9, 13.3};

static void test_welch(void **state)
{
	static const struct {
		const double *a, *b;
		size_t na, nb;
		double mean_a, sd_a, ci_a, t, df, p;
		bool significant;
	} cases[] = {
	    {wa1, wa2, N_OF(wa1), N_OF(wa2), 20.82, 2.804893682731767, 1.55329834754876,
	     2.45535639829, 24.98852929023142, 0.0213780014629, true},
	    {wb1, wb2, N_OF(wb1), N_OF(wb2), 20.61, 3.0068255686022094, 2.15095343554876,
	     1.5654335236, 9.904741248650831, 0.148841696605, false},
	    {wc1, wc2, N_OF(wc1), N_OF(wc2), 19.37, 1.2037441588643327, 0.86110669706545,
	     2.22551203997, 24.524634944257343, 0.03548453083, true},
	};
	for (size_t i = 0; i < N_OF(cases); i++) {
		struct sb_stats a, b;
		struct sb_welch w;
		assert_int_equal(sb_stats_compute(cases[i].a, cases[i].na, &a), cases[i].na);
		assert_int_equal(sb_stats_compute(cases[i].b, cases[i].nb, &b), cases[i].nb);
		near(a.mean, cases[i].mean_a, 1e-12, "mean", i, 0);
		near(a.stdev, cases[i].sd_a, 1e-12, "stdev", i, 0);
		near(a.ci95, cases[i].ci_a, 1e-10, "ci95", i, 0);
		assert_int_equal(sb_welch_test(&a, &b, &w), 0);
		near(w.t, cases[i].t, 1e-9, "welch t", i, 0);
		near(w.df, cases[i].df, 1e-9, "welch df", i, 0);
		near(w.p, cases[i].p, 1e-9, "welch p", i, 0);
		assert_int_equal(sb_stats_significant(&a, &b, &w), cases[i].significant);
		/* swapping the sides flips t, keeps p */
		assert_int_equal(sb_welch_test(&b, &a, &w), 0);
		near(w.t, -cases[i].t, 1e-9, "welch -t", i, 0);
		near(w.p, cases[i].p, 1e-9, "welch p swapped", i, 0);
	}
}

static void test_summary(void **state)
{
	/* python3: statistics.stdev([2,4,4,4,5,5,7,9]) = 2.138089935299395;
	 * ci = 2.3646242515927849 (t 0.975, df 7) * sd / sqrt(8) */
	static const double x[] = {2, 4, 4, NAN, 4, 5, 5, 7, 9};
	struct sb_stats s;
	assert_int_equal(sb_stats_compute(x, N_OF(x), &s), 8);
	near(s.mean, 5, 1e-15, "mean", 0, 0);
	near(s.stdev, 2.138089935299395, 1e-14, "stdev", 0, 0);
	near(s.min, 2, 0, "min", 0, 0);
	near(s.max, 9, 0, "max", 0, 0);
	near(s.ci95, 2.3646242515927849 * 2.138089935299395 / sqrt(8), 1e-12, "ci95", 0, 0);
	near(s.rse, 2.138089935299395 / sqrt(8) / 5, 1e-14, "rse", 0, 0);

	/* large values close together: a one-pass variance would lose them */
	static const double big[] = {1e9 + 1, 1e9 + 2, 1e9 + 3};
	sb_stats_compute(big, 3, &s);
	near(s.stdev, 1, 1e-9, "stdev big", 0, 0);

	/* one value: mean, no spread */
	static const double one[] = {42};
	assert_int_equal(sb_stats_compute(one, 1, &s), 1);
	near(s.mean, 42, 0, "mean one", 0, 0);
	assert_true(isnan(s.stdev) && isnan(s.ci95) && isnan(s.rse));
	assert_int_equal(sb_stats_compute(NULL, 0, &s), 0);
	assert_true(isnan(s.mean));
}

static void test_rules(void **state)
{
	static const struct {
		double a[4], b[4];
		size_t na, nb;
		int rc;
		bool significant;
	} cases[] = {
	    /* clear effect but only 2 repeats a side: never significant */
	    {{100, 101}, {200, 201}, 2, 2, 0, false},
	    {{100, 101, 102}, {200, 201, 202}, 3, 3, 0, true},
	    /* identical constant sides: p = 1 */
	    {{5, 5, 5}, {5, 5, 5}, 3, 3, 0, false},
	    /* constant but different: certain */
	    {{5, 5, 5}, {6, 6, 6}, 3, 3, 0, true},
	    /* overlapping noise */
	    {{10, 12, 11, 9}, {11, 10, 12, 10}, 4, 4, 0, false},
	    {{10}, {11, 12, 13}, 1, 3, -EDOM, false},
	};
	for (size_t i = 0; i < N_OF(cases); i++) {
		struct sb_stats a, b;
		struct sb_welch w;
		sb_stats_compute(cases[i].a, cases[i].na, &a);
		sb_stats_compute(cases[i].b, cases[i].nb, &b);
		if (sb_welch_test(&a, &b, &w) != cases[i].rc)
			fail_msg("case %zu: rc", i);
		if (sb_stats_significant(&a, &b, &w) != cases[i].significant)
			fail_msg("case %zu: significant %d, p %g", i, !cases[i].significant, w.p);
	}

	static const struct {
		double base, x, want;
	} ch[] = {{100, 110, 10}, {100, 90, -10}, {-50, -25, 50}, {200, 200, 0}};
	for (size_t i = 0; i < N_OF(ch); i++)
		near(sb_rel_change(ch[i].base, ch[i].x), ch[i].want, 1e-14, "rel_change",
		     ch[i].base, ch[i].x);
	assert_true(isnan(sb_rel_change(0, 5)));
	assert_true(isnan(sb_rel_change(NAN, 5)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_t_quantile), cmocka_unit_test(test_t_cdf),
	    cmocka_unit_test(test_welch),      cmocka_unit_test(test_summary),
	    cmocka_unit_test(test_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
