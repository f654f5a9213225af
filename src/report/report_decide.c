/* The comparison table's decisions: rounds paired, each cell tested against
 * its baseline, the correction over each column's families, and the alpha of
 * a sequential (--repeat auto) run. */
#include "report/report-int.h"
#include "util/json-get.h"
#include "util/strutil.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* Rounds pair when both columns are one variant each of the same result
 * set, run interleaved (a stored baseline, --merge and --fleet compare sets
 * that did not run together: Welch). The values of the rounds both have,
 * in a and b; the number of pairs. */
static size_t pair_rounds(const struct sb_report *r, size_t bc, size_t c,
			  const struct sb_report_row *row, double *a, double *b)
{
	const struct sb_report_col *B = &r->cols[bc], *C = &r->cols[c];
	size_t n = 0;

	if (r->fleet || r->baseline_set || B->set != C->set || B->n_vars != 1 || C->n_vars != 1)
		return 0;
	for (size_t i = 0; i < B->vars[0]->n_rep; i++)
		for (size_t k = 0; k < C->vars[0]->n_rep; k++) {
			if (C->vars[0]->rep[k].index != B->vars[0]->rep[i].index)
				continue;
			a[n] = sb_rep_rep_value(&B->vars[0]->rep[i], row);
			b[n] = sb_rep_rep_value(&C->vars[0]->rep[k], row);
			n += isfinite(a[n]) && isfinite(b[n]);
			break;
		}
	return n;
}

/* Side by side, the crossover fit is the comparison: it models the stack
 * and the round that the pairs of rounds leave in the error (its t, df and
 * interval; the spread is one round's, so that the repeats needed count
 * rounds). */
static void crossover_cmp(const struct sb_report *r, size_t c, const struct sb_report_row *row,
			  struct sb_cmp *cmp)
{
	const struct sb_xo_effect *e = sb_rep_side_effect(r, (size_t)(row - r->rows), c, NULL);
	if (!e)
		return;
	*cmp = (struct sb_cmp){.test = SB_TEST_CROSSOVER_LOG,
			       .n = e->rounds,
			       .change = e->pct,
			       .lo = e->pct_lo,
			       .hi = e->pct_hi,
			       .p = e->p,
			       .p_t = e->p,
			       .p_rank = NAN,
			       .spread = e->se * sqrt((double)e->rounds),
			       .se = e->se,
			       .df = e->df};
	cmp->mde = sb_cmp_mde(cmp, r->alpha, SB_STATS_POWER);
}

void sb_rep_compare(const struct sb_report *r, size_t c, const struct sb_report_row *row)
{
	const struct sb_report_cell *base = &row->cells[r->cols[c].base];
	struct sb_report_cell *cell = &row->cells[c];
	size_t nb = r->cols[r->cols[c].base].n_rep;
	double a[nb ? nb : 1], b[nb ? nb : 1];

	cell->verdict = SB_VERDICT_NA;
	sb_cmp_clear(&cell->cmp);
	cell->welch = cell->cmp;
	cell->mde_welch = NAN;
	if (cell->st.n == 0 || base->st.n == 0)
		return;
	size_t np = pair_rounds(r, r->cols[c].base, c, row, a, b);
	/* paired where every repeat of both sides has its partner */
	sb_cmp_welch(base->values, base->st.n, cell->values, cell->st.n, r->alpha, SB_STATS_POWER,
		     &cell->welch);
	cell->mde_welch = cell->welch.mde;
	if (np >= 2 && np == base->st.n && np == cell->st.n)
		sb_cmp_paired(a, b, np, r->alpha, SB_STATS_POWER, &cell->cmp);
	else
		cell->cmp = cell->welch;
	crossover_cmp(r, c, row, &cell->cmp);
	sb_welch_test(&base->st, &cell->st, &cell->w);
	cell->w.p = cell->cmp.p;
	cell->change = isfinite(cell->cmp.change) ? cell->cmp.change
						  : sb_rel_change(base->st.mean, cell->st.mean);
	cell->change_lo = cell->cmp.lo;
	cell->change_hi = cell->cmp.hi;
	cell->mde_pct = cell->cmp.mde;
	double m = fabs(base->st.mean);
	cell->diff = (struct sb_diff){cell->st.mean - base->st.mean, cell->change_lo * m / 100,
				      cell->change_hi * m / 100, cell->mde_pct * m / 100};
}

bool sb_rep_testable(const struct sb_report_cell *base, const struct sb_report_cell *cell)
{
	return base->st.n >= SB_STATS_MIN_N && cell->st.n >= SB_STATS_MIN_N &&
	       cell->cmp.n >= SB_STATS_MIN_N && !isnan(cell->w.p);
}

bool sb_report_row_main(const struct sb_report_row *row)
{
	return (row->headline || row->cost) && (row->lat == SB_LAT_NONE || row->headline);
}

/* Side by side, rounds come in whole crossover cycles (each variant on
 * each stack once): the repeats a crossover row needs, rounded up to them. */
