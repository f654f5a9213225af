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
	struct sb_unit *u; /* the units the next layer sees */
	size_t n_u;
	bool taken; /* a layer below took its units from the devices (md.members) */
	/* The devices were preconditioned (devices.precondition): nothing
	 * above may discard them again. */
	bool preconditioned;
	/* The device a layer set aside for itself (fs.log), or "". */
	char aside[16];
	int err;
	char *errmsg; /* a plan() that fails says why here (sb_plan_fail) */
};

/* Sets b->errmsg (printf-style) and returns r. */
int sb_plan_fail(struct sb_pctx *b, int r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A new step of kind at the plan's end: its zeroed arguments. */
void *sb_plan_add_step(struct sb_pctx *b, enum sb_step_kind kind);
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
