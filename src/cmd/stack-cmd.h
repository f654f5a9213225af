/* What the stack commands (plan, run, teardown) share: their options, and
 * the context of a profile resolved against devices (src/cmd/setup.c). */
#pragma once

#include "cmd.h"
#include "probe/probe.h"
#include "profile/profile.h"
#include "stack/facts.h"
#include "stack/stack.h"
#include "util/opt.h"

#include <stdbool.h>
#include <stdio.h>

enum {
	OPT_DEVICES = 'd',
	OPT_OVERRIDE = 'o',
	OPT_YES = 'y',
	OPT_LOOP = 256,
	OPT_WIPE,
	OPT_RESULTS,
	OPT_QUICK,
	OPT_REPEAT,
	OPT_ALL,
	OPT_SEED,
	OPT_LOOP_DIR,
	OPT_RAM,
	OPT_CAP_CACHE,
	OPT_FAIL_FAST,
	OPT_CPUS,
	OPT_ROUNDS,
	OPT_BUDGET,
	OPT_TURN,
};

/* Side by side, the turns' length unless --turn says otherwise: at 20 ms
 * the design's measurements on this host saw 1.1-1.6% in a minute, and
 * hardly less at 5 ms, where each switch costs four times as much
 * (DESIGN.md, Comparisons; bench/turns, doc/comparisons.md). */
#define SB_TURN_MS 20

struct opts {
	const char *cmd;
	const char *devices;
	bool loop, yes, wipe, quick, all;
	bool rounds;	/* --rounds: one variant built at a time, even where side by side could */
	bool cap_cache; /* --cap-cache: the workloads' memory limited to --ram */
	const char *results;
	const char *loop_dir; /* --loop-dir, or NULL */
	uint64_t ram;	      /* --ram: data sets sized from this, not the machine's RAM */
	unsigned repeat;      /* 0: --repeat auto */
	bool repeat_set;      /* --repeat was given */
	uint64_t budget_ms;   /* --budget: whole cycles while time is left, 0: none */
	uint64_t turn_ms;     /* --turn: millisecond turns side by side, 0: whole phases */
	bool turn_set;	      /* --turn was given (else SB_TURN_MS side by side) */
	unsigned repeat_max;  /* --repeat auto:MAX (0: SB_REPEAT_AUTO_MAX) */
	const char *cpus;     /* --cpus LIST: the workloads' threads pinned there */
	bool has_seed;
	uint64_t seed;
	const char **ov;
	size_t n_ov;
};

/* The option callback of all three commands (ud: struct opts). */
int sb_cmd_on_opt(int key, const char *arg, void *ud);

#define OPT_DEVICES_ROW                                                                            \
	{                                                                                          \
		"devices", OPT_DEVICES, "A,B,C",                                                   \
		    "the devices, in role order (or matched by class)"                             \
	}
#define OPT_LOOP_ROW                                                                               \
	{                                                                                          \
		"loop", OPT_LOOP, NULL,                                                            \
		    "build on loop devices backed by sparse files (no confirmation)"               \
	}
#define OPT_LOOP_DIR_ROW                                                                           \
	{                                                                                          \
		"loop-dir", OPT_LOOP_DIR, "DIR",                                                   \
		    "--loop: backing files in DIR (default " SB_LOOP_DIR_DEFAULT                   \
		    "; a tmpfs only when named here)"                                              \
	}
#define OPT_O_ROW                                                                                  \
	{                                                                                          \
		"set", OPT_OVERRIDE, "SECTION.KEY=VALUE",                                          \
		    "override a profile value (-o; matrix.SECTION.KEY=A|B for a matrix)"           \
	}
#define OPT_TURN_ROW                                                                               \
	{                                                                                          \
		"turn", OPT_TURN, "MS",                                                            \
		    "side by side: a phase that every stack can run so (random I/O with "          \
		    "O_DIRECT, one thread, not paced; io_uring drains at each turn's end) runs "   \
		    "on all of them at once, in alternating "                                      \
		    "turns of about MS milliseconds, so that the two sides are milliseconds "      \
		    "apart; the others run whole (default 20; 0: every phase whole)"               \
	}
#define OPT_QUICK_ROW                                                                              \
	{                                                                                          \
		"quick", OPT_QUICK, NULL, "small loop devices and quick workloads (CI)"            \
	}
#define OPT_WIPE_ROW                                                                               \
	{                                                                                          \
		"wipe", OPT_WIPE, NULL,                                                            \
		    "accept devices that carry signatures (they are destroyed)"                    \
	}

#define OPT_ROUNDS_ROW                                                                             \
	{                                                                                          \
		"rounds", OPT_ROUNDS, NULL,                                                        \
		    "build and measure one variant at a time, each round, even under --loop "      \
		    "(by default the variants run side by side there)"                             \
	}

/* Everything plan and run share: profile, variants, devices, plans. */
struct ctx {
	struct opts o;
	char *profile_path;
	struct sb_profile *prof;
	struct sb_pvariant *var;
	size_t n_var;
	struct sb_slot *slots;
	size_t n_slots;
	struct sb_probe *probe;
	struct sb_device **dev; /* per slot (real devices only) */
	struct sb_plan *plans;	/* per variant */
	/* Side by side (session/side.c): every variant's stack built at once,
	 * phases in turns; else rounds, for the reason in layout_why (NULL
	 * when there is nothing to compare). */
	bool side;
	/* Real devices, variants that differ only in mount options: one stack
	 * per round, switched between turns (session/switch.c). */
	bool switched;
	const char *layout_why;
	/* Side by side or switched: the host's round floor (result/floor.h)
	 * as read from the state directory before anything is built, recorded
	 * in the schedule; NULL when none is kept. */
	json_object *floor;
	char *floor_path;
};

void sb_ctx_free(struct ctx *c);
/* Options, profile, devices (checked; enforce: refusals are errors, not
 * warnings), plans. Returns 0, -1 (help printed: exit 0) or an exit code. */
int sb_ctx_setup(struct ctx *c, const struct sb_cmdline *cl, int argc, char **argv, bool enforce);
/* "/dev/sdb (ATA Model, serial X, 1.0G, ssd)" (malloc'ed). */
char *sb_describe_dev(const struct sb_device *d);
/* The listing `plan` prints and `run` shows first: the executor's dry-run. */
void sb_ctx_print_plans(struct ctx *c, FILE *out);
/* Every variant's mount options and mkfs words judged before anything is
 * written (plan.c); what was checked, and what could not be, on notes. 0,
 * or the exit code after reporting (2: one was rejected; 130: *stop). */
int sb_ctx_check_words(struct ctx *c, volatile sig_atomic_t *stop, FILE *notes);
/* The slot names as variables ("ssd" -> "/dev/sdb") of an executor. */
void sb_ctx_set_device_vars(struct ctx *c, struct sb_exec *x);
/* Right before the first write: probe the devices again, check that they
 * are the ones confirmed, and run every check again (exit code, reported). */
int sb_ctx_recheck(struct ctx *c);
