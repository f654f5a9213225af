/* What a layer's plan() works with: the plan being built and the units (a
 * device, a partition, an array) the layers below hand up. Each layer takes
 * the units it wants, adds its steps, and leaves the units it makes for the
 * layer above. Pure: devices are variables ("${ssd}") until the executor
 * fills them in. */
#pragma once

#include "stack/stack.h"

struct sb_unit {
	enum sb_role role;
	unsigned part; /* partition number, 0 for a whole device */
	char var[40];
};

struct sb_pctx {
	struct sb_plan *p;
	const struct sb_plan_in *in;
	const struct sb_config *c;
	void *cfg[SB_STEP_KIND_N];   /* each layer's typed config (NULL: no keys) */
	const struct sb_slot *slots; /* the devices the profile needs, in role order */
	size_t n_slots;
	struct sb_unit *whole; /* every whole device made or given (sb_plan_device) */
	size_t n_whole;
	struct sb_unit *u; /* the units the next layer sees */
	size_t n_u;
	bool taken; /* a layer below took its units from the devices (md.members) */
	/* The devices were preconditioned (devices.precondition): nothing
	 * above may discard them again. */
	bool preconditioned;
	/* The device a layer set aside for itself (fs.log), or "". */
	char aside[16];
	char *errmsg; /* a plan() that fails says why here (sb_plan_fail) */
};

/* Sets b->errmsg (printf-style) and returns r. */
int sb_plan_fail(struct sb_pctx *b, int r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A new step of kind at the plan's end: its zeroed arguments. */
void *sb_plan_add_step(struct sb_pctx *b, enum sb_step_kind kind);
/* What the layers ask of each other, from the registry: the selector of
 * the lowest layer that takes the devices' units (or NULL); how many units a
 * whole device of role r becomes (0: whole); the size such a device needs
 * for each unit to hold need bytes; the role set aside (fs.log) or -1; is
 * the slot used at all (a device no layer selects gets no step)? */
const struct sb_sel *sb_plan_takes(const struct sb_pctx *b);
unsigned sb_plan_splits(const struct sb_pctx *b, enum sb_role r);
uint64_t sb_plan_fit(const struct sb_pctx *b, enum sb_role r, uint64_t need);
int sb_plan_aside(const struct sb_pctx *b);
bool sb_plan_slot_used(const struct sb_pctx *b, const struct sb_slot *sl);
/* A whole device is there (a loop device made, a disk given): every
 * layer's device() hook (precondition) runs on it, and it joins b->whole. */
void sb_plan_device(struct sb_pctx *b, enum sb_role role, const char *var);
void sb_unit_list_add(struct sb_unit **u, size_t *n, enum sb_role role, unsigned part,
		      const char *var);
/* A unit for the layer above. */
void sb_plan_add_unit(struct sb_pctx *b, enum sb_role role, unsigned part, const char *var);
/* printf into a new string (aborts when memory runs out: a few small
 * allocations, not recoverable). */
char *sb_plan_fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
/* "${var}" added to a list. */
void sb_plan_addv(struct sb_list *v, const char *var);

/* md.c: an md array of level over mem, made for devices.loop.emulate (a
 * RAID volume played by loop devices: no profile keys of md's apply). */
void sb_md_plan_emulated(struct sb_pctx *b, const char *var, unsigned level,
			 const struct sb_unit *mem, size_t n_mem);
