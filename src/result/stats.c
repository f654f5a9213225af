/* See stats.h. The Student t distribution is computed exactly (to double
 * precision) through the regularized incomplete beta function, evaluated by
 * its continued fraction with the modified Lentz method (Numerical Recipes
 * 3rd ed., 6.4; DLMF 8.17.22); quantiles are found by bisection on that CDF,
 * so no table or normal approximation limits the accuracy for small n. */
#include "result/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

size_t sb_stats_compute(const double *x, size_t n, struct sb_stats *out)
{
	size_t k = 0;
	double sum = 0, ss = 0, min = INFINITY, max = -INFINITY;

	for (size_t i = 0; i < n; i++) {
		if (isnan(x[i]))
			continue;
		k++;
		sum += x[i];
		min = fmin(min, x[i]);
		max = fmax(max, x[i]);
	}
	*out = (struct sb_stats){
	    .n = k, .mean = NAN, .stdev = NAN, .min = NAN, .max = NAN, .ci95 = NAN, .rse = NAN};
	if (k == 0)
		return 0;
	out->mean = sum / (double)k;
	out->min = min;
	out->max = max;
	if (k < 2)
		return k;
	/* Two passes: the one-pass sum of squares loses everything when the
	 * values are large and close together (throughputs in KB/s). */
	for (size_t i = 0; i < n; i++)
		if (!isnan(x[i]))
			ss += (x[i] - out->mean) * (x[i] - out->mean);
	out->stdev = sqrt(ss / (double)(k - 1));
	double se = out->stdev / sqrt((double)k);
	out->ci95 = sb_t_quantile(0.975, (double)(k - 1)) * se;
	if (out->mean != 0)
		out->rse = se / fabs(out->mean);
	return k;
}

