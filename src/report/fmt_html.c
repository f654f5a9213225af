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
    "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:1.5em;"
    "color:#222}"
    "h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ddd}"
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
    "ul.verdict li.unresolved{color:#777}svg.forest .band{fill:#eef6ee}"
    "svg.forest line.ci{stroke-width:2}svg.forest .zero{stroke:#999}"
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

static void verdict_item(const struct sb_report *r, size_t c, size_t i, const char *cls,
			 const char *word, FILE *f)
{
	const struct sb_report_row *row = &r->rows[i];
	const struct sb_report_cell *x = &row->cells[c];
	char need[48], ch[96];
	fprintf(f, "<li class=\"%s\">%s ", cls, word);
	sb_html_esc(f, row->spec);
	fprintf(f, ": ");
	sb_html_esc(f, row->label);
	fprintf(f, " %s (%s)", sb_report_change_str(x, ch, sizeof(ch)), sb_test_name(x->cmp.test));
	if (x->verdict == SB_VERDICT_UNRESOLVED) {
		char what[48];
		fprintf(f, ": %s would resolve %s", sb_report_need_str(x, need, sizeof(need)),
			sb_report_need_what(r, x, "±", what, sizeof(what)));
	}
	fprintf(f, "</li>\n");
}

/* The same verdict as the text report's, first thing on the page. */
static void verdict_html(const struct sb_report *r, FILE *f)
{
	struct sb_report_noise n;
	char noise[640];
	fprintf(f, "<h2>Verdict</h2>\n");
	sb_report_noise(r, &n);
	if (*sb_report_noise_str(&n, noise, sizeof(noise))) {
		fprintf(f, "<p class=\"noise\">noise: ");
		sb_html_esc(f, noise);
		fprintf(f, "</p>\n");
	}
	for (size_t c = 0; c < r->n_cols; c++) {
		struct sb_report_verdict v;
		if (r->cols[c].base == c || sb_report_verdict_build(r, c, &v) < 0)
			continue;
		fprintf(f, "<h3>");
		sb_html_esc(f, r->cols[c].label);
		fprintf(f, " against ");
		sb_html_esc(f, r->cols[r->cols[c].base].label);
		fprintf(f,
			" <span class=\"unit\">(%zu against %zu repeats, %s)</span></h3>\n"
			"<ul class=\"verdict\">\n",
			r->cols[c].n_rep, r->cols[r->cols[c].base].n_rep,
			v.paired ? "rounds paired" : "sets not run together: Welch");
		if (!v.paired) {
			fprintf(f, "<li class=\"unresolved\">note: ");
			sb_html_esc(f, sb_report_unpaired_note);
			fprintf(f, "</li>\n");
		}
		for (size_t k = 0; k < v.n_changed; k++) {
			enum sb_verdict w = r->rows[v.changed[k]].cells[c].verdict;
			verdict_item(r, c, v.changed[k], sb_html_verdict_class(w),
				     sb_verdict_name(w), f);
		}
		if (v.n_equal) {
			fprintf(f, "<li>equal within ±%g%%: ", r->resolve_pct);
			for (size_t k = 0; k < v.n_equal; k++) {
				fprintf(f, "%s", k ? ", " : "");
				sb_html_esc(f, r->rows[v.equal[k]].spec);
				fprintf(f, ": ");
				sb_html_esc(f, r->rows[v.equal[k]].label);
			}
			fprintf(f, "</li>\n");
		}
		for (size_t k = 0; k < v.n_unresolved; k++)
			verdict_item(r, c, v.unresolved[k], "unresolved", "not resolved:", f);
		for (size_t k = 0; k < v.n_untested; k++) {
			fprintf(f, "<li class=\"worse\">untested: ");
			sb_html_esc(f, r->rows[v.untested[k]].spec);
			fprintf(f, ": ");
			sb_html_esc(f, r->rows[v.untested[k]].label);
			fprintf(f, "</li>\n");
		}
		fprintf(f, "</ul>\n");
		sb_report_verdict_free(&v);
	}
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
	verdict_html(r, f);
	sb_html_forest_plot(r, f);
	fprintf(f, "<h2>Comparison</h2>\n<div class=\"scroll\">\n");
	table(r, f);
	fprintf(f, "</div>\n");
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
