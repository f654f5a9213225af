/* Inside the workload engine: the ops struct every workload fills, the
 * option tables that drive spec parsing, --help of `list workloads` and
 * "did you mean", and the helpers the workloads share (phases with CPU%,
 * time limits and progress; data patterns; the private work directory). */
#pragma once

#include "workload/cost.h"
#include "workload/data.h"
#include "result/hist.h"
#include "workload/workload.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <sys/resource.h>
#include <time.h>

#include "engine/engine.h"
#include "util/specopt.h"
#include "util/clock.h"

#define SB_WL_MAX_OPTS 32

/* The options every workload's typed struct starts with (its first member,
 * named com): the ones workload.c reads itself to set up the run (time
 * limit, data pattern, ramp). A workload declares the rows it takes with
 * the macros below; a value without a row stays 0. */
struct sb_wl_common {
	uint64_t timeout; /* ms; 0: DEFAULT_TIMEOUT_MS */
	uint64_t seed;
	uint64_t compress, dedupe; /* percent */
	uint64_t ramp;		   /* ms */
};

#define SB_WL_TIMEOUT_ROW(T, def, quick_def, help)                                                 \
	SB_WO(T, com.timeout, "timeout", SB_WO_DURATION, def, quick_def, 1, 0, help)
/* The time limit of each test of the built-in benchmarks (seq, meta, rand). */
#define SB_WL_TEST_TIMEOUT_ROW(T)                                                                  \
	SB_WL_TIMEOUT_ROW(T, "1h", "5m",                                                           \
			  "time limit of each test; past it the test stops and is flagged "        \
			  "incomplete")
#define SB_WL_SEED_ROW(T, help) SB_WO(T, com.seed, "seed", SB_WO_UINT, "1", NULL, 0, 0, help)
/* compress= and dedupe= of the data written (data.h). */
#define SB_WL_DATA_ROWS(T)                                                                         \
	SB_WO(T, com.compress, "compress", SB_WO_UINT, "0", NULL, 0, 100,                          \
	      "percent of the data that compresses (0: none, as random data)"),                    \
	    SB_WO(T, com.dedupe, "dedupe", SB_WO_UINT, "0", NULL, 0, 100,                          \
		  "percent of 4 KiB blocks that are duplicates (0: none)")
#define SB_WL_RAMP_ROW(T, help) SB_WO(T, com.ramp, "ramp", SB_WO_DURATION, "0", NULL, 0, 0, help)

/* One metric a workload reports: the one table of labels. The labels go into
 * result.json with each figure, and `report` and `bench` read them from
 * there (src/workload/metrics.c applies this table after every run, and to
 * version 1 files). A table ends with a NULL name.
 * - name: as the workload adds it; one '*' matches any text (fio's job names).
 * - label, phase: '*' is replaced by the text the name's '*' matched, and
 *   "{N:word}" by the spec's decoded ARG number N with the word, plural when
 *   N != 1 ("{0:reader}" of mixed:3r1w: "3 readers").
 * - headline: a figure a comparison is about (CI's --check gates on these,
 *   --repeat auto waits for them); %CPU and other side figures are not.
 * - cost: what the phase cost per byte or operation (cost.h), not how fast
 *   it went: written as "cost": true, compared beside the headline. */
struct sb_wl_metric {
	const char *name;
	const char *label;
	const char *unit;
	enum sb_better better;
	bool headline;
	const char *phase;
	bool cost;
};

/* The cost rows of one phase (sb_phase_cost adds them), for a workload's
 * metric table: N the metrics' prefix, L the phase's label, P its phase.
 * Which of them a phase has depends on what it did (sb_cost_rows). */
