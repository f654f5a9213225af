/* Text report: the comparison table through libsmartcols (a tree of
 * workloads and their metrics), then the baseline, notes and legend. */
#include "report/measure.h"
#include "report/report.h"
#include "util/escape.h"
#include "util/macro.h"

#include <errno.h>
#include <libsmartcols.h>
#include <string.h>

static void unref_table(struct libscols_table **t)
{
	scols_unref_table(*t);
}

/* Notes on flagged results (quick, cache-affected...), which must not be
 * read as comparable to full runs without a warning. */
static void print_notes(const struct sb_report *r, FILE *f)
{
	const char *specs[64];
	size_t n = sb_report_specs(r, specs, ARRAY_SIZE(specs));
	for (size_t s = 0; s < r->n_sets; s++) {
		json_object *e;
		if (r->sets[s]->host && json_object_object_get_ex(r->sets[s]->host, "emulated", &e) &&
		    json_object_get_boolean(e))
			fprintf(f,
				"note: %s: emulated: measured in the VM runner (qemu software "
				"emulation, disks are throttled files), not on hardware\n",
				r->set_names[s]);
	}
	for (size_t c = 0; c < r->n_cols; c++) {
		_cleanup_free_ char *notes = sb_report_col_notes(r, c);
		for (char *p = notes, *nl; p && *p; p = nl ? nl + 1 : p + strlen(p)) {
			nl = strchr(p, '\n');
			fprintf(f, "note: %s: %.*s\n", r->cols[c].label,
				(int)(nl ? (size_t)(nl - p) : strlen(p)), p);
		}
	}
	for (size_t c = 0; c < r->n_cols; c++)
		for (size_t s = 0; s < n; s++) {
			char buf[128];
			unsigned fl = sb_report_col_flags(r, c, specs[s]);
			if (fl)
				fprintf(f, "note: %s: %s: %s\n", r->cols[c].label, specs[s],
					sb_report_flags_str(fl, buf, sizeof(buf)));
		}
}

/* The lines under the table: baseline, repeats, tallies, notes, the
 * measurement sections, the fleet summary, the legend. */
static int text_lines_raw(const struct sb_report *r, FILE *f, const char *pm)
{
	fprintf(f, "\nbaseline: %s%s\nrepeats:", r->cols[r->baseline].label,
		r->baseline_set ? " (the stored baseline set; each variant against its namesake)"
				: "");
	for (size_t c = 0; c < r->n_cols; c++)
		fprintf(f, "%s %s %zu", c ? "," : "", r->cols[c].label, r->cols[c].n_rep);
	fprintf(f, "\n");
	for (size_t c = 0; c < r->n_cols; c++) {
		struct sb_report_tally t;
		if (r->cols[c].base == c)
			continue;
		sb_report_tally(r, c, &t);
		fprintf(f,
			"%s vs %s: %zu row%s tested, %zu marked (%s, alpha %g), %zu not resolved\n",
			r->cols[c].label, r->cols[r->cols[c].base].label, t.tested,
			t.tested == 1 ? "" : "s", t.marked, sb_correction_name(r->correction),
			r->alpha, t.unresolved);
	}
	print_notes(r, f);
	sb_measure_text(r, f);
	sb_report_fleet_summary(r, f);
	_cleanup_free_ char *legend = sb_report_legend(r, pm);
	if (!legend)
		return -ENOMEM;
	fprintf(f, "%s\n", legend);
	return 0;
}

/* Names in these lines come from the files (variant, host, workload and
 * job names, labels, notes): the lines are written to memory and through
 * one escaper, so that whatever prints into them (here, measure.c,
 * fleet.c, the legend) cannot send a terminal escape sequence or forge a
 * line. The table's cells go through the same escaper (set_safe). */
static int text_lines(const struct sb_report *r, FILE *f)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int ret;

	if (!m)
		return -ENOMEM;
	ret = text_lines_raw(r, m, sb_report_pm());
	if (fclose(m) != 0 || ret < 0)
		return -ENOMEM;
	ret = sb_escape_write(f, buf, len, SB_ESC_KEEP_NL);
	return ret < 0 || ferror(f) ? -EIO : 0;
}

/* Cells through the same escaper as the lines: libsmartcols's own encoding
 * (turned off below) passes the bidi overrides a UTF-8 locale calls
 * printable, and would escape our escapes again. */
static int set_safe(struct libscols_line *ln, size_t col, const char *s)
{
	_cleanup_free_ char *e = sb_escape(s ? s : "");
	return e && scols_line_set_data(ln, col, e) == 0 ? 0 : -ENOMEM;
}

static int text_emit(const struct sb_report *r, FILE *f)
{
	_cleanup_(unref_table) struct libscols_table *tb = scols_new_table();
	struct libscols_line *parent = NULL;
	const char *pm = sb_report_pm(), *spec = NULL;

	if (!tb)
		return -ENOMEM;
	scols_table_set_stream(tb, f);
	scols_table_enable_noencoding(tb, 1);
	if (!scols_table_new_column(tb, "METRIC", 0.3, SCOLS_FL_TREE) ||
	    !scols_table_new_column(tb, "UNIT", 0, 0) ||
	    !scols_table_new_column(tb, "BETTER", 0, 0))
		return -ENOMEM;
	for (size_t c = 0; c < r->n_cols; c++) {
		_cleanup_free_ char *e = sb_escape(r->cols[c].label);
		if (!e || !scols_table_new_column(tb, e, 0, SCOLS_FL_RIGHT))
			return -ENOMEM;
	}

	for (size_t i = 0; i < r->n_rows; i++) {
		const struct sb_report_row *row = &r->rows[i];
		struct libscols_line *ln;
		if (!spec || strcmp(spec, row->spec) != 0) {
			spec = row->spec;
			parent = scols_table_new_line(tb, NULL);
			if (!parent || set_safe(parent, 0, spec) < 0)
				return -ENOMEM;
		}
		ln = scols_table_new_line(tb, parent);
		if (!ln)
			return -ENOMEM;
		if (set_safe(ln, 0, row->label) < 0 || set_safe(ln, 1, row->unit) < 0)
			return -ENOMEM;
		scols_line_set_data(
		    ln, 2, row->better == SB_BETTER_NONE ? "" : sb_better_name(row->better));
		for (size_t c = 0; c < r->n_cols; c++) {
			char cell[160];
			sb_report_fmt_cell(r, c, &row->cells[c], pm, cell, sizeof(cell));
			if (scols_line_set_data(ln, 3 + c, cell) < 0)
				return -ENOMEM;
		}
	}
	if (r->n_rows == 0)
		fprintf(f, "(no metrics)\n");
	else if (scols_print_table(tb) < 0)
		return -EIO;
	return text_lines(r, f);
}

const struct sb_report_format sb_report_text = {
    .name = "text",
    .help = "a table for people: mean ±CI (change%) with significance marks",
    .emit = text_emit,
};
