/* HTML report: one self-contained file (inline CSS and SVG, no scripts, no
 * network) with the comparison table, a bar chart with 95% error bars and
 * the individual repeats per metric, and latency percentile charts (log
 * scale) for workloads that recorded latency. */
#include "report/measure.h"
#include "util/escape.h"
#include "report/report.h"
#include "util/macro.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
				      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

static void esc(FILE *f, const char *s)
{
	sb_escape_html(f, s);
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
	case SB_VERDICT_UNRESOLVED:
		return "unresolved";
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

/* Column labels are short and unique by construction (report.c): shown
 * whole, never cut; the full name goes into a tooltip. */
static void col_label(FILE *f, const struct sb_report_col *c)
{
	esc(f, c->label);
}

/* Room for the longest column label at 11px. */
static double label_width(const struct sb_report *r)
{
	size_t max = 4;
	for (size_t c = 0; c < r->n_cols; c++)
		if (strlen(r->cols[c].label) > max)
			max = strlen(r->cols[c].label);
	return 12 + 6.5 * (double)max;
}

/* Horizontal bars (variant names can be long): mean, the 95% interval as
 * an error bar, and each repeat as a dot. */
static void bar_chart(const struct sb_report *r, const struct sb_report_row *row, FILE *f)
{
	const double lw = label_width(r), cw = 290, top = 8, bh = 18, gap = 10;
	double max = 0, h = top + (double)r->n_cols * (bh + gap) + 28, w = lw + cw + 70;
	char num[32];

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

	fprintf(f, "<figure class=\"chart\"><figcaption>");
	esc(f, row->label);
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
		col_label(f, &r->cols[c]);
		fprintf(f, "<title>");
		esc(f, r->cols[c].full);
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
	const double left = 60, pw = 300, top = 10, ph = 180, w = left + pw + 40 + label_width(r),
		     h = top + ph + 40 + (r->n_cols > 9 ? 18.0 * (double)(r->n_cols - 9) : 0);
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
	{
		bool all = true;
		for (size_t c = 0; c < r->n_cols; c++)
			all &= l->pooled[c] || !l->cells[c].count;
		if (!all)
			fprintf(f, " (averaged over repeats: no histograms in the result)");
	}
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
		col_label(f, &r->cols[c]);
		fprintf(f, "</text>\n");
		k++;
	}
	fprintf(f, "</svg></figure>\n");
#undef X
#undef Y
}

/* ---- per-second series (extra.series, written by the workloads) ---- */

static json_object *series_of(const struct sb_wl_result *wl, const char *phase)
{
	json_object *all, *ph;
	if (!wl || !wl->extra || !json_object_object_get_ex(wl->extra, "series", &all) ||
	    !json_object_is_type(all, json_type_object))
		return NULL;
	if (!phase)
		return all;
	return json_object_object_get_ex(all, phase, &ph) &&
		       json_object_is_type(ph, json_type_object)
		   ? ph
		   : NULL;
}

static const struct sb_wl_result *col_wl(const struct sb_report_col *c, size_t v, size_t k,
					 const char *spec)
{
	const struct sb_repeat *rep = &c->vars[v]->rep[k];
	for (size_t w = 0; w < rep->n_wl; w++)
		if (strcmp(rep->wl[w]->spec, spec) == 0)
			return rep->wl[w];
	return NULL;
}

/* x[i], y[i] of one series: both arrays, as long as the shorter. */
static size_t series_xy(json_object *ph, const char *key, json_object **t, json_object **y)
{
	if (!json_object_object_get_ex(ph, "t", t) || !json_object_is_type(*t, json_type_array) ||
	    !json_object_object_get_ex(ph, key, y) || !json_object_is_type(*y, json_type_array))
		return 0;
	size_t a = json_object_array_length(*t), b = json_object_array_length(*y);
	return a < b ? a : b;
}