#define SB_WL_COST_ROWS(N, L, P)                                                                    \
	{N "_dev_w_per_b",                                                                          \
	 L ": device bytes written per byte",                                                       \
	 "B/B",                                                                                     \
	 SB_BETTER_LOWER,                                                                           \
	 false,                                                                                     \
	 P,                                                                                         \
	 true},                                                                                     \
	    {N "_dev_r_per_b",                                                                      \
	     L ": device bytes read per byte",                                                      \
	     "B/B",                                                                                 \
	     SB_BETTER_LOWER,                                                                       \
	     false,                                                                                 \
	     P,                                                                                     \
	     true},                                                                                 \
	    {N "_dev_w_per_op",                                                                     \
	     L ": device bytes written per op",                                                     \
	     "B/op",                                                                                \
	     SB_BETTER_LOWER,                                                                       \
	     false,                                                                                 \
	     P,                                                                                     \
	     true},                                                                                 \
	    {N "_ios_per_op", L ": device I/Os per op", "IOs/op", SB_BETTER_LOWER, false, P, true}, \
	    {N "_flushes_per_op",                                                                   \
	     L ": device flushes per op",                                                           \
	     "flushes/op",                                                                          \
	     SB_BETTER_LOWER,                                                                       \
	     false,                                                                                 \
	     P,                                                                                     \
	     true},                                                                                 \
	    {N "_req_kib", L ": average device request", "KiB", SB_BETTER_NONE, false, P, true},    \
	    {N "_cpu_us_per_op",                                                                    \
	     L ": CPU per op (user + sys)",                                                         \
	     "µs/op",                                                                               \
	     SB_BETTER_LOWER,                                                                       \
	     false,                                                                                 \
	     P,                                                                                     \
	     true},                                                                                 \
	    {N "_kcpu_us_per_op",                                                                   \
	     L ": loop workers' CPU per op",                                                        \
	     "µs/op",                                                                               \
	     SB_BETTER_LOWER,                                                                       \
	     false,                                                                                 \
	     P,                                                                                     \
	     true},                                                                                 \
	    {N "_instr_per_op",                                                                     \
	     L ": instructions per op",                                                             \
	     "instr/op",                                                                            \
	     SB_BETTER_LOWER,                                                                       \
	     false,                                                                                 \
	     P,                                                                                     \
	     true},                                                                                 \
	    {N "_member_w_per_b:*",                                                                 \
	     L ": member * bytes written per byte",                                                 \
	     "B/B",                                                                                 \
	     SB_BETTER_NONE,                                                                        \
	     false,                                                                                 \
	     P,                                                                                     \
	     true},                                                                                 \
	    {N "_member_r_per_b:*",                                                                 \
	     L ": member * bytes read per byte",                                                    \
	     "B/B",                                                                                 \
	     SB_BETTER_NONE,                                                                        \
	     false,                                                                                 \
	     P,                                                                                     \
	     true},                                                                                 \
	    {N "_lc_*", L ": layer counter * per op", "/op", SB_BETTER_NONE, false, P, true},       \
	{                                                                                           \
		N "_lg_*", L ": layer level * at the end", "", SB_BETTER_NONE, false, P, true       \
	}

struct sb_wl_spec;
struct sb_wl_ctx;

struct sb_wl_ops {
	const char *name;
	const char *arg; /* metavar of ARG ("BS", "RrWw"); NULL when it takes none */
	bool arg_optional;
	bool arg_rest;	     /* ARG is free text (a command line): commas belong to it
				unless what follows is one of the workload's keys */
	const char *example; /* a valid spec, for error messages */
	const char *summary;
	const struct sb_wl_opt *opts;
	size_t opts_size; /* sizeof the typed struct opts fill (starts with struct sb_wl_common) */
	const struct sb_wl_metric *metrics;
	/* Adapters reporting a built-in workload's figures under its names
	 * (bonnie++: seq and meta): look their metrics up there too. */
	const char *metrics_of[2];
	/* Validates and decodes ARG into spec->a[]; 0 or -EINVAL with *why set. */
	int (*parse_arg)(const char *arg, struct sb_wl_spec *s, char **why);
	/* Checks the keys together once they are all parsed (and what the
	 * machine must have for them: io_uring); 0 or -EINVAL with *why set.
	 * Optional. */
	int (*check)(const struct sb_wl_spec *s, char **why);
	int (*run)(struct sb_wl_ctx *c);
	/* The memory the workload needs of its own beyond every workload's
	 * (--cap-cache's floor, workload_capped.c), with data the bytes of
	 * its data set: buffers in flight, histograms, bitmaps and trees.
	 * Optional. */
	uint64_t (*mem_bytes)(const struct sb_wl_spec *s, uint64_t data);
};

