/* `history --format html`: one self-contained page with an SVG trend chart
 * per sequence: each run's mean with its 95% interval, the level of every
 * segment between change points, and a line at each change point. */
#include "history/series.h"
#include "util/escape.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

enum { W = 720, H = 220, ML = 70, MR = 20, MT = 20, MB = 30 };

static double dget(json_object *o, const char *k)
{
	json_object *v = json_object_object_get(o, k);
	return v ? json_object_get_double(v) : NAN;
}

/* The y range over the means and their intervals. */
static void range(json_object *runs, double *lo, double *hi)
{
	*lo = INFINITY, *hi = -INFINITY;
	for (size_t i = 0; i < json_object_array_length(runs); i++) {
		json_object *r = json_object_array_get_idx(runs, i);
		double m = dget(r, "mean"), c = dget(r, "ci95");
		if (!isfinite(m))
			continue;
		c = isfinite(c) ? c : 0;
		*lo = fmin(*lo, m - c), *hi = fmax(*hi, m + c);
	}
	if (!(*hi > *lo))
		*lo -= 1, *hi += 1;
}

static void chart(FILE *f, json_object *s)
{
	json_object *runs = json_object_object_get(s, "runs"),
		    *cps = json_object_object_get(s, "change_points");
	size_t n = json_object_array_length(runs), k = json_object_array_length(cps);
	double lo, hi;

	range(runs, &lo, &hi);
#define X(i) (ML + (n > 1 ? (double)(i) * (W - ML - MR) / (double)(n - 1) : (W - ML - MR) / 2.0))
#define Y(v) (MT + (hi - (v)) * (H - MT - MB) / (hi - lo))
	fprintf(f, "<svg width=\"%d\" height=\"%d\" xmlns=\"http://www.w3.org/2000/svg\">\n", W, H);
	fprintf(f, "<text x=\"2\" y=\"%d\" font-size=\"11\">%.4g</text>", MT + 4, hi);
	fprintf(f, "<text x=\"2\" y=\"%d\" font-size=\"11\">%.4g</text>\n", H - MB, lo);
	/* Segment levels between change points. */
	for (size_t c = 0, start = 0; c <= k; c++) {
		json_object *cp = c < k ? json_object_array_get_idx(cps, c) : NULL;
		size_t end =
		    cp ? (size_t)json_object_get_int64(json_object_object_get(cp, "index")) : n;
		double level = cp  ? dget(cp, "before")
			       : k ? dget(json_object_array_get_idx(cps, k - 1), "after")
				   : NAN;
		if (isfinite(level))
			fprintf(f,
				"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"#888\" stroke-width=\"2\"/>\n",
				X(start), X(end - 1), Y(level), Y(level));
		if (cp)
			fprintf(
			    f,
			    "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#c00\" "
			    "stroke-dasharray=\"4 3\"/><text x=\"%.1f\" y=\"%d\" font-size=\"11\" "
			    "fill=\"#c00\">%+.1f%%</text>\n",
			    (X(end - 1) + X(end)) / 2, (X(end - 1) + X(end)) / 2, MT, H - MB,
			    (X(end - 1) + X(end)) / 2 + 3, MT + 10, dget(cp, "change_pct"));
		start = end;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *r = json_object_array_get_idx(runs, i);
		double m = dget(r, "mean"), c = dget(r, "ci95");
		if (!isfinite(m))
			continue;
		if (isfinite(c))
			fprintf(f,
				"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"#36c\"/>",
				X(i), X(i), Y(m - c), Y(m + c));
		fprintf(f,
			"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#36c\"><title>run %s: "
			"%.6g</title></circle>",
			X(i), Y(m), json_object_get_string(json_object_object_get(r, "id")), m);
		fprintf(
		    f,
		    "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">%s</text>\n",
		    X(i), H - 10, json_object_get_string(json_object_object_get(r, "id")));
	}
#undef X
#undef Y
	fputs("</svg>\n", f);
}

int sb_history_html_charts(json_object *doc, FILE *f, int level)
{
	json_object *all = json_object_object_get(doc, "series");

	for (size_t i = 0; i < json_object_array_length(all); i++) {
		json_object *s = json_object_array_get_idx(all, i);
		static const char *const keys[] = {"profile", "variant", "spec", "label"};
		fprintf(f, "<h%d>", level);
		for (int k = 0; k < 4; k++) {
			sb_escape_html(f,
				       json_object_get_string(json_object_object_get(s, keys[k])));
			fputs(k < 3 ? " &middot; " : "", f);
		}
		fputs(" (", f);
		sb_escape_html(f, json_object_get_string(json_object_object_get(s, "unit")));
		fprintf(f, ")</h%d>\n", level);
		chart(f, s);
	}
	fputs("<p>Points: each run's mean over its repeats, bars its 95% interval; grey: the "
	      "level between change points; red: a change point (binary segmentation, see "
	      "doc/history.md).</p>\n",
	      f);
	return ferror(f) ? -EIO : 0;
}

int sb_history_html(json_object *doc, FILE *f)
{
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>stackbench history"
	      "</title></head>\n<body style=\"font-family: sans-serif\">\n<h1>stackbench "
	      "history</h1>\n",
	      f);
	sb_history_html_charts(doc, f, 2);
	fputs("</body></html>\n", f);
	return ferror(f) ? -EIO : 0;
}
