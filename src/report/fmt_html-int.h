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
/* Each headline row's change with its interval, one line per variant, on
 * a log-ratio axis (a halving and a doubling equally far from 0), with the
 * band of +-resolve_pct that "equal" means. */
void sb_html_forest_plot(const struct sb_report *r, FILE *f);