static double series_num(json_object *arr, size_t i)
{
	json_object *v = json_object_array_get_idx(arr, i);
	if (!v ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return NAN;
	return json_object_get_double(v);
}

/* One panel: a measure (iops, mbps, p99_ms) over time, a line per variant
 * and repeat (a variant's repeats share its colour), the warm-up shaded. */
static void series_panel(const struct sb_report *r, const char *spec, const char *phase,
			 const char *key, const char *title, FILE *f)
{
	const double left = 52, pw = 300, top = 8, ph = 120, w = left + pw + 12, h = top + ph + 30;
	double tmax = 0, ymax = 0, ramp = 0;
	size_t lines = 0;

	for (size_t c = 0; c < r->n_cols; c++)
		for (size_t v = 0; v < r->cols[c].n_vars; v++)
			for (size_t k = 0; k < r->cols[c].vars[v]->n_rep; k++) {
				json_object *p = series_of(col_wl(&r->cols[c], v, k, spec), phase),
					    *t, *y, *rp;
				size_t n = p ? series_xy(p, key, &t, &y) : 0;
				for (size_t i = 0; i < n; i++) {
					double x = series_num(t, i), yy = series_num(y, i);
					if (isfinite(x) && isfinite(yy)) {
						tmax = fmax(tmax, x);
						ymax = fmax(ymax, yy);
					}
				}
				if (p && json_object_object_get_ex(p, "ramp_s", &rp))
					ramp = fmax(ramp, json_object_get_double(rp));
				lines += n > 0;
			}
	if (!lines || !(tmax > 0))
		return;
	if (!(ymax > 0))
		ymax = 1;
	double ystep = tick_step(ymax), xstep = tick_step(tmax);
	ymax = ceil(ymax / ystep) * ystep;
#define SX(x) (left + (x) / tmax * pw)
#define SY(y) (top + ph - (y) / ymax * ph)
	fprintf(f, "<figure class=\"chart\"><figcaption>");
	esc(f, phase);
	fprintf(f, ": %s <span class=\"unit\">(per interval; warm-up shaded)</span></figcaption>\n",
		title);
	fprintf(f,
		"<svg class=\"series\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n",
		w, h, w, h);
	if (ramp > 0)
		fprintf(f,
			"<rect class=\"warmup\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.1f\"><title>warm-up: %g s</title></rect>\n",
			left, top, SX(fmin(ramp, tmax)) - left, ph, ramp);
	for (double t = 0; t <= ymax * 1.0000001; t += ystep) {
		char num[32];
		fprintf(
		    f,
		    "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
		    "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
		    left, SY(t), left + pw, SY(t), left - 4, SY(t) + 3,
		    tick_label(t, ystep, num, sizeof(num)));
	}
	for (double t = 0; t <= tmax * 1.0000001; t += xstep) {
		char num[32];
		fprintf(f,
			"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"middle\">%ss</text>\n",
			SX(t), top + ph + 14, tick_label(t, xstep, num, sizeof(num)));
	}
	for (size_t c = 0; c < r->n_cols; c++)
		for (size_t v = 0; v < r->cols[c].n_vars; v++)
			for (size_t k = 0; k < r->cols[c].vars[v]->n_rep; k++) {
				json_object *p = series_of(col_wl(&r->cols[c], v, k, spec), phase),
					    *t, *y;
				size_t n = p ? series_xy(p, key, &t, &y) : 0;
				if (!n)
					continue;
				fprintf(f,
					"<polyline class=\"sline\" fill=\"none\" stroke=\"%s\" "
					"points=\"",
					palette[c % ARRAY_SIZE(palette)]);
				for (size_t i = 0; i < n; i++) {
					double x = series_num(t, i), yy = series_num(y, i);
					if (isfinite(x) && isfinite(yy))
						fprintf(f, "%.1f,%.1f ", SX(x), SY(yy));
				}
				fprintf(f, "\"><title>");
				esc(f, r->cols[c].label);
				fprintf(f, ", repeat %zu</title></polyline>\n", k + 1);
			}
	fprintf(f, "</svg>");
	fprintf(f, "<div class=\"skey\">");
	for (size_t c = 0; c < r->n_cols; c++) {
		fprintf(f, "<span style=\"color:%s\">&#9632;</span> ",
			palette[c % ARRAY_SIZE(palette)]);
		esc(f, r->cols[c].label);
		fprintf(f, " ");
	}
	fprintf(f, "</div></figure>\n");
#undef SX
#undef SY
}

/* Phase names with a series in any column's results of spec, in order. */
static size_t series_phases(const struct sb_report *r, const char *spec, const char **names,
			    size_t max)
{
	size_t n = 0;
	for (size_t c = 0; c < r->n_cols; c++)
		for (size_t v = 0; v < r->cols[c].n_vars; v++)
			for (size_t k = 0; k < r->cols[c].vars[v]->n_rep; k++) {
				json_object *all = series_of(col_wl(&r->cols[c], v, k, spec), NULL);
				if (!all)
					continue;
				json_object_object_foreach(all, key, val)
				{
					size_t i;
					(void)val;
					for (i = 0; i < n; i++)
						if (strcmp(names[i], key) == 0)
							break;
					if (i == n && n < max)
						names[n++] = key;
				}
			}
	return n;
}

static void series_charts(const struct sb_report *r, const char *spec, FILE *f)
{
	static const struct {
		const char *key, *title;
	} measures[] = {{"iops", "IOPS"}, {"mbps", "MB/s"}, {"p99_ms", "p99 latency (ms)"}};
	const char *phases[64];
	size_t n = series_phases(r, spec, phases, ARRAY_SIZE(phases));

	if (!n)
		return;
	fprintf(f, "<h3>Over time</h3>\n<div class=\"charts\">\n");
	for (size_t p = 0; p < n; p++)
		for (size_t m = 0; m < ARRAY_SIZE(measures); m++)
			series_panel(r, spec, phases[p], measures[m].key, measures[m].title, f);
	fprintf(f, "</div>\n");
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
		esc(f, r->cols[c].full);
		fprintf(f, "\">");
		esc(f, r->cols[c].label);
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
			anchor(f, "w-", spec);
			fprintf(f, "\">");
			esc(f, spec);
			fprintf(f, "</a></td></tr>\n");
		}
		fprintf(f, "<tr><td class=\"l\">");
		esc(f, row->label);
		fprintf(f, "</td><td class=\"l\">");
		esc(f, row->unit);
		char tests[96];
		fprintf(f, "</td><td class=\"l\">%s</td><td class=\"l\">%s</td>",
			row->better == SB_BETTER_NONE ? "" : sb_better_name(row->better),
			sb_report_row_tests(r, row, tests, sizeof(tests)));
		for (size_t c = 0; c < r->n_cols; c++) {
			const struct sb_report_cell *x = &row->cells[c];
			fprintf(f, "<td class=\"%s\"", verdict_class(x->verdict));
			if (!isnan(x->w.p))
				fprintf(
				    f,
				    " title=\"n=%zu, p=%.3g, adjusted p=%.3g, smallest detectable "
				    "change %.1f%%\"",
				    x->st.n, x->w.p, x->p_adj, x->mde_pct);
			fprintf(f, ">");
			esc(f, sb_report_fmt_cell(r, c, x, "±", cell, sizeof(cell)));
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
	esc(f, row->spec);
	fprintf(f, ": ");
	esc(f, row->label);
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
		esc(f, noise);
		fprintf(f, "</p>\n");
	}
	for (size_t c = 0; c < r->n_cols; c++) {
		struct sb_report_verdict v;
		if (r->cols[c].base == c || sb_report_verdict_build(r, c, &v) < 0)
			continue;
		fprintf(f, "<h3>");
		esc(f, r->cols[c].label);
		fprintf(f, " against ");
		esc(f, r->cols[r->cols[c].base].label);
		fprintf(f,
			" <span class=\"unit\">(%zu against %zu repeats, %s)</span></h3>\n"
			"<ul class=\"verdict\">\n",
			r->cols[c].n_rep, r->cols[r->cols[c].base].n_rep,
			v.paired ? "rounds paired" : "sets not run together: Welch");
		if (!v.paired) {
			fprintf(f, "<li class=\"unresolved\">note: ");
			esc(f, sb_report_unpaired_note);
			fprintf(f, "</li>\n");
		}
		for (size_t k = 0; k < v.n_changed; k++) {
			enum sb_verdict w = r->rows[v.changed[k]].cells[c].verdict;
			verdict_item(r, c, v.changed[k], verdict_class(w), sb_verdict_name(w), f);
		}
		if (v.n_equal) {
			fprintf(f, "<li>equal within ±%g%%: ", r->resolve_pct);
			for (size_t k = 0; k < v.n_equal; k++) {
				fprintf(f, "%s", k ? ", " : "");
				esc(f, r->rows[v.equal[k]].spec);
				fprintf(f, ": ");
				esc(f, r->rows[v.equal[k]].label);
			}
			fprintf(f, "</li>\n");
		}
		for (size_t k = 0; k < v.n_unresolved; k++)
			verdict_item(r, c, v.unresolved[k], "unresolved", "not resolved:", f);
		for (size_t k = 0; k < v.n_untested; k++) {
			fprintf(f, "<li class=\"worse\">untested: ");
			esc(f, r->rows[v.untested[k]].spec);
			fprintf(f, ": ");
			esc(f, r->rows[v.untested[k]].label);
			fprintf(f, "</li>\n");
		}
		fprintf(f, "</ul>\n");
		sb_report_verdict_free(&v);
	}
}

