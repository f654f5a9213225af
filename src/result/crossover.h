/* The estimator of a side-by-side crossover comparison: k variants each on
 * its own stack at once, crossed over the stacks from round to round, each
 * compared with a baseline as a ratio (log scale). Pure logic, no I/O;
 * unit-tested in tests/unit/test_crossover.c.
 *
 * The model is log y = mu + variant + stack + round [+ position] + error,
 * fitted by least squares with dummy coding (the baseline, stack 0, round 0
 * and position 0 are the reference levels). Its turn-level standard error
 * treats every turn as independent, which the host's slow drift and the
 * effect's own round-to-round variation make untrue: more turns within a
 * round never buy more than that round's worth of information. So each
 * effect's standard error is the largest of three, with its df:
 *  - turn:  the least-squares one, df = n - rank;
 *  - round: the spread of the per-round contrasts d_r (variant minus
 *           baseline, each the mean of its turns' log y less the fitted
 *           stack [and position] effects): sd(d_r) / sqrt(R), df = R - 1
 *           when no fitted effect varies across the contrasts; each that
 *           does (the stack difference, with the variants crossed over)
 *           was fitted to the same contrasts and takes one df from their
 *           spread: var = SS(d_r) / (R - 1 - q), df = R - 1 - q, times the
 *           leverage of their mean (1/R when the stacks balance);
 *  - floor: sqrt(round_floor_var / R), the host's calibrated round variance,
 *           which keeps two or three rounds from looking quieter than the
 *           host is; df = R - 1, or the turn df with one round.
 * Intervals are Student t, never z. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct sb_xo_obs {
	double y; /* one turn's figure, > 0 */
	unsigned variant, stack, round, position;
};

struct sb_xo_opts {
	unsigned baseline;	/* the variant the others are compared with */
	double alpha;		/* two-sided, e.g. 0.05 */
	double round_floor_var; /* >= 0: the variance (log scale) of one round's effect
				   estimate that the host's calibration measured;
				   floors the round component when rounds are few;
				   0: no floor */
	bool position;		/* position within the round as a factor of the model */
};

/* Which standard error an effect uses: the largest available. */
enum sb_xo_se {
	SB_XO_SE_NONE = 0, /* none could be computed (est may still be known) */
	SB_XO_SE_TURN,
	SB_XO_SE_ROUND,
	SB_XO_SE_FLOOR,
};

struct sb_xo_effect {
	unsigned variant;
	double est, se, df, lo, hi; /* log ratio against the baseline, its SE, t df, CI (log) */
	double pct, pct_lo, pct_hi; /* the same as percent change: 100 * (exp(x) - 1) */
	double p;		    /* two-sided t p-value */
	int se_from;		    /* enum sb_xo_se */
	size_t rounds;		    /* R: rounds holding both this variant and the baseline */
};

struct sb_xo_fit {
	size_t n, n_var, n_stack, n_round;
	double var_turn;     /* residual variance of the additive model (turn component) */
	double var_round_fx; /* round-to-round variance of the effect (variant x round), >= 0,
				pooled over the variants; NaN with fewer than 2 rounds */
	/* n_stack: stack effects (log) against stack 0 (0 by definition), with their
	 * 1 - alpha interval from the turn-level fit; NaN when not estimable (stacks
	 * confounded with variants, or a stack never used): the stack term is then
	 * dropped from the model and the variant effects carry the stack's. */
	double *stack_est, *stack_lo, *stack_hi;
	struct sb_xo_effect *eff; /* one per non-baseline variant, in variant order */
	size_t n_eff;
};

/* Fits the n observations o. Returns 0; -EINVAL when fewer than 2 variants,
 * a variant index below the largest with no observation, a y that is not
 * finite and > 0, a baseline that is no variant, alpha outside (0, 1), or a
 * negative round_floor_var; -ENOMEM. An effect that the design cannot
 * separate (a variant confounded with rounds) has NaN figures. On success
 * out holds memory for sb_xo_fit_free(); on failure it holds none. */
int sb_xo_fit(const struct sb_xo_obs *o, size_t n, const struct sb_xo_opts *opt,
	      struct sb_xo_fit *out);
void sb_xo_fit_free(struct sb_xo_fit *f);
