/* The verdict that opens every report format: per variant against its
 * baseline, what changed (largest first, with its interval and the test
 * used), what is equal within +-X%, and what the run could not resolve,
 * with the repeats that would. Built once here, printed by each format. */
#include "report/measure.h"
#include "report/report.h"
#include "util/macro.h"
#include "util/strutil.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool sb_report_row_shown(const struct sb_report *r, const struct sb_report_row *row)
{
	return r->all || sb_report_row_main(row);
}

char *sb_report_row_tests(const struct sb_report *r, const struct sb_report_row *row, char *buf,
			  size_t size)
{
	bool seen[SB_TEST_CROSSOVER_LOG + 1] = {0};
	size_t len = 0;
	buf[0] = '\0';
	for (size_t c = 0; c < r->n_cols; c++)
		if (r->cols[c].base != c && row->cells[c].cmp.test != SB_TEST_NONE &&
		    row->cells[c].cmp.n >= 2)
			seen[row->cells[c].cmp.test] = true;
	for (int t = SB_TEST_PAIRED_LOG; t <= SB_TEST_CROSSOVER_LOG; t++)
		if (seen[t] && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? "/" : "",
						sb_test_name((enum sb_test)t));
	if (!len)
		snprintf(buf, size, "-");
	return buf;
}

char *sb_report_need_str(const struct sb_report_cell *x, char *buf, size_t size)
{
	if (x->need > SB_CMP_N_MAX)
		snprintf(buf, size, "more than %d repeats", SB_CMP_N_MAX);
	else if (x->need)
		snprintf(buf, size, "about %zu repeats", x->need);
	else
		snprintf(buf, size, "more repeats");
	return buf;
}

const char *sb_report_untested_why(const struct sb_report *r, const struct sb_report_row *row,
				   size_t c, char *buf, size_t size)
{
	const struct sb_report_cell *x = &row->cells[c], *b = &row->cells[r->cols[c].base];
	if (x->st.n == 0)
		snprintf(buf, size,
			 "no value: the metric or workload is missing, the spec "
			 "changed, or its values are not finite");
	else if (x->st.n < SB_STATS_MIN_N || b->st.n < SB_STATS_MIN_N)
		snprintf(buf, size, "%zu repeat%s against %zu: at least %d a side are needed",
			 x->st.n, x->st.n == 1 ? "" : "s", b->st.n, SB_STATS_MIN_N);
	else
		snprintf(buf, size, "only %zu round%s pair with the baseline's", x->cmp.n,
			 x->cmp.n == 1 ? "" : "s");
	return buf;
}

static const struct sb_report *sort_r;
static size_t sort_col;

const char *sb_report_need_what(const struct sb_report *r, const struct sb_report_cell *x,
				const char *pm, char *buf, size_t size)
{
	if (x->need_seen)
		snprintf(buf, size, "a change of the size seen");
	else
		snprintf(buf, size, "%s%g%%", pm, r->resolve_pct);
	return buf;
}

static int by_size(const void *a, const void *b)
{
	double x = fabs(sort_r->rows[*(const size_t *)a].cells[sort_col].change);
	double y = fabs(sort_r->rows[*(const size_t *)b].cells[sort_col].change);
	return x < y ? 1 : x > y ? -1 : 0;
}

void sb_report_verdict_free(struct sb_report_verdict *v)
{
	free(v->changed);
	free(v->equal);
	free(v->unresolved);
	free(v->untested);
	*v = (struct sb_report_verdict){0};
}

