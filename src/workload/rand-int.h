/* Shared by the pieces of rand (rand.c, rand_uring.c) and nothing else: its
 * typed options, the job of a test and the state of each of its threads. */
#pragma once

#include "workload/wl.h"
#include "engine/engine.h"

/* The typed options rand_opts fills (rand.c). */
struct rand_opts {
	struct sb_wl_common com;
	uint64_t size;
	uint64_t ops;
	uint64_t time;
	uint64_t threads;
	bool direct;
	bool read;
	bool write;
	bool fsync;
	bool verify;
	bool drop;
	uint64_t rate;
	uint64_t burst;
	uint64_t idle;
	struct sb_engine_opts eng;
};

static inline const struct rand_opts *rand_o(const struct sb_wl_spec *s)
{
	return s->o;
}

struct rand_job {
	const struct sb_data *data;
	int fd;
	uint64_t bs, nblocks;
	uint64_t *bitmap; /* blocks written, for the read-back check */
	uint64_t *busy;	  /* io_uring writes: blocks in flight, never two at once */
	struct sb_phase *p;
	volatile sig_atomic_t *stop;
	uint64_t end_at;      /* time= */
	uint64_t interval_ns; /* rate=: between records of one thread; 0: closed loop */
	uint64_t burst, idle_ns;
	bool write, verify;
	unsigned delay_pct; /* the STACKBENCH_DELAY hook: each record made this much slower */
	int *failed;	    /* set by the first thread whose I/O fails: all stop */
};

struct rand_thread {
	const struct rand_job *j;
	const struct sb_wl_spec *sp;
	unsigned id;
	uint64_t n, done, bad, rng;
	uint64_t live;	   /* operations so far, read by the series sampler */
	uint64_t late;	   /* rate=: records started more than a slot after they were due */
	double *burst_p99; /* rate= with burst=: p99 of each burst, ms */
	size_t n_bursts, max_bursts;
	int err;
	char *why; /* what the engine said, when it refused */
	struct sb_hist h;
};

/* Uniform in [0, n) without a division. */
static inline uint64_t pick(uint64_t *rng, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)sb_rng_next(rng) * n) >> 64);
}

/* The STACKBENCH_DELAY hook: spins until the record that ran from t0 to
 * t1 (the phase's clock, paused behind CLOCK_MONOTONIC) took pct% longer;
 * the new end. */
static inline uint64_t sb_rand_delay(uint64_t t0, uint64_t t1, unsigned pct, uint64_t paused)
{
	uint64_t until = t1 + (t1 - t0) * pct / 100, now;
	do
		now = sb_mono_ns() - paused;
	while (now < until);
	return now;
}

/* engine=io_uring: qd records in flight, refilled as they complete. One clock
 * read per reaped batch: each record's latency runs from its submission to
 * the reap that saw it complete. */
void *sb_rand_uring_main(void *arg);
