/* Internals shared by the comparison table's source files (report.c,
 * report_cols.c, report_rows.c, report_decide.c, report_query.c,
 * report_side.c). Not for the formats or other modules. */
#pragma once

#include "report/report.h"

/* report_cols.c: the columns. */

/* Puts workloads of different sets that run the same test with other
 * length keys into one row (their spec becomes the shorter one; the
 * change is kept for the notes). Not when one run holds two specs of one
 * test: those stay apart. */
int sb_rep_align_specs(struct sb_report *r);
int sb_rep_add_col(struct sb_report *r, size_t set, const struct sb_variant *v, bool merge);
/* Short unique labels, never cut: the variant names when short and unique;
 * else the keys that differ; else SET:VARIANT; else letters A, B... with the
 * full names in the legend. */
int sb_rep_label_cols(struct sb_report *r);
int sb_rep_name_sets(struct sb_report *r);
int sb_rep_pick_baseline(struct sb_report *r, const char *name, char **err);
/* Which column each column is compared with: the baseline; with a stored
 * baseline set, the same-named variant of that set when there is one. */
void sb_rep_pick_bases(struct sb_report *r, const char *baseline);
/* Variant-major: one variant's hosts side by side. */
int sb_rep_sort_cols_by_host(struct sb_report *r);

/* report_rows.c: the rows and their cells. */

/* Version 1 files carry no labels: the workloads' tables give them,
 * through the describer workload/ registers (result/describe.h). */
int sb_rep_describe_sets(struct sb_resultset **sets, size_t n_sets);
/* Rows in order of first appearance, so that the report follows the
 * order the workloads ran in; each workload's latency rows after its
 * metrics. */
int sb_rep_add_rows(struct sb_report *r);
/* metrics and latency rows of one spec next to each other */
int sb_rep_group_rows_by_spec(struct sb_report *r);
int sb_rep_fill_cell(const struct sb_report_col *c, const struct sb_report_row *row,
		     struct sb_report_cell *cell);
/* Percentiles of the merged histograms where every repeat has one; else
 * (version 1 files) the repeats' percentiles averaged. Counts summed,
 * min/max are extremes. */
int sb_rep_fill_lat(const struct sb_report_col *c, const struct sb_report_latrow *l,
		    struct sb_latency *out, bool *pooled);
/* The value of a row in one repeat (NaN: none there). */
double sb_rep_rep_value(const struct sb_repeat *rep, const struct sb_report_row *row);

/* report_decide.c: tests, corrections and verdicts. */

/* A set whose rounds `run --repeat auto` chose records, in
 * profile.schedule, the looks it could take (auto: {first, max}) and the
 * rounds it ran: the report takes its verdict at the alpha that last look
 * may spend, the smallest over such sets, so that looking after every
 * round and stopping once rows resolve keeps the false alarms at alpha. */
int sb_rep_sequential_alpha(struct sb_report *r, char **err);
/* The test of one cell against its baseline; the verdict waits for the
 * correction over the column (decide). */
void sb_rep_compare(const struct sb_report *r, size_t c, const struct sb_report_row *row);
int sb_rep_correct(struct sb_report *r, size_t c);
bool sb_rep_testable(const struct sb_report_cell *base, const struct sb_report_cell *cell);

/* report_side.c: the crossover fits of the sets that ran side by side, once
 * the cells are filled. 0, -EINVAL with *err set (a side_by_side record
 * that is not what run writes), or -ENOMEM. */
int sb_rep_side_build(struct sb_report *r, char **err);
/* The crossover fit's effect of column col against its base in row row,
 * when the two ran side by side in one set and the fit gave the effect an
 * interval; else NULL (the rounds are paired instead). *cycle (when not
 * NULL): the rounds of one crossover cycle (the stacks; 1 on one stack). */
const struct sb_xo_effect *sb_rep_side_effect(const struct sb_report *r, size_t row, size_t col,
					      size_t *cycle);
void sb_rep_side_free(struct sb_report *r);
