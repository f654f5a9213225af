/* HTML report: one self-contained file (inline CSS and SVG, no scripts, no
 * network) with the comparison table, a bar chart with 95% error bars and
 * the individual repeats per metric, and latency percentile charts (log
 * scale) for workloads that recorded latency. The page and its table; the
 * charts are in fmt_html_svg.c. */
#include "report/fmt_html-int.h"
#include "report/measure.h"
#include "util/escape.h"
#include "util/macro.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void sb_html_esc(FILE *f, const char *s)
{
	sb_escape_html(f, s);
}

void sb_html_anchor(FILE *f, const char *prefix, const char *s)
{
	fputs(prefix, f);
	for (; *s; s++)
		fputc((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
			      (*s >= '0' && *s <= '9')
			  ? *s
			  : '-',
		      f);
}

const char *sb_html_verdict_class(enum sb_verdict v)
{
	switch (v) {
	case SB_VERDICT_BASELINE:
		return "base";
	case SB_VERDICT_BETTER:
		return "better";
	case SB_VERDICT_WORSE:
		return "worse";
	case SB_VERDICT_DIFFERENT:
		return "diff";
	case SB_VERDICT_UNRESOLVED:
		return "unresolved";
	default:
		return "same";
	}
}

static const char css[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:1em 1.5em;"
    "color:#222}"
    "h1{font-size:1.5em;margin:.1em 0 .3em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px "
    "solid #ddd}"
    "table.cmp{border-collapse:collapse;font-size:.9em}"
    "table.cmp th,table.cmp td{padding:.25em .6em;border-bottom:1px solid #eee;"
    "text-align:right;white-space:nowrap}"
    "table.cmp th.l,table.cmp td.l{text-align:left}"
    "table.cmp tr.wl td{background:#f4f6f8;font-weight:600;text-align:left}"
    "td.better{background:#e3f4e8;color:#1d6b3a}td.worse{background:#fbe4e1;color:#9b2c1f}"
    "td.diff{background:#fdf1dc}td.base{color:#555}td.unresolved{color:#777}"
    ".legend,.meta,.note{color:#555;font-size:.85em;white-space:pre-line}"
    ".charts{display:flex;flex-wrap:wrap;gap:1em}"
    "figure.chart{margin:0;padding:.5em;border:1px solid #eee;border-radius:4px;max-width:530px}"
    "figcaption{font-weight:600;font-size:.9em;margin-bottom:.3em}.unit{font-weight:normal;"
    "color:#666}"
    "svg text{font-size:11px;fill:#333}svg .tick{fill:#777;font-size:10px}"
    "svg .grid{stroke:#e6e6e6}svg .errorbar line{stroke:#222;stroke-width:1.4}"
    "svg .rep{fill:#fff;stroke:#222;stroke-width:.8}svg .pline{stroke-width:2}"
    "svg .na{fill:#999;font-style:italic}.note{color:#9b6a00}"
    "svg .warmup{fill:#eee}svg .sline{stroke-width:1.4;opacity:.8}.skey{font-size:.8em;color:#555}"
    "h3{font-size:1em}"
    ".scroll{overflow-x:auto;max-width:100%}ul.verdict{margin:.2em 0 .8em}"
    "ul.verdict li.worse{color:#9b2c1f}ul.verdict li.better{color:#1d6b3a}"
    "ul.verdict li.unresolved{color:#777}ul.verdict li.untested{color:#8a5a00}"
    "ul.verdict li{margin:.15em 0}svg.forest .band{fill:#eef6ee}"
    "svg.forest line.ci{stroke-width:2}svg.forest .zero{stroke:#999}"
    ".first{display:flex;flex-wrap:wrap;gap:0 2em;align-items:flex-start}"
    ".first>.vcol{flex:1 1 800px;min-width:0}.first>.mcol{flex:0 1 440px;min-width:0;"
    "margin-top:1.6em}figure.forest,figure.members{max-width:none}"
    ".first figure.forest{border:0;padding:0}.first figcaption{font-size:.85em}"
    "svg.forest,svg.members{max-width:100%;height:auto}svg .mphase{font-weight:600}"
    "svg .mpct{fill:#fff;font-size:10px}.first h3{font-size:.95em;margin:.7em 0 .2em}"
    "p.noise{color:#555;font-size:.85em;margin:.3em 0}.first ul.verdict{font-size:.9em}"
    "p.short{font-weight:600;margin:.2em 0}"
    "details{margin-top:1em}summary{font-weight:600;cursor:pointer}";

static void table(const struct sb_report *r, FILE *f)
{
	const char *spec = NULL;
	fprintf(f, "<table class=\"cmp\"><thead><tr><th class=\"l\">Metric</th><th "
		   "class=\"l\">Unit</th><th class=\"l\">Better</th><th class=\"l\">Test</th>");
	for (size_t c = 0; c < r->n_cols; c++) {
		fprintf(f, "<th class=\"col\" title=\"");
		sb_html_esc(f, r->cols[c].full);
		fprintf(f, "\">");
		sb_html_esc(f, r->cols[c].label);
		fprintf(f, "%s</th>", r->cols[c].base == c ? " (baseline)" : "");
	}
	fprintf(f, "</tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < r->n_rows; i++) {
		const struct sb_report_row *row = &r->rows[i];
		char cell[160];
		if (!sb_report_row_shown(r, row))
			continue;
		if (!spec || strcmp(spec, row->spec) != 0) {
			spec = row->spec;
			fprintf(f, "<tr class=\"wl\"><td colspan=\"%zu\"><a href=\"#",
				r->n_cols + 4);
			sb_html_anchor(f, "w-", spec);
			fprintf(f, "\">");
			sb_html_esc(f, spec);
			fprintf(f, "</a></td></tr>\n");
		}
		fprintf(f, "<tr><td class=\"l\">");
		sb_html_esc(f, row->label);
		fprintf(f, "</td><td class=\"l\">");
		sb_html_esc(f, row->unit);
		char tests[96];
		fprintf(f, "</td><td class=\"l\">%s</td><td class=\"l\">%s</td>",
			row->better == SB_BETTER_NONE ? "" : sb_better_name(row->better),
			sb_report_row_tests(r, row, tests, sizeof(tests)));
		for (size_t c = 0; c < r->n_cols; c++) {
			const struct sb_report_cell *x = &row->cells[c];
			fprintf(f, "<td class=\"%s\"", sb_html_verdict_class(x->verdict));
			if (!isnan(x->w.p))
				fprintf(
				    f,
				    " title=\"n=%zu, p=%.3g, adjusted p=%.3g, smallest detectable "
				    "change %.1f%%\"",
				    x->st.n, x->w.p, x->p_adj, x->mde_pct);
			fprintf(f, ">");
			sb_html_esc(f, sb_report_fmt_cell(r, c, x, "±", cell, sizeof(cell)));
			fprintf(f, "</td>");
		}
		fprintf(f, "</tr>\n");
	}
	fprintf(f, "</tbody></table>\n");
}

/* After the table: every main row's change in every column, the
 * equal and unresolved ones too. */
static void forest_all(const struct sb_report *r, FILE *f)
{
	struct sb_html_pick *p = calloc(r->n_rows * r->n_cols + 1, sizeof(*p));
	size_t n = 0;
	if (!p)
		return;
	for (size_t i = 0; i < r->n_rows; i++)
		for (size_t c = 0; c < r->n_cols; c++)
			if (r->cols[c].base != c && sb_report_row_main(&r->rows[i]) &&
			    isfinite(r->rows[i].cells[c].change))
				p[n++] = (struct sb_html_pick){i, c};
	sb_html_forest_plot(r, p, n, "Changes of the headline and cost rows", f);
	free(p);
}

/* One result set's line in the header: what ran where, with which tool. */
static void set_meta(const struct sb_report *r, size_t s, FILE *f)
{
	const struct sb_resultset *rs = r->sets[s];
	json_object *h = NULL;
	fprintf(f, "Result set <b>");
	sb_html_esc(f, r->set_names[s]);
	fprintf(f, "</b>: %s", rs->command);
	fprintf(f, ", created ");
	sb_html_esc(f, rs->created);
	if (rs->host && json_object_object_get_ex(rs->host, "hostname", &h)) {
		fprintf(f, " on ");
		sb_html_esc(f, json_object_get_string(h));
	}
	if (rs->host && json_object_object_get_ex(rs->host, "kernel", &h)) {
		fprintf(f, ", kernel ");
		sb_html_esc(f, json_object_get_string(h));
	}
	if (rs->host && json_object_object_get_ex(rs->host, "emulated", &h) &&
	    json_object_get_boolean(h))
		fprintf(f, " <span class=\"note\">(emulated: the VM runner's qemu, "
			   "throttled files for disks)</span>");
	fprintf(f, ", stackbench ");
	sb_html_esc(f, rs->tool_version);
	/* what was measured: the profile of a run, the file system of a bench */
	if (rs->profile && json_object_object_get_ex(rs->profile, "path", &h)) {
		fprintf(f, ", profile ");
		sb_html_esc(f, json_object_get_string(h));
	}
	if (rs->target && json_object_object_get_ex(rs->target, "fstype", &h)) {
		fprintf(f, ", ");
		sb_html_esc(f, json_object_get_string(h));
		if (json_object_object_get_ex(rs->target, "options", &h)) {
			fprintf(f, " (");
			sb_html_esc(f, json_object_get_string(h));
			fprintf(f, ")");
		}
	}
}

/* One workload's section of the details: its flags per column and its
 * charts. */
static void spec_details(const struct sb_report *r, const char *spec, FILE *f)
{
	fprintf(f, "<h2 id=\"");
	sb_html_anchor(f, "w-", spec);
	fprintf(f, "\">");
	sb_html_esc(f, spec);
	fprintf(f, "</h2>\n");
	for (size_t c = 0; c < r->n_cols; c++) {
		char buf[128];
		unsigned fl = sb_report_col_flags(r, c, spec);
		if (!fl)
			continue;
		fprintf(f, "<p class=\"note\">");
		sb_html_esc(f, r->cols[c].label);
		fprintf(f, ": %s</p>\n", sb_report_flags_str(fl, buf, sizeof(buf)));
	}
	fprintf(f, "<div class=\"charts\">\n");
	for (size_t i = 0; i < r->n_rows; i++)
		if (strcmp(r->rows[i].spec, spec) == 0)
			sb_html_bar_chart(r, &r->rows[i], f);
	for (size_t i = 0; i < r->n_lat; i++)
		if (strcmp(r->lat[i].spec, spec) == 0)
			sb_html_latency_chart(r, &r->lat[i], f);
	fprintf(f, "</div>\n");
	sb_html_series_charts(r, spec, f);
}

static int html_emit(const struct sb_report *r, FILE *f)
{
	_cleanup_free_ char *legend = sb_report_legend(r, "±");
	const char *specs[64];
	size_t n_specs = sb_report_specs(r, specs, ARRAY_SIZE(specs));

	if (!legend)
		return -ENOMEM;
	fprintf(f,
		"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<meta name=\"generator\" content=\"stackbench\">"
		"<title>stackbench report</title>\n<style>%s</style></head>\n<body>\n"
		"<h1>stackbench report</h1>\n<p class=\"meta\">",
		css);
	fprintf(f, "Baseline: <b>");
	sb_html_esc(f, r->cols[r->baseline].label);
	fprintf(f, "</b>\n");
	for (size_t s = 0; s < r->n_sets; s++) {
		set_meta(r, s, f);
		fprintf(f, "\n");
	}
	fprintf(f, "Repeats:");
	for (size_t c = 0; c < r->n_cols; c++) {
		fprintf(f, "%s ", c ? "," : "");
		sb_html_esc(f, r->cols[c].label);
		fprintf(f, " %zu", r->cols[c].n_rep);
	}
	fprintf(f, "</p>\n");
	for (size_t c = 0; c < r->n_cols; c++) {
		_cleanup_free_ char *notes = sb_report_col_notes(r, c);
		if (!notes)
			continue;
		fprintf(f, "<p class=\"note\">");
		sb_html_esc(f, r->cols[c].label);
		fprintf(f, ": ");
		sb_html_esc(f, notes);
		fprintf(f, "</p>\n");
	}
	sb_html_first_screen(r, f);
	fprintf(f, "<h2>Comparison</h2>\n<div class=\"scroll\">\n");
	table(r, f);
	fprintf(f, "</div>\n");
	forest_all(r, f);
	if (!r->all)
		fprintf(f, "<p class=\"meta\">Headline and cost rows; <code>report --all</code> "
			   "adds the latency and %%CPU rows.</p>\n");
	sb_measure_shares_html(r, f);
	/* report --history: each headline metric's trend, drawn by the history. */
	if (r->history_html)
		fprintf(f, "<h2 id=\"history\">History</h2>\n%s", r->history_html);
	fprintf(f, "<details><summary>Legend</summary><p class=\"legend\">");
	sb_html_esc(f, legend);
	fprintf(f, "</p></details>\n<details><summary>Details: charts per workload, "
		   "configuration, device counters</summary>\n");

	for (size_t s = 0; s < n_specs; s++) {
		spec_details(r, specs[s], f);
	}
	sb_report_fleet_html(r, f);
	sb_measure_html(r, f);
	fprintf(f, "</details>\n</body></html>\n");
	return ferror(f) ? -EIO : 0;
}

const struct sb_report_format sb_report_html = {
    .name = "html",
    .help = "one self-contained HTML file: the table and SVG charts",
    .emit = html_emit,
};
