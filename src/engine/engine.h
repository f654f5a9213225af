/* I/O engines under the workloads, one file per engine behind one ops struct
 * (fio's ioengine_ops is the model): psync issues one synchronous call per
 * I/O; io_uring keeps up to qd in flight. The caller owns the struct sb_io
 * array and the buffers (nothing is allocated per I/O) and does the timing:
 * t_start when it queues (or when the I/O was due, for open-loop rates),
 * completion time when reap hands the I/O back. Functions return 0 (or a
 * count) or -errno; *why says more where a user can act on it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/specopt.h"

enum sb_io_op { SB_IO_READ, SB_IO_WRITE };

struct sb_io {
	void *buf;
	uint64_t off;
	uint32_t len;
	uint32_t done;	    /* bytes moved so far: a short transfer is resubmitted */
	uint16_t buf_index; /* slot of buf in cfg.bufs (registered buffers) */
	uint8_t op;	    /* enum sb_io_op */
	int res;	    /* on completion: bytes (len, or less at end of file) or -errno */
	uint64_t t_start;   /* the caller's: when it was queued or due */
	void *user;	    /* the caller's */
};

struct sb_engine_cfg {
	int fd;
	unsigned qd;	   /* I/Os in flight at most (1..4096) */
	void *const *bufs; /* buffers the I/Os use, registered when fixed_bufs */
	size_t n_bufs, buf_len;
	bool fixed_bufs;  /* io_uring: register bufs (READ_FIXED / WRITE_FIXED) */
	bool fixed_files; /* io_uring: register fd */
	bool hipri;  /* io_uring: completion polling (IOPOLL), needs O_DIRECT and poll queues */
	bool sqpoll; /* io_uring: a kernel thread submits (SQPOLL) */
	unsigned batch_submit;	 /* queue this many before a submit (0: 1) */
	unsigned batch_complete; /* reap up to this many per call (0: qd) */
};

/* The engine keys of a workload spec (rand's I/O, seq's block tests): a
 * workload's typed struct holds one as member M and its table puts
 * SB_ENGINE_OPT_ROWS(T, M) where the keys show. */
struct sb_engine_opts {
	char *engine; /* "psync", "io_uring" */
	uint64_t qd;
	bool fixed, hipri, sqpoll;
	uint64_t batch_submit, batch_complete;
};

#define SB_ENGINE_OPT_ROWS(T, M)                                                                   \
	SB_WO(T, M.engine, "engine", SB_WO_STRING, "psync", NULL, 0, 0,                            \
	      "psync (one read or write at a time per thread) or io_uring (qd in flight)"),        \
	    SB_WO(T, M.qd, "qd", SB_WO_UINT, "1", NULL, 1, 4096,                                   \
		  "I/Os in flight per thread (engine=io_uring)"),                                  \
	    SB_WO(T, M.fixed, "fixed", SB_WO_BOOL, "1", NULL, 0, 1,                                \
		  "io_uring: registered buffers and file (READ_FIXED/WRITE_FIXED)"),               \
	    SB_WO(T, M.hipri, "hipri", SB_WO_BOOL, "0", NULL, 0, 1,                                \
		  "io_uring: poll for completions (IOPOLL; needs direct=1 and poll queues)"),      \
	    SB_WO(T, M.sqpoll, "sqpoll", SB_WO_BOOL, "0", NULL, 0, 1,                              \
		  "io_uring: a kernel thread submits (its CPU counts in %CPU)"),                   \
	    SB_WO(T, M.batch_submit, "batch_submit", SB_WO_UINT, "1", NULL, 1, 4096,               \
		  "io_uring: I/Os queued before one submit (1, fio's default: each at once; qd: "  \
		  "all refills of a reap in one call)"),                                           \
	    SB_WO(T, M.batch_complete, "batch_complete", SB_WO_UINT, "0", NULL, 0, 4096,           \
		  "io_uring: completions reaped per call (0: qd)")