static size_t whole_cycles(const struct sb_report *r, const struct sb_report_row *row,
			   const struct sb_report_cell *cell)
{
	size_t cycle = 1;
	if (cell->cmp.test != SB_TEST_CROSSOVER_LOG || !cell->need || cell->need > SB_CMP_N_MAX ||
	    !sb_rep_side_effect(r, (size_t)(row - r->rows), (size_t)(cell - row->cells), &cycle) ||
	    cycle < 2)
		return cell->need;
	size_t n = (cell->need + cycle - 1) / cycle * cycle;
	return n > SB_CMP_N_MAX ? SB_CMP_N_MAX + 1 : n;
}

static void decide(const struct sb_report *r, const struct sb_report_row *row,
		   const struct sb_report_cell *base, struct sb_report_cell *cell, double alpha_row)
{
	if (cell->verdict == SB_VERDICT_NA && (cell->st.n == 0 || base->st.n == 0))
		return;
	/* The smallest change the row could have marked is the one at the
	 * alpha its correction asks (of 86 main rows, Holm's first step is
	 * alpha / 86): at the unadjusted alpha it named changes the verdict
	 * would never mark. */
	if (isfinite(cell->cmp.se)) {
		cell->mde_pct = sb_cmp_mde(&cell->cmp, alpha_row, SB_STATS_POWER);
		cell->diff.mde = cell->mde_pct * fabs(base->st.mean) / 100;
	}
	if (isfinite(cell->welch.se))
		cell->mde_welch = sb_cmp_mde(&cell->welch, alpha_row, SB_STATS_POWER);
	cell->significant = sb_rep_testable(base, cell) && cell->p_adj < r->alpha;
	if (!cell->significant) {
		/* equal: the whole interval inside +-resolve_pct */
		bool equal = sb_rep_testable(base, cell) && cell->change_lo > -r->resolve_pct &&
			     cell->change_hi < r->resolve_pct;
		cell->verdict = equal ? SB_VERDICT_SAME : SB_VERDICT_UNRESOLVED;
		if (!equal) {
			cell->need = sb_cmp_repeats_needed(&cell->cmp, r->resolve_pct, alpha_row,
							   SB_STATS_POWER);
			/* A change well beyond +-X% (at least 2X) whose interval
			 * is clear of zero, so that only the correction held it
			 * back (a 5x slowdown seen in 3 noisy rounds), is marked
			 * with far fewer repeats than +-X% takes to show: the
			 * fewer of the two, named. An A/A's noisy +40% [-26, +170]
			 * keeps the +-X% figure. The change seen may be an
			 * overestimate; the repeats are a first guess, which
			 * --repeat auto refines. */
			double seen = fabs(log1p(cell->change / 100));
			bool sign_known = cell->change_lo > 0 || cell->change_hi < 0;
			if (sign_known && isfinite(seen) &&
			    seen > log1p(2 * r->resolve_pct / 100)) {
				size_t n = sb_cmp_repeats_needed(&cell->cmp, expm1(seen) * 100,
								 alpha_row, SB_STATS_POWER);
				if (n < cell->need) {
					cell->need = n;
					cell->need_seen = true;
				}
			}
			cell->need = whole_cycles(r, row, cell);
		}
	} else if (row->better == SB_BETTER_NONE)
		cell->verdict = SB_VERDICT_DIFFERENT;
	else if ((cell->change > 0) == (row->better == SB_BETTER_HIGHER))
		cell->verdict = SB_VERDICT_BETTER;
	else
		cell->verdict = SB_VERDICT_WORSE;
}

/* Three families per column, each with its share of alpha (sum 1, so an
 * A/A report is marked anywhere at most alpha of the time): the headline
 * rows and the cost rows, each with the chosen correction, and the others
 * (latency, %CPU) with Benjamini-Hochberg. The 14 headline rows of the
 * quick single-disk profile came with 72 cost rows; in one Holm family the
 * cost rows took 6/7 of the power from the rows a user looks at, as 28
 * latency rows did before. */
enum { FAM_HEADLINE, FAM_COST, FAM_OTHER, FAM_N };
static const double fam_share[FAM_N] = {
    [FAM_HEADLINE] = SB_REPORT_HEADLINE_SHARE,
    [FAM_COST] = SB_REPORT_MAIN_SHARE - SB_REPORT_HEADLINE_SHARE,
    [FAM_OTHER] = 1 - SB_REPORT_MAIN_SHARE,
};

static int row_family(const struct sb_report_row *row)
{
	if (!sb_report_row_main(row))
		return FAM_OTHER;
	return row->headline ? FAM_HEADLINE : FAM_COST;
}

