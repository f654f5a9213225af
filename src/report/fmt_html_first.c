/* The HTML report's first screen (1400x900): the verdict per variant, its
 * changed headline rows as a forest plot and the rest a line per kind, and
 * beside it which member served each phase's reads and writes. */
#include "report/fmt_html-int.h"
#include "util/macro.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* How many rows a line names before it counts the rest (the table has them
 * all). */
enum { NAMED = 3 };

static void row_name(const struct sb_report_row *row, FILE *f)
{
	sb_html_esc(f, row->spec);
	fputs(": ", f);
	sb_html_esc(f, row->label);
}

/* "A, B and 4 more" of list: its headline rows named, up to max; the
 * others (cost rows) only counted, so that a line stays a line. */
static void names(const struct sb_report *r, const size_t *list, size_t n, size_t max, FILE *f)
{
	size_t shown = 0;
	for (size_t k = 0; k < n && shown < max; k++) {
		const struct sb_report_row *row = &r->rows[list[k]];
		if (!row->headline)
			continue;
		fputs(shown++ ? ", " : "", f);
		row_name(row, f);
	}
	if (shown < n)
		fprintf(f, "%s%zu %s", shown ? " and " : "", n - shown,
			shown ? "more" : "cost rows");
}

/* The unresolved rows in one line, each named with its change and the
 * repeats that would resolve it. */
static void unresolved_line(const struct sb_report *r, size_t c, const struct sb_report_verdict *v,
			    FILE *f)
{
	size_t shown = 0, most = 0;
	char need[48], what[48];
	fprintf(f, "<li class=\"unresolved\">not resolved, %zu row%s: ", v->n_unresolved,
		v->n_unresolved == 1 ? "" : "s");
	for (size_t k = 0; k < v->n_unresolved; k++) {
		const struct sb_report_row *row = &r->rows[v->unresolved[k]];
		const struct sb_report_cell *x = &row->cells[c];
		char ch[96];
		if (x->need > r->rows[v->unresolved[most]].cells[c].need)
			most = k;
		if (!row->headline || shown == NAMED)
			continue;
		fputs(shown++ ? "; " : "", f);
		row_name(row, f);
		fprintf(f, " %s: %s would resolve %s", sb_report_change_str(x, ch, sizeof(ch)),
			sb_report_need_str(x, need, sizeof(need)),
			sb_report_need_what(r, x, "±", what, sizeof(what)));
	}
	/* the rest by count, with what resolves them all: the largest need */
	if (shown < v->n_unresolved) {
		const struct sb_report_cell *x = &r->rows[v->unresolved[most]].cells[c];
		fprintf(f,
			"%s%zu %s (marked ? in the table); %s would resolve them all (the most "
			"any of them needs)",
			shown ? "; and " : "", v->n_unresolved - shown,
			shown ? "more" : "cost rows", sb_report_need_str(x, need, sizeof(need)));
	}
	fputs("</li>\n", f);
}

/* The untested rows, one line per reason (sb_report_untested_why), never
 * one per row: a run with one repeat has every row untested. */
static void untested_lines(const struct sb_report *r, size_t c, const struct sb_report_verdict *v,
			   FILE *f)
{
	size_t *same = calloc(v->n_untested ? v->n_untested : 1, sizeof(size_t));
	bool few = false;
	if (!same)
		return;
	for (size_t k = 0; k < v->n_untested; k++) {
		char why[160], other[160];
		size_t n = 0, heads = 0;
		bool seen = false;
		sb_report_untested_why(r, &r->rows[v->untested[k]], c, why, sizeof(why));
		for (size_t j = 0; j < v->n_untested; j++) {
			const struct sb_report_row *row = &r->rows[v->untested[j]];
			if (strcmp(sb_report_untested_why(r, row, c, other, sizeof(other)), why) !=
			    0)
				continue;
			seen |= j < k;
			same[n++] = v->untested[j];
			heads += row->headline;
		}
		if (seen)
			continue;
		const struct sb_report_cell *x = &r->rows[v->untested[k]].cells[c];
		few |= x->st.n > 0 &&
		       (x->st.n < SB_STATS_MIN_N ||
			r->rows[v->untested[k]].cells[r->cols[c].base].st.n < SB_STATS_MIN_N);
		fprintf(f, "<li class=\"untested\">untested, %zu row%s (%zu headline): ", n,
			n == 1 ? "" : "s", heads);
		sb_html_esc(f, why);
		fputs(": ", f);
		names(r, same, n, NAMED, f);
		fputs("</li>\n", f);
	}
	free(same);
	if (few)
		fprintf(f,
			"<li class=\"next\">next: run with <code>--repeat %d</code> or more (or "
			"<code>--repeat auto</code>) for a verdict</li>\n",
			SB_STATS_MIN_N);
}