/* The bytes of one histogram, for the memory rules (mem_bytes). */
#define SB_WL_HIST_BYTES ((uint64_t)sizeof(struct sb_hist))

struct sb_wl_spec {
	const struct sb_wl_ops *ops;
	char *text;
	char *arg;
	uint64_t a[4];		  /* ARG decoded by parse_arg */
	void *o;		  /* the workload's typed options (ops->opts_size bytes) */
	bool set[SB_WL_MAX_OPTS]; /* row i given by the user (else the default) */
};

/* The registry (workload_spec.c), in the order `list workloads` shows. */
extern const struct sb_wl_ops *const sb_workloads[];
extern const size_t sb_n_workloads;
extern const struct sb_wl_ops sb_wl_seq, sb_wl_meta, sb_wl_rand, sb_wl_mixed, sb_wl_command,
    sb_wl_kbuild, sb_wl_fio, sb_wl_bonnie, sb_wl_iozone;

const struct sb_wl_ops *sb_wl_find(const char *name);
/* Parses NAME[:ARG][,key=value...]. Returns 0 or -EINVAL with *err naming
 * the spec and the expected form. Pure: no I/O. */
int sb_wl_spec_parse(const char *text, bool quick, struct sb_wl_spec *s, char **err);
void sb_wl_spec_release(struct sb_wl_spec *s);
/* Index of key name in the spec's option table; -1 when absent. */
int sb_wl_opt_index(const struct sb_wl_ops *ops, const char *name);
/* The common options (every typed struct starts with them). */
static inline const struct sb_wl_common *sb_wl_com(const struct sb_wl_spec *s)
{
	return (const struct sb_wl_common *)s->o;
}
/* Key name given by the user (not its default)? */
bool sb_wl_given(const struct sb_wl_spec *s, const char *name);
/* The value of key name read through its row, whatever the workload (generic
 * code: --cap-cache's floor, tests); def when the workload has no such key
 * or it is a string. */
uint64_t sb_wl_opt_u64(const struct sb_wl_spec *s, const char *name, uint64_t def);

/* A running workload. */
struct sb_wl_ctx {
	const struct sb_wl_env *env;
	const struct sb_wl_spec *spec;
	struct sb_wl_result *res;
	char *work; /* private directory inside env->dir, removed afterwards */
	int work_fd;
	uint64_t ram;		  /* bytes: env->ram_bytes or the system's */
	uint64_t timeout_ns;	  /* per phase */
	bool tty;		  /* progress on stderr */
	char *err;		  /* why it failed (the caller prefixes the spec) */
	struct sb_data data;	  /* the payload: seed=, compress=, dedupe= of the spec */
	uint64_t ramp_ns;	  /* ramp=: warm-up left out of the rate figures */
	struct sb_devstack *devs; /* block devices under env->dir (devstat.h); NULL: unknown */
	int perf_fd;		  /* instructions of the workload's threads, or -errno */
	char perf_why[96];	  /* why there is no counter */
	bool perf_user_only;	  /* perf_event_paranoid >= 2: user space only */
	bool cold;		  /* caches dropped since the last phase began */
	bool turnable;	/* the next phase can run in turns (env.gate); sb_phase_begin clears it */
	char cpus[128]; /* --cpus as applied ("0-1"), or "" */
};

