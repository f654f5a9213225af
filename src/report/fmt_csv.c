/* CSV report: the comparison table in long form, one line per (workload,
 * metric, variant), so that spreadsheets and plotting scripts need no
 * reshaping. Quoting as RFC 4180; an absent number is an empty field. */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static void field(FILE *f, const char *s, bool last)
{
	if (strpbrk(s, ",\"\r\n")) {
		fputc('"', f);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', f);
			fputc(*s, f);
		}
		fputc('"', f);
	} else {
		fputs(s, f);
	}
	fputc(last ? '\n' : ',', f);
}

/* %.15g: every digit a double carries reliably, without the noise of %.17g. */
static void number(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.15g", v);
	fputc(',', f);
}

static int csv_emit(const struct sb_report *r, FILE *f)
{
	static const char *const head[] = {
	    "workload", "spec",	      "metric",	     "label",	       "unit",	  "better",
	    "variant",	"set",	      "n",	     "mean",	       "stdev",	  "min",
	    "max",	"ci95",	      "rse",	     "change_pct",     "p_value", "significant",
	    "verdict",	"p_adjusted", "diff_lo_pct", "diff_hi_pct",    "mde_pct", "headline",
	    "pooled",	"baseline",   "test",	     "repeats_needed", "cost",
	};
	for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		field(f, head[i], i + 1 == sizeof(head) / sizeof(head[0]));
	for (size_t i = 0; i < r->n_rows; i++) {
		const struct sb_report_row *row = &r->rows[i];
		for (size_t c = 0; c < r->n_cols; c++) {
			const struct sb_report_cell *cell = &row->cells[c];
			field(f, row->workload, false);
			field(f, row->spec, false);
			field(f, row->metric, false);
			field(f, row->label, false);
			field(f, row->unit, false);
			field(f, sb_better_name(row->better), false);
			field(f, r->cols[c].label, false);
			field(f, r->set_names[r->cols[c].set], false);
			fprintf(f, "%zu,", cell->st.n);
			number(f, cell->st.mean);
			number(f, cell->st.stdev);
			number(f, cell->st.min);
			number(f, cell->st.max);
			number(f, cell->st.ci95);
			number(f, cell->st.rse);
			number(f, cell->change);
			number(f, cell->w.p);
			fprintf(f, "%s,", cell->significant ? "true" : "false");
			field(f, sb_verdict_name(cell->verdict), false);
			number(f, cell->p_adj);
			number(f, cell->change_lo);
			number(f, cell->change_hi);
			number(f, cell->mde_pct);
			fprintf(f, "%s,", row->headline ? "true" : "false");
			number(f, cell->pooled);
			field(f, r->cols[r->cols[c].base].label, false);
			field(f, sb_test_name(cell->cmp.test), false);
			if (cell->need)
				fprintf(f, "%zu,", cell->need);
			else
				fputc(',', f);
			field(f, row->cost ? "true" : "false", true);
		}
	}
	return ferror(f) ? -EIO : 0;
}

const struct sb_report_format sb_report_csv = {
    .name = "csv",
    .help = "one line per workload, metric and variant, for spreadsheets and plots",
    .emit = csv_emit,
};
