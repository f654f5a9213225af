/* The subcommands. Each returns the process exit code (see DESIGN.md). */
#pragma once

enum sb_exit {
	SB_EXIT_OK = 0,
	SB_EXIT_FAILED = 1,  /* a step or workload failed (after teardown) */
	SB_EXIT_USAGE = 2,   /* usage or profile error */
	SB_EXIT_REFUSED = 3, /* refused by a safety check */
	SB_EXIT_INTERRUPTED = 130,
};

int cmd_probe(int argc, char **argv);    /* src/cmd/probe.c */
int cmd_plan(int argc, char **argv);     /* src/cmd/ */
int cmd_run(int argc, char **argv);      /* src/cmd/ */
int cmd_teardown(int argc, char **argv); /* src/cmd/ */
int cmd_bench(int argc, char **argv);    /* src/cmd/bench.c */
int cmd_report(int argc, char **argv);   /* src/cmd/report.c */
int cmd_list(int argc, char **argv);     /* src/main.c */
int cmd_history(int argc, char **argv);  /* src/cmd/history.c */

/* For `list`: print the registries. */
int sb_list_profiles(void);  /* src/profile/ */
int sb_list_workloads(void); /* src/workload/ */