int sb_rep_correct(struct sb_report *r, size_t c)
{
	double *p = calloc(r->n_rows ? r->n_rows : 1, sizeof(*p));
	double *adj = calloc(r->n_rows ? r->n_rows : 1, sizeof(*adj));
	int ret = 0;

	if (!p || !adj) {
		ret = -ENOMEM;
		goto out;
	}
	/* A main family with no tested row (a run with no cost rows) leaves
	 * its share to the other: the shares are fixed before any p is seen. */
	size_t tested[FAM_N] = {0};
	for (size_t i = 0; i < r->n_rows; i++)
		tested[row_family(&r->rows[i])] +=
		    sb_rep_testable(&r->rows[i].cells[r->cols[c].base], &r->rows[i].cells[c]);
	double shares[FAM_N];
	memcpy(shares, fam_share, sizeof(shares));
	if (!tested[FAM_COST] || !tested[FAM_HEADLINE]) {
		shares[FAM_HEADLINE] = tested[FAM_HEADLINE] ? SB_REPORT_MAIN_SHARE : 0;
		shares[FAM_COST] = tested[FAM_COST] ? SB_REPORT_MAIN_SHARE : 0;
	}
	for (int fam = 0; fam < FAM_N && ret == 0; fam++) {
		size_t m = 0;
		enum sb_correction how = fam != FAM_OTHER || r->correction == SB_CORRECTION_NONE
					     ? r->correction
					     : SB_CORRECTION_BH;
		for (size_t i = 0; i < r->n_rows; i++) {
			const struct sb_report_cell *b = &r->rows[i].cells[r->cols[c].base];
			const struct sb_report_cell *x = &r->rows[i].cells[c];
			bool in = row_family(&r->rows[i]) == fam;
			p[i] = in && sb_rep_testable(b, x) ? x->w.p : NAN;
			m += !isnan(p[i]);
		}
		if (how == SB_CORRECTION_HOLM)
			ret = sb_p_adjust_holm(p, r->n_rows, adj);
		else if (how == SB_CORRECTION_BH)
			ret = sb_p_adjust_bh(p, r->n_rows, adj);
		else
			memcpy(adj, p, r->n_rows * sizeof(*adj));
		if (fam == FAM_HEADLINE && m > r->family_main)
			r->family_main = m;
		/* the repeats estimate at the alpha the correction asks of a row
		 * (Holm's first step; BH's last) */
		double alpha_row =
		    how == SB_CORRECTION_HOLM && m > 1 ? r->alpha / (double)m : r->alpha;
		double share = r->correction == SB_CORRECTION_NONE ? 1 : shares[fam];
		if (!(share > 0))
			share = fam_share[fam]; /* untested rows: p_adj stays NaN */
		alpha_row *= share;
		for (size_t i = 0; ret == 0 && i < r->n_rows; i++) {
			if (row_family(&r->rows[i]) != fam)
				continue;
			r->rows[i].cells[c].p_adj = isnan(adj[i]) ? NAN : fmin(1, adj[i] / share);
			decide(r, &r->rows[i], &r->rows[i].cells[r->cols[c].base],
			       &r->rows[i].cells[c], alpha_row);
		}
	}
out:
	free(p);
	free(adj);
	return ret;
}

/* The looks of one set: 0 with *first and *max set, 1 when it has none. */
static int set_looks(const struct sb_resultset *rs, size_t *look, int64_t *first, int64_t *max,
		     char **why)
{
	json_object *sched = NULL, *a = NULL, *rounds = NULL;
	if (!rs->profile ||
	    sb_jm_object(rs->profile, "profile", "schedule", SB_J_OPT, &sched, why) != 0 ||
	    sb_jm_object(sched, "profile.schedule", "auto", SB_J_OPT, &a, why) != 0)
		return *why ? -EINVAL : 1;
	if (sb_jm_int(a, "profile.schedule.auto", "first", SB_J_REQ, 1, 1000, first, why) < 0 ||
	    sb_jm_int(a, "profile.schedule.auto", "max", SB_J_REQ, *first, 1000, max, why) < 0 ||
	    sb_jm_array(sched, "profile.schedule", "rounds", SB_J_REQ, &rounds, why) < 0)
		return -EINVAL;
	*look = json_object_array_length(rounds);
	return 0;
}

int sb_rep_sequential_alpha(struct sb_report *r, char **err)
{
	r->alpha_nominal = r->alpha;
	for (size_t s = 0; s < r->n_sets; s++) {
		size_t look = 0;
		int64_t first = 0, max = 0;
		char *why = NULL;
		int ret = set_looks(r->sets[s], &look, &first, &max, &why);
		if (ret < 0) {
			ret = sb_set_err(err, -EINVAL, "%s: %s",
					 r->sets[s]->path ? r->sets[s]->path : "result set", why);
			free(why);
			return ret;
		}
		/* a run stopped (failed) before its first look took no look */
		if (ret > 0 || look < (size_t)first)
			continue;
		double spend = sb_alpha_spend(r->alpha_nominal, look, (size_t)first, (size_t)max);
		if (!r->seq_look || spend < r->alpha) {
			r->alpha = spend;
			r->seq_look = look;
			r->seq_first = (size_t)first;
			r->seq_max = (size_t)max;
		}
	}
	return 0;
}
