/* Shared by the pieces of side by side (side.c, side_turns.c) and
 * nothing else: a stack of the round, the host's counters over a turn. */
#pragma once

#include "session/side.h"
#include "session/variant-int.h"
#include "probe/devstat.h"
#include "stack/stack.h"

#include <stdio.h>
#include <sys/types.h>

struct stack {
	size_t var; /* the variant's index in the profile */
	struct sb_vrun vr;
	struct sb_exec x;
	char dir[4200], id[128];
	char *mnt;
	unsigned first, last; /* its steps' numbers in the journal */
	json_object *pre, *failed, *integ;
	struct sb_devstack *devs; /* the devices under mnt, for the idle check */
	bool fresh, built;
	pid_t pid;
	int to, from; /* the child's pipes: its turns, its messages */
	FILE *in;
	char *phase; /* the phase it waits to begin ("start": its first turn) */
	bool waiting;
	bool turnable;	     /* that phase can run in millisecond turns */
	uint64_t drained_ns; /* in turns: its phase's drain of in-flight I/O so far */
	int code;
	struct sb_wl_result **wl;
	size_t n_wl;
	char started[40];
};

/* The host over a turn: steal ticks of all CPUs (/proc/stat) and the time
 * some task waited for a CPU (/proc/pressure/cpu "some total", us). */
struct host {
	unsigned long long steal, all, psi_us;
	bool has_steal, has_psi;
};

void sb_side_host_read(struct host *h);
/* The host's steal time and CPU pressure between h0 and h1, secs apart,
 * into the record t. */
void sb_side_host_record(json_object *t, const struct host *h0, const struct host *h1, double secs);
/* Every stack idle and clean before a turn (self: the one whose turn it
 * is, SIZE_MAX: none), the wait recorded in t. */
void sb_side_quiet_all(struct sb_side *sd, struct stack *st, size_t k, size_t self, json_object *t);
/* Reads the child's next message: its next phase (1), the end of a
 * millisecond turn (2), its results (0, with the stack's results filled
 * in), or its end without them (-1). */
int sb_side_next_message(struct stack *s);
/* What the child's answer r to its turn leaves: waiting at its next
 * phase, done, or gone without its results. */
void sb_side_turn_over(struct stack *s, int r);

/* side_turns.c: the waiting stacks can take the step in millisecond
 * turns (--turn, every one at the same phase, which each can run so). */
bool sb_side_turned_step(const struct sb_side *sd, const struct stack *st, size_t k, unsigned step);
/* The step in millisecond turns, in the order of the stacks in order[]. */
void sb_side_take_turns(struct sb_side *sd, struct stack *st, size_t k, unsigned step,
			const size_t *order);
