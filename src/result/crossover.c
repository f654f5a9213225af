/* See crossover.h. Least squares by Householder QR on the dense design (at
 * most a few thousand rows and a few dozen columns), taking the columns in
 * order and setting aside each one that the columns before it already span:
 * the variant columns come right after the intercept, so a stack or round
 * confounded with a variant is the one set aside. */
#include "result/crossover.h"

#include "result/stats.h"
#include "util/macro.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A column whose part outside the span of the columns before it is below
 * this share of its length is aliased. Dummy columns are 0/1 and the design
 * small, so an independent column keeps a share near 1/sqrt(n) or more. */
#define XO_ALIAS_TOL 1e-9
/* A coefficient of an aliased column on a kept one (its expression in the
 * kept columns) above this is a real dependence; those are small fractions
 * of whole numbers, and rounding leaves ~1e-15. */
#define XO_DEP_TOL 1e-7
#define XO_NONE SIZE_MAX

static size_t max_sz(size_t a, size_t b)
{
	return a > b ? a : b;
}

struct xo_dims {
	size_t n_var, n_stack, n_round, n_pos;
	size_t *var_n, *stack_n; /* observations of each variant, each stack */
};

/* The design: column-major n x p, and which column each level has (XO_NONE
 * for the reference levels and for terms left out). */
struct xo_design {
	size_t n, p;
	double *x, *y;
	size_t *col_var, *col_stack, *col_round, *col_pos;
};

/* The QR fit. a is the transformed design (R in its top rows), qty is Q'y. */
struct xo_ls {
	size_t n, p, rank;
	double *a, *qty, *coef;
	size_t *rk;	 /* p: the column's row in R, or XO_NONE when aliased */
	size_t *col_of;	 /* rank: the column of each row of R */
	bool *estimable; /* p: its coefficient is a function of E[y] */
	double var_res, df_res;
};

static void dims_free(struct xo_dims *d)
{
	free(d->var_n);
	free(d->stack_n);
}

static int dims_get(const struct sb_xo_obs *o, size_t n, const struct sb_xo_opts *opt,
		    struct xo_dims *d)
{
	*d = (struct xo_dims){0};
	for (size_t i = 0; i < n; i++) {
		if (!(o[i].y > 0) || isinf(o[i].y))
			return -EINVAL;
		d->n_var = max_sz(d->n_var, (size_t)o[i].variant + 1);
		d->n_stack = max_sz(d->n_stack, (size_t)o[i].stack + 1);
		d->n_round = max_sz(d->n_round, (size_t)o[i].round + 1);
		d->n_pos = max_sz(d->n_pos, (size_t)o[i].position + 1);
	}
	if (d->n_var < 2 || opt->baseline >= d->n_var)
		return -EINVAL;
	d->var_n = calloc(d->n_var, sizeof(*d->var_n));
	d->stack_n = calloc(d->n_stack, sizeof(*d->stack_n));
	if (!d->var_n || !d->stack_n)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		d->var_n[o[i].variant]++;
		d->stack_n[o[i].stack]++;
	}
	for (size_t v = 0; v < d->n_var; v++)
		if (d->var_n[v] == 0)
			return -EINVAL;
	return 0;
}

static void design_free(struct xo_design *d)
{
	free(d->x);
	free(d->y);
	free(d->col_var);
	free(d->col_stack);
	free(d->col_round);
	free(d->col_pos);
	*d = (struct xo_design){0};
}

/* Columns for the levels of one factor but its reference: from *p on. */
static size_t *levels(size_t n_lev, size_t ref, bool used, size_t *p)
{
	size_t *col = malloc((n_lev ? n_lev : 1) * sizeof(*col));

	if (!col)
		return NULL;
	for (size_t l = 0; l < n_lev; l++)
		col[l] = (used && l != ref) ? (*p)++ : XO_NONE;
	return col;
}

