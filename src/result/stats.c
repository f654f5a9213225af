/* See stats.h. The Student t distribution is computed exactly (to double
 * precision) through the regularized incomplete beta function, evaluated by
 * its continued fraction with the modified Lentz method (Numerical Recipes
 * 3rd ed., 6.4; DLMF 8.17.22); quantiles are found by bisection on that CDF,
 * so no table or normal approximation limits the accuracy for small n. */
#include "result/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
	/* The upper tail decreases with t. Newton's steps on it (its slope is
	 * the density), kept inside the bracket, which every evaluation
	 * narrows; a step that would leave it bisects instead. 3-6
	 * evaluations instead of the ~60 a bisection to double precision
	 * takes, each one an incomplete beta function. */
	double lnorm = lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * log(df * M_PI);
	double x = lo + (hi - lo) / 2;
	for (int i = 0; i < 200 && hi - lo > 4 * 2.2e-16 * hi; i++) {
		double f = t_upper_tail(x, df) - tail;
		if (f == 0)
			return x;
		if (f > 0)
			lo = x;
		else
			hi = x;
		double pdf = exp(lnorm - (df + 1) / 2 * log1p(x * x / df));
		double nx = x + f / pdf;
		if (!(nx > lo && nx < hi))
			nx = lo + (hi - lo) / 2;
		if (fabs(nx - x) <= 4 * 2.2e-16 * fabs(nx))
			return nx;
		x = nx;
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

static double pocock_spent(double alpha, size_t k, size_t max)
{
	return alpha * log(1 + (M_E - 1) * (double)k / (double)max);
}

double sb_alpha_spend(double alpha, size_t look, size_t first, size_t max)
{
	if (max == 0 || first == 0 || first > max || look < first)
		return 0;
	if (look > max)
		look = max;
	double spent = pocock_spent(alpha, look, max);
	return look == first ? spent : spent - pocock_spent(alpha, look - 1, max);
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

const char *sb_test_name(enum sb_test t)
{
	static const char *const names[] = {
	    [SB_TEST_NONE] = "none",
	    [SB_TEST_PAIRED_LOG] = "paired-t-log",
	    [SB_TEST_RANK_LOG] = "signed-rank-log",
	    [SB_TEST_WELCH_LOG] = "welch-log",
	    [SB_TEST_PAIRED_DIFF] = "paired-t",
	    [SB_TEST_WELCH] = "welch",
	    [SB_TEST_CROSSOVER_LOG] = "crossover-t-log",
	};
	return names[t];
}

bool sb_test_paired(enum sb_test t)
{
	return t == SB_TEST_PAIRED_LOG || t == SB_TEST_RANK_LOG || t == SB_TEST_PAIRED_DIFF ||
	       t == SB_TEST_CROSSOVER_LOG;
}

void sb_cmp_clear(struct sb_cmp *c)
{
	*c = (struct sb_cmp){.change = NAN,
			     .lo = NAN,
			     .hi = NAN,
			     .mde = NAN,
			     .p = NAN,
			     .p_t = NAN,
			     .p_rank = NAN,
			     .spread = NAN,
			     .se = NAN,
			     .df = NAN};
}

/* Percent of a change that is d on the log scale (or relative, raw). */
static double pct(double d, bool logs)
{
	return (logs ? expm1(d) : d) * 100;
}

/* Fills the interval, p and mde of c from an estimate on the log (or
 * relative) scale, its standard error and degrees of freedom. */
static void cmp_fill(struct sb_cmp *c, double est, double se, double df, double alpha, double power,
		     bool logs)
{
	c->change = pct(est, logs);
	c->se = se;
	c->df = df;
	if (se == 0) {
		c->lo = c->hi = c->change;
		c->mde = 0;
		c->p = c->p_t = est == 0 ? 1 : 0;
		return;
	}
	double ta = sb_t_quantile(1 - alpha / 2, df);
	c->lo = pct(est - ta * se, logs);
	c->hi = pct(est + ta * se, logs);
	c->mde = pct((ta + sb_t_quantile(power, df)) * se, logs);
	c->p = c->p_t = fmin(1, 2 * t_upper_tail(fabs(est / se), df));
}

double sb_cmp_mde(const struct sb_cmp *c, double alpha, double power)
{
	bool logs = c->test == SB_TEST_PAIRED_LOG || c->test == SB_TEST_RANK_LOG ||
		    c->test == SB_TEST_WELCH_LOG || c->test == SB_TEST_CROSSOVER_LOG;
	if (!isfinite(c->se) || !(c->df > 0) || !(alpha > 0 && alpha < 1))
		return NAN;
	if (c->se == 0)
		return 0;
	return pct((sb_t_quantile(1 - alpha / 2, c->df) + sb_t_quantile(power, c->df)) * c->se,
		   logs);
}

static bool all_positive(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isnan(x[i]) && !(x[i] > 0 && isfinite(x[i])))
			return false;
	return true;
}

/* Far from normal: |skewness| beyond twice its standard error. */
static bool skewed(const double *d, size_t n)
{
	double m = 0, m2 = 0, m3 = 0;
	if (n < SB_PAIRED_RANK_MIN)
		return false;
	for (size_t i = 0; i < n; i++)
		m += d[i] / (double)n;
	for (size_t i = 0; i < n; i++) {
		m2 += (d[i] - m) * (d[i] - m) / (double)n;
		m3 += (d[i] - m) * (d[i] - m) * (d[i] - m) / (double)n;
	}
	return m2 > 0 && fabs(m3 / pow(m2, 1.5)) > 2 * sqrt(6.0 / (double)n);
}

int sb_cmp_paired(const double *a, const double *b, size_t n, double alpha, double power,
		  struct sb_cmp *out)
{
	double d[n ? n : 1], mean_a = 0;
	size_t k = 0;
	bool logs = all_positive(a, n) && all_positive(b, n);

	sb_cmp_clear(out);
	for (size_t i = 0; i < n; i++)
		if (!isnan(a[i]) && !isnan(b[i]) && isfinite(a[i]) && isfinite(b[i])) {
			d[k++] = logs ? log(b[i] / a[i]) : b[i] - a[i];
			mean_a += a[i];
		}
	out->n = k;
	out->test = logs ? SB_TEST_PAIRED_LOG : SB_TEST_PAIRED_DIFF;
	if (k < 2)
		return -EDOM;
	mean_a /= (double)k;
	struct sb_stats st;
	sb_stats_compute(d, k, &st);
	double scale = logs ? 1 : fabs(mean_a);
	if (!(scale > 0))
		return -EDOM;
	/* raw: differences relative to the baseline's mean */
	cmp_fill(out, st.mean / scale, st.stdev / scale / sqrt((double)k), (double)(k - 1), alpha,
		 power, logs);
	out->spread = st.stdev / scale;
	out->p_rank = sb_signed_rank_p(d, k);
	if (logs && skewed(d, k) && !isnan(out->p_rank)) {
		out->test = SB_TEST_RANK_LOG;
		out->p = out->p_rank;
	}
	return 0;
}

int sb_cmp_welch(const double *a, size_t na, const double *b, size_t nb, double alpha, double power,
		 struct sb_cmp *out)
{
	double la[na ? na : 1], lb[nb ? nb : 1];
	size_t ka = 0, kb = 0;
	bool logs = all_positive(a, na) && all_positive(b, nb);
	struct sb_stats sa, sb;

	sb_cmp_clear(out);
	out->test = logs ? SB_TEST_WELCH_LOG : SB_TEST_WELCH;
	for (size_t i = 0; i < na; i++)
		if (isfinite(a[i]))
			la[ka++] = logs ? log(a[i]) : a[i];
	for (size_t i = 0; i < nb; i++)
		if (isfinite(b[i]))
			lb[kb++] = logs ? log(b[i]) : b[i];
	out->n = ka < kb ? ka : kb;
	if (ka < 2 || kb < 2)
		return -EDOM;
	sb_stats_compute(la, ka, &sa);
	sb_stats_compute(lb, kb, &sb);
	double scale = logs ? 1 : fabs(sa.mean);
	if (!(scale > 0))
		return -EDOM;
	double va = sa.stdev * sa.stdev / (double)ka, vb = sb.stdev * sb.stdev / (double)kb;
	double se = sqrt(va + vb), df = (double)(ka + kb - 2);
	if (se > 0)
		df = (va + vb) * (va + vb) /
		     (va * va / (double)(ka - 1) + vb * vb / (double)(kb - 1));
	cmp_fill(out, (sb.mean - sa.mean) / scale, se / scale, df, alpha, power, logs);
	/* the spread of one side's values, pooled */
	out->spread =
	    sqrt(((double)(ka - 1) * sa.stdev * sa.stdev + (double)(kb - 1) * sb.stdev * sb.stdev) /
		 (double)(ka + kb - 2)) /
	    scale;
	return 0;
}

/* Ranks of |d| (1-based, ties averaged) into rk; whether there were ties. */
static bool abs_ranks(const double *d, size_t n, double *rk)
{
	bool ties = false;
	for (size_t i = 0; i < n; i++) {
		size_t less = 0, same = 0;
		for (size_t j = 0; j < n; j++) {
			less += fabs(d[j]) < fabs(d[i]);
			same += fabs(d[j]) == fabs(d[i]);
		}
		rk[i] = (double)less + ((double)same + 1) / 2;
		ties |= same > 1;
	}
	return ties;
}

double sb_signed_rank_p(const double *x, size_t n)
{
	double d[n ? n : 1], rk[n ? n : 1], wplus = 0;
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (!isnan(x[i]) && x[i] != 0)
			d[k++] = x[i];
	if (k == 0)
		return NAN;
	bool ties = abs_ranks(d, k, rk);
	for (size_t i = 0; i < k; i++)
		if (d[i] > 0)
			wplus += rk[i];
	double mu = (double)k * (double)(k + 1) / 4;
	if (!ties && k <= 30) {
		/* exact: the number of subsets of 1..k with each rank sum */
		size_t max = k * (k + 1) / 2;
		double cnt[max + 1], total = ldexp(1, (int)k), tail = 0;
		memset(cnt, 0, sizeof(cnt));
		cnt[0] = 1;
		for (size_t r = 1; r <= k; r++)
			for (size_t s = max; s >= r; s--)
				cnt[s] += cnt[s - r];
		/* P(W <= min(w, max - w)), doubled */
		double w = fmin(wplus, (double)max - wplus);
		for (size_t s = 0; (double)s <= w + 1e-9; s++)
			tail += cnt[s];
		return fmin(1, 2 * tail / total);
	}
	double var = (double)k * (double)(k + 1) * (double)(2 * k + 1) / 24, tc = 0;
	for (size_t i = 0; i < k; i++) {
		size_t same = 0;
		for (size_t j = 0; j < k; j++)
			same += rk[j] == rk[i];
		/* each tie group of size t contributes (t^3 - t) / 48, counted once
		 * per member: (t^2 - 1) / 48 each */
		tc += ((double)same * (double)same - 1) / 48;
	}
	var -= tc;
	if (!(var > 0))
		return 1;
	double z = (fabs(wplus - mu) - 0.5) / sqrt(var);
	return fmin(1, erfc(fmax(z, 0) / sqrt(2)));
}

/* The standard normal quantile (Acklam's rational approximation, relative
 * error below 1.2e-9, refined by one Newton step on erfc): the t quantile
 * at df = 1e6 through the incomplete beta function took a continued
 * fraction of thousands of terms, per call. */
static double norm_quantile(double p)
{
	static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
				   -2.759285104469687e+02, 1.383577518672690e+02,
				   -3.066479806614716e+01, 2.506628277459239e+00};
	static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
				   -1.556989798598866e+02, 6.680131188771972e+01,
				   -1.328068155288572e+01};
	static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
				   -2.400758277161838e+00, -2.549732539343734e+00,
				   4.374664141464968e+00,  2.938163982698783e+00};
	static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
				   2.445134137142996e+00, 3.754408661907416e+00};
	double q, r, x;

	if (!(p > 0 && p < 1))
		return p == 0 ? -INFINITY : p == 1 ? INFINITY : NAN;
	if (p < 0.02425) {
		q = sqrt(-2 * log(p));
		x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	} else if (p > 1 - 0.02425) {
		q = sqrt(-2 * log(1 - p));
		x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	} else {
		q = p - 0.5;
		r = q * q;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
		    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
	}
	double e = 0.5 * erfc(-x / sqrt(2)) - p;
	return x - e * sqrt(2 * M_PI) * exp(x * x / 2);
}

