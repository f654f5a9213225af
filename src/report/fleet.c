/* The fleet summary of a report over one result set per host (--fleet):
 * for each headline metric and variant, the change against the host's own
 * baseline on every host, and how many hosts agree. Hosts are never pooled
 * as repeats of each other (that would be pseudo-replication): each host's
 * verdict comes from its own repeats. */
#include "report/report.h"
#include "util/escape.h"

#include <math.h>
#include <string.h>

static const char *mark(enum sb_verdict v)
{
	switch (v) {
	case SB_VERDICT_BETTER:
	case SB_VERDICT_DIFFERENT:
		return "*";
	case SB_VERDICT_WORSE:
		return "!";
	case SB_VERDICT_UNRESOLVED:
		return "?";
	default:
		return "";
	}
}

/* Column c is the first non-baseline column of its variant: each
 * variant's line (or chart) is made once, over all hosts. */
static bool first_of_variant(const struct sb_report *r, size_t c)
{
	if (r->cols[c].base == c)
		return false;
	for (size_t k = 0; k < c; k++)
		if (r->cols[k].base != k && strcmp(r->cols[k].variant, r->cols[c].variant) == 0)
			return false;
	return true;
}

/* Column k is one host's figure for the variant of column c. */
static bool host_col(const struct sb_report *r, size_t c, size_t k)
{
	return r->cols[k].base != k && strcmp(r->cols[k].variant, r->cols[c].variant) == 0;
}

/* Calls fn once per headline row and variant (c: the variant's first
 * column); *header is false until fn has printed the section's head. True
 * when fn was called at all. */
typedef void fleet_fn(const struct sb_report *r, const struct sb_report_row *row, size_t c, FILE *f,
		      bool *header);
static bool fleet_walk(const struct sb_report *r, FILE *f, fleet_fn *fn)
{
	bool header = false;

	if (!r->fleet || r->n_sets < 2)
		return false;
	for (size_t i = 0; i < r->n_rows; i++) {
		const struct sb_report_row *row = &r->rows[i];
		if (!row->headline || row->lat != SB_LAT_NONE)
			continue;
		for (size_t c = 0; c < r->n_cols; c++)
			if (first_of_variant(r, c))
				fn(r, row, c, f, &header);
	}
	return header;
}

static void summary_line(const struct sb_report *r, const struct sb_report_row *row, size_t c,
			 FILE *f, bool *header)
{
	size_t hosts = 0, better = 0, worse = 0, up = 0, down = 0, unresolved = 0;
	char line[2048];
	size_t len = 0;

	for (size_t k = c; k < r->n_cols && len < sizeof(line); k++) {
		const struct sb_report_cell *x = &row->cells[k];
		if (!host_col(r, c, k))
			continue;
		hosts++;
		better += x->verdict == SB_VERDICT_BETTER;
		worse += x->verdict == SB_VERDICT_WORSE;
		unresolved += x->verdict == SB_VERDICT_UNRESOLVED;
		if (isfinite(x->change)) {
			up += x->change > 0;
			down += x->change < 0;
		}
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s ", len ? ", " : "",
					r->set_names[r->cols[k].set]);
		if (len < sizeof(line) && isfinite(x->change))
			len += (size_t)snprintf(line + len, sizeof(line) - len, "%+.1f%%%s",
						x->change, mark(x->verdict));
		else if (len < sizeof(line))
			len += (size_t)snprintf(line + len, sizeof(line) - len, "-");
	}
	if (!*header) {
		fprintf(f, "\nfleet: each variant against its own host's baseline (hosts "
			   "are not pooled: each verdict comes from that host's repeats)\n");
		*header = true;
	}
	fprintf(f,
		"%s: %s: %s: %s; significantly better on %zu of %zu hosts, worse on "
		"%zu, not resolved on %zu; the mean %s on %zu\n",
		row->spec, row->label ? row->label : row->metric, r->cols[c].variant, line, better,
		hosts, worse, unresolved, up >= down ? "went up" : "went down",
		up >= down ? up : down);
}

void sb_report_fleet_summary(const struct sb_report *r, FILE *f)
{
	fleet_walk(r, f, summary_line);
}

static const char *verdict_color(enum sb_verdict v)
{
	switch (v) {
	case SB_VERDICT_BETTER:
		return "#59a14f";
	case SB_VERDICT_WORSE:
		return "#e15759";
	case SB_VERDICT_DIFFERENT:
		return "#4e79a7";
	default:
		return "#bab0ac";
	}
}

/* The fleet's chart: per headline metric and variant, one bar per host, the
 * change against that host's own baseline, left of the axis when the mean
 * went down, coloured by the host's verdict. */
static void chart(const struct sb_report *r, const struct sb_report_row *row, size_t c, FILE *f,
		  bool *header)
{
	size_t n = 0;
	double max = 1;

	for (size_t k = c; k < r->n_cols; k++)
		if (host_col(r, c, k)) {
			n++;
			if (isfinite(row->cells[k].change))
				max = fmax(max, fabs(row->cells[k].change));
		}
	if (!*header) {
		fprintf(f, "<h2 id=\"fleet\">Fleet: each variant against its own host's "
			   "baseline</h2>\n<div class=\"charts\">\n");
		*header = true;
	}
	const double lw = 140, half = 160, bh = 16, gap = 8, top = 6;
	double h = top + (double)n * (bh + gap) + 20, w = lw + 2 * half + 60;
	fprintf(f, "<figure class=\"chart fleet\"><figcaption>");
	sb_escape_html(f, row->spec);
	fputs(": ", f);
	sb_escape_html(f, row->label ? row->label : row->metric);
	fputs(": ", f);
	sb_escape_html(f, r->cols[c].variant);
	fprintf(f,
		" <span class=\"unit\">(change per host, %%)</span></figcaption>\n"
		"<svg class=\"fleet\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n"
		"<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		w, h, w, h, lw + half, top - 2, lw + half, h - 18);
	size_t at = 0;
	for (size_t k = c; k < r->n_cols; k++) {
		const struct sb_report_cell *x = &row->cells[k];
		if (!host_col(r, c, k))
			continue;
		double y = top + (double)at++ * (bh + gap), cy = y + bh / 2;
		fprintf(f,
			"<text class=\"vlabel host\" x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"end\">",
			lw - 6, cy + 4);
		sb_escape_html(f, r->set_names[r->cols[k].set]);
		fputs("</text>\n", f);
		if (!isfinite(x->change)) {
			fprintf(f, "<text class=\"na\" x=\"%.1f\" y=\"%.1f\">no value</text>\n",
				lw + half + 4, cy + 4);
			continue;
		}
		double bw = fabs(x->change) / max * half;
		double x0 = x->change < 0 ? lw + half - bw : lw + half;
		fprintf(f,
			"<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.1f\" fill=\"%s\"><title>%+.1f%%</title></rect>"
			"<text class=\"val\" x=\"%.1f\" y=\"%.1f\">%+.1f%%%s</text>\n",
			x0, y, bw, bh, verdict_color(x->verdict), x->change, lw + 2 * half + 4,
			cy + 4, x->change, mark(x->verdict));
	}
	fprintf(f, "</svg></figure>\n");
}

void sb_report_fleet_html(const struct sb_report *r, FILE *f)
{
	if (fleet_walk(r, f, chart))
		fprintf(f, "</div>\n");
}
