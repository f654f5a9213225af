/* What the formats ask of a built comparison table: tallies and failures
 * of a column, a cell described in words, flags named. */
#include "report/report-int.h"
#include "util/macro.h"
#include "util/strutil.h"

#include <math.h>
#include <string.h>

void sb_report_tally(const struct sb_report *r, size_t col, struct sb_report_tally *t)
{
	*t = (struct sb_report_tally){0};
	for (size_t i = 0; i < r->n_rows && r->cols[col].base != col; i++) {
		const struct sb_report_cell *x = &r->rows[i].cells[col];
		t->tested += !isnan(x->p_adj);
		t->marked += x->significant;
		t->unresolved += x->verdict == SB_VERDICT_UNRESOLVED;
	}
}

bool sb_report_cell_fails(const struct sb_report *r, const struct sb_report_row *row, size_t col)
{
	const struct sb_report_cell *x = &row->cells[col];
	return r->cols[col].base != col && sb_report_row_main(row) &&
	       x->verdict == SB_VERDICT_WORSE && isfinite(x->change) &&
	       fabs(x->change) > r->check_pct;
}

bool sb_report_cell_untested(const struct sb_report *r, const struct sb_report_row *row, size_t col)
{
	const struct sb_report_cell *b = &row->cells[r->cols[col].base];
	return r->cols[col].base != col && sb_report_row_main(row) && b->st.n > 0 &&
	       !sb_rep_testable(b, &row->cells[col]);
}

bool sb_report_cell_resolved(const struct sb_report_row *row, size_t col)
{
	enum sb_verdict v = row->cells[col].verdict;
	return v == SB_VERDICT_BETTER || v == SB_VERDICT_WORSE || v == SB_VERDICT_DIFFERENT ||
	       v == SB_VERDICT_SAME;
}

size_t sb_report_failures(const struct sb_report *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n_rows; i++)
		for (size_t c = 0; c < r->n_cols; c++)
			n += sb_report_cell_fails(r, &r->rows[i], c);
	return n;
}

/* "%+.1f" or "-" for a figure that is not defined. */
static const char *pct_str(double v, char *buf, size_t size)
{
	if (isfinite(v))
		snprintf(buf, size, "%+.1f", v);
	else
		snprintf(buf, size, "-");
	return buf;
}

static const char *p_str(double v, char *buf, size_t size)
{
	if (isfinite(v))
		snprintf(buf, size, "%.3g", v);
	else
		snprintf(buf, size, "-");
	return buf;
}

char *sb_report_cell_describe(const struct sb_report *r, const struct sb_report_row *row,
			      size_t col)
{
	const struct sb_report_cell *x = &row->cells[col];
	const struct sb_report_cell *b = &row->cells[r->cols[col].base];
	char m1[32], m2[32], ch[32], lo[32], hi[32], p[32], pa[32];
	return sb_asprintf(
	    "%s: %s: %s %s vs %s %s %s (%s%%, interval %s..%s%%, %s p %s, adjusted "
	    "%s, n %zu vs %zu)",
	    row->spec, row->label, r->cols[col].label,
	    sb_report_fmt_num(x->st.mean, m1, sizeof(m1)), r->cols[r->cols[col].base].label,
	    sb_report_fmt_num(b->st.mean, m2, sizeof(m2)), row->unit,
	    pct_str(x->change, ch, sizeof(ch)), pct_str(x->change_lo, lo, sizeof(lo)),
	    pct_str(x->change_hi, hi, sizeof(hi)), sb_test_name(x->cmp.test),
	    p_str(x->w.p, p, sizeof(p)), p_str(x->p_adj, pa, sizeof(pa)), x->st.n, b->st.n);
}

char *sb_report_flags_str(unsigned flags, char *buf, size_t size)
{
	static const struct {
		unsigned flag;
		const char *name;
	} names[] = {
	    {SB_RES_QUICK, "quick"},
	    {SB_RES_CACHE_AFFECTED, "cache-affected"},
	    {SB_RES_INCOMPLETE, "incomplete"},
	    {SB_RES_FAILED, "failed"},
	    {SB_RES_FRESH, "fresh (non-rotational, no devices.precondition)"},
	};
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if ((flags & names[i].flag) && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
						names[i].name);
	return buf;
}

unsigned sb_report_col_flags(const struct sb_report *r, size_t col, const char *spec)
{
	unsigned f = 0;
	for (size_t i = 0; i < r->n_rows; i++)
		if (strcmp(r->rows[i].spec, spec) == 0)
			f |= r->rows[i].cells[col].flags;
	return f;
}