static void put(const struct xo_design *d, size_t i, const size_t *col, unsigned level)
{
	if (col[level] != XO_NONE)
		d->x[col[level] * d->n + i] = 1;
}

static int design_build(const struct sb_xo_obs *o, size_t n, const struct sb_xo_opts *opt,
			const struct xo_dims *dm, bool with_stack, struct xo_design *d)
{
	size_t p = 1; /* the intercept */

	*d = (struct xo_design){.n = n};
	d->col_var = levels(dm->n_var, opt->baseline, true, &p);
	d->col_stack = levels(dm->n_stack, 0, with_stack, &p);
	d->col_round = levels(dm->n_round, 0, true, &p);
	d->col_pos = levels(dm->n_pos, 0, opt->position, &p);
	if (!d->col_var || !d->col_stack || !d->col_round || !d->col_pos)
		return -ENOMEM;
	d->p = p;
	d->x = calloc(n * p, sizeof(*d->x));
	d->y = malloc(n * sizeof(*d->y));
	if (!d->x || !d->y)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		d->x[i] = 1;
		put(d, i, d->col_var, o[i].variant);
		put(d, i, d->col_stack, o[i].stack);
		put(d, i, d->col_round, o[i].round);
		put(d, i, d->col_pos, o[i].position);
		d->y[i] = log(o[i].y);
	}
	return 0;
}

static void ls_free(struct xo_ls *ls)
{
	free(ls->a);
	free(ls->qty);
	free(ls->coef);
	free(ls->rk);
	free(ls->col_of);
	free(ls->estimable);
	*ls = (struct xo_ls){0};
}

/* Reflects rows r.. of column j of a onto its first entry, and applies the
 * same reflection to the columns after j and to qty. */
static void householder(struct xo_ls *ls, size_t r, size_t j, double norm)
{
	size_t n = ls->n;
	size_t m = n - r;
	double *v = ls->a + j * n + r;
	double alpha = v[0] > 0 ? -norm : norm;

	v[0] -= alpha;
	double vv = 0;
	for (size_t i = 0; i < m; i++)
		vv += v[i] * v[i];
	for (size_t c = j + 1; c <= ls->p; c++) {
		double *w = c < ls->p ? ls->a + c * n + r : ls->qty + r, s = 0;
		for (size_t i = 0; i < m; i++)
			s += v[i] * w[i];
		s = 2 * s / vv;
		for (size_t i = 0; i < m; i++)
			w[i] -= s * v[i];
	}
	v[0] = alpha;
	for (size_t i = 1; i < m; i++)
		v[i] = 0;
}

/* The entry of R at (row i, row k's column). */
static double r_at(const struct xo_ls *ls, size_t i, size_t k)
{
	return ls->a[ls->col_of[k] * ls->n + i];
}

/* Solves R[0..m) b = rhs[0..m) in place (upper triangular). */
static void back_solve(const struct xo_ls *ls, size_t m, double *b)
{
	for (size_t i = m; i-- > 0;) {
		for (size_t k = i + 1; k < m; k++)
			b[i] -= r_at(ls, i, k) * b[k];
		b[i] /= r_at(ls, i, i);
	}
}

/* An aliased column is a combination of the kept columns before it (those
 * of R's first m rows); a kept column that takes part in one has no
 * estimable coefficient of its own. */
static int mark_dependence(struct xo_ls *ls, size_t j, size_t m)
{
	_cleanup_free_ double *b = malloc((m ? m : 1) * sizeof(*b));

	if (!b)
		return -ENOMEM;
	memcpy(b, ls->a + j * ls->n, m * sizeof(*b));
	back_solve(ls, m, b);
	for (size_t k = 0; k < m; k++)
		if (fabs(b[k]) > XO_DEP_TOL)
			ls->estimable[ls->col_of[k]] = false;
	return 0;
}