/* The verdict's one line, first under the heading, as the text has it. */
static void short_para(const struct sb_report *r, const struct sb_report_verdict *v, FILE *f)
{
	char *t = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&t, &len);
	if (!m)
		return;
	sb_report_verdict_short(r, m, v, "±");
	if (fclose(m) == 0 && t) {
		fprintf(f, "<p class=\"short\">in short: ");
		sb_html_esc(f, t);
		fprintf(f, "</p>\n");
	}
	free(t);
}

static void verdict_col(const struct sb_report *r, size_t c, FILE *f)
{
	struct sb_report_verdict v;
	struct sb_html_pick *p;
	size_t n = 0, cost = 0;

	if (sb_report_verdict_build(r, c, &v) < 0)
		return;
	p = calloc(v.n_changed ? v.n_changed : 1, sizeof(*p));
	if (!p)
		goto out;
	fprintf(f, "<h3>");
	sb_html_esc(f, r->cols[c].label);
	fprintf(f, " against ");
	sb_html_esc(f, r->cols[r->cols[c].base].label);
	fprintf(f, " <span class=\"unit\">(%zu against %zu repeats, %s)</span></h3>\n",
		r->cols[c].n_rep, r->cols[r->cols[c].base].n_rep, sb_report_pairing_str(&v));
	short_para(r, &v, f);
	for (size_t k = 0; k < v.n_changed; k++) {
		if (r->rows[v.changed[k]].headline)
			p[n++] = (struct sb_html_pick){v.changed[k], c};
		else
			cost++;
	}
	sb_html_forest_plot(r, p, n, NULL, f);
	fprintf(f, "<ul class=\"verdict\">\n");
	if (!v.paired) {
		fprintf(f, "<li class=\"unresolved\">note: ");
		sb_html_esc(f, sb_report_unpaired_note);
		fprintf(f, "</li>\n");
	}
	if (cost)
		fprintf(f,
			"<li>%zu cost row%s changed too (marked in the table and the plot "
			"below it)</li>\n",
			cost, cost == 1 ? "" : "s");
	if (v.n_equal) {
		fprintf(f, "<li class=\"equal\">equal within ±%g%%, %zu row%s: ", r->resolve_pct,
			v.n_equal, v.n_equal == 1 ? "" : "s");
		names(r, v.equal, v.n_equal, 6, f);
		fprintf(f, "</li>\n");
	}
	if (v.n_unresolved)
		unresolved_line(r, c, &v, f);
	untested_lines(r, c, &v, f);
	if (!v.n_changed && !v.n_equal && !v.n_unresolved && !v.n_untested)
		fprintf(f, "<li>nothing to compare</li>\n");
	fprintf(f, "</ul>\n");
out:
	free(p);
	sb_report_verdict_free(&v);
}

/* ---- member shares: the "member ROLE bytes read/written per byte" rows ---- */

static const char *const role_colors[] = {"#4e79a7", "#f28e2b", "#59a14f",
					  "#e15759", "#76b7b2", "#edc948"};

/* A member row's role ("ssd" of "read_member_r_per_b:ssd") and the length
 * of what names its phase and direction ("read_member_r_per_b"); NULL when
 * the row is not a member share. */
static const char *member_role(const struct sb_report_row *row, size_t *prefix)
{
	const char *m = row->metric, *colon = strchr(m, ':');
	if (row->lat != SB_LAT_NONE || !colon ||
	    (!strstr(m, "_member_r_per_b:") && !strstr(m, "_member_w_per_b:")))
		return NULL;
	*prefix = (size_t)(colon - m);
	return colon + 1;
}

static bool same_group(const struct sb_report_row *a, const struct sb_report_row *b)
{
	size_t la, lb;
	return member_role(a, &la) && member_role(b, &lb) && la == lb &&
	       strncmp(a->metric, b->metric, la) == 0 && strcmp(a->spec, b->spec) == 0;
}

static size_t role_index(const char **roles, size_t *n, const char *role)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(roles[i], role) == 0)
			return i;
	if (*n < ARRAY_SIZE(role_colors))
		roles[(*n)++] = role;
	return *n - 1;
}

/* One phase's bars: the phase and direction, then a bar per column, each
 * member's share of the bytes its members moved per byte of the workload. */
