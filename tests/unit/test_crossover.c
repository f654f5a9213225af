/* The crossover estimator (src/result/crossover.c): exact recovery of a
 * noiseless design, agreement with a reference computed here from plain
 * means, the coverage of its intervals by simulation, rank deficiency, and
 * the errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "result/crossover.h"
#include "result/stats.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_K 4
#define MAX_R 8
#define MAX_OBS (MAX_K * MAX_R * 40)

static void near(double got, double want, double tol, const char *what)
{
	if (!(fabs(got - want) <= tol))
		fail_msg("%s: got %.17g, want %.17g", what, got, want);
}

/* splitmix64, and Box-Muller for normals: the same numbers on every host. */
struct rng {
	uint64_t s;
};

static double unif(struct rng *g)
{
	uint64_t z = (g->s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0; /* (0, 1) */
}

static double normal(struct rng *g)
{
	return sqrt(-2 * log(unif(g))) * cos(2 * M_PI * unif(g));
}

/* A crossover: in round r variant v runs on stack (v + r) mod k; each round
 * has m phases, and in each phase every stack runs once, in the order of
 * the stacks rotated by the phase (the position). The known parts are
 * given; the random parts are drawn with the given SDs (log scale). */
struct sim {
	unsigned k, R, m;
	double veff[MAX_K], seff[MAX_K], reff[MAX_R], peff[MAX_K];
	double sd_stack, sd_round, sd_fx, sd_turn;
};

static size_t gen(const struct sim *s, struct rng *g, struct sb_xo_obs *o)
{
	double st[MAX_K], fx[MAX_K];
	size_t n = 0;

	for (unsigned q = 0; q < s->k; q++)
		st[q] = s->seff[q] + s->sd_stack * normal(g);
	for (unsigned r = 0; r < s->R; r++) {
		double rd = s->reff[r] + s->sd_round * normal(g);
		for (unsigned v = 0; v < s->k; v++)
			fx[v] = s->sd_fx * normal(g);
		for (unsigned j = 0; j < s->m; j++) {
			for (unsigned t = 0; t < s->k; t++) {
				unsigned q = (t + j) % s->k, v = (q + s->k - r % s->k) % s->k;
				double ly = 5 + s->veff[v] + st[q] + rd + s->peff[t] + fx[v] +
					    s->sd_turn * normal(g);
				o[n++] = (struct sb_xo_obs){.y = exp(ly),
							    .variant = v,
							    .stack = q,
							    .round = r,
							    .position = t};
			}
		}
	}
	return n;
}

static void test_exact(void **state)
{
	static const struct {
		struct sim s;
		unsigned baseline;
		bool position;
	} cases[] = {
#define K2 .k = 2, .R = 4, .m = 3, .veff = {0, 0.1}, .seff = {0, -0.04}
#define K3 .k = 3, .R = 4, .m = 5, .veff = {0, -0.2, 0.07}, .seff = {0, 0.03, -0.02}
	    {{K2, .reff = {0, 0.02, -0.05, 0.03}}, 0, false},
	    {{K2, .reff = {0, 0.02, -0.05, 0.03}}, 1, false},
	    {{K3, .reff = {0, 0.1, 0.2, -0.1}}, 0, false},
	    {{K3, .reff = {0, 0.1, 0.2, -0.1}}, 2, false},
	    {{K3, .reff = {0, 0.1, 0.2, -0.1}, .peff = {0, 0.05, -0.01}}, 1, true},
#undef K2
#undef K3
	};
	static struct sb_xo_obs o[MAX_OBS];

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct sim *s = &cases[c].s;
		struct rng g = {1};
		size_t n = gen(s, &g, o);
		struct sb_xo_opts opt = {
		    .baseline = cases[c].baseline, .alpha = 0.05, .position = cases[c].position};
		struct sb_xo_fit f;
		assert_int_equal(sb_xo_fit(o, n, &opt, &f), 0);
		assert_int_equal(f.n_eff, s->k - 1);
		assert_int_equal(f.n_stack, s->k);
		for (size_t i = 0; i < f.n_eff; i++) {
			const struct sb_xo_effect *e = &f.eff[i];
			assert_true(e->variant != opt.baseline);
			near(e->est, s->veff[e->variant] - s->veff[opt.baseline], 1e-9, "effect");
			near(e->pct, 100 * expm1(e->est), 1e-9, "pct");
			assert_int_equal(e->rounds, s->R);
			near(e->se, 0, 1e-9, "se");
		}
		for (size_t q = 0; q < s->k; q++)
			near(f.stack_est[q], s->seff[q] - s->seff[0], 1e-9, "stack");
		near(f.var_turn, 0, 1e-15, "var_turn");
		sb_xo_fit_free(&f);
	}
}