int sb_report_verdict_build(const struct sb_report *r, size_t col, struct sb_report_verdict *v)
{
	size_t n = r->n_rows ? r->n_rows : 1;
	*v = (struct sb_report_verdict){.col = col, .paired = true};
	v->changed = calloc(n, sizeof(size_t));
	v->equal = calloc(n, sizeof(size_t));
	v->unresolved = calloc(n, sizeof(size_t));
	v->untested = calloc(n, sizeof(size_t));
	if (!v->changed || !v->equal || !v->unresolved || !v->untested) {
		sb_report_verdict_free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->n_rows; i++) {
		const struct sb_report_row *row = &r->rows[i];
		const struct sb_report_cell *x = &row->cells[col];
		if (!sb_report_row_main(row))
			continue;
		if (sb_report_cell_untested(r, row, col)) {
			v->untested[v->n_untested++] = i;
			continue;
		}
		if (x->verdict == SB_VERDICT_NA)
			continue;
		v->paired &= sb_test_paired(x->cmp.test);
		v->crossover |= x->cmp.test == SB_TEST_CROSSOVER_LOG;
		if (x->significant)
			v->changed[v->n_changed++] = i;
		else if (x->verdict == SB_VERDICT_SAME)
			v->equal[v->n_equal++] = i;
		else
			v->unresolved[v->n_unresolved++] = i;
	}
	sort_r = r;
	sort_col = col;
	qsort(v->changed, v->n_changed, sizeof(size_t), by_size);
	return 0;
}

/* "seq: Block write" */
static void row_name(FILE *f, const struct sb_report_row *row)
{
	fprintf(f, "%s: %s", row->spec, row->label);
}

const char *sb_report_pct_str(double ch, double lo, double hi, char *buf, size_t len)
{
	/* a count that moved by a few in a million (bytes per byte +0.003%)
	 * is significant with no spread: "+0.0% [+0.0, +0.0]" would say a
	 * change of nothing was found, so small ones keep two digits */
	if (fabs(lo) < 0.05 && fabs(hi) < 0.05)
		snprintf(buf, len, "%+.2g%% [%+.2g, %+.2g]", ch, lo, hi);
	else
		snprintf(buf, len, "%+.1f%% [%+.1f, %+.1f]", ch, lo, hi);
	return buf;
}

const char *sb_report_change_str(const struct sb_report_cell *x, char *buf, size_t len)
{
	return sb_report_pct_str(x->change, x->change_lo, x->change_hi, buf, len);
}

static void change_line(const struct sb_report *r, FILE *f, const struct sb_report_row *row,
			size_t col)
{
	const struct sb_report_cell *x = &row->cells[col];
	char ch[96];
	fprintf(f, "%s (%s, p adj %.2g)", sb_report_change_str(x, ch, sizeof(ch)),
		sb_test_name(x->cmp.test), x->p_adj);
}

/* How many lines of each list the text verdict shows: the headline rows
 * always, then the cost rows up to the cap; the rest are counted (the
 * table and the JSON verdict have them all). A verdict of a hundred lines
 * is a wall again. */
/* UNTESTED_ALONE: up to so many rows with one reason are named a line
 * each; more are counted on one. */
enum { VERDICT_CAP = 8, EQUAL_CAP = 6, UNTESTED_ALONE = 3 };

static void unresolved_line(const struct sb_report *r, FILE *f, const struct sb_report_row *row,
			    size_t c, const char *pm)
{
	char buf[48], what[48];
	fputs("    not resolved: ", f);
	row_name(f, row);
	fputs(" ", f);
	change_line(r, f, row, c);
	fprintf(f, ": %s would resolve %s\n", sb_report_need_str(&row->cells[c], buf, sizeof(buf)),
		sb_report_need_what(r, &row->cells[c], pm, what, sizeof(what)));
}

static void changed_line(const struct sb_report *r, FILE *f, const struct sb_report_row *row,
			 size_t c)
{
	fprintf(f, "    %-7s ", sb_verdict_name(row->cells[c].verdict));
	row_name(f, row);
	fputs(" ", f);
	change_line(r, f, row, c);
	fputs("\n", f);
}

/* Lines of list, headline rows first (in their order), then the others up
 * to the cap; returns how many were left out. */
static size_t list_lines(const struct sb_report *r, FILE *f, const size_t *list, size_t n, size_t c,
			 const char *pm, bool unresolved)
{
	size_t shown = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t k = 0; k < n; k++) {
			const struct sb_report_row *row = &r->rows[list[k]];
			if (row->headline != (pass == 0) || (pass == 1 && shown >= VERDICT_CAP))
				continue;
			if (unresolved)
				unresolved_line(r, f, row, c, pm);
			else
				changed_line(r, f, row, c);
			shown++;
		}
	return n - shown;
}

