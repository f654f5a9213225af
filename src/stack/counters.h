/* The layers' own counters, per phase: what a cache layer did while a
 * workload ran (dm-cache's hits and promotions, bcache's bypasses), read
 * by the layer's file from its devices (struct sb_layer.counters) and
 * turned by workload/ into cost rows beside the device counters. It lives
 * in stack/ so that the layers need nothing from workload/. */
#pragma once

#include "probe/devstat.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SB_LCNT_MAX 16

struct sb_lcnt_val {
	const char *name; /* static: "read_hits", "dirty_blocks" */
	uint64_t v;
	bool gauge; /* a level (dirty blocks): the phase's end value;
		       else a counter: end - start */
};

struct sb_layer_counters {
	const char *key; /* "dmcache", "dmwritecache", "bcache" */
	/* Reads the counters of device st->dev[i] when it is one of this
	 * layer's (a dm device of its target type, a bcacheN), into out (at
	 * most SB_LCNT_MAX); returns how many, 0 when the device is not ours. */
	size_t (*read)(const struct sb_devstack *st, size_t i, struct sb_lcnt_val *out, int log_fd);
};

/* What every layer's counters read of every device in a stack at one
 * moment: one entry per device some layer claimed. */
struct sb_lcnt_entry {
	const struct sb_layer_counters *lc;
	char dev[64];
	size_t n;
	struct sb_lcnt_val v[SB_LCNT_MAX];
};
struct sb_lcnt_snap {
	size_t n;
	struct sb_lcnt_entry e[SB_DEVSTACK_MAX];
};

/* Asks the registered layers (stack/exec.c's registry, in stack order)
 * about each device of st; the first layer that claims a device reads it. */
void sb_lcnt_snap(const struct sb_devstack *st, struct sb_lcnt_snap *s, int log_fd);

/* One row of a phase from two snapshots: a counter's increase per
 * operation (per_op true; NAN when ops is 0) or a gauge's end value. */
struct sb_lcnt_row {
	char name[48]; /* "dmcache_read_hits" */
	char dev[64];
	bool per_op;
	double value;
	uint64_t raw; /* the increase (counter) or the end value (gauge) */
};
/* The rows of the entries present in both a and b (same layer, device and
 * name), in b's order; a counter that went down (the device was
 * re-created) is left out. Returns the count (at most max). Pure. */
size_t sb_lcnt_rows(const struct sb_lcnt_snap *a, const struct sb_lcnt_snap *b, uint64_t ops,
		    struct sb_lcnt_row *rows, size_t max);
