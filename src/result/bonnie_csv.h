/* The bonnie++ 1.98 CSV line (what bonnie++ 2.00 writes and bon_csv2txt /
 * bon_csv2html read) from the results of our seq and meta workloads. */
#pragma once

#include "result/result.h"

/* The fields of a bonnie++ 1.98 CSV line, in bonnie++ 2.00's order
 * (bon_csv2html.cpp, format_version 1.98). The older forms that `report`
 * imports (1.03, 1.9x) are mapped onto these. */
enum sb_bonnie_field {
	SB_BF_FORMAT,
	SB_BF_VERSION,
	SB_BF_NAME,
	SB_BF_CONCURRENCY,
	SB_BF_SEED,
	SB_BF_FILE_SIZE,
	SB_BF_CHUNK,
	SB_BF_SEEKS,
	SB_BF_SEEK_PROCS,
	SB_BF_PUTC,
	SB_BF_PUTC_CPU,
	SB_BF_PUT_BLOCK,
	SB_BF_PUT_BLOCK_CPU,
	SB_BF_REWRITE,
	SB_BF_REWRITE_CPU,
	SB_BF_GETC,
	SB_BF_GETC_CPU,
	SB_BF_GET_BLOCK,
	SB_BF_GET_BLOCK_CPU,
	SB_BF_SEEKS_RATE,
	SB_BF_SEEKS_CPU,
	SB_BF_NUM_FILES,
	SB_BF_MAX_SIZE,
	SB_BF_MIN_SIZE,
	SB_BF_NUM_DIRS,
	SB_BF_FILE_CHUNK,
	SB_BF_SEQ_CREATE,
	SB_BF_SEQ_CREATE_CPU,
	SB_BF_SEQ_STAT,
	SB_BF_SEQ_STAT_CPU,
	SB_BF_SEQ_DEL,
	SB_BF_SEQ_DEL_CPU,
	SB_BF_RAN_CREATE,
	SB_BF_RAN_CREATE_CPU,
	SB_BF_RAN_STAT,
	SB_BF_RAN_STAT_CPU,
	SB_BF_RAN_DEL,
	SB_BF_RAN_DEL_CPU,
	SB_BF_LAT_PUTC,
	SB_BF_LAT_PUT_BLOCK,
	SB_BF_LAT_REWRITE,
	SB_BF_LAT_GETC,
	SB_BF_LAT_GET_BLOCK,
	SB_BF_LAT_SEEKS,
	SB_BF_LAT_SEQ_CREATE,
	SB_BF_LAT_SEQ_STAT,
	SB_BF_LAT_SEQ_DEL,
	SB_BF_LAT_RAN_CREATE,
	SB_BF_LAT_RAN_STAT,
	SB_BF_LAT_RAN_DEL,
	SB_BF_COUNT
};

/* One bonnie++ test: the one mapping between bonnie++'s CSV fields and our
 * figures, read by the CSV writer and reader here, `bench`'s bonnie-like
 * table and `report`'s import (which splits a line into seq and meta). */
struct sb_bonnie_test {
	const char *metric;   /* ours; its %CPU is the metric with "_cpu" appended */
	const char *workload; /* "seq" or "meta": which of ours measures it */
	const char *unit;
	const char *lat_op;	    /* our latency record; NULL: ours keeps none (per-char) */
	enum sb_bonnie_field field; /* its rate; its %CPU is the next field */
	enum sb_bonnie_field lat_field;
};
#define SB_BONNIE_TESTS 12
extern const struct sb_bonnie_test sb_bonnie_tests[SB_BONNIE_TESTS];
/* The test a metric (or its %CPU twin) or a latency record belongs to, or
 * NULL. */
const struct sb_bonnie_test *sb_bonnie_test_of(const char *name);

/* seq or meta may be NULL (their fields stay empty). Returns a malloc'ed
 * line without newline, or NULL when out of memory. */
char *sb_bonnie_csv_line(const struct sb_wl_result *seq, const struct sb_wl_result *meta,
			 const char *name);

/* The other way: fills r with seq and meta metrics from a bonnie++ CSV line
 * (the bonnie++ adapter). Fields bonnie++ prints as "+++++" (too fast to
 * measure) are left out. Returns 0 or -EINVAL (a figure that is not a
 * plain decimal: see sb_bonnie_figure), or -ENOMEM. */
int sb_bonnie_csv_import(const char *line, struct sb_wl_result *r);

/* The largest figure taken from a CSV line: beyond it the line is broken. */
#define SB_BONNIE_MAX 1e15
/* A rate or %CPU field: 0 with *v, 1 when empty or +++++ (no figure),
 * -EINVAL when not a plain decimal of at most SB_BONNIE_MAX (no sign, no
 * exponent, no nan or inf, which strtod would take). */
int sb_bonnie_figure(const char *s, double *v);
/* A latency field ("8593us", "20ms", "3s"): 0 with *ms, 1 when empty,
 * -EINVAL otherwise. */
int sb_bonnie_latency(const char *s, double *ms);