/* Too few repeats to test: the headline changes as seen, said as such. */
static void seen_line(const struct sb_report *r, FILE *f, const struct sb_report_verdict *v,
		      size_t c)
{
	size_t shown = 0, n = 0;
	for (size_t k = 0; k < v->n_untested; k++) {
		const struct sb_report_row *row = &r->rows[v->untested[k]];
		const struct sb_report_cell *x = &row->cells[c];
		if (!row->headline || x->st.n == 0 || !isfinite(x->change))
			continue;
		n++;
		if (shown == 6)
			continue;
		if (!shown++)
			fprintf(f, "    seen in %zu against %zu repeats, not tested: ",
				r->cols[c].n_rep, r->cols[r->cols[c].base].n_rep);
		else
			fputs(", ", f);
		row_name(f, row);
		fprintf(f, " %+.1f%%", x->change);
	}
	if (n > shown)
		fprintf(f, " and %zu more", n - shown);
	if (shown)
		fputs("\n", f);
}

/* Is row j of the untested list untested for the reason why? */
static bool untested_for(const struct sb_report *r, const struct sb_report_verdict *v, size_t j,
			 size_t c, const char *why)
{
	char other[160];
	return strcmp(sb_report_untested_why(r, &r->rows[v->untested[j]], c, other, sizeof(other)),
		      why) == 0;
}

/* The rows untested for one reason (the first is row k): a line each up to
 * UNTESTED_ALONE, else one line with their count, headline ones named
 * first. */
static void untested_reason(const struct sb_report *r, FILE *f, const struct sb_report_verdict *v,
			    size_t k, size_t c, const char *why)
{
	size_t n = 0, heads = 0, shown = 0;
	for (size_t j = k; j < v->n_untested; j++)
		if (untested_for(r, v, j, c, why)) {
			n++;
			heads += r->rows[v->untested[j]].headline;
		}
	if (n <= UNTESTED_ALONE) {
		for (size_t j = k; j < v->n_untested; j++)
			if (untested_for(r, v, j, c, why)) {
				fputs("    untested: ", f);
				row_name(f, &r->rows[v->untested[j]]);
				fprintf(f, ": %s\n", why);
			}
		return;
	}
	fprintf(f, "    untested, %zu rows (%zu headline): %s: ", n, heads, why);
	for (int pass = 0; pass < 2; pass++)
		for (size_t j = k; j < v->n_untested && shown < 3; j++) {
			const struct sb_report_row *row = &r->rows[v->untested[j]];
			if (row->headline != (pass == 0) || !untested_for(r, v, j, c, why))
				continue;
			fputs(shown++ ? ", " : "", f);
			row_name(f, row);
		}
	if (shown < n)
		fprintf(f, " and %zu more", n - shown);
	fputs("\n", f);
}

/* The untested rows, one line per reason: up to UNTESTED_ALONE rows with
 * one reason are named a line each; more (every row of a run with one
 * repeat) are counted on one line, so that the block stays a verdict and
 * not a copy of the table. Too few repeats ends with the changes as seen
 * and the next step. */
static void untested_lines(const struct sb_report *r, FILE *f, const struct sb_report_verdict *v,
			   size_t c)
{
	bool few = false;
	for (size_t k = 0; k < v->n_untested; k++) {
		const struct sb_report_row *row = &r->rows[v->untested[k]];
		char why[160];
		bool seen = false;
		sb_report_untested_why(r, row, c, why, sizeof(why));
		for (size_t j = 0; j < k && !seen; j++)
			seen = untested_for(r, v, j, c, why);
		if (seen)
			continue;
		few |=
		    row->cells[c].st.n > 0 && (row->cells[c].st.n < SB_STATS_MIN_N ||
					       row->cells[r->cols[c].base].st.n < SB_STATS_MIN_N);
		untested_reason(r, f, v, k, c, why);
	}
	if (few) {
		seen_line(r, f, v, c);
		fprintf(f,
			"    next: run with --repeat %d or more (or --repeat auto) for a verdict\n",
			SB_STATS_MIN_N);
	}
}

