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

/* The alpha a sequential run may spend at one look, so that stopping at
 * whichever look first satisfies it keeps the overall false-alarm rate at
 * most alpha (`run --repeat auto`): looks after rounds first..max, the
 * share of alpha spent by round k is Lan-DeMets' Pocock-type function
 * alpha * ln(1 + (e - 1) * k / max), and a look gets what its round adds
 * (the first look all it has reached). By the union bound the looks'
 * alphas sum to at most alpha whatever the looks' correlation. look past
 * max counts as max; look below first, or first above max, is 0. */
double sb_alpha_spend(double alpha, size_t look, size_t first, size_t max);

/* Relative change of x against base, in percent; NaN when base is 0 or NaN. */
double sb_rel_change(double base, double x);

/* The rule used in reports: p < SB_STATS_ALPHA and n >= SB_STATS_MIN_N on both sides. */
bool sb_stats_significant(const struct sb_stats *a, const struct sb_stats *b,
			  const struct sb_welch *w);

/* Comparisons on the log scale: rates and times change by factors, and
 * their spread grows with their size, so a ratio is what is estimated.
 *
 * Paired (one result set, interleaved rounds): the log ratio of each round,
 * log(b_r / a_r), a Student t interval on their mean, and Wilcoxon's
 * signed-rank test as the check where those ratios are far from normal
 * (sample skewness beyond twice its standard error, sqrt(6/n), with at least
 * SB_PAIRED_RANK_MIN rounds): then the rank test's p-value decides. A slow
 * stretch of the host slows both sides of a round and cancels.
 *
 * Unpaired (sets that did not run together): Welch's t on the logarithms.
 *
 * Values that are not all positive cannot be logged: the same tests on the
 * raw differences are used, and the test says so. */
enum sb_test {
	SB_TEST_NONE = 0,      /* not tested */
	SB_TEST_PAIRED_LOG,    /* paired t on per-round log ratios */
	SB_TEST_RANK_LOG,      /* Wilcoxon signed rank on per-round log ratios */
	SB_TEST_WELCH_LOG,     /* Welch's t on the logarithms */
	SB_TEST_PAIRED_DIFF,   /* paired t on per-round differences (values not all > 0) */
	SB_TEST_WELCH,	       /* Welch's t on the raw values (values not all > 0) */
	SB_TEST_CROSSOVER_LOG, /* t of the crossover fit (crossover.h): log figure ~
				  variant + stack + round, side by side */
};
#define SB_PAIRED_RANK_MIN 6
/* "paired-t-log", "signed-rank-log", "welch-log", "paired-t", "welch",
 * "crossover-t-log", "none" */
const char *sb_test_name(enum sb_test t);
/* Whether the test pairs rounds. */
bool sb_test_paired(enum sb_test t);

struct sb_cmp {
	enum sb_test test;
	size_t n;	       /* pairs (paired), or the smaller side (unpaired) */
	double change, lo, hi; /* b against a in percent, with its 1 - alpha interval */
	double mde;	       /* smallest detectable change (percent, at the power) */
	double p;	       /* two-sided p-value of the test used */
	double p_t, p_rank;    /* of the t test and of the signed-rank test (paired) */
	double spread;	       /* sd of the log ratios (paired), or of the logs
				  (unpaired, pooled); raw tests: sd relative to the
				  baseline mean */
	double se, df;	       /* the estimate's standard error (log or relative
				  scale) and the t test's degrees of freedom */
};
/* Every figure of c not known (NaN): the state before a comparison. */
void sb_cmp_clear(struct sb_cmp *c);

/* Paired comparison of b[i] against a[i], i < n (NaN pairs skipped).
 * Returns 0, or -EDOM when fewer than 2 pairs remain (fields NaN). */
int sb_cmp_paired(const double *a, const double *b, size_t n, double alpha, double power,
		  struct sb_cmp *out);
/* Unpaired comparison of b (nb values) against a (na values), NaN skipped. */
int sb_cmp_welch(const double *a, size_t na, const double *b, size_t nb, double alpha, double power,
		 struct sb_cmp *out);
/* The smallest change (percent) c's test detects with the given power at
 * alpha: (t(1 - alpha/2, df) + t(power, df)) * se on c's scale. mde holds
 * it at the alpha c was computed with (unadjusted); a report asks it at the
 * alpha its correction demands of one row, which is what the row can
 * actually mark. NaN when c has no standard error. */
double sb_cmp_mde(const struct sb_cmp *c, double alpha, double power);
/* Two-sided p-value of Wilcoxon's signed-rank test of d (NaN and zeros
 * dropped): exact for up to 30 values without ties, else the normal
 * approximation with the tie correction. NaN when nothing is left. */
double sb_signed_rank_p(const double *d, size_t n);
/* The repeats (pairs, or repeats a side when unpaired) that would resolve a
 * change of delta_pct percent at the given alpha (already adjusted for the
 * correction) and power, from c's spread: the smallest n with
 * (t(1 - alpha/2, df) + t(power, df)) * spread * sqrt(k / n) <= log(1 + delta),
 * k = 1 paired, 2 unpaired (n ~ 16 (CV / delta)^2 at alpha 0.05 unpaired).
 * 0 when c has no spread; SB_CMP_N_MAX + 1 when more than that. */
#define SB_CMP_N_MAX 1000
size_t sb_cmp_repeats_needed(const struct sb_cmp *c, double delta_pct, double alpha, double power);
