/* What main.c's command table enforces for a command's flags before the
 * command runs, in one place (as git's run_builtin does): the test hooks a
 * destructive command refuses, its state directory's trust, and the
 * signals that end in a teardown instead of a dead process. */
#include "cmd.h"
#include "stack/state.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/safefile.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile sig_atomic_t sb_cmd_stop, sb_cmd_wl_stop;

static void on_stop(int sig)
{
	sb_cmd_stop = 1;
	sb_cmd_wl_stop = 1;
}

/* The workloads' time limit (alarm() in the session): that workload ends,
 * the run goes on. */
static void on_alarm(int sig)
{
	sb_cmd_wl_stop = 1;
}

/* Which signals a command with these flags catches. A destructive command
 * tears down on a closed terminal, a closed pipe (run ... | head) and
 * SIGQUIT too: whatever ends it must not leave a stack built. */
static const struct {
	int sig;
	unsigned flags;
	void (*handler)(int);
} catch_rows[] = {
    {SIGINT, CMD_STOPPABLE | CMD_DESTRUCTIVE, on_stop},
    {SIGTERM, CMD_STOPPABLE | CMD_DESTRUCTIVE, on_stop},
    {SIGHUP, CMD_DESTRUCTIVE, on_stop},
    {SIGPIPE, CMD_DESTRUCTIVE, on_stop},
    {SIGQUIT, CMD_DESTRUCTIVE, on_stop},
    {SIGALRM, CMD_DESTRUCTIVE, on_alarm},
};

void sb_cmd_catch_signals(unsigned flags)
{
	for (size_t i = 0; i < ARRAY_SIZE(catch_rows); i++) {
		struct sigaction sa = {.sa_handler = catch_rows[i].handler};
		if (!(catch_rows[i].flags & flags))
			continue;
		sigemptyset(&sa.sa_mask);
		sigaction(catch_rows[i].sig, &sa, NULL);
	}
}

int sb_cmd_check_state_dir(void)
{
	const char *sd = sb_state_dir();
	int fd = sb_dir_open_trusted(sd, false, 0);

	/* Not there yet: the run that needs it makes it, checked the same way
	 * (bad input must not leave a directory behind). */
	if (fd == -ENOENT)
		return 0;
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	/* A journal in a directory others can write could name anything. */
	sb_error("%s: %s", sd, sb_trust_text(fd));
	return fd == -ELOOP || fd == -EPERM || fd == -EACCES ? SB_EXIT_REFUSED : SB_EXIT_FAILED;
}

int sb_cmd_check_hooks(const char *cmd)
{
	const char *root = getenv("STACKBENCH_PROBE_ROOT");
	const char *sd = getenv("STACKBENCH_STATE_DIR");
	char real[PATH_MAX] = "";

	/* The probe would take its facts from a fake tree while the steps act
	 * on the real devices: a mounted device would pass every check. */
	if (root && *root) {
		sb_error("%s: refusing: STACKBENCH_PROBE_ROOT is set (%s); it is a test hook of "
			 "'probe' only (unset it)",
			 cmd, root);
		return SB_EXIT_USAGE;
	}
	/* Fault injection makes a step fail and the run tear down: tests need
	 * it (on loop devices and in the VM), a real run never. A test is told
	 * by its own state directory. */
	if (sd && !realpath(sd, real)) /* not there yet: its name as given */
		snprintf(real, sizeof(real), "%.*s", (int)strcspn(sd, "\0"), sd);
	for (size_t n = strlen(real); sd && n > 1 && real[n - 1] == '/'; n--)
		real[n - 1] = '\0';
	static const char *const hooks[] = {"STACKBENCH_FAIL_STEP", "STACKBENCH_KILL_STEP",
					    "STACKBENCH_SKEW_QUEUE", "STACKBENCH_DELAY"};
	for (size_t k = 0; k < ARRAY_SIZE(hooks); k++) {
		const char *v = getenv(hooks[k]);
		if (strcmp(cmd, "run") == 0 && v && *v &&
		    (!sd || !*sd || strcmp(real, SB_STATE_DIR_DEFAULT) == 0)) {
			sb_error(
			    "run: refusing: %s is a test hook, honoured only with a test's own "
			    "STACKBENCH_STATE_DIR (unset it)",
			    hooks[k]);
			return SB_EXIT_USAGE;
		}
	}
	return 0;
}
