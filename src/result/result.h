/* The result model: what a workload measured, grouped by repeat and variant,
 * and its JSON form (result.json, documented in doc/result-format.md). */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SB_RESULT_FORMAT "stackbench-result"
#define SB_RESULT_VERSION 1

enum sb_better { SB_BETTER_NONE = 0, SB_BETTER_HIGHER, SB_BETTER_LOWER };

/* Flags of one workload's result. */
enum {
	SB_RES_QUICK = 1 << 0,          /* --quick: shrunk sizes and times */
	SB_RES_CACHE_AFFECTED = 1 << 1, /* data set smaller than 2x RAM and not O_DIRECT */
	SB_RES_INCOMPLETE = 1 << 2,     /* a phase hit its time limit or was interrupted */
	SB_RES_FAILED = 1 << 3,         /* the workload failed; metrics may be partial */
};

struct sb_metric {
	char *name; /* unique within a workload: "block_write", "random_read_iops" */
	char *unit; /* "KB/s", "%CPU", "ops/s", "IOPS", "MB/s", "ms", "s" */
	enum sb_better better;
	double value;
};

/* Latency summary of one operation type, in milliseconds. */
struct sb_latency {
	char *op; /* "read dir", "create", "random read" */
	uint64_t count;
	double min_ms, mean_ms, stdev_ms, p50_ms, p90_ms, p99_ms, p999_ms, max_ms;
};

struct sb_wl_result {
	char *workload; /* registry name: "seq", "meta", "rand", "mixed", "command", "fio"... */
	char *spec;     /* as the user wrote it */
	unsigned flags;
	char *error;    /* why it failed or is incomplete, when it did */
	struct sb_metric *metrics;
	size_t n_metrics;
	struct sb_latency *lat;
	size_t n_lat;
	json_object *extra; /* workload-specific facts (parameters, data-set size, bonnie CSV...) */
};

struct sb_repeat {
	unsigned index;
	char *started; /* ISO 8601 UTC */
	struct sb_wl_result **wl;
	size_t n_wl;
};

struct sb_variant {
	char *name;          /* "md.write-behind=16383,mount.options=noatime" */
	json_object *params; /* {"md.write-behind": "16383", ...} */
	struct sb_repeat *rep;
	size_t n_rep;
};

struct sb_resultset {
	int version;
	char *tool_version;
	char *created;
	char *command;        /* "run" or "bench" */
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
int sb_wl_add_latency(struct sb_wl_result *r, const struct sb_latency *l);
const struct sb_metric *sb_wl_find_metric(const struct sb_wl_result *r, const char *name);
void sb_wl_result_free(struct sb_wl_result *r);
json_object *sb_wl_result_to_json(const struct sb_wl_result *r);
int sb_wl_result_from_json(json_object *o, struct sb_wl_result **out, char **err);

/* Result sets. */
struct sb_resultset *sb_resultset_new(const char *command);
struct sb_variant *sb_resultset_variant(struct sb_resultset *rs, const char *name,
					json_object *params /* taken */);
/* Appends a repeat with the given workload results (ownership of the array's
 * elements is taken). */
int sb_variant_add_repeat(struct sb_variant *v, unsigned index, struct sb_wl_result **wl,
			  size_t n);
json_object *sb_resultset_to_json(const struct sb_resultset *rs);
/* Writes DIR/result.json atomically (temporary file, fsync, rename). */
int sb_resultset_write(const struct sb_resultset *rs, const char *dir);
/* Reads PATH (a result.json or a directory holding one). On error returns
 * -errno or -EINVAL with *err set to a message naming the file and what is wrong. */
int sb_resultset_read(const char *path, struct sb_resultset **out, char **err);
void sb_resultset_free(struct sb_resultset *rs);

/* Host facts for result sets: kernel, CPU model, cores, RAM. */
json_object *sb_host_facts(void);
const char *sb_better_name(enum sb_better b);

/* --repeat auto, as the Phoronix Test Suite does it: repeat a variant until
 * the relative standard error of each of its headline metrics (those with a
 * better direction, except %CPU and a command's user and sys times) is below
 * SB_REPEAT_AUTO_RSE, with at least
 * SB_REPEAT_AUTO_MIN and at most a cap of repeats. */
#define SB_REPEAT_AUTO_RSE 0.025
#define SB_REPEAT_AUTO_MIN 3
#define SB_REPEAT_AUTO_MAX 10
/* The largest relative standard error among v's headline metrics (NaN while
 * any has fewer than 2 values); *spec and *metric name it when not NULL. */
double sb_variant_max_rse(const struct sb_variant *v, const char **spec, const char **metric);
/* Whether v needs another repeat under --repeat auto with this cap. */
bool sb_variant_needs_repeat(const struct sb_variant *v, size_t cap);
