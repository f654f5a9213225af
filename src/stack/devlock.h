/* Device locks (devlock.c): an exclusive flock on each whole disk a run
 * writes, held for the run's life (udev honours it, and it keeps two runs
 * apart). */
#pragma once

#include "probe/probe.h"

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#define SB_DEVLOCK_MAX 65

struct sb_devlock {
	int fd[SB_DEVLOCK_MAX];
	char path[SB_DEVLOCK_MAX][300]; /* the whole disk locked */
	size_t n;
};
void sb_devlock_init(struct sb_devlock *l);
void sb_devlock_release(struct sb_devlock *l);

/* udevd probes a disk (blkid) under a shared flock after every close that
 * wrote to it, so a run started right after a teardown can find the lock
 * taken for a moment: wait that long, but not for another run. */
#define SB_DEVLOCK_WAIT_MS 5000

/* Locks the whole disk of d (a second partition of a locked disk is a
 * no-op). Returns 0; -EBUSY when another stackbench run (one holding a run
 * lock in state_dir) holds it; -ETIMEDOUT when another program held it for
 * wait_ms; -EINTR when *stop became set; another -errno. *path names the
 * whole disk. */
int sb_devlock_take(struct sb_devlock *l, const struct sb_device *d, const char *state_dir,
		    unsigned wait_ms, volatile sig_atomic_t *stop, const char **path);

/* Pids that hold a flock on the inode dev:ino, from /proc/locks. */
size_t sb_flock_holders(dev_t dev, ino_t ino, pid_t *pids, size_t max);
