/* The crossover analysis of a set whose variants ran side by side: each
 * headline row fitted as log figure ~ variant + stack + round
 * (result/crossover.h) against the report's baseline, for the text and
 * JSON reports. Older sets have no side_by_side record and get nothing. */
#include "report/report-int.h"
#include "result/floor.h"
#include "util/json-get.h"
#include "util/macro.h"
#include "util/strutil.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define SIDE_PATH "profile.schedule.side_by_side"
#define NONE UINT32_MAX
/* The round-level SE needs a spread of round contrasts: two at least. */
#define SIDE_MIN_ROUNDS 2

/* One turn of the record: what a row's position in its round needs. */
struct turn {
	int64_t round, variant, position;
	const char *phase;
};

/* A set's side_by_side record, checked: the stack of each variant in each
 * round (NONE: it sat the round out, failed) and the turns. */
struct sched {
	size_t n_var, n_round;
	uint32_t *stack; /* n_round x n_var */
	struct turn *turns;
	size_t n_turns;
};

static void sched_free(struct sched *s)
{
	free(s->stack);
	free(s->turns);
}

/* 0 with *side set, 1 when the set has no record, -EINVAL with *why. */
static int side_get(const struct sb_resultset *rs, json_object **side, char **why)
{
	json_object *sched = NULL;

	*side = NULL;
	if (!rs->profile ||
	    sb_jm_object(rs->profile, "profile", "schedule", SB_J_OPT, &sched, why) != 0 ||
	    sb_jm_object(sched, "profile.schedule", "side_by_side", SB_J_OPT, side, why) != 0)
		return *why ? -EINVAL : 1;
	return 0;
}

static int read_round(json_object *round, size_t r, size_t stacks, struct sched *s, char **why)
{
	char path[96];
	json_object *a, *e;

	sb_jpath(path, sizeof(path), SIDE_PATH ".assignments[%zu]", r);
	if (sb_jv_array(round, path, SB_J_REQ, &a, why) < 0)
		return -EINVAL;
	for (size_t k = 0; k < json_object_array_length(a); k++) {
		int64_t st, v;
		sb_jpath(path, sizeof(path), SIDE_PATH ".assignments[%zu][%zu]", r, k);
		if (sb_jv_object(json_object_array_get_idx(a, k), path, SB_J_REQ, &e, why) < 0 ||
		    sb_jm_int(e, path, "stack", SB_J_REQ, 0, (int64_t)stacks - 1, &st, why) < 0 ||
		    sb_jm_int(e, path, "variant", SB_J_REQ, 0, (int64_t)s->n_var - 1, &v, why) < 0)
			return -EINVAL;
		s->stack[r * s->n_var + (size_t)v] = (uint32_t)st;
	}
	return 0;
}

/* A turn record's "turned" (millisecond turns): its phase's I/O added
 * to the set's tally of that phase. */
static int read_turned(json_object *e, const char *path, const char *phase,
		       struct sb_report_side *sd, char **why)
{
	json_object *tu = NULL;
	int64_t ios, out;
	double ms;
	size_t k;

