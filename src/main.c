/* stackbench: build a storage stack, benchmark it, tear it down, compare.
 * This file holds the command table, and enforces its flags in one place;
 * every command lives in src/cmd/. */
#include "cmd.h"
#include "util/log.h"
#include "util/suggest.h"

#include <stdbool.h>
#include <string.h>
#include <unistd.h>

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	unsigned flags;
	const char *summary;
};

static const struct cmd commands[] = {
    {"probe", cmd_probe, 0, "list block devices with their class, signatures and verdict"},
    {"plan", cmd_plan, 0, "print every step a run would take, touching nothing"},
    {"run", cmd_run, CMD_NEEDS_ROOT | CMD_DESTRUCTIVE,
     "build the stack, run the workloads, tear down, for every variant"},
    {"bench", cmd_bench, CMD_STOPPABLE, "run workloads in an existing directory"},
    {"teardown", cmd_teardown, CMD_NEEDS_ROOT | CMD_DESTRUCTIVE,
     "undo what an interrupted run left behind, from its journal"},
    {"report", cmd_report, 0, "compare result sets side by side with statistics"},
    {"history", cmd_history, 0, "list recorded runs with change points; import, export"},
    {"list", cmd_list, 0, "list profiles or workloads"},
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: stackbench COMMAND [OPTIONS] [ARGS]\n\n"
		   "Build a storage stack (md, LVM, partitions, file system) on real or loop\n"
		   "devices, benchmark it, tear it down, and compare variants.\n\nCommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nRun 'stackbench COMMAND --help' for a command's options.\n"
		   "Exit codes: 0 ok, 1 failed, 2 usage or profile error, 3 refused, 130 "
		   "interrupted.\n");
}

static bool wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return true;
	}
	return false;
}

/* Like git: a program that could not write its output must not exit 0. */
static int close_stdout(int code)
{
	if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
		if (errno != EPIPE)
			sb_error_errno(-errno, "write error on standard output");
		return code ? code : SB_EXIT_FAILED;
	}
	return code;
}

/* As git's run_builtin: what a command's flags ask for is done here, in
 * this order, and the command itself does none of it. --help is answered
 * by anyone, anywhere. The hooks come before the state directory is even
 * looked at: a refused run must not touch the default one. */
static int run_command(const struct cmd *c, int argc, char **argv)
{
	bool help = wants_help(argc, argv);
	int r;

	if ((c->flags & CMD_NEEDS_ROOT) && geteuid() != 0 && !help) {
		sb_error("%s: must be run as root (it builds and destroys block devices)", c->name);
		return SB_EXIT_USAGE;
	}
	if ((c->flags & CMD_DESTRUCTIVE) && !help) {
		r = sb_cmd_check_hooks(c->name);
		if (r == 0)
			r = sb_cmd_check_state_dir();
		if (r)
			return r;
	}
	/* From here on an interruption ends in a teardown, not a dead process. */
	sb_cmd_catch_signals(c->flags);
	return c->fn(argc, argv);
}

int main(int argc, char **argv)
{
	const char *names[ARRAY_SIZE(commands)];
	const char *sug;

	if (argc < 2) {
		usage(stderr);
		return SB_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return close_stdout(0);
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("stackbench %s\n", SB_VERSION);
		return close_stdout(0);
	}

	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		names[i] = commands[i].name;
		if (strcmp(argv[1], commands[i].name) == 0)
			return close_stdout(run_command(&commands[i], argc - 1, argv + 1));
	}

	sug = sb_suggest(argv[1], names, ARRAY_SIZE(commands));
	if (argv[1][0] == '-')
		sb_error("unknown option '%s'", argv[1]);
	else if (sug)
		sb_error("unknown command '%s' (did you mean '%s'?)", argv[1], sug);
	else
		sb_error("unknown command '%s'", argv[1]);
	fprintf(stderr, "Try 'stackbench --help' for more information.\n");
	return SB_EXIT_USAGE;
}