/* A timed phase: wall time, CPU% as bonnie++ computes it ((user + sys) / wall),
 * its time limit and progress line. */
struct sb_phase {
	struct sb_wl_ctx *c;
	const char *name;
	uint64_t t0, deadline, next_check, next_progress;
	uint64_t total; /* units of work for the percentage; 0: unknown */
	bool bytes;	/* the units are bytes: the rate shows as MB/s */
	struct rusage ru0;
	double secs, cpu_pct;
	bool expired; /* hit its time limit */
	bool stopped; /* interrupted */
	bool shown;   /* a progress line is on the terminal */
	/* Set by the workload before sb_phase_end: the bytes its calls read and
	 * wrote in the phase, compared with what the devices saw (devstat). */
	uint64_t rbytes, wbytes;
	uint64_t done; /* units done at the end (optional: closes the series) */
	/* Per-second series: sampled in sb_phase_check_slow, so only phases
	 * that call sb_phase_over() have one. op_bytes converts the phase's
	 * units (bytes or operations) into the other; hist (optional) is the
	 * histogram of the thread that calls sb_phase_over, for p99 per second;
	 * progress (optional) gives the units done by all threads. */
	uint64_t op_bytes;
	const struct sb_hist *hist;
	uint64_t (*progress)(void *arg);
	void *progress_arg;
	struct sb_series *series;
	uint64_t next_sample;
	/* ramp=: the rate figures count from here (sb_phase_rate). */
	uint64_t ramp_t, ramp_done;
	bool ramped;
	struct sb_devsnap *dev0; /* device counters at the start */
	int running;		 /* threads still working (sb_phase_sample_threads) */
	/* The cost rows (sb_phase_cost): ops is the operations done (0: done,
	 * or done / op_bytes when the units are bytes); direct: the phase asked
	 * for O_DIRECT on direct_fd, checked for the page cache at the end. */
	uint64_t ops;
	bool direct;
	int direct_fd;
	long long direct_pages0, direct_pages1; /* the file's cached pages */
	bool direct_unsupported;		/* statx: no direct I/O on the file */
	uint64_t instr0;
	struct sb_kwsnap *kw0;
	struct sb_lcnt_snap *lc0; /* the layers' counters at the start, when some layer has any */
	struct sb_cost cost;	  /* filled by sb_phase_end */
	/* Millisecond turns (env.gate): the phase's clock is CLOCK_MONOTONIC
	 * less paused, the time it waited for its turns, so that its times
	 * and rates count its own turns only; turn_end is the end of the
	 * current turn on that clock (UINT64_MAX: no turns). */
	uint64_t paused, turn_end;
	unsigned turns;
	uint64_t drain_ns; /* kept by the workload: draining in-flight I/O at turns' ends */
};

void sb_phase_begin(struct sb_wl_ctx *c, struct sb_phase *p, const char *name, uint64_t total);
bool sb_phase_check_slow(struct sb_phase *p, uint64_t now, uint64_t done);
/* Called on the hot path with a time already taken: true when the phase must
 * stop (time limit or interrupt). Cheap unless a check is due. */
static inline bool sb_phase_over(struct sb_phase *p, uint64_t now, uint64_t done)
{
	if (now < p->next_check && !*p->c->env->stop)
		return false;
	return sb_phase_check_slow(p, now, done);
}
/* The phase's clock: now, less the time it waited for its turns. */
static inline uint64_t sb_phase_now(const struct sb_phase *p)
{
	return sb_mono_ns() - p->paused;
}
/* At the end of a turn (now, on the phase's clock, at or past
 * p->turn_end): waits for the next, and leaves the wait out of the
 * phase's clock. The caller reads p->paused and p->turn_end again. */
void sb_phase_turn(struct sb_phase *p, uint64_t now);
/* The same for a loop that keeps the phase's pause and turn end in its
 * own variables. */