const char sb_report_unpaired_note[] =
    "unpaired: the sets ran at different times, so a change of the host between them "
    "(its load, other jobs, a warmer cache) moves their rows alike and reads as a change "
    "of the stack; for rounds that pair, run both as variants of one `stackbench run` "
    "(a [matrix] or -o A|B)";

/* "reads from ssd 100% (was 33%)": the role that served the largest share
 * of the column's member reads, against the baseline's share of it. */
static bool shares_short(const struct sb_report *r, size_t c, FILE *f)
{
	struct sb_measure_share s[16], b[16];
	size_t n = sb_measure_read_shares(r, c, s, ARRAY_SIZE(s)), top = 0;
	size_t nb = sb_measure_read_shares(r, r->cols[c].base, b, ARRAY_SIZE(b));

	if (!n)
		return false;
	for (size_t k = 1; k < n; k++)
		if (s[k].share > s[top].share)
			top = k;
	fprintf(f, "reads from %s %.0f%%", s[top].role, 100 * s[top].share);
	for (size_t k = 0; k < nb; k++)
		if (strcmp(b[k].role, s[top].role) == 0)
			fprintf(f, " (was %.0f%%)", 100 * b[k].share);
	return true;
}

/* The profile's workloads.answer, as the first set that has one recorded
 * it, or NULL. */
static const char *answer_of(const struct sb_report *r)
{
	for (size_t i = 0; i < r->n_sets; i++) {
		json_object *v, *a;
		if (r->sets[i]->profile &&
		    json_object_object_get_ex(r->sets[i]->profile, "values", &v) &&
		    json_object_object_get_ex(v, "workloads.answer", &a))
			return json_object_get_string(a);
	}
	return NULL;
}

static bool listed(const size_t *list, size_t n, size_t i)
{
	for (size_t k = 0; k < n; k++)
		if (list[k] == i)
			return true;
	return false;
}

size_t sb_report_answers(const struct sb_report *r, const struct sb_report_verdict *v,
			 struct sb_report_answer *out, size_t max)
{
	const char *a = answer_of(r);
	_cleanup_free_ char *copy = a ? strdup(a) : NULL;
	char *s = copy, *wl, *label;
	size_t n = 0;

	while (s && n < max && sb_answer_next(&s, &wl, &label)) {
		struct sb_report_answer *x = &out[n++];
		size_t i = 0;
		while (i < r->n_rows && !(r->rows[i].lat == SB_LAT_NONE && label &&
					  strcmp(r->rows[i].workload, wl) == 0 &&
					  strcasecmp(r->rows[i].label, label) == 0))
			i++;
		snprintf(x->wl, sizeof(x->wl), "%s", wl);
		snprintf(x->label, sizeof(x->label), "%s",
			 i < r->n_rows ? r->rows[i].label
			 : label       ? label
				       : "");
		x->row = i < r->n_rows ? i : SIZE_MAX;
		x->state = i == r->n_rows			       ? SB_ANSWER_NO_ROW
			   : listed(v->untested, v->n_untested, i)     ? SB_ANSWER_UNTESTED
			   : listed(v->changed, v->n_changed, i)       ? SB_ANSWER_CHANGED
			   : listed(v->equal, v->n_equal, i)	       ? SB_ANSWER_EQUAL
			   : listed(v->unresolved, v->n_unresolved, i) ? SB_ANSWER_UNRESOLVED
								       : SB_ANSWER_NO_VALUE;
	}
	return n;
}

/* The rows the profile's question turns on, each with its verdict:
 * changed, equal, not resolved and the repeats that would resolve it,
 * untested and why, or no such row. */
