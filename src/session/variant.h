/* Running one variant once (variant.c): build its stack from the plan, run
 * its workloads in the mounted file system, tear it down from the journal. */
#pragma once

#include "profile/profile.h"
#include "result/result.h"
#include "stack/stack.h"
#include "stack/state.h"

#include <json-c/json.h>
#include <signal.h>

/* integrity.c: the session's end of a variant: integrity when the variant
 * has it on (sb_scen_integrity_on), the md check and scrub
 * (sb_integrity_run) plus "data": the workloads' own verify_errors and
 * verified_bytes summed. Logs a non-zero count on stderr (once, naming the
 * variant). NULL when off. */
json_object *sb_integrity_after(const struct sb_config *c, const char *variant,
				const struct sb_plan *p, struct sb_exec *x, const char *mnt,
				struct sb_wl_result *const *wl, size_t n_wl, bool quick,
				volatile sig_atomic_t *stop);

struct sb_vrun {
	const struct sb_pvariant *v;
	const struct sb_plan *plan;
	size_t index, n_var; /* for messages: "variant 2/3" */
	bool quick;
	uint64_t ram;	/* --ram, or 0: the machine's */
	bool cap_cache; /* --cap-cache: the workloads' memory limited to ram */
	/* Device variables: slot names, and their devices (NULL with --loop). */
	const char *const *slot_names;
	const char *const *slot_devs;
	size_t n_slots;
	const char *cpus; /* --cpus LIST: the workloads pinned there, or NULL */
	/* Non-NULL: the loop devices the plan made, as probed, are added to it
	 * (for result.json), and it is set to NULL. */
	json_object **loop_devices;
	/* Called right before the first step, after the journal is open: a
	 * non-zero return (an exit code, reported) stops the variant there. */
	int (*before_first_write)(void *ud);
	void *ud;
	struct sb_runstate *rs;
	volatile sig_atomic_t *stop;	/* a signal: tear down and end */
	volatile sig_atomic_t *wl_stop; /* the workload time limit or a signal */
	/* Side by side: the workloads wait here for their stack's turn before
	 * every timed phase (sb_wl_env.gate); NULL: no turns. */
	bool (*gate)(void *ud, const char *phase, bool turnable);
	uint64_t (*turn)(void *ud,
			 uint64_t drained_ns); /* sb_wl_env.turn: a millisecond turn's end */
	void *gate_ud;
	/* out: the teardown failed and the journal is kept (the run must not
	 * go on to another variant over what is left) */
	bool left_behind;
	/* Side by side under --loop: each stack's images are kept from round
	 * to round (sb_exec.keep_images); images_kept says the journal holds
	 * them now (a round's teardown kept them), for the next round or the
	 * last teardown (sb_vrun_teardown with keep_images false). */
	bool keep_images, images_kept;
};

/* The time limit of every external program of a step (mkfs on a large disk
 * with discard is the slowest): then SIGTERM, SIGKILL, and the step fails. */
#define SB_STEP_TIMEOUT_MS (30u * 60 * 1000)

/* The order of the n variants in round `round` of repeats: a permutation of
 * 0..n-1 shuffled from (seed, round) alone (splitmix64, Fisher-Yates), so
 * that a seed recorded in result.json gives the same schedule again. */
void sb_vrun_order(size_t *order, size_t n, uint64_t seed, unsigned round);

/* Returns 0, or an exit code after reporting. The repeat's results are
 * added to rv. */
int sb_vrun(struct sb_vrun *vr, unsigned rep, struct sb_variant *rv);
