/* Statistics for comparing variants: summaries with Student-t confidence
 * intervals, Welch's t-test, relative change and relative standard error.
 * Pure functions, no I/O; unit-tested in tests/unit/test_stats.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* A difference is called significant only below this p-value and with at
 * least SB_STATS_MIN_N repeats on each side. */
#define SB_STATS_ALPHA 0.05
#define SB_STATS_MIN_N 3

struct sb_stats {
	size_t n;
	double mean;
	double stdev; /* sample standard deviation (n - 1); NaN when n < 2 */
	double min, max;
	double ci95; /* half-width of the 95% confidence interval of the mean; NaN when n < 2 */
	double rse;  /* relative standard error: stdev / sqrt(n) / |mean|; NaN when undefined */
};

struct sb_welch {
	double t;  /* (mean_b - mean_a) / standard error of the difference */
	double df; /* Welch-Satterthwaite degrees of freedom */
	double p;  /* two-sided p-value; NaN when it cannot be computed (n < 2) */
};

/* Summary of n values; NaN values are skipped (a repeat that did not
 * produce the metric). Returns the number of values used. */
size_t sb_stats_compute(const double *x, size_t n, struct sb_stats *out);

/* Regularized incomplete beta function I_x(a, b), a, b > 0, 0 <= x <= 1. */
double sb_betainc(double a, double b, double x);
/* Student t distribution with df > 0 degrees of freedom (df need not be an
 * integer): the cumulative distribution function, and its inverse. */
double sb_t_cdf(double t, double df);
double sb_t_quantile(double p, double df);

/* Welch's unequal-variances t-test of b against a. Returns 0, or -EDOM when
 * either side has fewer than 2 values (out->p is then NaN). */
int sb_welch_test(const struct sb_stats *a, const struct sb_stats *b, struct sb_welch *out);

/* The difference b - a with its confidence interval at 1 - alpha (Welch's
 * t, Welch-Satterthwaite df), and the smallest true difference the test
 * would detect with the given power (two-sided, at alpha):
 *   mde = (t(1 - alpha/2, df) + t(power, df)) * se.
 * Fields are NaN when either side has fewer than 2 values. */
struct sb_diff {
	double diff, lo, hi, mde;
};
int sb_diff_compute(const struct sb_stats *a, const struct sb_stats *b, double alpha, double power,
		    struct sb_diff *out);
#define SB_STATS_POWER 0.8

/* Adjusted p-values of a family of n tests (NaN entries are not part of
 * the family and stay NaN): Holm's step-down (family-wise error) when bh is
 * false, Benjamini-Hochberg's step-up (false discovery rate) when true. */
int sb_p_adjust_holm(const double *p, size_t n, double *adj);
int sb_p_adjust_bh(const double *p, size_t n, double *adj);

/* Relative change of x against base, in percent; NaN when base is 0 or NaN. */
double sb_rel_change(double base, double x);

/* The rule used in reports: p < SB_STATS_ALPHA and n >= SB_STATS_MIN_N on both sides. */
bool sb_stats_significant(const struct sb_stats *a, const struct sb_stats *b,
			  const struct sb_welch *w);
