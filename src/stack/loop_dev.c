/* Loop devices themselves, for the loop layer (loop.c): attaching one to
 * an image with direct I/O, checking that direct I/O works through it, and
 * clearing what an earlier user of the node left (a read-only flag, a
 * read-ahead). */
#include "stack/loop-int.h"
#include "util/log.h"
#include "util/macro.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* A read-ahead stays with a loop device after it is detached: an earlier
 * user's (another run's queue.read-ahead-kb, a test's) would change what
 * buffered reads cost here, and side by side would copy it to every stack.
 * Each starts at what the kernel gives a new one; the queue layer then
 * sets the profile's. */
int sb_loop_reset_read_ahead(struct sb_exec *x, const char *dev)
{
	char path[PATH_MAX], was[32] = "";
	snprintf(path, sizeof(path), "/sys/block/%s/queue/read_ahead_kb", dev + 5);
	if (sb_sys_read(path, was, sizeof(was)) < 0 || strcmp(was, SB_LOOP_READ_AHEAD_KB) == 0)
		return 0;
	int r = sb_sys_write(path, SB_LOOP_READ_AHEAD_KB);
	if (r < 0)
		return sb_exec_fail(x, r, "%s: cannot set read_ahead_kb: %s", dev, strerror(-r));
	sb_exec_log(x, "%s: read-ahead %s KiB, left by an earlier user: set to %s KiB\n", dev, was,
		    SB_LOOP_READ_AHEAD_KB);
	return 0;
}

int sb_loop_attach(int file_fd, bool dio, char *dev, size_t len)
{
	_cleanup_close_ int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return negerrno();
	/* Another program may take the free device first: try again. */
	for (int tries = 0; tries < 20; tries++) {
		int n = ioctl(ctl, LOOP_CTL_GET_FREE);
		_cleanup_close_ int fd = -1;
		struct loop_config cfg = {.fd = (unsigned)file_fd};
		int r;

		if (n < 0)
			return negerrno();
		snprintf(dev, len, "/dev/loop%d", n);
		r = sb_wait_node(dev, 2000, sb_udev_running());
		if (r < 0)
			return r;
		fd = open(dev, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			return negerrno();
		cfg.info.lo_flags = LO_FLAGS_PARTSCAN | (dio ? LO_FLAGS_DIRECT_IO : 0);
		if (ioctl(fd, LOOP_CONFIGURE, &cfg) == 0)
			return 0;
		if (errno == EBUSY)
			continue;
		if (errno != EINVAL && errno != ENOTTY)
			return negerrno();
		/* Kernels before 5.8, or direct I/O refused at configure time: the
		 * two-call way (direct I/O is then asked for afterwards). */
		if (ioctl(fd, LOOP_SET_FD, file_fd) < 0) {
			if (errno == EBUSY)
				continue;
			return negerrno();
		}
		cfg.info.lo_flags &= ~(unsigned)LO_FLAGS_DIRECT_IO;
		if (ioctl(fd, LOOP_SET_STATUS64, &cfg.info) < 0) {
			int e = negerrno();
			ioctl(fd, LOOP_CLR_FD, 0);
			return e;
		}
		return 0;
	}
	return -EBUSY;
}

bool sb_loop_dio(const char *dev)
{
	char p[96], buf[8];
	snprintf(p, sizeof(p), "/sys/block/%s/loop/dio", dev + 5);
	return sb_sys_read(p, buf, sizeof(buf)) == 0 && strcmp(buf, "1") == 0;
}

/* Does direct I/O through the device work? A file system can take
 * O_DIRECT and fail every such I/O: overlayfs over tmpfs (the VM runner's
 * root) does, and mdadm then says only "Failed to write metadata". One
 * aligned read of the first block (the new image's zeros) tells. */
int sb_loop_dio_works(const char *dev)
{
	_cleanup_close_ int fd = open(dev, O_RDONLY | O_DIRECT | O_CLOEXEC);
	void *buf = NULL;
	int r = 0;
	if (fd < 0)
		return negerrno();
	if (posix_memalign(&buf, 4096, 4096) != 0)
		return -ENOMEM;
	errno = 0;
	if (pread(fd, buf, 4096, 0) != 4096)
		r = errno ? negerrno() : -EIO;
	free(buf);
	return r;
}

/* A read-only flag on the node that an earlier user left (blockdev
 * --setro outlives the loop device it was set on: a test killed before
 * its cleanup left one) would fail every write to our device with EPERM,
 * mkfs's first. The device is ours now, attached read-write to our own
 * image: the flag is cleared, and run.log says so. 0 or -errno. */
int sb_loop_clear_stale_ro(struct sb_exec *x, const char *dev)
{
	_cleanup_close_ int fd = open(dev, O_RDONLY | O_CLOEXEC);
	int ro = 0, rw = 0;

	if (fd < 0 || ioctl(fd, BLKROGET, &ro) < 0)
		return sb_exec_fail(x, negerrno(), "%s: cannot read its read-only flag: %s", dev,
				    strerror(errno));
	if (!ro)
		return 0;
	if (ioctl(fd, BLKROSET, &rw) < 0)
		return sb_exec_fail(x, negerrno(),
				    "%s: read-only (blockdev --setro left on the node by an "
				    "earlier user), and cannot be set read-write: %s",
				    dev, strerror(errno));
	sb_exec_log(x,
		    "%s: was read-only (blockdev --setro left on the node by an earlier "
		    "user): set read-write for our image\n",
		    dev);
	return 0;
}
