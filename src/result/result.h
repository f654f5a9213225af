/* The result model: what a workload measured, grouped by repeat and variant,
 * and its JSON form (result.json, documented in doc/result-format.md). */
#pragma once

#include "result/hist.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SB_RESULT_FORMAT "stackbench-result"
/* 2: metrics carry label, headline and phase; latency carries the repeat's
 * histogram. Version 1 files are still read (labels then come from the
 * workloads' metric tables, percentiles from the summaries). */
#define SB_RESULT_VERSION 2
#define SB_RESULT_VERSION_MIN 1

enum sb_better { SB_BETTER_NONE = 0, SB_BETTER_HIGHER, SB_BETTER_LOWER };

/* Flags of one workload's result. */
enum {
	SB_RES_QUICK = 1 << 0,		/* --quick: shrunk sizes and times */
	SB_RES_CACHE_AFFECTED = 1 << 1, /* data set smaller than 2x RAM and not O_DIRECT */
	SB_RES_INCOMPLETE = 1 << 2,	/* a phase hit its time limit or was interrupted */
	SB_RES_FAILED = 1 << 3,		/* the workload failed; metrics may be partial */
	SB_RES_FRESH = 1 << 4, /* on a non-rotational device neither trimmed nor preconditioned */
};

struct sb_metric {
	char *name; /* unique within a workload: "block_write", "random_read_iops" */
	char *unit; /* "KB/s", "%CPU", "ops/s", "IOPS", "MB/s", "ms", "s" */
	enum sb_better better;
	double value;
	/* From the workload's metric table (src/workload/metrics.c); NULL/false
	 * in a version 1 file until sb_wl_result_describe() fills them. */
	char *label;   /* "Sequential Output Block", "3 readers: read rate (data)" */
	bool headline; /* a figure a comparison (and --check) is about */
	bool cost;     /* a cost row ("cost": true): judged with the headline rows */
	char *phase;   /* the workload phase it was measured in, or NULL */
};

/* Latency summary of one operation type, in milliseconds. */
struct sb_latency {
	char *op; /* "read dir", "create", "random read" */
	uint64_t count;
	double min_ms, mean_ms, stdev_ms, p50_ms, p90_ms, p99_ms, p999_ms, max_ms;
	/* The repeat's histogram (nanoseconds), so that repeats and --merge
	 * pool exactly; NULL in a version 1 file. Owned. */
	struct sb_hist *hist;
};

struct sb_wl_result {
	char *workload; /* registry name: "seq", "meta", "rand", "mixed", "command", "fio"... */
	char *spec;	/* as the user wrote it */
	unsigned flags;
	char *error; /* why it failed or is incomplete, when it did */
	struct sb_metric *metrics;
	size_t n_metrics;
	struct sb_latency *lat;
	size_t n_lat;
	json_object *extra; /* workload-specific facts (parameters, data-set size, bonnie CSV...) */
};

struct sb_repeat {
	unsigned index;
	char *started; /* ISO 8601 UTC */
	/* devices.precondition of the stack this repeat ran on: mode, each
	 * device's step record, fresh (NULL: not recorded, as in bench). */
	json_object *precondition;
	/* The variant failed in this repeat (run without --fail-fast goes on
	 * with the others): {"step", "exit", "message"}; NULL when it did not. */
	json_object *failed;
	/* scenario.rebuild: the rebuild's time and rate under the workloads
	 * ({"kind", "finished", "seconds", "under_load_seconds",
	 * "outlasted_workloads", "rate_under_load_mbps"}); NULL without one. */
	json_object *scenario;
	/* Integrity after the run: {"md": {"mismatch_cnt"...}, "btrfs":
	 * {"errors"...}, "data": {"verify_errors"...}, "errors": N}; N > 0 is
	 * loud in every report. NULL when not checked. */
	json_object *integrity;
	struct sb_wl_result **wl;
	size_t n_wl;
};

struct sb_variant {
	char *name;	     /* "md.write-behind=16383,mount.options=noatime" */
	json_object *params; /* {"md.write-behind": "16383", ...} */
	struct sb_repeat *rep;
	size_t n_rep;
};

struct sb_resultset {
	int version;
	char *tool_version;
	char *created;
	char *command;	      /* "run" or "bench" */
	json_object *host;    /* hostname, kernel, cpu, ncpu, ram_bytes */
	json_object *profile; /* path, sha256, values (run only) */
	json_object *target;  /* bench: dir, fstype, options, source */
	json_object *devices; /* array of probe objects */
	json_object *tools;   /* external program versions used */
	struct sb_variant *var;
	size_t n_var;
	char *path; /* where it was read from, when read */
};

/* Workload results. */
struct sb_wl_result *sb_wl_result_new(const char *workload, const char *spec);
int sb_wl_add_metric(struct sb_wl_result *r, const char *name, const char *unit,
		     enum sb_better better, double value);