static int ls_alloc(struct xo_ls *ls, const struct xo_design *d)
{
	*ls = (struct xo_ls){.n = d->n, .p = d->p};
	ls->a = malloc(d->n * d->p * sizeof(*ls->a));
	ls->qty = malloc(d->n * sizeof(*ls->qty));
	ls->coef = calloc(d->p, sizeof(*ls->coef));
	ls->rk = malloc(d->p * sizeof(*ls->rk));
	ls->col_of = malloc(d->p * sizeof(*ls->col_of));
	ls->estimable = malloc(d->p * sizeof(*ls->estimable));
	if (!ls->a || !ls->qty || !ls->coef || !ls->rk || !ls->col_of || !ls->estimable)
		return -ENOMEM;
	memcpy(ls->a, d->x, d->n * d->p * sizeof(*ls->a));
	memcpy(ls->qty, d->y, d->n * sizeof(*ls->qty));
	return 0;
}

static double norm_from(const double *x, size_t from, size_t n)
{
	double s = 0;

	for (size_t i = from; i < n; i++)
		s += x[i] * x[i];
	return sqrt(s);
}

static int ls_fit(const struct xo_design *d, struct xo_ls *ls)
{
	int r = ls_alloc(ls, d);

	if (r < 0)
		return r;
	for (size_t j = 0; j < d->p; j++) {
		double full = norm_from(d->x + j * d->n, 0, d->n);
		double rest = norm_from(ls->a + j * d->n, ls->rank, d->n);
		ls->estimable[j] = true;
		ls->rk[j] = XO_NONE;
		if (ls->rank >= d->n || !(rest > XO_ALIAS_TOL * full)) {
			ls->estimable[j] = false;
			r = mark_dependence(ls, j, ls->rank);
			if (r < 0)
				return r;
			continue;
		}
		householder(ls, ls->rank, j, rest);
		ls->rk[j] = ls->rank;
		ls->col_of[ls->rank++] = j;
	}
	/* Aliased columns get 0: one of the solutions, and the one whose
	 * estimable parts are what is reported. */
	_cleanup_free_ double *b = malloc((ls->rank ? ls->rank : 1) * sizeof(*b));
	if (!b)
		return -ENOMEM;
	memcpy(b, ls->qty, ls->rank * sizeof(*b));
	back_solve(ls, ls->rank, b);
	for (size_t k = 0; k < ls->rank; k++)
		ls->coef[ls->col_of[k]] = b[k];
	ls->df_res = (double)(d->n - ls->rank);
	ls->var_res =
	    d->n > ls->rank ? pow(norm_from(ls->qty, ls->rank, d->n), 2) / ls->df_res : NAN;
	return 0;
}

/* (X'X)^-1 at (j, j) for a kept column j: |z|^2 with R'z = e_rk(j). */
static double ls_vdiag(const struct xo_ls *ls, size_t j)
{
	size_t k0 = ls->rk[j];
	_cleanup_free_ double *z = calloc(ls->rank ? ls->rank : 1, sizeof(*z));

	if (k0 == XO_NONE || !z)
		return NAN;
	double s = 0;
	for (size_t i = k0; i < ls->rank; i++) {
		double t = i == k0 ? 1 : 0;
		for (size_t l = k0; l < i; l++)
			t -= r_at(ls, l, i) * z[l];
		z[i] = t / r_at(ls, i, i);
		s += z[i] * z[i];
	}
	return s;
}

/* A stack with observations whose effect the design cannot tell from the
 * variants': the stack term has to go. */
static bool stacks_confounded(const struct xo_design *d, const struct xo_ls *ls,
			      const struct xo_dims *dm)
{
	for (size_t s = 1; s < dm->n_stack; s++) {
		size_t c = d->col_stack[s];
		if (c != XO_NONE && dm->stack_n[s] > 0 && !ls->estimable[c])
			return true;
	}
	return false;
}

