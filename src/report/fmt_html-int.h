/* Internals shared by the HTML report's source files (fmt_html.c, the page
 * and its table; fmt_html_svg.c, its charts). Not for other formats. */
#pragma once

#include "report/report.h"

#include <stdio.h>

/* fmt_html.c */
void sb_html_esc(FILE *f, const char *s);
/* An id usable in href="#...": the spec with anything unusual replaced. */
void sb_html_anchor(FILE *f, const char *prefix, const char *s);
const char *sb_html_verdict_class(enum sb_verdict v);

/* fmt_html_svg.c */
/* Horizontal bars (variant names can be long): mean, the 95% interval as
 * an error bar, and each repeat as a dot. */
void sb_html_bar_chart(const struct sb_report *r, const struct sb_report_row *row, FILE *f);
/* Percentiles on a log scale, one line per variant: the tail is where
 * storage stacks differ, and it spans decades. */
void sb_html_latency_chart(const struct sb_report *r, const struct sb_report_latrow *l, FILE *f);
void sb_html_series_charts(const struct sb_report *r, const char *spec, FILE *f);
/* A cell of the table: row r->rows[row], column col. */
struct sb_html_pick {
	size_t row, col;
};
/* Changes with their intervals, a line per pick, on a log-ratio axis (a
 * halving and a doubling equally far from 0), with the band of
 * +-resolve_pct that "equal" means, and each line's name and value
 * ("+x% [lo, hi]"). caption NULL: the changed rows of one column, named
 * "spec: label", captioned with the test; else under caption, each line
 * named "label · column". Nothing when n is 0. */
void sb_html_forest_plot(const struct sb_report *r, const struct sb_html_pick *p, size_t n,
			 const char *caption, FILE *f);

/* fmt_html_first.c */
/* The first screen: per variant against its baseline, the changed headline
 * rows as a forest plot, the equal, unresolved and untested rows a line
 * each (sb_report_verdict_build's lists); beside it, which member served
 * the reads and writes of each phase, a stacked bar per variant. */
void sb_html_first_screen(const struct sb_report *r, FILE *f);