static double member_group(const struct sb_report *r, size_t first, const char **roles,
			   size_t *n_roles, double lw, double y, FILE *f)
{
	const struct sb_report_row *row0 = &r->rows[first];
	const char *cut = strstr(row0->label, ": member ");
	size_t prefix;
	fprintf(f, "<text class=\"mphase\" x=\"0\" y=\"%.0f\">", y + 11);
	if (cut) {
		char *phase = strndup(row0->label, (size_t)(cut - row0->label));
		sb_html_esc(f, phase ? phase : row0->label);
		free(phase);
	} else {
		sb_html_esc(f, row0->label);
	}
	fprintf(f, ", %s <tspan class=\"tick\">(",
		strstr(row0->metric, "_member_r_") ? "reads" : "writes");
	sb_html_esc(f, row0->spec);
	fprintf(f, ")</tspan></text>\n");
	y += 16;
	for (size_t c = 0; c < r->n_cols; c++, y += 15) {
		double tot = 0, x = lw;
		for (size_t i = first; i < r->n_rows; i++)
			if (same_group(row0, &r->rows[i]) && r->rows[i].cells[c].st.n &&
			    r->rows[i].cells[c].st.mean > 0)
				tot += r->rows[i].cells[c].st.mean;
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">", lw - 6, y + 10);
		sb_html_esc(f, r->cols[c].label);
		fprintf(f, "</text>");
		if (!(tot > 0)) {
			fprintf(f, "<text class=\"na\" x=\"%.0f\" y=\"%.0f\">none</text>\n", lw + 4,
				y + 10);
			continue;
		}
		for (size_t i = first; i < r->n_rows; i++) {
			const struct sb_report_row *row = &r->rows[i];
			const struct sb_report_cell *x0 = &row->cells[c];
			if (!same_group(row0, row) || !x0->st.n || !(x0->st.mean > 0))
				continue;
			const char *role = member_role(row, &prefix);
			size_t k = role_index(roles, n_roles, role);
			double share = x0->st.mean / tot, w = 200 * share;
			fprintf(f,
				"<rect class=\"mbar\" x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" "
				"height=\"12\" fill=\"%s\"><title>",
				x, y, w, role_colors[k % ARRAY_SIZE(role_colors)]);
			sb_html_esc(f, role);
			fprintf(f, ": %.0f%%</title></rect>", 100 * share);
			if (w > 44) {
				fprintf(f, "<text class=\"mpct\" x=\"%.1f\" y=\"%.0f\">", x + 3,
					y + 10);
				sb_html_esc(f, role);
				fprintf(f, " %.0f%%</text>", 100 * share);
			}
			x += w;
		}
		fputc('\n', f);
	}
	return y + 6;
}

static void member_shares(const struct sb_report *r, FILE *f)
{
	const char *roles[ARRAY_SIZE(role_colors)];
	size_t n_roles = 0, groups = 0, prefix;
	double lw = 12, y = 22;

	for (size_t i = 0; i < r->n_rows; i++)
		if (member_role(&r->rows[i], &prefix)) {
			bool first = true;
			for (size_t j = 0; j < i && first; j++)
				first = !same_group(&r->rows[j], &r->rows[i]);
			groups += first;
		}
	if (!groups)
		return;
	for (size_t c = 0; c < r->n_cols; c++)
		lw = fmax(lw, 12 + 6.2 * (double)strlen(r->cols[c].label));
	lw = fmin(lw, 260);
	double h = 22 + (double)groups * (16 + 15 * (double)r->n_cols + 6);
	/* the bars first, so that every role has its colour for the key */
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return;
	fprintf(f,
		"<figure class=\"chart members\"><figcaption>Which member served the reads and "
		"writes <span class=\"unit\">(share of the members' bytes per byte, first "
		"phase by phase)</span></figcaption>\n"
		"<svg class=\"members\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"role=\"img\">\n",
		lw + 206, h, lw + 206, h);
	for (size_t i = 0; i < r->n_rows; i++) {
		bool first = member_role(&r->rows[i], &prefix) != NULL;
		for (size_t j = 0; j < i && first; j++)
			first = !same_group(&r->rows[j], &r->rows[i]);
		if (first)
			y = member_group(r, i, roles, &n_roles, lw, y, m);
	}
	if (fclose(m) == 0) {
		for (size_t k = 0; k < n_roles; k++) {
			fprintf(f,
				"<rect x=\"%.0f\" y=\"2\" width=\"10\" height=\"10\" fill=\"%s\"/>"
				"<text class=\"mrole\" x=\"%.0f\" y=\"11\">",
				lw + 70.0 * (double)k, role_colors[k], lw + 70.0 * (double)k + 14);
			sb_html_esc(f, roles[k]);
			fprintf(f, "</text>");
		}
		fputc('\n', f);
		fputs(buf, f);
	}
	free(buf);
	fprintf(f, "</svg></figure>\n");
}

void sb_html_first_screen(const struct sb_report *r, FILE *f)
{
	struct sb_report_noise n;
	char noise[640];
	bool any = false;

	fprintf(f, "<div class=\"first\">\n<div class=\"vcol\">\n<h2>Verdict</h2>\n");
	sb_report_noise(r, &n);
	if (*sb_report_noise_str(&n, noise, sizeof(noise))) {
		fprintf(f, "<p class=\"noise\">noise: ");
		sb_html_esc(f, noise);
		fprintf(f, "</p>\n");
	}
	for (size_t c = 0; c < r->n_cols; c++)
		if (r->cols[c].base != c) {
			verdict_col(r, c, f);
			any = true;
		}
	if (!any) {
		fprintf(f, "<p>");
		sb_html_esc(f, r->cols[r->baseline].label);
		fprintf(f, " alone: nothing to compare it with</p>\n");
	}
	fprintf(f, "</div>\n<div class=\"mcol\">\n");
	member_shares(r, f);
	fprintf(f, "</div>\n</div>\n");
}