/* x of a change on the forest plot's axis: log ratio, clamped. */
static double forest_x(double pct, double lim, double x0, double w)
{
	double l = isfinite(pct) ? log1p(fmax(pct, -99.9) / 100) : 0;
	l = fmax(-lim, fmin(lim, l));
	return x0 + (l + lim) / (2 * lim) * w;
}

/* Each headline row's change with its interval, one line per variant, on
 * a log-ratio axis (a halving and a doubling equally far from 0), with the
 * band of +-resolve_pct that "equal" means. */
static void forest_plot(const struct sb_report *r, FILE *f)
{
	size_t n = 0;
	double lim = log(1.2);
	for (size_t i = 0; i < r->n_rows; i++)
		for (size_t c = 0; c < r->n_cols; c++) {
			const struct sb_report_cell *x = &r->rows[i].cells[c];
			if (r->cols[c].base == c || !sb_report_row_main(&r->rows[i]) ||
			    !isfinite(x->change))
				continue;
			n++;
			if (isfinite(x->change_lo) && isfinite(x->change_hi))
				lim = fmax(lim, fmax(fabs(log1p(fmax(x->change_lo, -99) / 100)),
						     fabs(log1p(x->change_hi / 100))));
		}
	if (!n)
		return;
	lim = fmin(lim * 1.05, log(100));
	const double lw = 330, pw = 560, rh = 18, top = 24;
	double h = top + rh * (double)n + 10, y = top;
	fprintf(f,
		"<figure class=\"chart\" style=\"max-width:none\"><figcaption>Changes of the "
		"headline and cost rows against the baseline, with their %g%% intervals "
		"<span class=\"unit\">(log scale; shaded: within ±%g%%)</span></figcaption>\n"
		"<svg class=\"forest\" width=\"%.0f\" height=\"%.0f\" role=\"img\">\n",
		100 * (1 - r->alpha), r->resolve_pct, lw + pw + 20, h);
	double b0 = forest_x(-r->resolve_pct, lim, lw, pw),
	       b1 = forest_x(r->resolve_pct, lim, lw, pw);
	fprintf(f, "<rect class=\"band\" x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%.0f\"/>\n",
		b0, top - 4, b1 - b0, rh * (double)n + 4);
	static const double ticks[] = {-90, -50, -20, -10, 0, 10, 25, 100, 400, 900};
	double last = -1e9;
	for (size_t t = 0; t < ARRAY_SIZE(ticks); t++) {
		double x = forest_x(ticks[t], lim, lw, pw);
		/* labels at least 40 px apart; 0 always */
		if (fabs(log1p(ticks[t] / 100)) > lim ||
		    (ticks[t] != 0 && x - last < 40 && forest_x(0, lim, lw, pw) - x >= 0))
			continue;
		if (ticks[t] > 0 && x - last < 40)
			continue;
		last = x;
		fprintf(f,
			"<line class=\"%s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\"/>"
			"<text class=\"tick\" x=\"%.1f\" y=\"12\" text-anchor=\"middle\">%+.0f%%"
			"</text>\n",
			ticks[t] == 0 ? "zero" : "grid", x, x, top - 4, h - 6, x, ticks[t]);
	}
	for (size_t i = 0; i < r->n_rows; i++)
		for (size_t c = 0; c < r->n_cols; c++) {
			const struct sb_report_row *row = &r->rows[i];
			const struct sb_report_cell *x = &row->cells[c];
			if (r->cols[c].base == c || !sb_report_row_main(row) ||
			    !isfinite(x->change))
				continue;
			const char *color = verdict_fill(x->verdict);
			fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">", lw - 8,
				y + 12);
			esc(f, row->label);
			fprintf(f, " · ");
			esc(f, r->cols[c].label);
			fprintf(f, "</text>");
			if (isfinite(x->change_lo) && isfinite(x->change_hi))
				fprintf(f,
					"<line class=\"ci\" stroke=\"%s\" x1=\"%.1f\" x2=\"%.1f\" "
					"y1=\"%.0f\" y2=\"%.0f\"/>",
					color, forest_x(x->change_lo, lim, lw, pw),
					forest_x(x->change_hi, lim, lw, pw), y + 8, y + 8);
			fprintf(
			    f,
			    "<circle cx=\"%.1f\" cy=\"%.0f\" r=\"4\" fill=\"%s\"><title>%+.1f%% "
			    "[%+.1f, %+.1f] %s</title></circle>\n",
			    forest_x(x->change, lim, lw, pw), y + 8, color, x->change, x->change_lo,
			    x->change_hi, sb_verdict_name(x->verdict));
			y += rh;
		}
	fprintf(f, "</svg></figure>\n");
}

