/* HTML report: one self-contained file (inline CSS and SVG, no scripts, no
 * network) with the comparison table, a bar chart with 95% error bars and
 * the individual repeats per metric, and latency percentile charts (log
 * scale) for workloads that recorded latency. */
#include "report/measure.h"
#include "report/report.h"
#include "util/macro.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
				      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

/* An id usable in href="#...": the spec with anything unusual replaced. */
static void anchor(FILE *f, const char *prefix, const char *s)
{
	fputs(prefix, f);
	for (; *s; s++)
		fputc((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
			      (*s >= '0' && *s <= '9')
			  ? *s
			  : '-',
		      f);
}

static const char *verdict_class(enum sb_verdict v)
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
	default:
		return "same";
	}
}

static const char *verdict_fill(enum sb_verdict v)
{
	switch (v) {
	case SB_VERDICT_BASELINE:
		return "#8c8c8c";
	case SB_VERDICT_BETTER:
		return "#2e8b57";
	case SB_VERDICT_WORSE:
		return "#c0392b";
	case SB_VERDICT_DIFFERENT:
		return "#d68910";
	default:
		return "#4e79a7";
	}
}

/* A round step for about five axis ticks up to max. */
static double tick_step(double max)
{
	double raw = max / 5, mag = pow(10, floor(log10(raw))), f = raw / mag;
	return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

/* Axis labels short enough not to run into each other: 250k, 1.2M. */
static char *tick_label(double t, double step, char *buf, size_t size)
{
	if (fabs(t) >= 1e9)
		snprintf(buf, size, "%gG", t / 1e9);
	else if (fabs(t) >= 1e6)
		snprintf(buf, size, "%gM", t / 1e6);
	else if (fabs(t) >= 1e4)
		snprintf(buf, size, "%gk", t / 1e3);
	else
		snprintf(buf, size, step >= 1 ? "%.0f" : "%g", t);
	return buf;
}

static void short_label(FILE *f, const char *s)
{
	size_t len = strlen(s);
	if (len <= 22) {
		esc(f, s);
		return;
	}
	char buf[32];
	snprintf(buf, sizeof(buf), "%.20s", s);
	esc(f, buf);
	fputs("…", f);
}

/* Horizontal bars (variant names can be long): mean, the 95% interval as
 * an error bar, and each repeat as a dot. */
static void bar_chart(const struct sb_report *r, const struct sb_report_row *row, FILE *f)
{
	const double lw = 150, cw = 290, top = 8, bh = 18, gap = 10;
	double max = 0, h = top + (double)r->n_cols * (bh + gap) + 28, w = lw + cw + 70;
	char label[128], num[32];

	for (size_t c = 0; c < r->n_cols; c++) {
		const struct sb_report_cell *x = &row->cells[c];
		if (!x->st.n)
			continue;
		max = fmax(max, x->st.mean + (isfinite(x->st.ci95) ? x->st.ci95 : 0));
		max = fmax(max, x->st.max);
	}
	if (!(max > 0))
		max = 1;
	double step = tick_step(max);
	max = ceil(max / step) * step;

	sb_report_metric_label(row->workload, row->spec, row->metric, label, sizeof(label));
	fprintf(f, "<figure class=\"chart\"><figcaption>");
	esc(f, label);
	fprintf(f, " <span class=\"unit\">(");
	esc(f, row->unit);
	if (row->better != SB_BETTER_NONE)
		fprintf(f, ", %s is better", sb_better_name(row->better));
	fprintf(f,
		")</span></figcaption>\n<svg class=\"bars\" xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n",
		w, h, w, h);
	double axis_y = top + (double)r->n_cols * (bh + gap);
	for (double t = 0; t <= max * 1.0000001; t += step) {
		double x = lw + t / max * cw;
		fprintf(
		    f,
		    "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
		    "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
		    x, top - 4, x, axis_y, x, axis_y + 14, tick_label(t, step, num, sizeof(num)));
	}
	for (size_t c = 0; c < r->n_cols; c++) {
		const struct sb_report_cell *x = &row->cells[c];
		double y = top + (double)c * (bh + gap), cy = y + bh / 2;
		fprintf(f, "<text class=\"vlabel\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
			lw - 6, cy + 4);
		short_label(f, r->cols[c].label);
		fprintf(f, "<title>");
		esc(f, r->cols[c].label);
		fprintf(f, "</title></text>\n");
		if (!x->st.n) {
			fprintf(f, "<text class=\"na\" x=\"%.1f\" y=\"%.1f\">no value</text>\n",
				lw + 4, cy + 4);
			continue;
		}
		double bw = fmax(0, x->st.mean) / max * cw;
		fprintf(
		    f,
		    "<rect class=\"bar %s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		    "fill=\"%s\"><title>",
		    verdict_class(x->verdict), lw, y, bw, bh, verdict_fill(x->verdict));
		char cell[128];
		esc(f, sb_report_fmt_cell(r, c, x, "±", cell, sizeof(cell)));
		fprintf(f, " n=%zu</title></rect>\n", x->st.n);
		if (isfinite(x->st.ci95)) {
			double x1 = lw + fmax(0, x->st.mean - x->st.ci95) / max * cw;
			double x2 = lw + (x->st.mean + x->st.ci95) / max * cw;
			fprintf(
			    f,
			    "<g class=\"errorbar\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			    "y2=\"%.1f\"/><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/></g>\n",
			    x1, cy, x2, cy, x1, cy - 5, x1, cy + 5, x2, cy - 5, x2, cy + 5);
		}
		for (size_t i = 0; i < x->st.n; i++)
			fprintf(f, "<circle class=\"rep\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.2\"/>",
				lw + fmax(0, x->values[i]) / max * cw, cy);
		fprintf(
		    f, "\n<text class=\"val\" x=\"%.1f\" y=\"%.1f\">%s%s</text>\n",
		    lw + fmax(bw, isfinite(x->st.ci95) ? (x->st.mean + x->st.ci95) / max * cw : 0) +
			6,
		    cy + 4, sb_report_fmt_num(x->st.mean, num, sizeof(num)),
		    sb_verdict_marker(x->verdict));
	}
	fprintf(f, "</svg></figure>\n");
}

/* Percentiles on a log scale, one line per variant: the tail is where
 * storage stacks differ, and it spans decades. */
static void latency_chart(const struct sb_report *r, const struct sb_report_latrow *l, FILE *f)
{
	static const char *const pnames[] = {"p50", "p90", "p99", "p99.9", "max"};
	const double left = 60, pw = 300, top = 10, ph = 180, w = left + pw + 150,
		     h = top + ph + 40;
	double lo = INFINITY, hi = 0;

	for (size_t c = 0; c < r->n_cols; c++) {
		const struct sb_latency *x = &l->cells[c];
		double v[] = {x->p50_ms, x->p90_ms, x->p99_ms, x->p999_ms, x->max_ms};
		if (!x->count)
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(v); i++)
			if (isfinite(v[i]) && v[i] > 0) {
				lo = fmin(lo, v[i]);
				hi = fmax(hi, v[i]);
			}
	}
	if (!(hi > 0))
		return;
	double dlo = floor(log10(lo)), dhi = ceil(log10(hi));
	if (dhi <= dlo)
		dhi = dlo + 1;
#define Y(v) (top + ph - (log10(v) - dlo) / (dhi - dlo) * ph)
#define X(i) (left + 30 + (double)(i) * (pw - 60) / (ARRAY_SIZE(pnames) - 1))

	fprintf(f, "<figure class=\"chart\"><figcaption>Latency percentiles: ");
	esc(f, l->op);
	fprintf(f,
		" <span class=\"unit\">(ms, log scale, lower is better)</span></figcaption>\n"
		"<svg class=\"latency\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n",
		w, h, w, h);
	for (double d = dlo; d <= dhi; d++) {
		char num[32];
		fprintf(
		    f,
		    "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
		    "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
		    left, Y(pow(10, d)), left + pw, Y(pow(10, d)), left - 6, Y(pow(10, d)) + 4,
		    tick_label(pow(10, d), pow(10, d), num, sizeof(num)));
	}
	for (size_t i = 0; i < ARRAY_SIZE(pnames); i++)
		fprintf(
		    f,
		    "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
		    X(i), top + ph + 18, pnames[i]);
	for (size_t c = 0, k = 0; c < r->n_cols; c++) {
		const struct sb_latency *x = &l->cells[c];
		double v[] = {x->p50_ms, x->p90_ms, x->p99_ms, x->p999_ms, x->max_ms};
		const char *color = palette[c % ARRAY_SIZE(palette)];
		if (!x->count)
			continue;
		fprintf(f, "<g class=\"series\"><title>");
		esc(f, r->cols[c].label);
		fprintf(f,
			"</title><polyline class=\"pline\" fill=\"none\" stroke=\"%s\" points=\"",
			color);
		for (size_t i = 0; i < ARRAY_SIZE(v); i++)
			if (isfinite(v[i]) && v[i] > 0)
				fprintf(f, "%.1f,%.1f ", X(i), Y(v[i]));
		fprintf(f, "\"/>");
		for (size_t i = 0; i < ARRAY_SIZE(v); i++)
			if (isfinite(v[i]) && v[i] > 0)
				fprintf(
				    f,
				    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s "
				    "%g ms</title></circle>",
				    X(i), Y(v[i]), color, pnames[i], v[i]);
		fprintf(f,
			"</g>\n<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			"<text class=\"vlabel\" x=\"%.1f\" y=\"%.1f\">",
			left + pw + 16, top + 4 + (double)k * 18, color, left + pw + 32,
			top + 14 + (double)k * 18);
		short_label(f, r->cols[c].label);
		fprintf(f, "</text>\n");
		k++;
	}
	fprintf(f, "</svg></figure>\n");
#undef X
#undef Y
}