/* Test 2's reference for k = 2, baseline 0, m turns per cell, from plain
 * means: the round contrasts d_r regressed on the stack sign (+1 when
 * variant 1 is on stack 1): the intercept is the effect, the slope the
 * stack effect. */
struct ref {
	double est, stack, se_turn, se_round, var_turn, var_fx;
};

static struct ref reference(const struct sb_xo_obs *o, size_t n, unsigned R, unsigned m)
{
	double cell[MAX_R][2] = {{0}}, d[MAX_R], sg[MAX_R], ss_within = 0;
	double dm = 0, sm = 0, sxy = 0, sxx = 0;
	struct ref f;

	for (size_t i = 0; i < n; i++)
		cell[o[i].round][o[i].variant] += log(o[i].y) / m;
	for (size_t i = 0; i < n; i++)
		ss_within += pow(log(o[i].y) - cell[o[i].round][o[i].variant], 2);
	for (unsigned r = 0; r < R; r++) {
		d[r] = cell[r][1] - cell[r][0];
		sg[r] = (1 + r) % 2 == 1 ? 1 : -1;
		dm += d[r] / R;
		sm += sg[r] / R;
	}
	for (unsigned r = 0; r < R; r++) {
		sxy += (sg[r] - sm) * (d[r] - dm);
		sxx += (sg[r] - sm) * (sg[r] - sm);
	}
	f.stack = sxy / sxx;
	f.est = dm - f.stack * sm;
	double ssd = 0; /* of the stack-adjusted contrasts, whose mean is est */
	for (unsigned r = 0; r < R; r++)
		ssd += pow(d[r] - sg[r] * f.stack - f.est, 2);
	/* each round's two cells are off the fit by -+ (d'_r - est) / 2, m turns each */
	f.var_turn = (ss_within + m * ssd / 2) / (double)(n - R - 2);
	f.se_turn = sqrt(f.var_turn * 2.0 / m * (1.0 / R + sm * sm / sxx));
	/* the stack slope took one of the R - 1 df of the contrasts' spread */
	f.se_round = sqrt(ssd / (R - 2) * (1.0 / R + sm * sm / sxx));
	f.var_fx = fmax(0, ssd / (R - 2) - f.var_turn * 2.0 / m);
	return f;
}

static void test_reference(void **state)
{
	static const struct {
		unsigned R, m;
		double sd_fx, sd_turn;
		int from;
	} cases[] = {
	    {6, 4, 0.05, 0.01, SB_XO_SE_ROUND},
	    {5, 3, 0.05, 0.01, SB_XO_SE_ROUND},
	    {8, 2, 0.03, 0.02, SB_XO_SE_ROUND},
	    {6, 6, 0, 0.05, SB_XO_SE_TURN},
	};
	static struct sb_xo_obs o[MAX_OBS];

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct sim s = {.k = 2, .R = cases[c].R, .m = cases[c].m, .veff = {0, 0.05}};
		s.seff[1] = 0.03;
		s.sd_round = 0.05;
		s.sd_fx = cases[c].sd_fx;
		s.sd_turn = cases[c].sd_turn;
		struct rng g = {42 + c};
		size_t n = gen(&s, &g, o);
		struct ref want = reference(o, n, s.R, s.m);
		struct sb_xo_opts opt = {.baseline = 0, .alpha = 0.05};
		struct sb_xo_fit f;
		assert_int_equal(sb_xo_fit(o, n, &opt, &f), 0);
		const struct sb_xo_effect *e = &f.eff[0];
		near(e->est, want.est, 1e-9, "est");
		near(f.stack_est[1], want.stack, 1e-9, "stack");
		near(f.var_turn, want.var_turn, 1e-9, "var_turn");
		near(f.var_round_fx, want.var_fx, 1e-9, "var_round_fx");
		assert_int_equal(e->se_from, cases[c].from);
		bool round = e->se_from == SB_XO_SE_ROUND;
		near(e->se, round ? want.se_round : want.se_turn, 1e-9, "se");
		near(e->df, round ? s.R - 2 : (double)(n - s.R - 2), 1e-12, "df");
		double t = sb_t_quantile(0.975, e->df);
		near(e->lo, e->est - t * e->se, 1e-12, "lo");
		near(e->hi, e->est + t * e->se, 1e-12, "hi");
		near(e->pct_hi, 100 * expm1(e->hi), 1e-9, "pct_hi");
		near(e->p, 2 * sb_t_cdf(-fabs(e->est / e->se), e->df), 1e-12, "p");
		sb_xo_fit_free(&f);
	}
}