/* The t quantile for an estimate of repeats: exact (incomplete beta) up to
 * df 60, beyond that the Cornish-Fisher expansion about the normal
 * quantile, within 1e-6 of it there and far cheaper (the exact one costs a
 * continued fraction that grows with df, in a bisection per unresolved
 * row). */
static double t_quantile_est(double p, double df)
{
	if (df <= 60)
		return sb_t_quantile(p, df);
	double z = norm_quantile(p), z2 = z * z;
	return z + z * (z2 + 1) / (4 * df) + z * ((5 * z2 + 16) * z2 + 3) / (96 * df * df) +
	       z * (((3 * z2 + 19) * z2 + 17) * z2 - 15) / (384 * df * df * df);
}

/* Does a test with n repeats (pairs) detect target (a log ratio)? */
static bool repeats_reach(const struct sb_cmp *c, double k, size_t n, double alpha, double power,
			  double target)
{
	double df = sb_test_paired(c->test) ? (double)(n - 1) : 2.0 * (double)n - 2;
	double m = (t_quantile_est(1 - alpha / 2, df) + t_quantile_est(power, df)) * c->spread *
		   sqrt(k / (double)n);
	return m <= target;
}

size_t sb_cmp_repeats_needed(const struct sb_cmp *c, double delta_pct, double alpha, double power)
{
	double k = sb_test_paired(c->test) ? 1 : 2, target = log1p(delta_pct / 100);

	if (!isfinite(c->spread) || !(target > 0))
		return SB_CMP_N_MAX + 1;
	if (c->spread == 0)
		return 0;
	/* the normal approximation is a lower bound: start there */
	double z = norm_quantile(1 - alpha / 2) + norm_quantile(power);
	double n0 = k * z * z * (c->spread / target) * (c->spread / target);
	n0 = fmax(2, floor(n0 * 0.5));
	if (n0 > SB_CMP_N_MAX)
		return SB_CMP_N_MAX + 1;
	/* The detectable change shrinks as n grows: the smallest n that gets
	 * there by bisection (each step costs two t quantiles; a walk up to
	 * SB_CMP_N_MAX took seconds per unresolved row). */
	size_t lo = (size_t)n0, hi = SB_CMP_N_MAX;
	if (!repeats_reach(c, k, hi, alpha, power, target))
		return SB_CMP_N_MAX + 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (repeats_reach(c, k, mid, alpha, power, target))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo < SB_STATS_MIN_N ? SB_STATS_MIN_N : lo;
}
