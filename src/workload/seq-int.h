/* Shared by the pieces of seq (seq.c, seq_seek.c) and nothing else: its
 * typed options and the state of a run. */
#pragma once

#include "workload/wl.h"
#include "engine/engine.h"

/* The typed options seq_opts fills (seq.c). */
struct seq_opts {
	struct sb_wl_common com;
	uint64_t size;
	uint64_t chunk;
	bool perchar;
	uint64_t seeks;
	uint64_t seekers;
	bool direct;
	bool fsync;
	bool verify;
	bool drop;
	uint64_t min_time;
	struct sb_engine_opts eng;
};

static inline const struct seq_opts *seq_o(const struct sb_wl_spec *s)
{
	return s->o;
}

struct seq_run {
	struct sb_wl_ctx *c;
	const char *path;
	uint64_t size, chunk, nblocks;
	bool direct;
	char *buf;
	uint64_t bad; /* sectors that failed verification */
	uint64_t verified;
};

/* done in the phase's units, scale to the metric's (bytes -> KB). */
void sb_seq_add_rate(struct sb_wl_ctx *c, const char *name, struct sb_phase *p, double done,
		     double scale, const char *unit);
/* The random seeks test: seekers= threads doing seeks= lseek + read in
 * total, one in ten written back; its histogram goes into h. */
int sb_seq_seeks(struct seq_run *s, struct sb_hist *h);