/* A/A data sets: the share whose interval covers 0, and the SD of est/se. */
static void simulate(const struct sim *s, unsigned sets, double *cover, double *sd_t)
{
	static struct sb_xo_obs o[MAX_OBS];
	struct rng g = {20240601};
	struct sb_xo_opts opt = {.baseline = 0, .alpha = 0.05};
	double sum = 0, ss = 0;
	unsigned in = 0;

	for (unsigned i = 0; i < sets; i++) {
		size_t n = gen(s, &g, o);
		struct sb_xo_fit f;
		assert_int_equal(sb_xo_fit(o, n, &opt, &f), 0);
		double t = f.eff[0].est / f.eff[0].se;
		in += f.eff[0].lo <= 0 && 0 <= f.eff[0].hi;
		sum += t;
		ss += t * t;
		sb_xo_fit_free(&f);
	}
	*cover = (double)in / sets;
	*sd_t = sqrt((ss - sum * sum / sets) / (sets - 1));
}

static void test_calibration(void **state)
{
	/* 3% stack, 5% round, 2% interaction, 4% turn; 6 rounds, 4 turns. */
	struct sim s = {.k = 2, .R = 6, .m = 4};
	double cover, sd_t;

	s.sd_stack = 0.03;
	s.sd_round = 0.05;
	s.sd_fx = 0.02;
	s.sd_turn = 0.04;
	simulate(&s, 400, &cover, &sd_t);
	print_message("crossover A/A, interaction 2%%, 4 turns: coverage %.4f, sd(est/se) %.4f\n",
		      cover, sd_t);
	assert_true(cover >= 0.92 && cover <= 0.98);
	assert_true(sd_t >= 0.8 && sd_t <= 1.25);

	/* No interaction, 40 turns: the round SE must not fall below the truth. */
	s.sd_fx = 0;
	s.m = 40;
	simulate(&s, 400, &cover, &sd_t);
	print_message("crossover A/A, no interaction, 40 turns: coverage %.4f, sd(est/se) %.4f\n",
		      cover, sd_t);
	assert_true(cover >= 0.92);

	/* Interaction 2%, 40 turns: the round SE carries the interval, with
	 * the df the stack adjustment leaves (est/se is then t with 4 df, whose
	 * SD is sqrt(2): not checked). With R - 1 df it covered 91.4% of
	 * 20000 sets, with R - 2 94.8%. */
	s.sd_fx = 0.02;
	simulate(&s, 400, &cover, &sd_t);
	print_message("crossover A/A, interaction 2%%, 40 turns: coverage %.4f, sd(est/se) %.4f\n",
		      cover, sd_t);
	assert_true(cover >= 0.92 && cover <= 0.98);
}

static void test_rank_deficient(void **state)
{
	static struct sb_xo_obs o[MAX_OBS];

	for (unsigned k = 2; k <= 3; k++) {
		/* one round: variant v on stack v throughout */
		struct sim s = {
		    .k = k, .R = 1, .m = 4, .veff = {0, 0.1, -0.1}, .seff = {0, 0.02, 0.04}};
		s.sd_turn = 0.01;
		struct rng g = {7};
		size_t n = gen(&s, &g, o);
		struct sb_xo_opts opt = {.baseline = 0, .alpha = 0.05};
		struct sb_xo_fit f;
		assert_int_equal(sb_xo_fit(o, n, &opt, &f), 0);
		for (size_t i = 0; i < f.n_eff; i++) {
			unsigned v = f.eff[i].variant;
			/* the variant carries its stack's effect: they cannot be told apart */
			near(f.eff[i].est, s.veff[v] + s.seff[v], 0.03, "confounded effect");
			assert_int_equal(f.eff[i].se_from, SB_XO_SE_TURN);
			assert_int_equal(f.eff[i].rounds, 1);
			assert_true(f.eff[i].lo < f.eff[i].est && f.eff[i].est < f.eff[i].hi);
		}
		assert_true(f.stack_est[0] == 0);
		for (size_t q = 1; q < k; q++)
			assert_true(isnan(f.stack_est[q]) && isnan(f.stack_lo[q]));
		assert_true(isnan(f.var_round_fx));
		double se_turn = f.eff[0].se, df_turn = f.eff[0].df;
		sb_xo_fit_free(&f);

		/* a calibrated round variance above it takes over, with the turn df */
		opt.round_floor_var = 0.01;
		assert_int_equal(sb_xo_fit(o, n, &opt, &f), 0);
		assert_true(se_turn < 0.1);
		assert_int_equal(f.eff[0].se_from, SB_XO_SE_FLOOR);
		near(f.eff[0].se, 0.1, 1e-15, "floor se");
		near(f.eff[0].df, df_turn, 0, "floor df");
		sb_xo_fit_free(&f);
	}

	/* A variant only ever in another round than the baseline: no effect. */
	struct sb_xo_obs sep[] = {{1.0, 0, 0, 0, 0}, {1.1, 0, 1, 0, 1}, {1.2, 1, 0, 1, 0},
				  {1.3, 1, 1, 1, 1}, {1.0, 2, 0, 0, 0}, {1.4, 2, 1, 1, 1}};
	struct sb_xo_opts opt = {.baseline = 0, .alpha = 0.05};
	struct sb_xo_fit f;
	assert_int_equal(sb_xo_fit(sep, 4, &opt, &f), 0);
	assert_true(isnan(f.eff[0].est) && isnan(f.eff[0].lo) && isnan(f.eff[0].p));
	assert_int_equal(f.eff[0].rounds, 0);
	sb_xo_fit_free(&f);
}

