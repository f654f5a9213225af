/* The comparison table behind every report format: one row per (workload,
 * metric), one column per variant, each cell a summary over the repeats with
 * its change against the baseline column. Formats (one file each) turn it
 * into text, CSV, JSON, HTML or bonnie++ CSV through one ops struct. */
#pragma once

#include "result/result.h"
#include "result/stats.h"

#include <stdbool.h>
#include <stdio.h>

/* How a cell compares with the baseline column. */
enum sb_verdict {
	SB_VERDICT_BASELINE = 0, /* this is the baseline */
	SB_VERDICT_NA,		 /* one side has no value */
	SB_VERDICT_SAME,	 /* no significant difference */
	SB_VERDICT_BETTER,	 /* significant, in the metric's better direction */
	SB_VERDICT_WORSE,	 /* significant, the other way */
	SB_VERDICT_DIFFERENT,	 /* significant, metric without a better direction */
};

/* One variant column; with --merge it pools same-named variants of several sets. */
struct sb_report_col {
	char *label; /* unique: the variant name, or "set:variant" when ambiguous */
	const char *variant;
	size_t set; /* index of the (first) result set it comes from */
	const struct sb_variant **vars;
	size_t n_vars;
	size_t n_rep; /* repeats over all pooled variants */
};

struct sb_report_cell {
	double *values; /* one per repeat that produced the metric */
	struct sb_stats st;
	double change; /* percent against the baseline mean; NaN when not defined */
	struct sb_welch w;
	bool significant;
	enum sb_verdict verdict;
	unsigned flags; /* union of the SB_RES_* flags of the contributing repeats */
};

struct sb_report_row {
	char *spec; /* the workload spec, as run: "rand:16k,direct=1" */
	char *workload;
	char *metric;
	char *unit;
	enum sb_better better;
	struct sb_report_cell *cells; /* n_cols */
};

/* Latency percentiles of one operation, averaged over a column's repeats. */
struct sb_report_latrow {
	char *spec;
	char *op;
	struct sb_latency *cells; /* n_cols; count == 0 where the column has none */
};

struct sb_report {
	struct sb_resultset **sets;
	size_t n_sets;
	char **set_names;
	struct sb_report_col *cols;
	size_t n_cols;
	size_t baseline;
	struct sb_report_row *rows;
	size_t n_rows;
	struct sb_report_latrow *lat;
	size_t n_lat;
};

struct sb_report_opts {
	const char *baseline; /* column label or variant name; NULL: the first column */
	bool merge;	      /* pool same-named variants of different sets as repeats */
};

/* Builds the table over the sets (borrowed: they must outlive the report).
 * Returns 0, -EINVAL with *err set (unknown or ambiguous baseline, no
 * variants), or -ENOMEM. */
int sb_report_build(struct sb_resultset **sets, size_t n_sets, const struct sb_report_opts *o,
		    struct sb_report **out, char **err);
void sb_report_free(struct sb_report *r);
/* One result set, first variant as baseline, in a format ("text" when
 * NULL): what `run` prints at its end. Returns 0 or -errno (*err set for
 * -EINVAL). */
int sb_report_print(struct sb_resultset *rs, const char *format, FILE *f, char **err);

/* A short name for a result set, from its path: the directory holding
 * result.json, or the file name without ".json". */
char *sb_report_set_name(const char *path);
/* Human label of a metric, as bonnie++ and FsOpBench users know it
 * ("Sequential Output Block", "Random Seeks %CP", "3 readers + 3 writers:
 * write rate (data)"; the spec gives mixed's counts; may be NULL); the metric
 * name itself when there is none. */
const char *sb_report_metric_label(const char *workload, const char *spec, const char *metric,
				   char *buf, size_t size);
/* Marker after a cell's change: "*" significantly better (or different,
 * when the metric has no better direction), "!" significantly worse, "". */
const char *sb_verdict_marker(enum sb_verdict v);
const char *sb_verdict_name(enum sb_verdict v);
/* Readable number: about four significant digits, no exponent for
 * ordinary magnitudes. */
char *sb_report_fmt_num(double v, char *buf, size_t size);
/* The text cell "mean ±ci (+change%)*" (pm: "±", or "+-" where the
 * terminal is not UTF-8); "-" when the cell has no values. */
char *sb_report_fmt_cell(const struct sb_report *r, size_t col, const struct sb_report_cell *c,
			 const char *pm, char *buf, size_t size);
/* "±" when the locale's character set is UTF-8, else "+-". */
const char *sb_report_pm(void);
/* Unique workload specs, in row order (for per-workload sections). */
size_t sb_report_specs(const struct sb_report *r, const char **specs, size_t max);

/* "quick, cache-affected" from SB_RES_* flags; "" when none. */
char *sb_report_flags_str(unsigned flags, char *buf, size_t size);
/* The flags of every repeat of a column's workload spec, ORed. */
unsigned sb_report_col_flags(const struct sb_report *r, size_t col, const char *spec);

struct sb_report_format {
	const char *name;
	const char *help;
	int (*emit)(const struct sb_report *r, FILE *f); /* 0 or -errno */
};

extern const struct sb_report_format sb_report_text, sb_report_csv, sb_report_json, sb_report_html,
    sb_report_bonnie;
/* The registry, in the order --help lists them; NULL-terminated. */
extern const struct sb_report_format *const sb_report_formats[];
const struct sb_report_format *sb_report_format_find(const char *name);

/* The legend printed under text tables and in HTML, lines joined by "\n"
 * (allocated; NULL when out of memory). */
char *sb_report_legend(const char *pm);
