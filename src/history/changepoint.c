/* Change points by binary segmentation with a Welch test between the two
 * sides of each candidate split, each run weighted by its own interval.
 *
 * Why this method: a history is short (tens of runs), a run's figure has
 * its own uncertainty (its repeats) plus a between-run scatter (the machine
 * on that day), and the question is "did the level step, and at which run".
 * Binary segmentation answers it with one test per split that a reader can
 * check by hand (a two-sample t with the variance pooled over both sides): the split with the
 * largest |t| is taken when its p-value, multiplied by the number of splits tried (Bonferroni, so
 * that picking the best of many splits does not make noise look like a step), is below alpha; each
 * side is then searched again. Within a segment each run counts with the weight 1 / (its own
 * squared standard error + the segment's between-run variance), the random-effects weighting of a
 * meta-analysis (as asv weighs steps by measurement uncertainty): a run with a wide interval of its
 * own counts less, and when no run has one (single repeats) the weights are equal and the test is
 * plain Welch over the runs. A Bayesian step model or PELT would need a prior or a penalty that
 * nobody could justify per metric; this needs only alpha. */
#include "history/changepoint.h"
#include "result/stats.h"
#include "util/macro.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#ifndef SB_CP_SHRINK
#define SB_CP_SHRINK 2.0
#endif

struct seg {
	double mean; /* weighted mean */
	double v;    /* variance of that mean */
	size_t n;
};

/* The weighted mean of x[lo, hi) with weights 1 / (own variance + tau2). */
static struct seg seg_weighted(const struct sb_cp_point *x, size_t lo, size_t hi, double tau2)
{
	struct seg s = {.n = hi - lo};
	double m = 0, sw = 0, swm = 0, floor_v;

	for (size_t i = lo; i < hi; i++)
		m += x[i].mean;
	m /= (double)s.n;
	/* Identical figures have no variance: a floor far below any noise
	 * keeps the weights finite. */
	floor_v = 1e-18 * (m * m) + 1e-300;
	for (size_t i = lo; i < hi; i++) {
		double w = 1.0 / fmax(x[i].var + tau2, floor_v);
		sw += w;
		swm += w * x[i].mean;
	}
	s.mean = swm / sw;
	s.v = 1.0 / sw;
	return s;
}

/* The between-run variance of x[lo, hi) split at k (k == hi: not split):
 * what the runs' scatter about their own side's mean shows beyond their
 * own intervals (method of moments), pooled over both sides because a step
 * moves the level, not the noise. */
static double tau2_of(const struct sb_cp_point *x, size_t lo, size_t k, size_t hi)
{
	double ss = 0, own = 0;
	size_t groups = k < hi ? 2 : 1;
	size_t b[3] = {lo, k, hi};

	for (size_t g = 0; g < groups; g++) {
		double m = 0;
		for (size_t i = b[g]; i < b[g + 1]; i++)
			m += x[i].mean;
		m /= (double)(b[g + 1] - b[g]);
		for (size_t i = b[g]; i < b[g + 1]; i++)
			ss += (x[i].mean - m) * (x[i].mean - m);
	}
	for (size_t i = lo; i < hi; i++)
		own += x[i].var;
	own /= (double)(hi - lo);
	return hi - lo > groups ? fmax(0, ss / (double)(hi - lo - groups) - own) : 0;
}

static struct seg seg_of(const struct sb_cp_point *x, size_t lo, size_t hi)
{
	return seg_weighted(x, lo, hi, tau2_of(x, lo, hi, hi));
}

/* The t of a level shift at k by weighted least squares: the weights say
 * how precise each run is relative to the others, and the scale comes from
 * the residuals (n - 2 degrees of freedom), so that a run whose few repeats
 * happened to agree does not make the test overconfident, but never below
 * what the runs' own intervals say (see below); with equal
 * weights this is the two-sample t with the variance pooled over both
 * sides (a step moves the level, not the noise). p two-sided. */
static void split_test(const struct sb_cp_point *x, size_t lo, size_t k, size_t hi, double *t,
		       double *p, double *rel)
{
	double tau2 = tau2_of(x, lo, k, hi), phi = 0, floor_v;
	struct seg a = seg_weighted(x, lo, k, tau2), b = seg_weighted(x, k, hi, tau2);
	double df = (double)(hi - lo - 2);

	floor_v = 1e-18 * (a.mean * a.mean) + 1e-300;
	for (size_t i = lo; i < hi; i++) {
		double r = x[i].mean - (i < k ? a.mean : b.mean);
		phi += r * r / fmax(x[i].var + tau2, floor_v);
	}
	/* Never below 1 (the modified Hartung-Knapp-Sidik-Jonkman rule): runs
	 * whose means happen to agree better than their own intervals allow
	 * must not make the test more confident than those intervals do (12
	 * real runs, 3 of them agreeing within 2% while each spread +-30%, put
	 * a change point between them and the next 3). With single repeats
	 * phi is 1 anyway. */
	phi = fmax(phi / df, 1);
	*t = (b.mean - a.mean) / sqrt(phi * (a.v + b.v));
	*p = isfinite(*t) ? 2 * (1 - sb_t_cdf(fabs(*t), df)) : 0;
	*rel = a.mean != 0 ? fabs(b.mean - a.mean) / fabs(a.mean) : INFINITY;
}

