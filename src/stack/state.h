/* Run state (state.c): the state directory, one directory per run with its
 * lock and journal, and the helpers that name and create them. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

struct sb_runstate {
	char *run_id, *run_dir, *journal, *results;
	int lock_fd, log_fd;
	unsigned fail_step;
	unsigned kill_step; /* STACKBENCH_KILL_STEP: die by SIGKILL after step N ran */
	bool udev;
};
#define SB_RUNSTATE_INIT                                                                           \
	{                                                                                          \
		.lock_fd = -1, .log_fd = -1                                                        \
	}

#define SB_STATE_DIR_DEFAULT "/var/lib/stackbench"
/* Set to the run id in the run's own environment once its directory
 * exists: every process it starts (workloads and what they start)
 * inherits it, which is how teardown tells the run's processes from
 * others that use its mount. */
#define SB_RUN_ENV "STACKBENCH_RUN_ID"

/* $STACKBENCH_STATE_DIR, or the default. */
const char *sb_state_dir(void);
/* Opens (creating it) the state directory, checked: not a symlink, the
 * caller's, not writable by group or others. The fd, or -errno with *why
 * saying what is wrong. */
int sb_state_open(const char **why);
int sb_mkdir_p(const char *path, mode_t mode);
/* UTC time: 0 "20261130-054800" (run ids), 1 "20261130T054800Z" (result
 * directories), 2 ISO 8601 (malloc'ed). */
char *sb_utc_stamp(int form);

/* Is name a run id as sb_runstate_create makes them ("20261130-054800-PID")?
 * Anything else in the state directory (lost+found of a state directory
 * that is a file system of its own, a user's notes) is not a run. */
bool sb_run_id_valid(const char *name);

/* Creates <state>/<run-id>/ with its lock taken before it is visible under
 * that name, and names the journal. Returns 0, or -errno (for the state
 * directory, see sb_trust_text) with *what naming the path that failed. */
int sb_runstate_create(struct sb_runstate *rs, const char **what);
/* Takes the lock of the run in run_dir without waiting (teardown): the fd,
 * -EWOULDBLOCK when a live run holds it, another -errno. */
int sb_runstate_lock(const char *run_dir);
/* Removes the run directory unless its journal says something is left.
 * 0 or -errno. */
int sb_runstate_remove_dir(struct sb_runstate *rs);
/* Closes and frees everything (not the directory). */
void sb_runstate_release(struct sb_runstate *rs);
