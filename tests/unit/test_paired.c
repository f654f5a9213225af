/* Paired and log-scale comparisons (src/result/stats.c): the signed-rank
 * test against hand-counted exact cases, and synthetic result sets from a
 * fixed seed: with round-level drift (the host slows both sides of a round)
 * the paired test resolves a 5% change that Welch cannot, and A/A reports
 * (several headline rows, Holm) raise a false alarm at most 5% of the time,
 * with normal and with heavy-tailed rounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/report.h"
#include "result/stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static double unif(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2 * log(unif())) * cos(2 * M_PI * unif());
}

/* Exact tails counted by hand: k = 5, all positive: W- = 0, 1 subset of 32,
 * p = 2/32; k = 6 with W- = 2 ({2}, {1}... the subsets of 1..6 summing to
 * at most 2: {}, {1}, {2}), p = 2 * 3/64. */
static void test_signed_rank(void **state)
{
	static const struct {
		double d[8];
		size_t n;
		double p;
	} cases[] = {
	    {{1, 2, 3, 4, 5}, 5, 2.0 / 32},
	    {{-1, -2, -3, -4, -5}, 5, 2.0 / 32},
	    {{1, -2, 3, 4, 5, 6}, 6, 6.0 / 64},
	    {{1, -1}, 2, 1},
	    {{0, 0, NAN}, 3, NAN},
	    /* zeros dropped: as {1, 2, 3, 4, 5} */
	    {{0, 1, 2, 3, 4, 5}, 6, 2.0 / 32},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double p = sb_signed_rank_p(cases[i].d, cases[i].n);
		if (isnan(cases[i].p))
			assert_true(isnan(p));
		else
			assert_true(fabs(p - cases[i].p) < 1e-12);
	}
	/* ties: the normal approximation, symmetric data gives p near 1 */
	double t[] = {1, 1, -1, -1, 2, -2, 2, -2};
	assert_true(sb_signed_rank_p(t, 8) > 0.9);
}

static void test_exact_ratio(void **state)
{
	double a[] = {100, 200, 300}, b[] = {90, 180, 270};
	struct sb_cmp c;
	assert_int_equal(sb_cmp_paired(a, b, 3, 0.05, 0.8, &c), 0);
	assert_int_equal(c.test, SB_TEST_PAIRED_LOG);
	assert_true(fabs(c.change + 10) < 1e-9 && c.p == 0 && c.spread < 1e-12);
	/* unpaired, the rounds' spread hides it; on the log scale the -10% is
	 * still a factor */
	assert_int_equal(sb_cmp_welch(a, 3, b, 3, 0.05, 0.8, &c), 0);
	assert_int_equal(c.test, SB_TEST_WELCH_LOG);
	assert_true(fabs(c.change + 10) < 1e-9 && c.p > 0.5);
	/* a zero cannot be logged: raw differences */
	double z[] = {0, 1, 2}, z2[] = {1, 2, 3};
	assert_int_equal(sb_cmp_paired(z, z2, 3, 0.05, 0.8, &c), 0);
	assert_int_equal(c.test, SB_TEST_PAIRED_DIFF);
	assert_int_equal(sb_cmp_paired(a, b, 1, 0.05, 0.8, &c), -EDOM);
	assert_true(isnan(c.p));
}

/* n ~ 16 (CV / delta)^2 before correction: CV 10%, delta 5% -> about 64 a
 * side unpaired; paired with the same spread of ratios, half. A stricter
 * alpha (the correction) needs more. */
static void test_repeats_needed(void **state)
{
	struct sb_cmp c = {.test = SB_TEST_WELCH_LOG, .spread = 0.1};
	size_t n = sb_cmp_repeats_needed(&c, 5, 0.05, 0.8);
	assert_true(n >= 60 && n <= 75);
	c.test = SB_TEST_PAIRED_LOG;
	size_t np = sb_cmp_repeats_needed(&c, 5, 0.05, 0.8);
	assert_true(np >= 30 && np <= 38);
	assert_true(sb_cmp_repeats_needed(&c, 5, 0.05 / 4, 0.8) > np);
	c.spread = 0;
	assert_int_equal(sb_cmp_repeats_needed(&c, 5, 0.05, 0.8), 0);
	c.spread = NAN;
	assert_int_equal(sb_cmp_repeats_needed(&c, 5, 0.05, 0.8), SB_CMP_N_MAX + 1);
}

#define ROUNDS 5
/* One round's values of baseline and candidate: a drift shared by the round
 * (sd 15%), each run's own noise (sd 1%), heavy: now and then (1 in 8) a
 * run 10% off on its own. */
static void round_pair(double change, bool heavy, double *a, double *b)
{
	double drift = exp(0.15 * gauss());
	*a = 1000 * drift * exp(0.01 * gauss());
	*b = 1000 * (1 + change) * drift * exp(0.01 * gauss());
	if (heavy && unif() < 0.125)
		*b *= unif() < 0.5 ? 0.9 : 1.1;
}

static void test_drift_paired_vs_welch(void **state)
{
	size_t paired = 0, welch = 0, trials = 400;
	for (size_t t = 0; t < trials; t++) {
		double a[ROUNDS], b[ROUNDS];
		struct sb_cmp p, w;
		for (size_t r = 0; r < ROUNDS; r++)
			round_pair(-0.05, false, &a[r], &b[r]);
		sb_cmp_paired(a, b, ROUNDS, 0.05, 0.8, &p);
		sb_cmp_welch(a, ROUNDS, b, ROUNDS, 0.05, 0.8, &w);
		paired += p.p < 0.05;
		welch += w.p < 0.05;
		if (t == 0)
			print_message("drift: paired mde %.1f%%, welch mde %.1f%%\n", p.mde, w.mde);
	}
	print_message("5%% change under 15%% round drift, %zu trials: paired %zu, welch %zu\n",
		      trials, paired, welch);
	assert_true(paired >= trials * 95 / 100);
	assert_true(welch <= trials * 15 / 100);
}

