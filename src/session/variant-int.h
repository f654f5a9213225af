/* The parts of a variant's run (variant.c) that the side-by-side rounds
 * (side.c) put together differently: several stacks built into one
 * journal, their workloads in turns, one teardown. */
#pragma once

#include "session/variant.h"
#include "stack/facts.h"

/* An executor with the run's variables, run and id given (a stack of its
 * own: its own directory and names), no journal yet. */
void sb_vrun_exec_init(struct sb_vrun *vr, struct sb_exec *x, const char *run, const char *id);
/* The checks right before the first write, then the plan's steps: 0, or
 * the exit code (the failure noted in *failed). */
int sb_vrun_build(struct sb_vrun *vr, struct sb_exec *x, json_object **failed);
/* The loop devices x made, as probed, into *vr->loop_devices (once). */
void sb_vrun_loop_devices(struct sb_vrun *vr, struct sb_exec *x);
/* The precondition record of the steps numbered first..last in the
 * journal (a stack's own), and whether the device was fresh. */
json_object *sb_vrun_precondition(const struct sb_vrun *vr, const char *mnt, unsigned first,
				  unsigned last, bool *fresh);
/* The variant's workloads in mnt, in order: 0, or the exit code. */
int sb_vrun_workloads(struct sb_vrun *vr, const char *mnt, const char *memcg,
		      const char **role_devs, bool fresh, struct sb_wl_result ***wl, size_t *n_wl,
		      json_object **failed);
/* Teardown of everything in the run's journal: the exit code after it. */
int sb_vrun_teardown(struct sb_vrun *vr, int code, json_object **failed);
/* The first failure of a variant's repeat, for result.json. */
void sb_vrun_note_failure(json_object **failed, const char *step, int code, const char *msg);