static const char css[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:1.5em;"
    "color:#222;max-width:1200px}"
    "h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ddd}"
    "table.cmp{border-collapse:collapse;font-size:.9em}"
    "table.cmp th,table.cmp td{padding:.25em .6em;border-bottom:1px solid #eee;"
    "text-align:right;white-space:nowrap}"
    "table.cmp th.l,table.cmp td.l{text-align:left}"
    "table.cmp tr.wl td{background:#f4f6f8;font-weight:600;text-align:left}"
    "td.better{background:#e3f4e8;color:#1d6b3a}td.worse{background:#fbe4e1;color:#9b2c1f}"
    "td.diff{background:#fdf1dc}td.base{color:#555}"
    ".legend,.meta{color:#555;font-size:.85em;white-space:pre-line}"
    ".charts{display:flex;flex-wrap:wrap;gap:1em}"
    "figure.chart{margin:0;padding:.5em;border:1px solid #eee;border-radius:4px;max-width:530px}"
    "figcaption{font-weight:600;font-size:.9em;margin-bottom:.3em}.unit{font-weight:normal;"
    "color:#666}"
    "svg text{font-size:11px;fill:#333}svg .tick{fill:#777;font-size:10px}"
    "svg .grid{stroke:#e6e6e6}svg .errorbar line{stroke:#222;stroke-width:1.4}"
    "svg .rep{fill:#fff;stroke:#222;stroke-width:.8}svg .pline{stroke-width:2}"
    "svg .na{fill:#999;font-style:italic}.note{color:#9b6a00}";

static void table(const struct sb_report *r, FILE *f)
{
	const char *spec = NULL;
	fprintf(f, "<table class=\"cmp\"><thead><tr><th class=\"l\">Metric</th><th "
		   "class=\"l\">Unit</th><th class=\"l\">Better</th>");
	for (size_t c = 0; c < r->n_cols; c++) {
		fprintf(f, "<th>");
		esc(f, r->cols[c].label);
		fprintf(f, "%s</th>", c == r->baseline ? " (baseline)" : "");
	}
	fprintf(f, "</tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < r->n_rows; i++) {
		const struct sb_report_row *row = &r->rows[i];
		char label[128], cell[160];
		if (!spec || strcmp(spec, row->spec) != 0) {
			spec = row->spec;
			fprintf(f, "<tr class=\"wl\"><td colspan=\"%zu\"><a href=\"#",
				r->n_cols + 3);
			anchor(f, "w-", spec);
			fprintf(f, "\">");
			esc(f, spec);
			fprintf(f, "</a></td></tr>\n");
		}
		fprintf(f, "<tr><td class=\"l\">");
		esc(f, sb_report_metric_label(row->workload, row->spec, row->metric, label,
					      sizeof(label)));
		fprintf(f, "</td><td class=\"l\">");
		esc(f, row->unit);
		fprintf(f, "</td><td class=\"l\">%s</td>",
			row->better == SB_BETTER_NONE ? "" : sb_better_name(row->better));
		for (size_t c = 0; c < r->n_cols; c++) {
			const struct sb_report_cell *x = &row->cells[c];
			fprintf(f, "<td class=\"%s\"", verdict_class(x->verdict));
			if (!isnan(x->w.p))
				fprintf(f, " title=\"n=%zu, p=%.3g\"", x->st.n, x->w.p);
			fprintf(f, ">");
			esc(f, sb_report_fmt_cell(r, c, x, "±", cell, sizeof(cell)));
			fprintf(f, "</td>");
		}
		fprintf(f, "</tr>\n");
	}
	fprintf(f, "</tbody></table>\n");
}

static int html_emit(const struct sb_report *r, FILE *f)
{
	_cleanup_free_ char *legend = sb_report_legend("±");
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
	esc(f, r->cols[r->baseline].label);
	fprintf(f, "</b>\n");
	for (size_t s = 0; s < r->n_sets; s++) {
		const struct sb_resultset *rs = r->sets[s];
		json_object *h = NULL;
		fprintf(f, "Result set <b>");
		esc(f, r->set_names[s]);
		fprintf(f, "</b>: %s", rs->command);
		fprintf(f, ", created ");
		esc(f, rs->created);
		if (rs->host && json_object_object_get_ex(rs->host, "hostname", &h)) {
			fprintf(f, " on ");
			esc(f, json_object_get_string(h));
		}
		if (rs->host && json_object_object_get_ex(rs->host, "kernel", &h)) {
			fprintf(f, ", kernel ");
			esc(f, json_object_get_string(h));
		}
		fprintf(f, ", stackbench ");
		esc(f, rs->tool_version);
		/* what was measured: the profile of a run, the file system of a bench */
		if (rs->profile && json_object_object_get_ex(rs->profile, "path", &h)) {
			fprintf(f, ", profile ");
			esc(f, json_object_get_string(h));
		}
		if (rs->target && json_object_object_get_ex(rs->target, "fstype", &h)) {
			fprintf(f, ", ");
			esc(f, json_object_get_string(h));
			if (json_object_object_get_ex(rs->target, "options", &h)) {
				fprintf(f, " (");
				esc(f, json_object_get_string(h));
				fprintf(f, ")");
			}
		}
		fprintf(f, "\n");
	}
	fprintf(f, "Repeats:");
	for (size_t c = 0; c < r->n_cols; c++) {
		fprintf(f, "%s ", c ? "," : "");
		esc(f, r->cols[c].label);
		fprintf(f, " %zu", r->cols[c].n_rep);
	}
	fprintf(f, "</p>\n<h2>Comparison</h2>\n");
	table(r, f);
	fprintf(f, "<p class=\"legend\">");
	esc(f, legend);
	fprintf(f, "</p>\n");

	for (size_t s = 0; s < n_specs; s++) {
		fprintf(f, "<h2 id=\"");
		anchor(f, "w-", specs[s]);
		fprintf(f, "\">");
		esc(f, specs[s]);
		fprintf(f, "</h2>\n");
		for (size_t c = 0; c < r->n_cols; c++) {
			char buf[128];
			unsigned fl = sb_report_col_flags(r, c, specs[s]);
			if (!fl)
				continue;
			fprintf(f, "<p class=\"note\">");
			esc(f, r->cols[c].label);
			fprintf(f, ": %s</p>\n", sb_report_flags_str(fl, buf, sizeof(buf)));
		}
		fprintf(f, "<div class=\"charts\">\n");
		for (size_t i = 0; i < r->n_rows; i++)
			if (strcmp(r->rows[i].spec, specs[s]) == 0)
				bar_chart(r, &r->rows[i], f);
		for (size_t i = 0; i < r->n_lat; i++)
			if (strcmp(r->lat[i].spec, specs[s]) == 0)
				latency_chart(r, &r->lat[i], f);
		fprintf(f, "</div>\n");
	}
	sb_measure_html(r, f);
	fprintf(f, "</body></html>\n");
	return ferror(f) ? -EIO : 0;
}

const struct sb_report_format sb_report_html = {
    .name = "html",
    .help = "one self-contained HTML file: the table and SVG charts",
    .emit = html_emit,
};