static bool answer_short(const struct sb_report *r, const struct sb_report_verdict *v, FILE *f,
			 const char *pm)
{
	struct sb_report_answer ans[16];
	size_t n = sb_report_answers(r, v, ans, ARRAY_SIZE(ans)), c = v->col;
	char ch[96], buf[160], what[48];

	for (size_t k = 0; k < n; k++) {
		const struct sb_report_answer *x = &ans[k];
		fputs(k ? "; " : "", f);
		if (x->state == SB_ANSWER_NO_ROW) {
			fprintf(f, "%s%s%s: no such row", x->wl, *x->label ? ": " : "", x->label);
			continue;
		}
		const struct sb_report_row *row = &r->rows[x->row];
		const struct sb_report_cell *cell = &row->cells[c];
		fprintf(f, "%s: %s ", x->wl, row->label);
		switch (x->state) {
		case SB_ANSWER_UNTESTED:
			fprintf(f, "untested (%s)",
				sb_report_untested_why(r, row, c, buf, sizeof(buf)));
			break;
		case SB_ANSWER_CHANGED:
			fprintf(f, "%s %s", sb_verdict_name(cell->verdict),
				sb_report_change_str(cell, ch, sizeof(ch)));
			break;
		case SB_ANSWER_EQUAL:
			fprintf(f, "equal within %s%g%% (%s)", pm, r->resolve_pct,
				sb_report_change_str(cell, ch, sizeof(ch)));
			break;
		case SB_ANSWER_UNRESOLVED:
			fprintf(f, "%s, not resolved: %s would resolve %s",
				sb_report_change_str(cell, ch, sizeof(ch)),
				sb_report_need_str(cell, buf, sizeof(buf)),
				sb_report_need_what(r, cell, pm, what, sizeof(what)));
			break;
		default:
			fputs("no value", f);
		}
	}
	return n > 0;
}

/* The first headline row of list with verdict want, and how many there are. */
static size_t first_of(const struct sb_report *r, const size_t *list, size_t n, size_t c,
		       enum sb_verdict want, size_t *first)
{
	size_t m = 0;
	for (size_t k = 0; k < n; k++) {
		const struct sb_report_row *row = &r->rows[list[k]];
		if (!row->headline || row->cells[c].verdict != want)
			continue;
		if (!m++)
			*first = list[k];
	}
	return m;
}

/* The comparison in one line, first: the member read share, then of the
 * headline rows the largest change each way and how many are equal, not
 * resolved (and the repeats that would resolve them) and untested. */
void sb_report_verdict_short(const struct sb_report *r, FILE *f, const struct sb_report_verdict *v,
			     const char *pm)
{
	size_t c = v->col;
	static const enum sb_verdict dirs[] = {SB_VERDICT_BETTER, SB_VERDICT_WORSE,
					       SB_VERDICT_DIFFERENT};
	size_t n_ch = 0, n_eq = 0, n_un = 0, n_ut = 0, need = 0, near = SIZE_MAX;
	const char *sep = ", ";
	char ch[96];

	for (size_t k = 0; k < v->n_changed; k++)
		n_ch += r->rows[v->changed[k]].headline;
	for (size_t k = 0; k < v->n_equal; k++)
		n_eq += r->rows[v->equal[k]].headline;
	for (size_t k = 0; k < v->n_unresolved; k++) {
		const struct sb_report_row *row = &r->rows[v->unresolved[k]];
		if (!row->headline)
			continue;
		n_un++;
		need = row->cells[c].need > need ? row->cells[c].need : need;
		if (row->cells[c].need &&
		    (near == SIZE_MAX || row->cells[c].need < r->rows[near].cells[c].need))
			near = v->unresolved[k];
	}
	for (size_t k = 0; k < v->n_untested; k++)
		n_ut += r->rows[v->untested[k]].headline;
	if (shares_short(r, c, f))
		fputs("; ", f);
	if (answer_short(r, v, f, pm))
		fputs("; ", f);
	fprintf(f, "of %zu headline row%s: ", n_ch + n_eq + n_un + n_ut,
		n_ch + n_eq + n_un + n_ut == 1 ? "" : "s");
	sep = "";
	for (size_t d = 0; d < ARRAY_SIZE(dirs); d++) {
		size_t first = 0, m = first_of(r, v->changed, v->n_changed, c, dirs[d], &first);
		if (!m)
			continue;
		fprintf(f, "%s%zu %s (%s", sep, m, sb_verdict_name(dirs[d]),
			m > 1 ? "largest: " : "");
		row_name(f, &r->rows[first]);
		fprintf(f, " %s)", sb_report_change_str(&r->rows[first].cells[c], ch, sizeof(ch)));
		sep = ", ";
	}
	if (n_eq)
		fprintf(f, "%s%zu equal within %s%g%%", sep, n_eq, pm, r->resolve_pct);
	sep = n_eq ? ", " : sep;
	if (n_un) {
		fprintf(f, "%s%zu not resolved", sep, n_un);
		if (need > SB_CMP_N_MAX)
			fprintf(f, " (more than %d repeats would resolve them", SB_CMP_N_MAX);
		else if (need)
			fprintf(f, " (about %zu repeats would resolve them", need);
		/* the one nearest to resolving, when it is not the only one */
		if (need && n_un > 1 && near != SIZE_MAX &&
		    r->rows[near].cells[c].need <= SB_CMP_N_MAX &&
		    r->rows[near].cells[c].need < need) {
			fputs("; the nearest, ", f);
			row_name(f, &r->rows[near]);
			fprintf(f, " %s, about %zu",
				sb_report_change_str(&r->rows[near].cells[c], ch, sizeof(ch)),
				r->rows[near].cells[c].need);
		}
		if (need)
			fputs(")", f);
		sep = ", ";
	}
	if (n_ut)
		fprintf(f, "%s%zu untested", sep, n_ut);
}

