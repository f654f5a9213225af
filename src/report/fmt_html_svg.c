/* The HTML report's SVG charts: bars with error bars and repeats per metric,
 * latency percentiles, per-second series, and the forest plot of changes. */
#include "report/fmt_html-int.h"
#include "util/macro.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
				      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

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
	sb_html_esc(f, c->label);
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

void sb_html_bar_chart(const struct sb_report *r, const struct sb_report_row *row, FILE *f)
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
	sb_html_esc(f, row->label);
	fprintf(f, " <span class=\"unit\">(");
	sb_html_esc(f, row->unit);
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
		sb_html_esc(f, r->cols[c].full);
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
		    sb_html_verdict_class(x->verdict), lw, y, bw, bh, verdict_fill(x->verdict));
		char cell[128];
		sb_html_esc(f, sb_report_fmt_cell(r, c, x, "±", cell, sizeof(cell)));
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

void sb_html_latency_chart(const struct sb_report *r, const struct sb_report_latrow *l, FILE *f)
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
	sb_html_esc(f, l->op);
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
		sb_html_esc(f, r->cols[c].label);
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
	sb_html_esc(f, phase);
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
				sb_html_esc(f, r->cols[c].label);
				fprintf(f, ", repeat %zu</title></polyline>\n", k + 1);
			}
	fprintf(f, "</svg>");
	fprintf(f, "<div class=\"skey\">");
	for (size_t c = 0; c < r->n_cols; c++) {
		fprintf(f, "<span style=\"color:%s\">&#9632;</span> ",
			palette[c % ARRAY_SIZE(palette)]);
		sb_html_esc(f, r->cols[c].label);
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

void sb_html_series_charts(const struct sb_report *r, const char *spec, FILE *f)
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

/* x of a change on the forest plot's axis: log ratio, clamped. */
static double forest_x(double pct, double lim, double x0, double w)
{
	double l = isfinite(pct) ? log1p(fmax(pct, -99.9) / 100) : 0;
	l = fmax(-lim, fmin(lim, l));
	return x0 + (l + lim) / (2 * lim) * w;
}

/* A line's name, cut to FOREST_NAME_MAX characters (UTF-8 aware) with the whole
 * in a tooltip. */
enum { FOREST_NAME_MAX = 62 };
static void forest_name(const char *name, FILE *f)
{
	size_t chars = 0, i = 0;
	for (; name[i] && chars < FOREST_NAME_MAX - 1; i++)
		chars += ((unsigned char)name[i] & 0xc0) != 0x80;
	while (((unsigned char)name[i] & 0xc0) == 0x80)
		i++;
	if (!name[i]) {
		sb_html_esc(f, name);
		return;
	}
	char *cut = strndup(name, i);
	sb_html_esc(f, cut ? cut : "");
	free(cut);
	fputs("…<title>", f);
	sb_html_esc(f, name);
	fputs("</title>", f);
}

void sb_html_forest_plot(const struct sb_report *r, const struct sb_html_pick *p, size_t n,
			 const char *caption, FILE *f)
{
	double lim = log(1.2);
	size_t chars = 8;
	char ch[96];

	if (!n)
		return;
	for (size_t k = 0; k < n; k++) {
		const struct sb_report_row *row = &r->rows[p[k].row];
		const struct sb_report_cell *x = &row->cells[p[k].col];
		size_t len = strlen(row->label) +
			     (caption ? strlen(r->cols[p[k].col].label) : strlen(row->spec)) + 3;
		chars = len > chars ? len : chars;
		if (isfinite(x->change_lo) && isfinite(x->change_hi))
			lim = fmax(lim, fmax(fabs(log1p(fmax(x->change_lo, -99) / 100)),
					     fabs(log1p(x->change_hi / 100))));
	}
	lim = fmin(lim * 1.05, log(100));
	/* room for the longest name at 11px, up to FOREST_NAME_MAX characters */
	const double lw = 12 + 6.2 * (double)(chars < FOREST_NAME_MAX ? chars : FOREST_NAME_MAX),
		     pw = 300, vw = 150, rh = 15, top = 22;
	double h = top + rh * (double)n + 10, y = top;
	fprintf(f, "<figure class=\"chart forest\"><figcaption>");
	if (caption)
		fputs(caption, f);
	else
		fprintf(f, "Changed headline rows (%s)",
			sb_test_name(r->rows[p[0].row].cells[p[0].col].cmp.test));
	fprintf(f,
		", %g%% intervals "
		"<span class=\"unit\">(log scale; shaded: within ±%g%%)</span></figcaption>\n"
		"<svg class=\"forest\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"role=\"img\">\n",
		100 * (1 - r->alpha), r->resolve_pct, lw + pw + vw, h, lw + pw + vw, h);
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
	for (size_t k = 0; k < n; k++, y += rh) {
		const struct sb_report_row *row = &r->rows[p[k].row];
		const struct sb_report_cell *x = &row->cells[p[k].col];
		const char *color = verdict_fill(x->verdict);
		char name[512];
		fprintf(f, "<g class=\"frow\"><text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">",
			lw - 8, y + 12);
		/* one column's plot names rows by workload; the plot of every
		 * column names the column */
		snprintf(name, sizeof(name), "%s%s%s", caption ? row->label : row->spec,
			 caption ? " · " : ": ", caption ? r->cols[p[k].col].label : row->label);
		forest_name(name, f);
		fprintf(f, "</text>");
		if (isfinite(x->change_lo) && isfinite(x->change_hi))
			fprintf(f,
				"<line class=\"ci\" stroke=\"%s\" x1=\"%.1f\" x2=\"%.1f\" "
				"y1=\"%.0f\" y2=\"%.0f\"/>",
				color, forest_x(x->change_lo, lim, lw, pw),
				forest_x(x->change_hi, lim, lw, pw), y + 8, y + 8);
		fprintf(f,
			"<circle cx=\"%.1f\" cy=\"%.0f\" r=\"4\" fill=\"%s\"><title>%s</title>"
			"</circle><text class=\"fval\" x=\"%.0f\" y=\"%.0f\" fill=\"%s\">%s</text>"
			"</g>\n",
			forest_x(x->change, lim, lw, pw), y + 8, color, sb_verdict_name(x->verdict),
			lw + pw + 10, y + 12, color, sb_report_change_str(x, ch, sizeof(ch)));
	}
	fprintf(f, "</svg></figure>\n");
}