/* A coefficient, 0 for a reference level or a term left out. */
static double coef_of(const struct xo_ls *ls, const size_t *col, unsigned level)
{
	return col[level] == XO_NONE ? 0 : ls->coef[col[level]];
}

static int fit_model(const struct sb_xo_obs *o, size_t n, const struct sb_xo_opts *opt,
		     const struct xo_dims *dm, struct xo_design *d, struct xo_ls *ls)
{
	int r = design_build(o, n, opt, dm, true, d);

	if (r == 0)
		r = ls_fit(d, ls);
	if (r < 0 || !stacks_confounded(d, ls, dm))
		return r;
	ls_free(ls);
	design_free(d);
	r = design_build(o, n, opt, dm, false, d);
	return r < 0 ? r : ls_fit(d, ls);
}

static void fill_stacks(const struct xo_design *d, const struct xo_ls *ls, const struct xo_dims *dm,
			double t, struct sb_xo_fit *f)
{
	for (size_t s = 0; s < dm->n_stack; s++) {
		size_t c = d->col_stack[s];
		double est = NAN, se = NAN;
		if (s == 0 && dm->stack_n[0] > 0) {
			f->stack_est[0] = f->stack_lo[0] = f->stack_hi[0] = 0;
			continue;
		}
		if (c != XO_NONE && ls->estimable[c]) {
			est = ls->coef[c];
			se = sqrt(ls->var_res * ls_vdiag(ls, c));
		}
		f->stack_est[s] = est;
		f->stack_lo[s] = est - t * se;
		f->stack_hi[s] = est + t * se;
	}
}

/* Sums and counts of the stack- (and position-) adjusted log y of each
 * variant in each round, n_var x n_round. */
struct xo_cells {
	const struct sb_xo_obs *o;
	size_t n_round;
	double *sum;
	size_t *cnt;
};

static int cells_build(const struct sb_xo_obs *o, size_t n, const struct xo_design *d,
		       const struct xo_ls *ls, const struct xo_dims *dm, struct xo_cells *c)
{
	size_t m = dm->n_var * dm->n_round;

	c->o = o;
	c->n_round = dm->n_round;
	c->sum = calloc(m, sizeof(*c->sum));
	c->cnt = calloc(m, sizeof(*c->cnt));
	if (!c->sum || !c->cnt)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t k = (size_t)o[i].variant * dm->n_round + o[i].round;
		c->sum[k] += d->y[i] - coef_of(ls, d->col_stack, o[i].stack) -
			     coef_of(ls, d->col_pos, o[i].position);
		c->cnt[k]++;
	}
	return 0;
}

/* The round contrasts of variant v against b: their summary, and the mean
 * over rounds of 1/n_v + 1/n_b (the turn noise's share of their variance). */
static int round_contrasts(const struct xo_cells *c, unsigned v, unsigned b, struct sb_stats *st,
			   double *inv_n)
{
	_cleanup_free_ double *dr = malloc((c->n_round ? c->n_round : 1) * sizeof(*dr));
	size_t R = 0;
	double inv = 0;

	if (!dr)
		return -ENOMEM;
	for (size_t r = 0; r < c->n_round; r++) {
		size_t kv = v * c->n_round + r, kb = b * c->n_round + r;
		if (!c->cnt[kv] || !c->cnt[kb])
			continue;
		dr[R++] = c->sum[kv] / (double)c->cnt[kv] - c->sum[kb] / (double)c->cnt[kb];
		inv += 1.0 / (double)c->cnt[kv] + 1.0 / (double)c->cnt[kb];
	}
	sb_stats_compute(dr, R, st);
	*inv_n = R ? inv / (double)R : NAN;
	return 0;
}

/* How the fitted stack and position effects enter variant v's round
 * contrasts: row r of z is the mean design row of v's turns in round r less
 * the baseline's (intercept and round cancel; v's own column is 1). Fitted
 * over the rounds, its rank less one counts the effects that change from
 * round to round: the adjustment takes each out of the contrasts' spread
 * (with k = 2 crossed over, sd(d_r) would lose one round's worth of df, and
 * the interval 3 points of coverage at 6 rounds), and (Z'Z)^-1 at v's
 * column is the mean contrast's leverage, 1/R when the stacks balance. */