/* Continued fraction of I_x(a, b), good for x < (a + 1) / (a + b + 2). */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-16;
	double qab = a + b, qap = a + 1, qam = a - 1;
	double c = 1, d = 1 - qab * x / qap, h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 100000; m++) {
		double m2 = 2.0 * m, aa, del;
		aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

double sb_betainc(double a, double b, double x)
{
	if (isnan(x) || isnan(a) || isnan(b) || a <= 0 || b <= 0 || x < 0 || x > 1)
		return NAN;
	if (x == 0 || x == 1)
		return x;
	double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	/* The fraction converges fast only on one side of the mean; use the
	 * symmetry I_x(a, b) = 1 - I_{1-x}(b, a) on the other. */
	if (x < (a + 1) / (a + b + 2))
		return front * betacf(a, b, x) / a;
	return 1 - front * betacf(b, a, 1 - x) / b;
}

/* P(T > t) for t >= 0, computed without the cancellation of 1 - cdf. */
static double t_upper_tail(double t, double df)
{
	if (isinf(t))
		return 0;
	return 0.5 * sb_betainc(df / 2, 0.5, df / (df + t * t));
}

double sb_t_cdf(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return NAN;
	if (t >= 0)
		return 1 - t_upper_tail(t, df);
	return t_upper_tail(-t, df);
}

double sb_t_quantile(double p, double df)
{
	double lo = 0, hi = 1, tail;

	if (isnan(p) || !(df > 0) || p <= 0 || p >= 1)
		return p == 0 ? -INFINITY : p == 1 ? INFINITY : NAN;
	if (p == 0.5)
		return 0;
	if (p < 0.5)
		return -sb_t_quantile(1 - p, df);
	tail = 1 - p;
	while (t_upper_tail(hi, df) > tail) {
		lo = hi;
		hi *= 2;
		if (isinf(hi))
			return INFINITY;
	}
	/* The upper tail decreases with t: bisect until the bracket is as
	 * narrow as doubles allow. */
	for (int i = 0; i < 200 && hi - lo > 4 * 2.2e-16 * hi; i++) {
		double mid = lo + (hi - lo) / 2;
		if (t_upper_tail(mid, df) > tail)
			lo = mid;
		else
			hi = mid;
	}
	return lo + (hi - lo) / 2;
}

int sb_welch_test(const struct sb_stats *a, const struct sb_stats *b, struct sb_welch *out)
{
	*out = (struct sb_welch){NAN, NAN, NAN};
	if (a->n < 2 || b->n < 2 || isnan(a->stdev) || isnan(b->stdev))
		return -EDOM;
	double va = a->stdev * a->stdev / (double)a->n, vb = b->stdev * b->stdev / (double)b->n;
	double diff = b->mean - a->mean, se = sqrt(va + vb);

	if (se == 0) {
		/* Both sides constant: any difference at all is certain. */
		out->df = (double)(a->n + b->n - 2);
		out->t = diff == 0 ? 0 : copysign(INFINITY, diff);
		out->p = diff == 0 ? 1 : 0;
		return 0;
	}
	out->t = diff / se;
	out->df =
	    (va + vb) * (va + vb) / (va * va / (double)(a->n - 1) + vb * vb / (double)(b->n - 1));
	out->p = 2 * t_upper_tail(fabs(out->t), out->df);
	if (out->p > 1)
		out->p = 1;
	return 0;
}

double sb_rel_change(double base, double x)
{
	if (isnan(base) || isnan(x) || base == 0)
		return NAN;
	return (x - base) / fabs(base) * 100;
}

bool sb_stats_significant(const struct sb_stats *a, const struct sb_stats *b,
			  const struct sb_welch *w)
{
	return a->n >= SB_STATS_MIN_N && b->n >= SB_STATS_MIN_N && !isnan(w->p) &&
	       w->p < SB_STATS_ALPHA;
}

int sb_diff_compute(const struct sb_stats *a, const struct sb_stats *b, double alpha, double power,
		    struct sb_diff *out)
{
	*out = (struct sb_diff){NAN, NAN, NAN, NAN};
	if (a->n < 2 || b->n < 2 || isnan(a->stdev) || isnan(b->stdev))
		return -EDOM;
	double va = a->stdev * a->stdev / (double)a->n, vb = b->stdev * b->stdev / (double)b->n;
	double se = sqrt(va + vb), df;

	out->diff = b->mean - a->mean;
	if (se == 0) {
		out->lo = out->hi = out->diff;
		out->mde = 0;
		return 0;
	}
	df = (va + vb) * (va + vb) / (va * va / (double)(a->n - 1) + vb * vb / (double)(b->n - 1));
	double ta = sb_t_quantile(1 - alpha / 2, df);
	out->lo = out->diff - ta * se;
	out->hi = out->diff + ta * se;
	out->mde = (ta + sb_t_quantile(power, df)) * se;
	return 0;
}

/* Indexes of the finite p-values, sorted by p (insertion sort: a report's
 * family has tens to a few hundred members). */
static size_t order(const double *p, size_t n, size_t *ix)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (isnan(p[i]))
			continue;
		size_t k = m++;
		while (k > 0 && p[ix[k - 1]] > p[i]) {
			ix[k] = ix[k - 1];
			k--;
		}
		ix[k] = i;
	}
	return m;
}

int sb_p_adjust_holm(const double *p, size_t n, double *adj)
{
	size_t *ix = malloc((n ? n : 1) * sizeof(*ix)), m;
	double run = 0;
	if (!ix)
		return -ENOMEM;
	m = order(p, n, ix);
	for (size_t i = 0; i < n; i++)
		adj[i] = NAN;
	/* p_(k) * (m - k + 1), made monotone from the smallest up */
	for (size_t k = 0; k < m; k++) {
		double v = fmin(1, p[ix[k]] * (double)(m - k));
		run = fmax(run, v);
		adj[ix[k]] = run;
	}
	free(ix);
	return 0;
}

int sb_p_adjust_bh(const double *p, size_t n, double *adj)
{
	size_t *ix = malloc((n ? n : 1) * sizeof(*ix)), m;
	double run = 1;
	if (!ix)
		return -ENOMEM;
	m = order(p, n, ix);
	for (size_t i = 0; i < n; i++)
		adj[i] = NAN;
	/* p_(k) * m / k, made monotone from the largest down */
	for (size_t k = m; k-- > 0;) {
		double v = fmin(1, p[ix[k]] * (double)m / (double)(k + 1));
		run = fmin(run, v);
		adj[ix[k]] = run;
	}
	free(ix);
	return 0;
}
