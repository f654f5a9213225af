/* JUnit XML report, for CI systems that read it: one test case per
 * compared variant and headline metric, failing when `report --check` would
 * fail it (significantly worse than its baseline, after the correction, by
 * more than the threshold); the failure carries the figures. */
#include "report/report.h"
#include "util/escape.h"
#include "util/macro.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static int junit_emit(const struct sb_report *r, FILE *f)
{
	size_t tests = 0, failures = 0;

	for (size_t c = 0; c < r->n_cols; c++)
		for (size_t i = 0; i < r->n_rows; i++)
			if (r->cols[c].base != c && r->rows[i].headline) {
				tests++;
				failures += sb_report_cell_fails(r, &r->rows[i], c);
			}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<testsuites name=\"stackbench\" tests=\"%zu\" failures=\"%zu\">\n", tests,
		failures);
	for (size_t c = 0; c < r->n_cols; c++) {
		size_t t = 0, fl = 0;
		if (r->cols[c].base == c)
			continue;
		for (size_t i = 0; i < r->n_rows; i++)
			if (r->rows[i].headline) {
				t++;
				fl += sb_report_cell_fails(r, &r->rows[i], c);
			}
		fprintf(f, "  <testsuite name=\"");
		sb_escape_html(f, r->cols[c].full);
		fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\">\n", t,
			fl);
		for (size_t i = 0; i < r->n_rows; i++) {
			const struct sb_report_row *row = &r->rows[i];
			_cleanup_free_ char *desc = NULL;
			if (!row->headline)
				continue;
			desc = sb_report_cell_describe(r, row, c);
			if (!desc)
				return -ENOMEM;
			fprintf(f, "    <testcase classname=\"");
			sb_escape_html(f, r->cols[c].full);
			fprintf(f, "\" name=\"");
			sb_escape_html(f, row->spec);
			fprintf(f, ": ");
			sb_escape_html(f, row->label);
			fprintf(f, "\">");
			if (sb_report_cell_fails(r, row, c)) {
				fprintf(f, "\n      <failure type=\"regression\" message=\"");
				sb_escape_html(f, desc);
				fprintf(f, "\">");
				sb_escape_html(f, desc);
				fprintf(f,
					"\nthreshold %g%%, %s correction, alpha %g</failure>\n    ",
					r->check_pct, sb_correction_name(r->correction), r->alpha);
			} else {
				fprintf(f, "\n      <system-out>");
				sb_escape_html(f, desc);
				fprintf(f, " [%s]</system-out>\n    ",
					sb_verdict_name(row->cells[c].verdict));
			}
			fprintf(f, "</testcase>\n");
		}
		fprintf(f, "  </testsuite>\n");
	}
	fprintf(f, "</testsuites>\n");
	return ferror(f) ? -EIO : 0;
}

const struct sb_report_format sb_report_junit = {
    .name = "junit",
    .help = "JUnit XML for CI: a test case per variant and headline metric (see --check)",
    .emit = junit_emit,
};