/* Copies l (and l->hist when set). */
int sb_wl_add_latency(struct sb_wl_result *r, const struct sb_latency *l);
/* Sets the label, headline and phase of a metric already added. */
int sb_metric_describe(struct sb_metric *m, const char *label, bool headline, const char *phase);
/* The summary of a histogram (ns) in milliseconds, as stored in latency[]. */
void sb_latency_from_hist(struct sb_latency *l, const struct sb_hist *h);
const struct sb_metric *sb_wl_find_metric(const struct sb_wl_result *r, const char *name);
void sb_wl_result_free(struct sb_wl_result *r);
json_object *sb_wl_result_to_json(const struct sb_wl_result *r);
int sb_wl_result_from_json(json_object *o, struct sb_wl_result **out, char **err);

/* A histogram in result.json: sparse [index, count] pairs plus the exact
 * count, min, max and sums. from_json: 0 or -EINVAL with *why allocated. */
json_object *sb_hist_to_json(const struct sb_hist *h);
int sb_hist_from_json(json_object *o, struct sb_hist *h, char **why);

/* Result sets. */
struct sb_resultset *sb_resultset_new(const char *command);
struct sb_variant *sb_resultset_variant(struct sb_resultset *rs, const char *name,
					json_object *params /* taken */);
/* Appends a variant without looking for one of that name (the reader,
 * which refuses duplicates, and importers, which make names unique).
 * params taken. NULL when out of memory. */
struct sb_variant *sb_resultset_append_variant(struct sb_resultset *rs, const char *name,
					       json_object *params);
/* Appends a repeat with the given workload results (ownership of the array's
 * elements is taken). */
int sb_variant_add_repeat(struct sb_variant *v, unsigned index, struct sb_wl_result **wl, size_t n);
json_object *sb_resultset_to_json(const struct sb_resultset *rs);
/* Writes DIR/result.json atomically (temporary file, fsync, rename). */
int sb_resultset_write(const struct sb_resultset *rs, const char *dir);
/* Reads PATH (a result.json or a directory holding one; result_read.c).
 * On error returns -errno or -EINVAL with *err set to a message naming the
 * file and what is wrong, with the member's path ("variants[0].repeats[1]
 * .workloads[0].metrics[2].value: expected a finite number, got NaN").
 * Refused: a file that is not a regular one (FIFO, device: at once, never
 * waited on), one over SB_RESULT_MAX_BYTES, a value of the wrong type, NaN
 * or Infinity anywhere, a figure out of any sane range, two variants of
 * one name. */
#define SB_RESULT_MAX_BYTES (64u << 20)
int sb_resultset_read(const char *path, struct sb_resultset **out, char **err);
/* The same from text already read (file names it in messages). */
int sb_resultset_parse(const char *buf, size_t len, const char *file, struct sb_resultset **out,
		       char **err);
/* One JSON object from text (NUL-terminated, len bytes), the line and
 * column of a syntax error in the message; data after it, an empty or
 * binary text are refused. 0, -EINVAL with *err naming file, -ENOMEM. */
int sb_json_parse_text(const char *buf, size_t len, const char *file, json_object **out,
		       char **err);
/* The SB_RES_* flag of a name in result.json ("quick"...), 0 if unknown. */
unsigned sb_result_flag_from_name(const char *name);
/* For --check: over v's repeats, how many hold metric in their workload
 * of that spec with a finite value (a NaN in memory is "not measured";
 * the reader refuses one in a file). 0: the variant has no such figure. */
size_t sb_variant_metric_finite(const struct sb_variant *v, const char *spec, const char *metric);
void sb_resultset_free(struct sb_resultset *rs);

/* Host facts for result sets: kernel, CPU model, cores, RAM. */
json_object *sb_host_facts(void);
const char *sb_better_name(enum sb_better b);

/* Whether m is a headline figure: its table's word when the result carries
 * one, else (version 1 files) a figure with a better direction, not %CPU,
 * not a command's user or sys time. */
bool sb_metric_is_headline(const struct sb_wl_result *wl, const struct sb_metric *m);

/* --repeat auto: repeat a variant until, for each of its headline metrics,
 * the 95% confidence interval of a difference against a variant as noisy as
 * itself is narrow enough: t(0.975, 2n-2) * sd * sqrt(2/n) / |mean| below
 * SB_REPEAT_AUTO_HALFWIDTH (the same 5% a report calls "resolved"), with at
 * least SB_REPEAT_AUTO_MIN and at most a cap of repeats. A lucky low spread
 * at n = 3 does not stop it: the t quantile at 4 degrees of freedom is 2.78. */
#define SB_REPEAT_AUTO_HALFWIDTH 0.05
#define SB_REPEAT_AUTO_MIN 3
#define SB_REPEAT_AUTO_MAX 10
/* The largest relative standard error among v's headline metrics (NaN while
 * any has fewer than 2 values); *spec and *metric name it when not NULL. */
double sb_variant_max_rse(const struct sb_variant *v, const char **spec, const char **metric);
/* The largest relative half-width of the difference interval above, among
 * v's headline metrics (NaN while any has fewer than 2 values). */
double sb_variant_max_diff_halfwidth(const struct sb_variant *v, const char **spec,
				     const char **metric);
/* Whether v needs another repeat under --repeat auto with this cap. */
bool sb_variant_needs_repeat(const struct sb_variant *v, size_t cap);