static int round_design(const struct xo_cells *c, const struct xo_design *d, unsigned v, unsigned b,
			size_t R, size_t *rank, double *lev)
{
	struct xo_design z = {.n = R, .p = d->p};
	struct xo_ls ls = {0};
	_cleanup_free_ size_t *row = malloc(c->n_round * sizeof(*row));
	int r = -ENOMEM;

	z.x = calloc(R * d->p, sizeof(*z.x));
	z.y = calloc(R, sizeof(*z.y));
	if (!row || !z.x || !z.y)
		goto out;
	for (size_t k = 0, i = 0; k < c->n_round; k++)
		row[k] = c->cnt[v * c->n_round + k] && c->cnt[b * c->n_round + k] ? i++ : XO_NONE;
	for (size_t i = 0; i < d->n; i++) {
		const struct sb_xo_obs *oi = &c->o[i];
		size_t rr = row[oi->round], k = (size_t)oi->variant * c->n_round + oi->round;
		if ((oi->variant != v && oi->variant != b) || rr == XO_NONE)
			continue;
		double w = (oi->variant == v ? 1.0 : -1.0) / (double)c->cnt[k];
		const size_t cols[] = {oi->variant == v ? d->col_var[v] : XO_NONE,
				       d->col_stack[oi->stack], d->col_pos[oi->position]};
		for (size_t j = 0; j < sizeof(cols) / sizeof(cols[0]); j++)
			if (cols[j] != XO_NONE)
				z.x[cols[j] * R + rr] += w;
	}
	r = ls_fit(&z, &ls);
	if (r == 0) {
		*rank = ls.rank;
		*lev = ls.estimable[d->col_var[v]] ? ls_vdiag(&ls, d->col_var[v]) : 1 / (double)R;
	}
out:
	ls_free(&ls);
	design_free(&z);
	return r;
}

static void pick_se(struct sb_xo_effect *e, double se, double df, int from)
{
	if (se >= 0 && df > 0 && !(se <= e->se)) {
		e->se = se;
		e->df = df;
		e->se_from = from;
	}
}

static double pct_of(double x)
{
	return 100 * expm1(x);
}

static void effect_finish(struct sb_xo_effect *e, double alpha)
{
	double t = sb_t_quantile(1 - alpha / 2, e->df);

	e->lo = e->est - t * e->se;
	e->hi = e->est + t * e->se;
	e->pct = pct_of(e->est);
	e->pct_lo = pct_of(e->lo);
	e->pct_hi = pct_of(e->hi);
	if (e->se_from == SB_XO_SE_NONE || isnan(e->est))
		e->p = NAN;
	else if (e->se == 0)
		e->p = e->est == 0 ? 1 : 0;
	else
		e->p = 2 * sb_t_cdf(-fabs(e->est / e->se), e->df);
}