static inline void sb_phase_turn_at(struct sb_phase *p, uint64_t now, uint64_t *paused,
				    uint64_t *turn_end)
{
	sb_phase_turn(p, now);
	*paused = p->paused;
	*turn_end = p->turn_end;
}
/* Ends the phase: sets secs and cpu_pct, flags the result incomplete when the
 * phase was cut short, stores the phase's series and device counters in
 * extra, and flags cache-affected when the top device read clearly less
 * than the workload did. done: the units done (for the ramp). */
void sb_phase_end(struct sb_phase *p);
/* After sb_phase_end: the phase's cost rows as metrics named PREFIX_...
 * (declared with SB_WL_COST_ROWS in the workload's table), and
 * extra.cost[phase] with the counters they came from. */
void sb_phase_cost(struct sb_phase *p, const char *prefix);
/* For a phase that asked for O_DIRECT on fd (right after sb_phase_begin):
 * its page cache is checked at the end (extra.cost[phase].direct_fallback). */
void sb_phase_direct(struct sb_phase *p, int fd);
/* The hooks of workload.c (phase_cost.c). */
void sb_wl_perf_begin(struct sb_wl_ctx *c);
void sb_wl_perf_end(struct sb_wl_ctx *c);
void sb_phase_cost_begin(struct sb_phase *p);
void sb_phase_cost_end(struct sb_phase *p, const struct rusage *ru, const struct sb_devsnap *now);
/* The profile's role of device i of c->devs (by its bottom device), or "". */
void sb_wl_member_role(const struct sb_wl_ctx *c, size_t i, char *buf, size_t len);
/* Describes m from its table with note added to the label ("loop3p1, ssd",
 * "unavailable: ..."), and its cost flag. 0 or -ENOMEM. */
int sb_wl_metric_note(const struct sb_wl_spec *s, struct sb_metric *m, const char *note);
/* The same, and m is no headline figure: a paced phase's throughput, which
 * the schedule sets (its p99 latency is the headline: extra.paced). */
int sb_wl_metric_paced(const struct sb_wl_spec *s, struct sb_metric *m, const char *note);
/* For phases whose threads do not call sb_phase_over (mixed, seq's seeks):
 * the calling thread sleeps and takes the per-second samples from
 * p->progress until p->running drops to 0 (each thread decrements it as it
 * ends) or the run is stopped. */
void sb_phase_sample_threads(struct sb_phase *p);
/* done / seconds after the ramp (the whole phase when no ramp was passed). */
double sb_phase_rate(const struct sb_phase *p, double done);
/* Checks that bytes more fit in the file system under c->env->dir before a
 * workload writes: -ENOSPC with c->err naming the sizes and the ways out. */
int sb_wl_check_space(struct sb_wl_ctx *c, uint64_t bytes);

/* The data written by the built-in workloads. Every 512-byte sector starts
 * with a tag word that depends on its file offset and a generation; the other
 * words depend on their place in the sector and the generation. So a read can
 * verify where its data came from by looking at one word per sector (cheap
 * enough for the timed path), and a rewrite (a new generation) changes every
 * word. Offsets are multiples of 8. */
#define SB_SECTOR 512u
static inline uint64_t sb_pattern_word(uint64_t off, uint64_t gen)
{
	if (off % SB_SECTOR == 0)
		return ((off >> 9) + 1) * 0x9E3779B97F4A7C15ull ^ (gen * 0xD6E8FEB86659FD93ull);
	return ((off % SB_SECTOR) * 0xBF58476D1CE4E5B9ull) ^ ((gen + 1) * 0x94D049BB133111EBull);
}
/* Fills len bytes (any length) as written at file offset off. */
void sb_pattern_fill(void *buf, uint64_t off, size_t len, uint64_t gen);
/* Re-tags a buffer already filled for generation gen so it belongs at off
 * (off and len multiples of SB_SECTOR): one store per sector. */