const char *sb_report_pairing_str(const struct sb_report_verdict *v)
{
	return !v->paired     ? "sets not run together: Welch"
	       : v->crossover ? "headline rows by the crossover fit, the rest rounds paired"
			      : "rounds paired";
}

static void verdict_col(const struct sb_report *r, size_t c, FILE *f, const char *pm)
{
	struct sb_report_verdict v;
	size_t left;

	if (sb_report_verdict_build(r, c, &v) < 0)
		return;
	fprintf(f, "  %s against %s (%zu against %zu repeats, %s):\n", r->cols[c].label,
		r->cols[r->cols[c].base].label, r->cols[c].n_rep, r->cols[r->cols[c].base].n_rep,
		sb_report_pairing_str(&v));
	fputs("    in short: ", f);
	sb_report_verdict_short(r, f, &v, pm);
	fputs("\n", f);
	if (!v.paired)
		fprintf(f, "    note: %s\n", sb_report_unpaired_note);
	if ((left = list_lines(r, f, v.changed, v.n_changed, c, pm, false)))
		fprintf(f, "    ... and %zu more cost row%s changed (in the table below)\n", left,
			left == 1 ? "" : "s");
	if (v.n_equal) {
		size_t shown = 0;
		fprintf(f, "    equal within %s%g%%: ", pm, r->resolve_pct);
		for (int pass = 0; pass < 2; pass++)
			for (size_t k = 0; k < v.n_equal; k++) {
				const struct sb_report_row *row = &r->rows[v.equal[k]];
				if (row->headline != (pass == 0) ||
				    (pass == 1 && shown >= EQUAL_CAP))
					continue;
				fputs(shown++ ? ", " : "", f);
				row_name(f, row);
			}
		if (shown < v.n_equal)
			fprintf(f, " and %zu more", v.n_equal - shown);
		fputs("\n", f);
	}
	if ((left = list_lines(r, f, v.unresolved, v.n_unresolved, c, pm, true)))
		fprintf(f, "    ... and %zu more cost row%s not resolved (marked ? below)\n", left,
			left == 1 ? "" : "s");
	untested_lines(r, f, &v, c);
	if (!v.n_changed && !v.n_equal && !v.n_unresolved && !v.n_untested)
		fputs("    nothing to compare\n", f);
	sb_report_verdict_free(&v);
}

void sb_report_verdict_text(const struct sb_report *r, FILE *f, const char *pm)
{
	bool any = false;
	for (size_t c = 0; c < r->n_cols; c++)
		any |= r->cols[c].base != c;
	struct sb_report_noise n;
	char noise[640];
	fputs("verdict\n", f);
	sb_report_noise(r, &n);
	if (*sb_report_noise_str(&n, noise, sizeof(noise)))
		fprintf(f, "  noise: %s\n", noise);
	if (!any) {
		fprintf(f, "  %s alone: nothing to compare it with\n\n",
			r->cols[r->baseline].label);
		return;
	}
	for (size_t c = 0; c < r->n_cols; c++)
		if (r->cols[c].base != c)
			verdict_col(r, c, f, pm);
	fputs("\n", f);
}

