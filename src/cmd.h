/* The subcommands. Each returns the process exit code (see DESIGN.md). */
#pragma once

#include "util/exitcode.h"

int cmd_probe(int argc, char **argv);    /* src/cmd/probe.c */
int cmd_plan(int argc, char **argv);     /* src/cmd/ */
int cmd_run(int argc, char **argv);      /* src/cmd/ */
int cmd_teardown(int argc, char **argv); /* src/cmd/ */
int cmd_bench(int argc, char **argv);    /* src/cmd/bench.c */
int cmd_report(int argc, char **argv);   /* src/cmd/report.c */
int cmd_list(int argc, char **argv);     /* src/main.c */
int cmd_history(int argc, char **argv);  /* src/cmd/history.c */