static inline void sb_pattern_stamp(void *buf, uint64_t off, size_t len, uint64_t gen)
{
	for (size_t s = 0; s + 8 <= len; s += SB_SECTOR)
		*(uint64_t *)((char *)buf + s) = sb_pattern_word(off + s, gen);
}
/* Number of sectors in buf whose tag is not the one of generation gen at off. */
static inline uint64_t sb_pattern_check(const void *buf, uint64_t off, size_t len, uint64_t gen)
{
	uint64_t bad = 0;
	for (size_t s = 0; s + 8 <= len; s += SB_SECTOR)
		bad += *(const uint64_t *)((const char *)buf + s) != sb_pattern_word(off + s, gen);
	return bad;
}

/* The declaration of metric name in ops' table (or the tables it borrows);
 * NULL when undeclared. match receives the text a '*' matched. */
const struct sb_wl_metric *sb_wl_metric_find(const struct sb_wl_ops *ops, const char *name,
					     char *match, size_t size);

/* Helpers for the workloads. */
int sb_wl_fail(struct sb_wl_ctx *c, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void sb_wl_add_hist(struct sb_wl_ctx *c, const char *op, const struct sb_hist *h);
void sb_wl_extra_int(struct sb_wl_ctx *c, const char *key, int64_t v);
void sb_wl_extra_double(struct sb_wl_ctx *c, const char *key, double v);
void sb_wl_extra_str(struct sb_wl_ctx *c, const char *key, const char *v);
void sb_wl_extra_bool(struct sb_wl_ctx *c, const char *key, bool v);
/* Adds v to the array extra.KEY (made when missing), once: a second add of
 * the same string does nothing. */
void sb_wl_extra_list_add(struct sb_wl_ctx *c, const char *key, const char *v);
/* At spec check time: the engine keys as engine.h's sb_engine_opts_check,
 * and no io_uring-only key given for psync. */
int sb_wl_engine_check(const struct sb_wl_spec *s, const struct sb_engine_opts *o, bool direct,
		       char **why);
/* engine, qd and, for io_uring, its keys into the workload's extra. */
void sb_wl_engine_extra(struct sb_wl_ctx *c, const struct sb_engine_opts *o);
/* sync, then drop the page cache when permitted; returns 0 or -errno. */
int sb_wl_drop_caches(struct sb_wl_ctx *c);
/* Flags the result cache-affected when size < 2x RAM and not direct. */
void sb_wl_validity(struct sb_wl_ctx *c, uint64_t data_bytes, bool direct);
void *sb_wl_alloc_aligned(size_t len);
/* Removes a directory tree below dirfd (used for the work directory and by
 * workloads between rounds). */
int sb_wl_rmtree_at(int dirfd, const char *name);
/* CMD split on blanks into a NULL-terminated argv (no quoting, no shell). */
char **sb_wl_split_words(const char *s, size_t *n);
void sb_wl_free_words(char **argv);
/* Adapters' parsers (bonnie.c, fio.c): 0 (or a count) or -EINVAL. */
int sb_iozone_import(struct sb_wl_result *r, const char *out);
int sb_fio_import(struct sb_wl_ctx *c, const char *text);
/* The same, with *err naming what is wrong ("jobs[3].read.iops: expected a
 * number, got null"; allocated) when err is not NULL. */
int sb_fio_import_json(struct sb_wl_ctx *c, const char *text, char **err);
/* One fio per-interval log (write_iops_log / write_bw_log with log_avg_msec):
 * lines "MSEC, VALUE, DDIR, BS, OFFSET[, ...]". Pure; 0 or -EINVAL on a line
 * of another shape. *out (malloc'ed) holds n points. */
struct sb_fio_log_pt {
	uint64_t msec;
	uint64_t value;
	unsigned ddir; /* 0 read, 1 write, 2 trim */
};
int sb_fio_log_parse(const char *text, size_t len, struct sb_fio_log_pt **out, size_t *n);
/* Pseudo random numbers, per thread. */
static inline uint64_t sb_rng_next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}