/* The unresolved headline rows of the report, optionally printed. */
static size_t auto_rows(const struct sb_report *r, FILE *log, bool all)
{
	size_t n = 0;
	char need[48], what[48], ch[96];
	for (size_t c = 0; c < r->n_cols; c++)
		for (size_t i = 0; i < r->n_rows && r->cols[c].base != c; i++) {
			const struct sb_report_row *row = &r->rows[i];
			const struct sb_report_cell *x = &row->cells[c];
			bool ok = sb_report_cell_resolved(row, c);
			if (!row->headline || x->st.n == 0)
				continue;
			n += !ok;
			if (!log || (!all && ok))
				continue;
			fprintf(log, "  %s: %s: %s: ", r->cols[c].label, row->spec, row->label);
			sb_report_change_str(x, ch, sizeof(ch));
			if (ok)
				fprintf(log, "resolved, %s %s\n", sb_verdict_name(x->verdict), ch);
			else
				fprintf(log, "not resolved, %s: %s would resolve %s\n", ch,
					sb_report_need_str(x, need, sizeof(need)),
					sb_report_need_what(r, x, "+-", what, sizeof(what)));
		}
	return n;
}

size_t sb_report_budget_note(struct sb_resultset *set, size_t rounds, double secs_per_round,
			     FILE *log)
{
	struct sb_report *r = NULL;
	char *err = NULL, t[32];
	size_t need = 0, left;

	if (sb_report_build(&set, 1, NULL, &r, &err) < 0) {
		free(err);
		return 0;
	}
	left = auto_rows(r, NULL, false);
	for (size_t c = 0; c < r->n_cols; c++)
		for (size_t i = 0; i < r->n_rows && r->cols[c].base != c; i++) {
			const struct sb_report_row *row = &r->rows[i];
			if (row->headline && row->cells[c].st.n &&
			    !sb_report_cell_resolved(row, c) && row->cells[c].need > need)
				need = row->cells[c].need;
		}
	if (!left) {
		fprintf(log, "stackbench: budget: every headline row resolved in %zu rounds\n",
			rounds);
	} else {
		fprintf(log,
			"stackbench: budget: spent after %zu rounds, %zu headline row%s not "
			"resolved:\n",
			rounds, left, left == 1 ? "" : "s");
		auto_rows(r, log, false);
		if (need > rounds && need <= SB_CMP_N_MAX) {
			double more = (double)(need - rounds) * secs_per_round;
			if (more < 120)
				snprintf(t, sizeof(t), "%.0f s", more);
			else
				snprintf(t, sizeof(t), "%.0f min", more / 60);
			fprintf(log,
				"  at %.0f s a round: about %zu more rounds (%s) would resolve "
				"the rest\n",
				secs_per_round, need - rounds, t);
		}
	}
	sb_report_free(r);
	return left;
}

bool sb_report_auto_more(struct sb_resultset *set, size_t rounds, size_t max, FILE *log)
{
	struct sb_report *r = NULL;
	char *err = NULL;

	if (rounds < SB_REPEAT_AUTO_MIN)
		return rounds < max;
	if (sb_report_build(&set, 1, NULL, &r, &err) < 0) {
		free(err);
		return rounds < max;
	}
	size_t left = auto_rows(r, NULL, false);
	bool more = left > 0 && rounds < max;
	if (!more && log) {
		if (left)
			fprintf(log,
				"stackbench: repeat auto: stopped at the limit of %zu rounds, %zu "
				"headline row%s not resolved:\n",
				max, left, left == 1 ? "" : "s");
		else
			fprintf(log,
				"stackbench: repeat auto: stopped after %zu rounds: every headline "
				"row resolved:\n",
				rounds);
		auto_rows(r, log, true);
	}
	sb_report_free(r);
	return more;
}
