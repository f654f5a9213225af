/* Device locking (devlock.c), one unit for both kinds of claim on a disk:
 * an exclusive flock on each whole disk a run writes, held for the run's
 * life (udev honours it, and it keeps two runs apart), and the O_EXCL open
 * that proves nobody else holds a device before a step writes it, with
 * who the holder is when it fails. */
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
 * taken for a moment: wait that long, but not for another run. In a guest
 * under emulation on a busy host, its probes after LVM's teardown took
 * more than 5 s. */
#define SB_DEVLOCK_WAIT_MS 15000

/* Locks the whole disk of d (a second partition of a locked disk is a
 * no-op). Returns 0; -EBUSY when another stackbench run (one holding a run
 * lock in state_dir) holds it; -ETIMEDOUT when another program held it for
 * wait_ms; -EINTR when *stop became set; another -errno. *path names the
 * whole disk. */
int sb_devlock_take(struct sb_devlock *l, const struct sb_device *d, const char *state_dir,
		    unsigned wait_ms, volatile sig_atomic_t *stop, const char **path);

/* Pids that hold a flock on the inode dev:ino, from /proc/locks. */
size_t sb_flock_holders(dev_t dev, ino_t ino, pid_t *pids, size_t max);

/* ---- exclusive opens: nobody else holds it ----
 * An O_EXCL open of a block device fails with EBUSY while a mount, an md
 * array, a dm table or another program's exclusive open claims it (the
 * kernel's claim, not a convention like flock). */

/* Proves that no other program holds dev by opening it O_EXCL. With fd,
 * the claim stays open in *fd until the caller closes it, just before its
 * tool claims the device; without, it is closed at once. 0; -EBUSY with
 * *why (when why is given: "refused: /dev/X is held open exclusively by
 * another program (used by md127)") naming the holder when it can be
 * found; another -errno ("/dev/X: cannot open: ..."). */
int sb_devlock_excl_open(const char *dev, int *fd, char **why);
/* Who uses dev, from what the kernel shows: "used by md127" (holders in
 * sysfs), "mounted on /x" (mountinfo), "pid 42 (mkfs.xfs)" (processes that
 * have it open: which open is the exclusive one cannot be told, fdinfo
 * drops O_EXCL), comma-separated; NULL when none can be found or dev is no
 * block device (malloc'ed). */
char *sb_devlock_holders(const char *dev);
/* The whole disk of a partition ("/dev/loop3" for "/dev/loop3p1"), or NULL
 * for a whole device (or no block device). */
char *sb_devlock_whole_disk(const char *dev);
