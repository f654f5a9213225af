/* Variants side by side (side.c): one round of a comparison under --loop
 * with every variant's stack built at once, the phases run on each stack
 * in turn, in a balanced order (session/design.h), variants crossed over
 * the stacks from round to round. */
#pragma once

#include "session/variant.h"

struct sb_side {
	struct sb_vrun *proto; /* the run's settings; v, plan, index are set per stack */
	const struct sb_pvariant *variants;
	const struct sb_plan *plans;
	struct sb_variant *set_vars; /* the result set's variants: the repeats go there */
	const size_t *active;	     /* the variants of this round (indices), n_active >= 2 */
	size_t n_active;
	unsigned round;
	uint64_t seed;
	bool fail_fast;		       /* a failed build ends the round (else the others go on) */
	const char *const *slot_roles; /* each slot's role ("ssd"), proto->n_slots of them */
	uint64_t t_origin;	       /* CLOCK_MONOTONIC ns: turns' start_s counts from it */
	json_object *turns;	       /* array: every turn's record is appended */
	json_object *assignment;       /* array: {"stack", "variant"} of this round */
	/* --turn: phases that can run in turns alternate between the stacks
	 * every turn_ns or so (jittered); 0: whole phases. */
	uint64_t turn_ns;
	/* array, kept over the rounds: the steps that run whole from a round
	 * on, since their I/O did not stay in their turns (side_turns.c) */
	json_object *whole;
};

/* Builds the round's stacks, runs their workloads in turns, tears them
 * down, and adds each variant's repeat. A variant whose workload failed
 * is counted in *failed (its repeat records the failure). Returns 0, or
 * the exit code of what ended the round early (a step of a build, a
 * signal, the teardown; vr->left_behind set as sb_vrun does). */
int sb_side_round(struct sb_side *sd, int *failed);

/* The images the rounds kept (vr->images_kept), removed: the last
 * teardown, when no more rounds run side by side. v names the run in
 * messages. Returns code, or the teardown's failure (vr->left_behind). */
int sb_side_release(struct sb_vrun *vr, const struct sb_pvariant *v, int code);

/* The same round on one stack (switch.c), for variants on real devices
 * that differ only in mount options: the stack built once, each workload
 * run for every variant in turn, the file system mounted again with the
 * turn's options between turns. Same contract as sb_side_round. */
int sb_switch_round(struct sb_side *sd, int *failed);
