/* Running external programs: always an argv array through posix_spawn, never
 * a shell; stdin is /dev/null; output captured; optional time limit. */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>

struct sb_child {
	/* in */
	const char *const *argv;     /* argv[0] is looked up in PATH */
	const char *cwd;	     /* NULL: inherit */
	char *const *envp;	     /* NULL: inherit environ */
	bool capture;		     /* collect stdout into out, stderr into err */
	int log_fd;		     /* >= 0: also append the child's output here */
	unsigned timeout_ms;	     /* 0: none; then SIGTERM, SIGKILL 5 s later */
	volatile sig_atomic_t *stop; /* when it becomes non-zero, the child is stopped too */
	/* out */
	char *out;
	size_t out_len;
	char *err;
	size_t err_len;
	int status;	/* exit code, or 128 + signal number */
	bool timed_out; /* killed by the time limit */
	bool stopped;	/* killed because *stop was set */
	double wall_s;
	struct rusage ru;
};

/* Defaults for children that set no timeout_ms or stop of their own (the
 * stack steps): a time limit, and a flag that stops them (Ctrl-C during a
 * build). Process-wide; 0 and NULL (the initial values) for none. */
void sb_spawn_defaults(unsigned timeout_ms, volatile sig_atomic_t *stop);

/* Start, wait, collect. Returns 0 when the program ran (look at status),
 * -ENOENT when it does not exist, another -errno when it could not start. */
int sb_spawn_run(struct sb_child *c);
void sb_child_release(struct sb_child *c);

/* Convenience: run argv, capture, return its exit status (>= 0) or -errno. */
int sb_run_argv(const char *const *argv, char **out);

/* Is the program in PATH? */
bool sb_have_program(const char *name);
/* Where PATH finds the executable name (malloc'ed), or NULL. */
char *sb_program_path(const char *name);

/* "mdadm --create /dev/md0 '--name=a b'": a human-readable rendering of argv for
 * plans and logs (quoted as a shell would, but never passed to one). */
char *sb_argv_format(const char *const *argv);