/* A/A reports of 4 headline rows each, Holm over them: a report is a false
 * alarm when any row is marked. At most 5% (with two standard errors of
 * the simulation's own sampling, 0.7% at 4000 reports). */
static void aa_rate(bool heavy, bool paired)
{
	size_t reports = 4000, alarms = 0;
	for (size_t t = 0; t < reports; t++) {
		double p[4], adj[4];
		for (size_t row = 0; row < 4; row++) {
			double a[ROUNDS], b[ROUNDS];
			struct sb_cmp c;
			for (size_t r = 0; r < ROUNDS; r++)
				round_pair(0, heavy, &a[r], &b[r]);
			if (paired)
				sb_cmp_paired(a, b, ROUNDS, 0.05, 0.8, &c);
			else
				sb_cmp_welch(a, ROUNDS, b, ROUNDS, 0.05, 0.8, &c);
			p[row] = c.p;
		}
		sb_p_adjust_holm(p, 4, adj);
		bool any = false;
		for (size_t row = 0; row < 4; row++)
			any |= adj[row] < 0.05;
		alarms += any;
	}
	double rate = (double)alarms / (double)reports;
	print_message("A/A %s%s: %zu of %zu reports marked (%.2f%%)\n",
		      paired ? "paired" : "welch-log", heavy ? ", heavy-tailed rounds" : "", alarms,
		      reports, 100 * rate);
	assert_true(rate <= 0.05 + 2 * sqrt(0.05 * 0.95 / (double)reports));
}

static void test_aa_false_alarms(void **state)
{
	aa_rate(false, true);
	aa_rate(true, true);
	aa_rate(false, false);
}

static void test_alpha_spend(void **state)
{
	double sum = 0;
	for (size_t k = 3; k <= 10; k++)
		sum += sb_alpha_spend(0.05, k, 3, 10);
	assert_float_equal(sum, 0.05, 1e-12);
	/* Pocock-type: the first look (3 of 10) 0.05 ln(1 + 0.3 (e - 1)) */
	assert_float_equal(sb_alpha_spend(0.05, 3, 3, 10), 0.05 * log(1 + 0.3 * (M_E - 1)), 1e-12);
	assert_true(sb_alpha_spend(0.05, 4, 3, 10) < sb_alpha_spend(0.05, 3, 3, 10));
	assert_float_equal(sb_alpha_spend(0.05, 12, 3, 10), sb_alpha_spend(0.05, 10, 3, 10), 1e-15);
	assert_float_equal(sb_alpha_spend(0.05, 2, 3, 10), 0, 0);
	assert_float_equal(sb_alpha_spend(0.05, 3, 3, 3), 0.05, 1e-12);
	assert_float_equal(sb_alpha_spend(0.05, 3, 4, 3), 0, 0);
}

/* --repeat auto as an adversary would stop it: after each round from the
 * third to the tenth, 4 headline rows (Holm), stopping at the first look
 * that marks any row. At the full alpha at every look the A/A false
 * alarms pass 5%; at the alpha each look may spend they stay under it. */
static double aa_sequential(bool spend)
{
	size_t reports = 2000, alarms = 0;
	enum { MAXR = 10, ROWS = 4 };
	for (size_t t = 0; t < reports; t++) {
		double a[ROWS][MAXR], b[ROWS][MAXR];
		for (size_t row = 0; row < ROWS; row++)
			for (size_t r = 0; r < MAXR; r++)
				round_pair(0, false, &a[row][r], &b[row][r]);
		bool any = false;
		for (size_t look = 3; look <= MAXR && !any; look++) {
			double alpha = spend ? sb_alpha_spend(0.05, look, 3, MAXR) : 0.05;
			double p[ROWS], adj[ROWS];
			for (size_t row = 0; row < ROWS; row++) {
				struct sb_cmp c;
				sb_cmp_paired(a[row], b[row], look, alpha, 0.8, &c);
				p[row] = c.p;
			}
			sb_p_adjust_holm(p, ROWS, adj);
			for (size_t row = 0; row < ROWS; row++)
				any |= adj[row] < alpha;
		}
		alarms += any;
	}
	double rate = (double)alarms / (double)reports;
	print_message("A/A, looks after rounds 3..10, %s: %zu of %zu runs marked (%.2f%%)\n",
		      spend ? "alpha spent per look" : "full alpha at every look", alarms, reports,
		      100 * rate);
	return rate;
}

static void test_aa_sequential(void **state)
{
	double se = 2 * sqrt(0.05 * 0.95 / 2000);
	assert_true(aa_sequential(false) > 0.05 + se);
	assert_true(aa_sequential(true) <= 0.05 + se);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_signed_rank),	    cmocka_unit_test(test_exact_ratio),
	    cmocka_unit_test(test_repeats_needed),  cmocka_unit_test(test_drift_paired_vs_welch),
	    cmocka_unit_test(test_aa_false_alarms), cmocka_unit_test(test_alpha_spend),
	    cmocka_unit_test(test_aa_sequential),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
