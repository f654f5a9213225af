/* Command-line options from one table per command: the same table drives
 * parsing (getopt_long), --help, and "did you mean" for unknown options.
 * --help, --quiet and --verbose are added to every table. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

struct sb_opt {
	const char *name; /* long name without "--" */
	int key;	  /* short option letter, or a value >= 256 for long-only */
	const char *arg;  /* metavar ("A,B,C") when it takes an argument, else NULL */
	const char *help;
};

struct sb_cmdline {
	const char *cmd;   /* "run" */
	const char *usage; /* "PROFILE [--devices A,B,C | --loop] ..." */
	const char *about; /* one line on what the command does */
	const struct sb_opt *opts;
	/* Called for each option; return 0, or an exit code (2) after printing why. */
	int (*on_opt)(int key, const char *arg, void *ud);
	void *ud;
};

/* Parses argv[1..] (argv[0] is the command name). Positional arguments are
 * left in *rest / *n_rest (pointers into argv). Returns -1 when --help was
 * shown (exit 0), 0 on success, or the exit code (2) after an error. */
int sb_opt_parse(const struct sb_cmdline *cl, int argc, char **argv, char ***rest, int *n_rest);
void sb_opt_help(FILE *f, const struct sb_cmdline *cl);
/* "stackbench CMD: MSG" on stderr plus "Try 'stackbench CMD --help'.", returns 2. */
int sb_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