/* The keys above that only io_uring takes (NULL-terminated): given with a
 * non-zero value for psync, they are an error. */
extern const char *const sb_engine_uring_keys[];

/* engine=io_uring? */
bool sb_engine_opts_uring(const struct sb_engine_opts *o);
/* The engine exists (a kernel without io_uring is an error before anything
 * is built), psync gets no qd above 1, hipri has direct. 0 or -EINVAL with
 * *why set. */
int sb_engine_opts_check(const struct sb_engine_opts *o, bool direct, char **why);
/* The keys into cfg (fixed buffers and file, hipri, sqpoll, batches). */
void sb_engine_opts_cfg(const struct sb_engine_opts *o, struct sb_engine_cfg *cfg);

struct sb_engine;

struct sb_engine_ops {
	const char *name;
	const char *summary;
	/* Can this kernel run it? 0, or -errno with *why (io_uring disabled...). */
	int (*probe)(char **why);
	int (*init)(struct sb_engine *e, char **why);
	/* Adds one I/O; it starts by the next submit (psync: at once). */
	int (*queue)(struct sb_engine *e, struct sb_io *io);
	/* Issues what was queued. */
	int (*submit)(struct sb_engine *e);
	/* Completed I/Os into done[0..max): waits until at least min are there
	 * (min 0: only what is done now). Returns how many. Submits what is
	 * queued first, so a loop of queue and reap needs no submit of its own. */
	int (*reap)(struct sb_engine *e, unsigned min, struct sb_io **done, unsigned max);
	/* As reap with min 1, but waits at most timeout_ns for the first
	 * completion (0: none, as min 0): an open loop waits for whichever
	 * comes first, a completion or the next I/O's due time. */
	int (*reap_wait)(struct sb_engine *e, uint64_t timeout_ns, struct sb_io **done,
			 unsigned max);
	void (*cleanup)(struct sb_engine *e);
};

struct sb_engine {
	const struct sb_engine_ops *ops;
	struct sb_engine_cfg cfg;
	unsigned inflight; /* queued and not yet reaped */
	void *priv;
};

/* The registry, in the order `list workloads` shows. */
extern const struct sb_engine_ops sb_engine_psync, sb_engine_io_uring;
extern const struct sb_engine_ops *const sb_engines[];
extern const size_t sb_n_engines;
const struct sb_engine_ops *sb_engine_find(const char *name);

/* init with cfg checked (qd range, buffers given); *why on failure. */
int sb_engine_init(struct sb_engine *e, const struct sb_engine_ops *ops,
		   const struct sb_engine_cfg *cfg, char **why);
void sb_engine_cleanup(struct sb_engine *e);

static inline int sb_engine_queue(struct sb_engine *e, struct sb_io *io)
{
	io->done = 0;
	io->res = 0;
	int r = e->ops->queue(e, io);
	if (r == 0)
		e->inflight++;
	return r;
}

static inline int sb_engine_submit(struct sb_engine *e)
{
	return e->ops->submit(e);
}

static inline int sb_engine_reap(struct sb_engine *e, unsigned min, struct sb_io **done,
				 unsigned max)
{
	int n = e->ops->reap(e, min, done, max);
	if (n > 0)
		e->inflight -= (unsigned)n;
	return n;
}

static inline int sb_engine_reap_wait(struct sb_engine *e, uint64_t timeout_ns, struct sb_io **done,
				      unsigned max)
{
	int n = e->ops->reap_wait(e, timeout_ns, done, max);
	if (n > 0)
		e->inflight -= (unsigned)n;
	return n;
}

/* Synchronous transfer of the rest of io (io->done onwards), retrying short
 * transfers and EINTR, stopping at end of file. Sets io->res. Shared by
 * psync and by io_uring's fallback for a rejected submission. */
void sb_io_sync(int fd, struct sb_io *io);
