/* The subcommands. Each returns the process exit code (see DESIGN.md). */
#pragma once

#include "util/exitcode.h"

#include <signal.h>

int cmd_probe(int argc, char **argv);	 /* src/cmd/probe.c */
int cmd_plan(int argc, char **argv);	 /* src/cmd/plan.c */
int cmd_run(int argc, char **argv);	 /* src/cmd/run.c */
int cmd_teardown(int argc, char **argv); /* src/cmd/teardown.c */
int cmd_bench(int argc, char **argv);	 /* src/cmd/bench.c */
int cmd_report(int argc, char **argv);	 /* src/cmd/report.c */
int cmd_list(int argc, char **argv);	 /* src/cmd/list.c */
int cmd_history(int argc, char **argv);	 /* src/cmd/history.c */

/* A command's flags in main.c's table, enforced there before it runs
 * (src/cmd/enter.c), never by the command itself. */
enum {
	/* refused early, with a clear message, when not root */
	CMD_NEEDS_ROOT = 1 << 0,
	/* writes to block devices: test hooks refused, the state directory
	 * checked, and every ending signal turned into sb_cmd_stop (so that it
	 * tears down) */
	CMD_DESTRUCTIVE = 1 << 1,
	/* SIGINT and SIGTERM set sb_cmd_stop: the command winds down and
	 * exits 130 */
	CMD_STOPPABLE = 1 << 2,
};

/* Set by the signals a command's flags catch: sb_cmd_stop on one that ends
 * the command, sb_cmd_wl_stop on those and on the workloads' alarm. */
extern volatile sig_atomic_t sb_cmd_stop, sb_cmd_wl_stop;
void sb_cmd_catch_signals(unsigned flags);
/* Test hooks never weaken a real run: STACKBENCH_PROBE_ROOT is refused by
 * run and teardown, STACKBENCH_FAIL_STEP by run unless the state directory
 * is a test's own. 0, or the exit code after saying why. */
int sb_cmd_check_hooks(const char *cmd);
/* The state directory, when it exists, must be trusted (not a symlink, ours,
 * not writable by others): 0, or the exit code after saying why. */
int sb_cmd_check_state_dir(void);