	if (sb_jm_object(e, path, "turned", SB_J_OPT, &tu, why) != 0)
		return *why ? -EINVAL : 0;
	if (sb_jm_int(tu, path, "ios", SB_J_REQ, 0, INT64_MAX, &ios, why) < 0 ||
	    sb_jm_int(tu, path, "ios_outside", SB_J_REQ, 0, INT64_MAX, &out, why) < 0 ||
	    sb_jm_num(tu, path, "turn_ms", SB_J_REQ, 0.001, 1e6, &ms, why) < 0)
		return -EINVAL;
	sd->turn_ms = ms;
	for (k = 0; k < sd->n_turned && strcmp(sd->turned[k].phase, phase) != 0; k++)
		;
	if (k == sd->n_turned) {
		struct sb_report_side_turned *n =
		    realloc(sd->turned, (sd->n_turned + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		sd->turned = n;
		n[sd->n_turned++] = (struct sb_report_side_turned){.phase = phase};
	}
	sd->turned[k].ios += (uint64_t)ios;
	sd->turned[k].outside += (uint64_t)out;
	return 0;
}

static int read_turns(json_object *side, struct sched *s, struct sb_report_side *sd, char **why)
{
	json_object *a = NULL, *e;
	char path[64];

	if (sb_jm_array(side, SIDE_PATH, "turns", SB_J_OPT, &a, why) != 0)
		return *why ? -EINVAL : 0;
	s->n_turns = json_object_array_length(a);
	s->turns = calloc(s->n_turns ? s->n_turns : 1, sizeof(*s->turns));
	if (!s->turns)
		return -ENOMEM;
	for (size_t i = 0; i < s->n_turns; i++) {
		struct turn *t = &s->turns[i];
		sb_jpath(path, sizeof(path), SIDE_PATH ".turns[%zu]", i);
		if (sb_jv_object(json_object_array_get_idx(a, i), path, SB_J_REQ, &e, why) < 0 ||
		    sb_jm_int(e, path, "round", SB_J_REQ, 0, INT32_MAX, &t->round, why) < 0 ||
		    sb_jm_int(e, path, "variant", SB_J_REQ, 0, INT32_MAX, &t->variant, why) < 0 ||
		    sb_jm_int(e, path, "position", SB_J_REQ, 0, INT32_MAX, &t->position, why) < 0 ||
		    sb_jm_str(e, path, "phase", SB_J_REQ, &t->phase, why) < 0)
			return -EINVAL;
		int ret = read_turned(e, path, t->phase, sd, why);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int sched_read(const struct sb_resultset *rs, json_object *side, struct sb_report_side *sd,
		      struct sched *s, char **why)
{
	json_object *a;
	int64_t stacks;
	bool cross = true;

	*s = (struct sched){.n_var = rs->n_var};
	if (sb_jm_int(side, SIDE_PATH, "stacks", SB_J_REQ, 1, 1000, &stacks, why) < 0 ||
	    sb_jm_str(side, SIDE_PATH, "order", SB_J_OPT | SB_J_NULL, &sd->order, why) < 0 ||
	    sb_jm_bool(side, SIDE_PATH, "crossover", SB_J_OPT | SB_J_NULL, &cross, why) < 0 ||
	    sb_jm_array(side, SIDE_PATH, "assignments", SB_J_REQ, &a, why) < 0)
		return -EINVAL;
	sd->stacks = (size_t)stacks;
	sd->crossover = cross;
	if (sb_jm_array(side, SIDE_PATH, "whole", SB_J_OPT, &sd->whole, why) < 0 ||
	    sb_jm_object(side, SIDE_PATH, "round_floor", SB_J_OPT, &sd->floor, why) < 0 ||
	    (sd->floor && sb_floor_check(sd->floor, SIDE_PATH ".round_floor", why) < 0))
		return -EINVAL;
	for (size_t i = 0; sd->whole && i < json_object_array_length(sd->whole); i++) {
		json_object *w;
		const char *ph, *wy;
		int64_t from;
		char path[64];
		sb_jpath(path, sizeof(path), SIDE_PATH ".whole[%zu]", i);
		if (sb_jv_object(json_object_array_get_idx(sd->whole, i), path, SB_J_REQ, &w, why) <
			0 ||
		    sb_jm_str(w, path, "phase", SB_J_REQ, &ph, why) < 0 ||
		    sb_jm_str(w, path, "why", SB_J_REQ, &wy, why) < 0 ||
		    sb_jm_int(w, path, "from_round", SB_J_REQ, 0, INT32_MAX, &from, why) < 0)
			return -EINVAL;
	}
	s->n_round = sd->rounds = json_object_array_length(a);
	size_t cells = s->n_round * s->n_var;
	s->stack = malloc((cells ? cells : 1) * sizeof(*s->stack));
	if (!s->stack)
		return -ENOMEM;
	for (size_t i = 0; i < cells; i++)
		s->stack[i] = NONE;
	for (size_t r = 0; r < s->n_round; r++)
		if (read_round(json_object_array_get_idx(a, r), r, sd->stacks, s, why) < 0)
			return -EINVAL;
	return read_turns(side, s, sd, why);
}

/* The phase a row's figure was measured in, in one repeat (NULL: none). */
static const char *row_phase(const struct sb_repeat *rep, const struct sb_report_row *row)
{
	if (row->lat)
		return row->op;
	for (size_t w = 0; w < rep->n_wl; w++)
		if (strcmp(rep->wl[w]->spec, row->spec) == 0) {
			const struct sb_metric *m = sb_wl_find_metric(rep->wl[w], row->metric);
			return m ? m->phase : NULL;
		}
	return NULL;
}

/* The position of variant v's turn of phase in round r; 0 when the record
 * has none. */
static unsigned turn_position(const struct sched *s, size_t r, size_t v, const char *phase)
{
	for (size_t i = 0; phase && i < s->n_turns; i++) {
		const struct turn *t = &s->turns[i];
		if ((size_t)t->round == r && (size_t)t->variant == v &&
		    strcmp(t->phase, phase) == 0)
			return (unsigned)t->position;
	}
	return 0;
}

/* The column holding variant v of set s (SIZE_MAX: none). */
static size_t col_of(const struct sb_report *r, const struct sb_variant *v)
{
	for (size_t c = 0; c < r->n_cols; c++)
		for (size_t k = 0; k < r->cols[c].n_vars; k++)
			if (r->cols[c].vars[k] == v)
				return c;
	return SIZE_MAX;
}

/* Every turn of the row with a figure: its variant, stack, round and
 * position; has[v] says whether variant v has one. Returns the count. */
static size_t row_obs(const struct sb_resultset *rs, const struct sched *s,
		      const struct sb_report_row *row, struct sb_xo_obs *o, bool *has, bool *round)
{
	size_t n = 0;

	for (size_t v = 0; v < rs->n_var; v++)
		for (size_t k = 0; k < rs->var[v].n_rep; k++) {
			const struct sb_repeat *rep = &rs->var[v].rep[k];
			size_t rd = rep->index;
			double y = sb_rep_rep_value(rep, row);
			if (rd >= s->n_round || s->stack[rd * s->n_var + v] == NONE || !(y > 0) ||
			    !isfinite(y))
				continue;
			o[n++] = (struct sb_xo_obs){
			    .y = y,
			    .variant = (unsigned)v,
			    .stack = s->stack[rd * s->n_var + v],
			    .round = (unsigned)rd,
			    .position = turn_position(s, rd, v, row_phase(rep, row))};
			has[v] = round[rd] = true;
		}
	return n;
}

/* What the fit says of each of the set's other variants. */
static int row_vars(const struct sb_report *r, const struct sb_resultset *rs, size_t base,
		    const bool *has, const unsigned *idx, struct sb_report_side_row *sr)
{
	sr->var = calloc(rs->n_var, sizeof(*sr->var));
	if (!sr->var)
		return -ENOMEM;
	for (size_t v = 0; v < rs->n_var; v++) {
		struct sb_report_side_var *x = &sr->var[sr->n_var];
		if (v == base)
			continue;
		sr->n_var++;
		x->col = col_of(r, &rs->var[v]);
		x->why = SB_SIDE_NO_FIGURES;
		if (!has[v] || sr->why != SB_SIDE_FITTED)
			continue;
		/* the effects skip the baseline */
		x->eff = sr->fit.eff[idx[v] - (idx[v] > idx[base])];
		/* two rounds crossed over leave no df for the error once the
		 * stack is fitted: an estimate, no interval, too few rounds */
		x->why =
		    !isfinite(x->eff.est) ? SB_SIDE_CONFOUNDED
		    : x->eff.rounds >= SIDE_MIN_ROUNDS && isfinite(x->eff.lo) && isfinite(x->eff.hi)
			? SB_SIDE_FITTED
			: SB_SIDE_FEW_ROUNDS;
	}
	return 0;
}

static int row_fit(const struct sb_report *r, const struct sb_resultset *rs, const struct sched *s,
		   size_t base, json_object *floor, struct sb_report_side_row *sr)
{
	size_t n_max = 0, n, m = 0;
	int ret = -ENOMEM;

	for (size_t v = 0; v < rs->n_var; v++)
		n_max += rs->var[v].n_rep;
	_cleanup_free_ struct sb_xo_obs *o = malloc((n_max ? n_max : 1) * sizeof(*o));
	_cleanup_free_ bool *has = calloc(rs->n_var, sizeof(*has));
	_cleanup_free_ bool *round = calloc(s->n_round ? s->n_round : 1, sizeof(*round));
	_cleanup_free_ unsigned *idx = calloc(rs->n_var, sizeof(*idx));
	if (!o || !has || !round || !idx)
		return -ENOMEM;
	n = row_obs(rs, s, &r->rows[sr->row], o, has, round);
	for (size_t k = 0; k < s->n_round; k++)
		sr->rounds += round[k];
	/* the estimator wants its variants numbered without gaps: a variant
	 * with no figure (failed) is left out of the fit */
	for (size_t v = 0; v < rs->n_var; v++)
		idx[v] = has[v] ? (unsigned)m++ : NONE;
	for (size_t i = 0; i < n; i++)
		o[i].variant = idx[o[i].variant];
	sr->why = !has[base] ? SB_SIDE_NO_BASELINE : m < 2 ? SB_SIDE_ALONE : SB_SIDE_FITTED;
	if (sr->why == SB_SIDE_FITTED) {
		/* the floor: the variance (log scale) of one round's effect,
		 * --round-floor's or the one run recorded for the row */
		sr->floor_pct = r->round_floor_pct > 0
				    ? r->round_floor_pct
				    : sb_floor_pct(floor, r->rows[sr->row].label);
		double fl = log1p(sr->floor_pct / 100);
		struct sb_xo_opts opt = {
		    .baseline = idx[base], .alpha = r->alpha, .round_floor_var = fl * fl};
		if ((ret = sb_xo_fit(o, n, &opt, &sr->fit)) < 0)
			return ret;
	}
	return row_vars(r, rs, base, has, idx, sr);
}

/* The set's variant of the baseline's name (SIZE_MAX: none). */
static size_t set_base(const struct sb_report *r, const struct sb_resultset *rs)
{
	for (size_t v = 0; v < rs->n_var; v++)
		if (strcmp(rs->var[v].name, r->cols[r->baseline].variant) == 0)
			return v;
	return SIZE_MAX;
}

static int side_fit(struct sb_report *r, struct sb_report_side *sd, const struct sched *s)
{
	const struct sb_resultset *rs = r->sets[sd->set];
	size_t base = set_base(r, rs);

	sd->has_base = base != SIZE_MAX;
	if (!sd->has_base)
		return 0;
	sd->base_col = col_of(r, &rs->var[base]);
	sd->rows = calloc(r->n_rows ? r->n_rows : 1, sizeof(*sd->rows));
	if (!sd->rows)
		return -ENOMEM;
	for (size_t i = 0; i < r->n_rows; i++) {
		if (!r->rows[i].headline)
			continue;
		struct sb_report_side_row *sr = &sd->rows[sd->n_rows++];
		sr->row = i;
		int ret = row_fit(r, rs, s, base, sd->floor, sr);
		if (ret < 0)
			return ret;
	}
	return 0;
}

const struct sb_xo_effect *sb_rep_side_effect(const struct sb_report *r, size_t row, size_t col,
					      size_t *cycle)
{
	for (size_t i = 0; i < r->n_side; i++) {
		const struct sb_report_side *sd = &r->side[i];
		if (!sd->has_base || sd->base_col != r->cols[col].base)
			continue;
		for (size_t k = 0; k < sd->n_rows; k++) {
			const struct sb_report_side_row *sr = &sd->rows[k];
			if (sr->row != row || sr->why != SB_SIDE_FITTED)
				continue;
			for (size_t v = 0; v < sr->n_var; v++)
				if (sr->var[v].col == col && sr->var[v].why == SB_SIDE_FITTED) {
					if (cycle)
						*cycle = sd->crossover ? sd->stacks : 1;
					return &sr->var[v].eff;
				}
		}
	}
	return NULL;
}

int sb_rep_side_build(struct sb_report *r, char **err)
{
	for (size_t i = 0; i < r->n_sets; i++) {
		const struct sb_resultset *rs = r->sets[i];
		struct sched s = {0};
		json_object *side;
		char *why = NULL;
		int ret = side_get(rs, &side, &why);
		if (ret > 0)
			continue;
		if (ret == 0) {
			struct sb_report_side *sd = realloc(r->side, (r->n_side + 1) * sizeof(*sd));
			if (!sd)
				return -ENOMEM;
			r->side = sd;
			sd = &r->side[r->n_side++];
			*sd = (struct sb_report_side){.set = i};
			ret = sched_read(rs, side, sd, &s, &why);
			if (ret == 0)
				ret = side_fit(r, sd, &s);
		}
		sched_free(&s);
		if (ret == -EINVAL && why)
			ret = sb_set_err(err, -EINVAL, "%s: %s", rs->path ? rs->path : "result set",
					 why);
		free(why);
		if (ret < 0)
			return ret;
	}
	return 0;
}

void sb_rep_side_free(struct sb_report *r)
{
	for (size_t i = 0; i < r->n_side; i++) {
		for (size_t k = 0; k < r->side[i].n_rows; k++) {
			sb_xo_fit_free(&r->side[i].rows[k].fit);
			free(r->side[i].rows[k].var);
		}
		free(r->side[i].rows);
		free(r->side[i].turned);
	}
	free(r->side);
	r->side = NULL;
	r->n_side = 0;
}

static const char *se_name(int from)
{
	static const char *const names[] = {
	    [SB_XO_SE_NONE] = NULL,
	    [SB_XO_SE_TURN] = "turns",
	    [SB_XO_SE_ROUND] = "rounds",
	    [SB_XO_SE_FLOOR] = "floor",
	};
	return from >= 0 && from <= SB_XO_SE_FLOOR ? names[from] : NULL;
}

/* Why a row or a variant has no figures, in a few words; rounds: those
 * holding the variant and the baseline. */
static const char *why_str(enum sb_side_why why, size_t rounds, char *buf, size_t size)
{
	switch (why) {
	case SB_SIDE_NO_BASELINE:
		snprintf(buf, size, "the baseline has no figure of it");
		break;
	case SB_SIDE_ALONE:
		snprintf(buf, size, "no variant but the baseline has a figure of it");
		break;
	case SB_SIDE_NO_FIGURES:
		snprintf(buf, size, "no figure of it (a failed variant)");
		break;
	case SB_SIDE_FEW_ROUNDS:
		snprintf(buf, size, "%zu round%s with both: too few for an interval", rounds,
			 rounds == 1 ? "" : "s");
		break;
	case SB_SIDE_CONFOUNDED:
		snprintf(buf, size, "the design cannot tell it from the rounds");
		break;
	default:
		buf[0] = '\0';
	}
	return buf;
}

static const char *col_label(const struct sb_report *r, size_t c)
{
	return c < r->n_cols ? r->cols[c].label : "?";
}

static void effect_text(const struct sb_report *r, const struct sb_report_side *sd,
			const struct sb_report_side_row *sr, const struct sb_report_side_var *x,
			FILE *f)
{
	char buf[96];

	fprintf(f, "%s vs %s ", col_label(r, x->col), col_label(r, sd->base_col));
	if (x->why != SB_SIDE_FITTED) {
		fprintf(f, "not fitted: %s", why_str(x->why, x->eff.rounds, buf, sizeof(buf)));
		return;
	}
	fprintf(f, "%s (t, %g df, SE from %s)",
		sb_report_pct_str(x->eff.pct, x->eff.pct_lo, x->eff.pct_hi, buf, sizeof(buf)),
		x->eff.df, se_name(x->eff.se_from));
}

/* "rand:4k,direct=1: Random Read: B vs A +1.2% [-0.8, +3.3] (t, 2 df, SE
 * from rounds); round-to-round SD of the effect 1.1%; stack 1 vs stack 0
 * +0.4% [-1.0, +1.9]" */
static void row_text(const struct sb_report *r, const struct sb_report_side *sd,
		     const struct sb_report_side_row *sr, FILE *f)
{
	const struct sb_report_row *row = &r->rows[sr->row];
	char buf[96];
	bool any = false;

	fprintf(f, "  %s: %s: ", row->spec, row->label);
	if (sr->why != SB_SIDE_FITTED) {
		fprintf(f, "not fitted: %s\n", why_str(sr->why, 0, buf, sizeof(buf)));
		return;
	}
	for (size_t k = 0; k < sr->n_var; k++) {
		fputs(k ? "; " : "", f);
		effect_text(r, sd, sr, &sr->var[k], f);
		any |= sr->var[k].why == SB_SIDE_FITTED;
	}
	/* With one figure per variant and round (phases in turns), the
	 * effect's round-to-round part cannot be told from the turn noise:
	 * the estimator's 0 says nothing then. */
	if (any && isfinite(sr->fit.var_round_fx) && sr->fit.n > sr->fit.n_var * sr->fit.n_round)
		fprintf(f, "; round-to-round SD of the effect %.1f%%",
			100 * sqrt(sr->fit.var_round_fx));
	for (size_t s = 1; any && s < sr->fit.n_stack; s++)
		if (isfinite(sr->fit.stack_lo[s]) && isfinite(sr->fit.stack_hi[s]))
			fprintf(f, "; stack %zu vs stack 0 %s", s,
				sb_report_pct_str(100 * expm1(sr->fit.stack_est[s]),
						  100 * expm1(sr->fit.stack_lo[s]),
						  100 * expm1(sr->fit.stack_hi[s]), buf,
						  sizeof(buf)));
	fputs("\n", f);
}

/* run --turn: which phases ran in turns, and how much of their stacks'
 * I/O fell outside them (work the phase left to run later: a journal's
 * commit, writeback), which the turns did not charge to the phase. */
static void turned_text(const struct sb_report_side *sd, FILE *f)
{
	if (!sd->n_turned)
		return;
	fprintf(f,
		"  in turns of about %g ms, the stacks' I/O outside their own turns:", sd->turn_ms);
	for (size_t k = 0; k < sd->n_turned; k++) {
		const struct sb_report_side_turned *t = &sd->turned[k];
		uint64_t all = t->ios + t->outside;
		fprintf(f, "%s %s %.2f%% (%" PRIu64 " of %" PRIu64 ")", k ? "," : "", t->phase,
			all ? 100.0 * (double)t->outside / (double)all : 0.0, t->outside, all);
	}
	for (size_t i = 0; sd->whole && i < json_object_array_length(sd->whole); i++) {
		json_object *w = json_object_array_get_idx(sd->whole, i), *ph, *from, *why;
		json_object_object_get_ex(w, "phase", &ph);
		json_object_object_get_ex(w, "from_round", &from);
		json_object_object_get_ex(w, "why", &why);
		fprintf(f, "; %s whole from round %d (%s)", json_object_get_string(ph),
			json_object_get_int(from) + 1, json_object_get_string(why));
	}
	fputs("; every other phase whole\n", f);
}

/* The floor run recorded, with the rows it floored: "  round floor
 * Random Read 1.07%, Random Write 0.78% (...)". Nothing when no row took
 * one. */
static void floor_text(const struct sb_report_side *sd, const struct sb_report *r, FILE *f)
{
	const char *measured = NULL;
	int64_t trials = 0;
	size_t n = 0;

	for (size_t k = 0; k < sd->n_rows; k++) {
		const struct sb_report_side_row *sr = &sd->rows[k];
		if (!(sr->floor_pct > 0))
			continue;
		fprintf(f, "%s%s %g%%", n++ ? ", " : "  round floor ", r->rows[sr->row].label,
			sr->floor_pct);
	}
	if (!n)
		return;
	(void)sb_jm_str(sd->floor, "", "measured", SB_J_OPT, &measured, NULL);
	(void)sb_jm_int(sd->floor, "", "trials", SB_J_OPT, 2, 1000000, &trials, NULL);
	fputs(" (the SD of one round's effect: the host's A/A calibration", f);
	if (trials)
		fprintf(f, ", %" PRId64 " trials", trials);
	if (measured)
		fprintf(f, ", measured %s", measured);
	fputs(", recorded by run; --round-floor overrides)\n", f);
}

void sb_report_side_text(const struct sb_report *r, FILE *f)
{
	for (size_t i = 0; i < r->n_side; i++) {
		const struct sb_report_side *sd = &r->side[i];
		fputs("side by side", f);
		if (r->n_sets > 1)
			fprintf(f, " (%s)", r->set_names[sd->set]);
		fprintf(f, ": %zu stack%s, %zu round%s, %s (the model: log figure ~ %s)\n",
			sd->stacks, sd->stacks == 1 ? "" : "s", sd->rounds,
			sd->rounds == 1 ? "" : "s",
			sd->crossover	  ? "variants crossed over the stacks"
			: sd->stacks == 1 ? "the variants switched on it between turns"
					  : "each variant kept on its stack",
			sd->crossover ? "variant + stack + round" : "variant + round");
		if (r->round_floor_pct > 0)
			fprintf(f,
				"  round floor %g%% (the SD of one round's effect, the host's A/A "
				"calibration: --round-floor)\n",
				r->round_floor_pct);
		else
			floor_text(sd, r, f);
		if (!sd->has_base)
			fprintf(f, "  no variant named %s here: nothing to compare with\n",
				r->cols[r->baseline].variant);
		turned_text(sd, f);
		for (size_t k = 0; k < sd->n_rows; k++)
			row_text(r, sd, &sd->rows[k], f);
		fputs("\n", f);
	}
}

static json_object *num(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static json_object *effect_json(const struct sb_report *r, const struct sb_report_side *sd,
				const struct sb_report_side_row *sr,
				const struct sb_report_side_var *x)
{
	json_object *o = json_object_new_object();
	const char *from = se_name(x->eff.se_from);
	char buf[96];

	json_object_object_add(o, "variant", json_object_new_string(col_label(r, x->col)));
	json_object_object_add(o, "fitted", json_object_new_boolean(x->why == SB_SIDE_FITTED));
	if (x->why != SB_SIDE_FITTED) {
		json_object_object_add(
		    o, "note",
		    json_object_new_string(why_str(x->why, x->eff.rounds, buf, sizeof(buf))));
		return o;
	}
	json_object_object_add(o, "est_pct", num(x->eff.pct));
	json_object_object_add(o, "lo_pct", num(x->eff.pct_lo));
	json_object_object_add(o, "hi_pct", num(x->eff.pct_hi));
	json_object_object_add(o, "est_log", num(x->eff.est));
	json_object_object_add(o, "se_log", num(x->eff.se));
	json_object_object_add(o, "df", num(x->eff.df));
	json_object_object_add(o, "se_from", from ? json_object_new_string(from) : NULL);
	json_object_object_add(o, "p", num(x->eff.p));
	json_object_object_add(o, "rounds", json_object_new_uint64(x->eff.rounds));
	return o;
}

/* The stacks' effects against stack 0 (the turn-level interval). */
static json_object *stacks_json(const struct sb_xo_fit *fit)
{
	json_object *a = json_object_new_array();

	for (size_t s = 1; s < fit->n_stack; s++) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "stack", json_object_new_uint64(s));
		json_object_object_add(o, "est_pct", num(100 * expm1(fit->stack_est[s])));
		json_object_object_add(o, "lo_pct", num(100 * expm1(fit->stack_lo[s])));
		json_object_object_add(o, "hi_pct", num(100 * expm1(fit->stack_hi[s])));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *row_json(const struct sb_report *r, const struct sb_report_side *sd,
			     const struct sb_report_side_row *sr)
{
	const struct sb_report_row *row = &r->rows[sr->row];
	json_object *o = json_object_new_object(), *eff = json_object_new_array();
	char buf[96];

	json_object_object_add(o, "spec", json_object_new_string(row->spec));
	json_object_object_add(o, "metric", json_object_new_string(row->metric));
	json_object_object_add(o, "label", json_object_new_string(row->label));
	json_object_object_add(o, "fitted", json_object_new_boolean(sr->why == SB_SIDE_FITTED));
	json_object_object_add(o, "rounds", json_object_new_uint64(sr->rounds));
	json_object_object_add(o, "round_floor_pct",
			       sr->floor_pct > 0 ? json_object_new_double(sr->floor_pct) : NULL);
	if (sr->why != SB_SIDE_FITTED) {
		json_object_object_add(
		    o, "note", json_object_new_string(why_str(sr->why, 0, buf, sizeof(buf))));
		json_object_put(eff);
		return o;
	}
	json_object_object_add(o, "observations", json_object_new_uint64(sr->fit.n));
	json_object_object_add(o, "var_turn", num(sr->fit.var_turn));
	json_object_object_add(o, "var_round_fx", num(sr->fit.var_round_fx));
	json_object_object_add(o, "stack_effects", stacks_json(&sr->fit));
	for (size_t k = 0; k < sr->n_var; k++)
		json_object_array_add(eff, effect_json(r, sd, sr, &sr->var[k]));
	json_object_object_add(o, "effects", eff);
	return o;
}

json_object *sb_report_side_json(const struct sb_report *r)
{
	json_object *a;

	if (!r->n_side)
		return NULL;
	a = json_object_new_array();
	for (size_t i = 0; i < r->n_side; i++) {
		const struct sb_report_side *sd = &r->side[i];
		json_object *o = json_object_new_object(), *rows = json_object_new_array();
		json_object_object_add(o, "set", json_object_new_string(r->set_names[sd->set]));
		json_object_object_add(o, "stacks", json_object_new_uint64(sd->stacks));
		json_object_object_add(o, "rounds", json_object_new_uint64(sd->rounds));
		json_object_object_add(o, "order",
				       sd->order ? json_object_new_string(sd->order) : NULL);
		json_object_object_add(o, "crossover", json_object_new_boolean(sd->crossover));
		json_object_object_add(
		    o, "model",
		    json_object_new_string(sd->crossover ? "log figure ~ variant + stack + round"
							 : "log figure ~ variant + round"));
		json_object_object_add(
		    o, "round_floor_pct",
		    r->round_floor_pct > 0 ? json_object_new_double(r->round_floor_pct) : NULL);
		json_object_object_add(o, "round_floor",
				       sd->floor ? json_object_get(sd->floor) : NULL);
		json_object_object_add(
		    o, "baseline",
		    sd->has_base ? json_object_new_string(col_label(r, sd->base_col)) : NULL);
		for (size_t k = 0; k < sd->n_rows; k++)
			json_object_array_add(rows, row_json(r, sd, &sd->rows[k]));
		json_object_object_add(o, "rows", rows);
		if (sd->n_turned) {
			json_object *tl = json_object_new_array();
			for (size_t k = 0; k < sd->n_turned; k++) {
				json_object *t = json_object_new_object();
				json_object_object_add(t, "phase",
						       json_object_new_string(sd->turned[k].phase));
				json_object_object_add(t, "ios",
						       json_object_new_uint64(sd->turned[k].ios));
				json_object_object_add(
				    t, "ios_outside",
				    json_object_new_uint64(sd->turned[k].outside));
				json_object_array_add(tl, t);
			}
			json_object_object_add(o, "turn_ms", json_object_new_double(sd->turn_ms));
			json_object_object_add(o, "turned", tl);
			if (sd->whole)
				json_object_object_add(o, "whole", json_object_get(sd->whole));
		}
		json_object_array_add(a, o);
	}
	return a;
}