static void test_errors(void **state)
{
	static const struct sb_xo_obs two[] = {{1.0, 0, 0, 0, 0}, {1.2, 1, 1, 0, 1}};
	static const struct sb_xo_obs bad[] = {{1.0, 0, 0, 0, 0}, {0.0, 1, 1, 0, 1}};
	static const struct sb_xo_obs neg[] = {{-1.0, 0, 0, 0, 0}, {1.2, 1, 1, 0, 1}};
	static const struct sb_xo_obs nan_y[] = {{NAN, 0, 0, 0, 0}, {1.2, 1, 1, 0, 1}};
	static const struct sb_xo_obs one[] = {{1.0, 0, 0, 0, 0}, {1.2, 0, 1, 1, 1}};
	static const struct sb_xo_obs gap[] = {{1.0, 0, 0, 0, 0}, {1.2, 2, 1, 0, 1}};
	const struct sb_xo_opts ok = {.baseline = 0, .alpha = 0.05};
	static const struct {
		const struct sb_xo_obs *o;
		size_t n;
		struct sb_xo_opts opt;
		int rc;
	} cases[] = {
	    {two, 2, {.baseline = 0, .alpha = 0.05}, 0},
	    {bad, 2, {.baseline = 0, .alpha = 0.05}, -EINVAL},
	    {neg, 2, {.baseline = 0, .alpha = 0.05}, -EINVAL},
	    {nan_y, 2, {.baseline = 0, .alpha = 0.05}, -EINVAL},
	    {one, 2, {.baseline = 0, .alpha = 0.05}, -EINVAL},
	    {gap, 2, {.baseline = 0, .alpha = 0.05}, -EINVAL},
	    {two, 0, {.baseline = 0, .alpha = 0.05}, -EINVAL},
	    {two, 2, {.baseline = 2, .alpha = 0.05}, -EINVAL},
	    {two, 2, {.baseline = 0, .alpha = 0}, -EINVAL},
	    {two, 2, {.baseline = 0, .alpha = 0.05, .round_floor_var = -1}, -EINVAL},
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct sb_xo_fit f;
		int rc = sb_xo_fit(cases[c].o, cases[c].n, &cases[c].opt, &f);
		if (rc != cases[c].rc)
			fail_msg("case %zu: got %d, want %d", c, rc, cases[c].rc);
		if (rc < 0)
			assert_true(f.eff == NULL && f.stack_est == NULL);
		sb_xo_fit_free(&f);
	}
	/* two turns, two parameters (the stack term dropped): no SE at all */
	struct sb_xo_fit f;
	assert_int_equal(sb_xo_fit(two, 2, &ok, &f), 0);
	assert_int_equal(f.eff[0].se_from, SB_XO_SE_NONE);
	near(f.eff[0].est, log(1.2), 1e-12, "two-turn est");
	assert_true(isnan(f.eff[0].p));
	sb_xo_fit_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_exact),	cmocka_unit_test(test_reference),
	    cmocka_unit_test(test_calibration), cmocka_unit_test(test_rank_deficient),
	    cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