/* One variant's effect; adds its share to the pooled interaction variance. */
static int effect_fit(const struct xo_design *d, const struct xo_ls *ls, const struct xo_cells *c,
		      const struct sb_xo_opts *opt, unsigned v, struct sb_xo_effect *e,
		      double pool[2])
{
	size_t col = d->col_var[v];
	struct sb_stats st;
	double inv_n;
	int r = round_contrasts(c, v, opt->baseline, &st, &inv_n);

	if (r < 0)
		return r;
	*e = (struct sb_xo_effect){.variant = v, .est = NAN, .se = NAN, .df = NAN, .rounds = st.n};
	if (!ls->estimable[col]) {
		effect_finish(e, opt->alpha);
		return 0;
	}
	e->est = ls->coef[col];
	pick_se(e, sqrt(ls->var_res * ls_vdiag(ls, col)), ls->df_res, SB_XO_SE_TURN);
	double R = (double)st.n;
	size_t rank = 0;
	double lev = 0;
	if (st.n >= 2 && (r = round_design(c, d, v, opt->baseline, st.n, &rank, &lev)) < 0)
		return r;
	if (st.n >= 2 && st.n > rank) {
		double df = R - (double)rank, var_d = st.stdev * st.stdev * (R - 1) / df;
		pick_se(e, sqrt(var_d * lev), df, SB_XO_SE_ROUND);
		if (!isnan(ls->var_res)) {
			pool[0] += df * (var_d - ls->var_res * inv_n);
			pool[1] += df;
		}
	}
	if (opt->round_floor_var > 0 && st.n >= 1)
		pick_se(e, sqrt(opt->round_floor_var / R), st.n >= 2 ? R - 1 : ls->df_res,
			SB_XO_SE_FLOOR);
	effect_finish(e, opt->alpha);
	return 0;
}

static int fit_alloc(struct sb_xo_fit *f, const struct xo_dims *dm, size_t n)
{
	*f = (struct sb_xo_fit){
	    .n = n, .n_var = dm->n_var, .n_stack = dm->n_stack, .n_round = dm->n_round};
	f->n_eff = dm->n_var - 1;
	f->stack_est = calloc(dm->n_stack, sizeof(*f->stack_est));
	f->stack_lo = calloc(dm->n_stack, sizeof(*f->stack_lo));
	f->stack_hi = calloc(dm->n_stack, sizeof(*f->stack_hi));
	f->eff = calloc(f->n_eff, sizeof(*f->eff));
	if (!f->stack_est || !f->stack_lo || !f->stack_hi || !f->eff)
		return -ENOMEM;
	return 0;
}

static int effects_fit(const struct sb_xo_obs *o, const struct sb_xo_opts *opt,
		       const struct xo_dims *dm, const struct xo_design *d, const struct xo_ls *ls,
		       struct sb_xo_fit *f)
{
	struct xo_cells c = {0};
	double pool[2] = {0, 0};
	int r = cells_build(o, d->n, d, ls, dm, &c);

	for (unsigned v = 0, i = 0; r == 0 && v < dm->n_var; v++)
		if (v != opt->baseline)
			r = effect_fit(d, ls, &c, opt, v, &f->eff[i++], pool);
	f->var_round_fx = pool[1] > 0 ? fmax(0, pool[0] / pool[1]) : NAN;
	free(c.sum);
	free(c.cnt);
	return r;
}

int sb_xo_fit(const struct sb_xo_obs *o, size_t n, const struct sb_xo_opts *opt,
	      struct sb_xo_fit *out)
{
	struct xo_dims dm = {0};
	struct xo_design d = {0};
	struct xo_ls ls = {0};
	int r;

	*out = (struct sb_xo_fit){0};
	if (!o || !opt || !(opt->alpha > 0 && opt->alpha < 1) || !(opt->round_floor_var >= 0))
		return -EINVAL;
	r = dims_get(o, n, opt, &dm);
	if (r == 0)
		r = fit_alloc(out, &dm, n);
	if (r == 0)
		r = fit_model(o, n, opt, &dm, &d, &ls);
	if (r < 0)
		goto out;
	out->var_turn = ls.var_res;
	fill_stacks(&d, &ls, &dm, sb_t_quantile(1 - opt->alpha / 2, ls.df_res), out);
	r = effects_fit(o, opt, &dm, &d, &ls, out);
out:
	ls_free(&ls);
	design_free(&d);
	dims_free(&dm);
	if (r < 0)
		sb_xo_fit_free(out);
	return r;
}

void sb_xo_fit_free(struct sb_xo_fit *f)
{
	free(f->stack_est);
	free(f->stack_lo);
	free(f->stack_hi);
	free(f->eff);
	*f = (struct sb_xo_fit){0};
}
