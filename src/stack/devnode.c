/* Device nodes and sysfs: wait for a new block device to show up, and create
 * its /dev node from /sys/class/block/NAME/dev when no udevd does. */
#include "stack/stack.h"
#include "stack/devlock.h"
#include "util/macro.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <libudev.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

bool sb_udev_running(void)
{
	return access("/run/udev/control", F_OK) == 0;
}

int sb_sys_read(const char *path, char *buf, size_t len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	if (fd < 0)
		return negerrno();
	n = read(fd, buf, len - 1);
	if (n < 0)
		return negerrno();
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int sb_sys_write(const char *path, const char *value)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(value);
	if (fd < 0)
		return negerrno();
	if (write(fd, value, len) != (ssize_t)len)
		return negerrno();
	return 0;
}

char *sb_sys_name(const char *devpath)
{
	char real[PATH_MAX];
	const char *src = realpath(devpath, real) ? real : devpath;
	_cleanup_free_ char *copy = strdup(src);
	return copy ? strdup(basename(copy)) : NULL;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* Like `udevadm settle`: wait until udevd has handled every event, so that
 * its links and permissions are in place too. */
void sb_udev_settle(unsigned timeout_ms)
{
	struct udev *u = udev_new();
	struct udev_queue *q = u ? udev_queue_new(u) : NULL;
	for (unsigned waited = 0; q && waited < timeout_ms; waited += 20) {
		if (udev_queue_get_queue_is_empty(q))
			break;
		usleep(20000);
	}
	udev_queue_unref(q);
	udev_unref(u);
}

/* Does this process hold the flock on devpath's whole disk (the run's
 * device lock, devlock.c)? udevd then defers the events of that disk and
 * its partitions until the lock goes (systemd's block device locking):
 * waiting for udev on them, or for its queue to drain, waits out the
 * timeout for nothing. */
bool sb_udev_defers(const char *devpath)
{
	_cleanup_free_ char *whole = sb_devlock_whole_disk(devpath);
	pid_t pids[16];
	struct stat st;
	size_t n;

	if (stat(whole ? whole : devpath, &st) < 0 || !S_ISBLK(st.st_mode))
		return false;
	n = sb_flock_holders(st.st_dev, st.st_ino, pids, ARRAY_SIZE(pids));
	for (size_t i = 0; i < n; i++)
		if (pids[i] == getpid())
			return true;
	return false;
}

/* Waits (bounded) until udevd has handled the device rdev: its rules ran
 * and its links are there. That device's, not the whole queue's: while a
 * run holds its disks flock'ed, their events wait in the queue, and it
 * does not drain before the run ends. */
static void udev_wait_initialized(dev_t rdev, unsigned timeout_ms)
{
	struct udev *u = udev_new();
	for (unsigned waited = 0; u; waited += 20) {
		struct udev_device *d = udev_device_new_from_devnum(u, 'b', rdev);
		bool done = d && udev_device_get_is_initialized(d) > 0;
		udev_device_unref(d);
		if (done || waited >= timeout_ms)
			break;
		sleep_ms(20);
	}
	udev_unref(u);
}

/* Settles udevd's queue for dev's sake, unless udevd defers dev's events
 * (this run holds its disk), when the queue would not drain before the run
 * ends. Returns whether it deferred. */
bool sb_udev_settle_for(const char *dev, unsigned timeout_ms)
{
	if (sb_udev_defers(dev))
		return true;
	sb_udev_settle(timeout_ms);
	return false;
}

/* Waits (bounded) until udevd has handled devpath (a node or a link to
 * one), unless udevd defers its events: what a step made is there for
 * udev's rules, and its links for the next step. */
void sb_udev_wait_dev(const char *devpath, unsigned timeout_ms)
{
	unsigned waited = 0;
	struct stat st;
	int r;

	/* A link udevd makes (/dev/VG/LV, /dev/md/NAME) may trail the step. */
	while ((r = stat(devpath, &st)) < 0 && errno == ENOENT && waited < timeout_ms) {
		sleep_ms(20);
		waited += 20;
	}
	if (r < 0 || !S_ISBLK(st.st_mode) || sb_udev_defers(devpath))
		return;
	udev_wait_initialized(st.st_rdev, timeout_ms - waited);
}

/* Returns 1 when it created the node, 0 when it was there, or -errno. */
int sb_wait_node(const char *devpath, unsigned timeout_ms, bool udev)
{
	_cleanup_free_ char *copy = strdup(devpath);
	const char *name;
	char sys[PATH_MAX], buf[32];
	unsigned waited = 0;

	if (!copy)
		return -ENOMEM;
	name = basename(copy);
	snprintf(sys, sizeof(sys), "/sys/class/block/%s/dev", name);
	for (;;) {
		unsigned maj, min;
		struct stat st;

		if (sb_sys_read(sys, buf, sizeof(buf)) == 0 &&
		    sscanf(buf, "%u:%u", &maj, &min) == 2) {
			if (stat(devpath, &st) == 0) {
				if (S_ISBLK(st.st_mode) && st.st_rdev == makedev(maj, min)) {
					if (udev && !sb_udev_defers(devpath))
						udev_wait_initialized(
						    st.st_rdev,
						    timeout_ms > waited ? timeout_ms - waited : 0);
					return 0;
				}
				/* A stale node of an earlier device by that name. */
				if (!udev && S_ISBLK(st.st_mode) && unlink(devpath) < 0)
					return negerrno();
			}
			/* udevd creates the node itself; give it half the time. */
			if (!udev || waited >= timeout_ms / 2) {
				if (mknod(devpath, S_IFBLK | 0600, makedev(maj, min)) == 0)
					return 1;
				if (errno != EEXIST)
					return negerrno();
			}
		}
		if (waited >= timeout_ms)
			return -ETIMEDOUT;
		sleep_ms(20);
		waited += 20;
	}
}
