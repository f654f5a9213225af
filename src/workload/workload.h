/* The workload engine's interface: specs ("rand:16k,direct=1"), the registry
 * of workloads, and running one in a directory. Used by `bench` and by the
 * stack engine's `run`. */
#pragma once

#include "result/result.h"

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

/* Where and how a workload runs. */
struct sb_wl_env {
	const char *dir;    /* an existing directory on the file system under test */
	bool quick;	    /* shrink sizes and times (CI); flagged in the results */
	uint64_t ram_bytes; /* 0: read from the system; data sets default to 2x this */
	bool cap_cache;	    /* run in a memory cgroup limited to the RAM size (--cap-cache) */
	const char *memcg;  /* cap_cache: the cgroup the plan made (NULL: make one, bench) */
	int log_fd;	    /* >= 0: the run log, external programs' output goes here too */
	volatile sig_atomic_t *stop; /* set by SIGINT/SIGTERM: stop soon, keep what was measured */
	/* The profile's device roles (optional): role_names[k] is the device
	 * role_devs[k], so that per-member cost rows say which is the SSD. */
	const char *const *role_names;
	const char *const *role_devs;
	size_t n_roles;
	/* --cpus LIST (taskset's form, "0-1,3"): the workload's threads
	 * pinned to these CPUs; NULL: not pinned. */
	const char *cpus;
	/* Side by side (session/side.c): called before every timed phase
	 * begins, and returns when this stack's turn comes; NULL: no turns.
	 * turnable: the phase can run in millisecond turns (its I/O is done
	 * within its calls: O_DIRECT, synchronous, one thread); true when it
	 * does, and then turn() is called at the end of each of its turns. */
	bool (*gate)(void *ud, const char *phase, bool turnable);
	/* In a phase that runs in turns: ready to begin (its first call) or
	 * this turn over, drained_ns the time the phase has spent so far
	 * draining its in-flight I/O at turns' ends; returns when the next
	 * turn comes, with its length in ns (UINT64_MAX: no more turns, run
	 * on). */
	uint64_t (*turn)(void *ud, uint64_t drained_ns);
	void *gate_ud;
	/* A test's hook (STACKBENCH_DELAY): every psync rand I/O of this
	 * workload takes this much longer, in percent of its own time. */
	unsigned delay_pct;
};

/* Check a spec without running anything (profile validation, `plan`).
 * Returns 0, or -EINVAL with *err naming the spec and the expected form. */
int sb_workload_check(const char *spec, char **err);

/* The bytes spec writes as its data set when that is sized from RAM (seq
 * and rand: size=, by default twice ram, the system's when 0), so that
 * --loop can make its images big enough; 0 for workloads whose sizes do
 * not grow with the host, and for a bad spec. Pure. */
uint64_t sb_workload_data_bytes(const char *spec, bool quick, uint64_t ram);

/* A lower bound of the memory spec needs of its own (buffers in flight,
 * histograms, bitmaps and trees: each workload's mem_bytes, wl.h), with the data
 * set sized from ram. 0 for a bad spec. Pure. */
uint64_t sb_workload_mem_bytes(const char *spec, bool quick, uint64_t ram);
/* --cap-cache at cap: -EINVAL with *err (both sizes) when a spec needs more
 * than cap of its own; 0 when every one fits. */
int sb_workload_check_cap(const char *const *specs, size_t n, bool quick, uint64_t cap, char **err);

/* Fills the label, headline and phase of each metric of r that has none
 * from its workload's metric table (after a run, and for version 1 result
 * files); an undeclared metric is labelled with its name and is not a
 * headline. 0 or -ENOMEM. */
int sb_wl_result_describe(struct sb_wl_result *r);

/* Run one workload described by spec in env->dir. On success *out holds the
 * results (possibly flagged incomplete). Returns 0, or -errno with *err set
 * (a result may still be returned in *out, flagged failed; -EXDEV: refused,
 * a path the workload would hand its tool leads outside env->dir, exit 3).
 * Everything the
 * workload created in env->dir is removed before returning. */
int sb_workload_run(const char *spec, const struct sb_wl_env *env, struct sb_wl_result **out,
		    char **err);

/* `list workloads`: the registry with each workload's options (exit code). */
int sb_list_workloads(void);