/* One result set's line in the header: what ran where, with which tool. */
static void set_meta(const struct sb_report *r, size_t s, FILE *f)
{
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
	if (rs->host && json_object_object_get_ex(rs->host, "emulated", &h) &&
	    json_object_get_boolean(h))
		fprintf(f, " <span class=\"note\">(emulated: the VM runner's qemu, "
			   "throttled files for disks)</span>");
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
}

/* One workload's section of the details: its flags per column and its
 * charts. */
static void spec_details(const struct sb_report *r, const char *spec, FILE *f)
{
	fprintf(f, "<h2 id=\"");
	anchor(f, "w-", spec);
	fprintf(f, "\">");
	esc(f, spec);
	fprintf(f, "</h2>\n");
	for (size_t c = 0; c < r->n_cols; c++) {
		char buf[128];
		unsigned fl = sb_report_col_flags(r, c, spec);
		if (!fl)
			continue;
		fprintf(f, "<p class=\"note\">");
		esc(f, r->cols[c].label);
		fprintf(f, ": %s</p>\n", sb_report_flags_str(fl, buf, sizeof(buf)));
	}
	fprintf(f, "<div class=\"charts\">\n");
	for (size_t i = 0; i < r->n_rows; i++)
		if (strcmp(r->rows[i].spec, spec) == 0)
			bar_chart(r, &r->rows[i], f);
	for (size_t i = 0; i < r->n_lat; i++)
		if (strcmp(r->lat[i].spec, spec) == 0)
			latency_chart(r, &r->lat[i], f);
	fprintf(f, "</div>\n");
	series_charts(r, spec, f);
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
	esc(f, r->cols[r->baseline].label);
	fprintf(f, "</b>\n");
	for (size_t s = 0; s < r->n_sets; s++) {
		set_meta(r, s, f);
		fprintf(f, "\n");
	}
	fprintf(f, "Repeats:");
	for (size_t c = 0; c < r->n_cols; c++) {
		fprintf(f, "%s ", c ? "," : "");
		esc(f, r->cols[c].label);
		fprintf(f, " %zu", r->cols[c].n_rep);
	}
	fprintf(f, "</p>\n");
	for (size_t c = 0; c < r->n_cols; c++) {
		_cleanup_free_ char *notes = sb_report_col_notes(r, c);
		if (!notes)
			continue;
		fprintf(f, "<p class=\"note\">");
		esc(f, r->cols[c].label);
		fprintf(f, ": ");
		esc(f, notes);
		fprintf(f, "</p>\n");
	}
	verdict_html(r, f);
	forest_plot(r, f);
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
	esc(f, legend);
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