static double split_p(const struct sb_cp_point *x, size_t lo, size_t k, size_t hi)
{
	double t, p, rel;
	split_test(x, lo, k, hi, &t, &p, &rel);
	return p;
}

/* The split of x[lo, hi) with the largest |t|. */
static size_t best_split(const struct sb_cp_point *x, size_t lo, size_t hi, size_t min_seg,
			 double *best_t, double *best_rel)
{
	size_t best = 0;

	*best_t = 0;
	*best_rel = 0;
	for (size_t k = lo + min_seg; k + min_seg <= hi; k++) {
		double t, p, rel;
		split_test(x, lo, k, hi, &t, &p, &rel);
		if (!best || fabs(t) > fabs(*best_t) || isnan(*best_t))
			best = k, *best_t = t, *best_rel = rel;
	}
	return best;
}

/* Binary segmentation of [lo, hi): marks the splits found. */
static void segment(const struct sb_cp_point *x, size_t lo, size_t hi, const struct sb_cp_opts *o,
		    bool *split, double *st, double *sp)
{
	double t, rel, p;
	size_t best;

	if (hi - lo < 2 * o->min_seg)
		return;
	best = best_split(x, lo, hi, o->min_seg, &t, &rel);
	if (!best || rel < o->min_change)
		return;
	/* Bonferroni over the splits tried: picking the best of them must not
	 * make noise look like a step. */
	p = split_p(x, lo, best, hi) * (double)(hi - lo - 2 * o->min_seg + 1);
	if (!(p < o->alpha))
		return;
	split[best] = true;
	st[best] = t;
	sp[best] = p;
	segment(x, lo, best, o, split, st, sp);
	segment(x, best, hi, o, split, st, sp);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of the runs' own variances (v: n doubles of scratch). */
static double median_var(const struct sb_cp_point *x, size_t n, double *v)
{
	for (size_t i = 0; i < n; i++)
		v[i] = x[i].var;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int sb_changepoints(const struct sb_cp_point *x, size_t n, const struct sb_cp_opts *opts,
		    struct sb_cp *out, size_t max)
{
	struct sb_cp_opts o = {SB_CP_ALPHA, SB_CP_MIN_CHANGE, SB_CP_MIN_SEG};
	size_t found = 0, start = 0;

	if (opts)
		o = *opts;
	if (o.min_seg < 2)
		o.min_seg = 2;
	if (!x && n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i].mean) || !(x[i].var >= 0))
			return -EINVAL;
	if (n == 0 || n < 2 * o.min_seg)
		return 0;
	/* On the heap: a history can be long. */
	_cleanup_free_ bool *split = calloc(n, sizeof(*split));
	_cleanup_free_ double *st = calloc(n, sizeof(*st)), *sp = calloc(n, sizeof(*sp));
	_cleanup_free_ struct sb_cp_point *y = calloc(n, sizeof(*y));
	_cleanup_free_ double *v = calloc(n, sizeof(*v));
	double own;

	if (!split || !st || !sp || !y || !v)
		return -ENOMEM;
	/* A run's interval from a few repeats is itself noisy (from 3 repeats
	 * one run in ten looks four times as precise as it is): each is drawn
	 * towards the sequence's median interval before it weighs, so that only
	 * a consistently wider or narrower one moves the weights much. The
	 * median, not the mean: one run with a wild interval must not widen
	 * every other's (with phi never below 1, that would hide a step). */
	own = median_var(x, n, v);
	for (size_t i = 0; i < n; i++) {
		y[i] = x[i];
		y[i].var = (x[i].var + SB_CP_SHRINK * own) / (1 + SB_CP_SHRINK);
		split[i] = false, st[i] = sp[i] = NAN;
	}
	x = y;
	segment(x, 0, n, &o, split, st, sp);

	/* Each change point against its neighbours in the final segmentation. */
	for (size_t i = 1; i <= n; i++) {
		if (i < n && !split[i])
			continue;
		if (start) {
			size_t prev = start, next = i;
			size_t before_lo = 0;
			for (size_t j = prev - 1; j > 0; j--)
				if (split[j]) {
					before_lo = j;
					break;
				}
			struct seg a = seg_of(x, before_lo, prev), b = seg_of(x, prev, next);
			if (found < max)
				out[found] = (struct sb_cp){
				    .index = prev,
				    .before = a.mean,
				    .after = b.mean,
				    .change_pct =
					a.mean != 0 ? 100 * (b.mean - a.mean) / fabs(a.mean) : NAN,
				    .t = st[prev],
				    .p = sp[prev],
				};
			found++;
		}
		start = i;
	}
	return (int)found;
}
