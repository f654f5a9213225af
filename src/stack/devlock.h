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

/* The proof that nobody else holds path: an O_EXCL open (closed again at
 * once, so that the step's own tool can make its claim). 0, -EBUSY when
 * another program (or a mount, md, dm) holds it, another -errno. */
int sb_devlock_excl_check(const char *path);
/* Who holds the device name (major:minor devno): kernel holders from
 * /sys/class/block/NAME/holders and processes with it open (from /proc/PID/fd;
 * which open is the exclusive one cannot be told), as "pid 123 (python3)",
 * comma-separated;
 * NULL when none can be found (malloc'ed). */
char *sb_devlock_holders(const char *name, dev_t devno);
