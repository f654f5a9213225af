/* Loop devices for --loop: a sparse file in the run directory, attached
 * with LOOP_CONFIGURE (partition scanning on), its rotational flag set from
 * the role. Undo finds the device by its backing file, so it works even
 * when the run died between attaching and journaling. */
#include "stack/stack.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/size.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

static int describe(json_object *a, char **what, char **undo)
{
	const char *f = sb_arg_str(a, "file"), *var = sb_arg_str(a, "var");
	uint64_t sz = strtoull(sb_arg_str(a, "size") ?: "0", NULL, 10);
	char buf[16];

	if (asprintf(what,
		     "truncate -s %s %s; losetup --find --show --partscan %s -> ${%s}; "
		     "rotational=%s",
		     sb_format_size(sz, buf, sizeof(buf)), f, f, var,
		     sb_arg_str(a, "rotational")) < 0 ||
	    asprintf(undo, "losetup -d <device of %s>; rm %s", f, f) < 0)
		return -ENOMEM;
	return 0;
}

static int attach(int file_fd, char *dev, size_t len)
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
		cfg.info.lo_flags = LO_FLAGS_PARTSCAN;
		if (ioctl(fd, LOOP_CONFIGURE, &cfg) == 0)
			return 0;
		if (errno == EBUSY)
			continue;
		if (errno != EINVAL && errno != ENOTTY)
			return negerrno();
		/* Kernels before 5.8: the two-call way. */
		if (ioctl(fd, LOOP_SET_FD, file_fd) < 0) {
			if (errno == EBUSY)
				continue;
			return negerrno();
		}
		if (ioctl(fd, LOOP_SET_STATUS64, &cfg.info) < 0) {
			int e = negerrno();
			ioctl(fd, LOOP_CLR_FD, 0);
			return e;
		}
		return 0;
	}
	return -EBUSY;
}

static int run(json_object *a, json_object *result, struct sb_exec *x)
{
	const char *file = sb_arg_str(a, "file"), *var = sb_arg_str(a, "var");
	uint64_t size = strtoull(sb_arg_str(a, "size") ?: "0", NULL, 10);
	_cleanup_close_ int fd = -1;
	char dev[64], path[128];
	int r;

	fd = open(file, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return sb_exec_fail(x, negerrno(), "%s: cannot create: %s", file, strerror(errno));
	if (ftruncate(fd, (off_t)size) < 0)
		return sb_exec_fail(x, negerrno(), "%s: cannot size: %s", file, strerror(errno));
	r = attach(fd, dev, sizeof(dev));
	if (r < 0)
		return sb_exec_fail(x, r, "%s: cannot attach a loop device: %s", file,
				    strerror(-r));
	sb_exec_log(x, "%s attached as %s\n", file, dev);
	snprintf(path, sizeof(path), "/sys/block/%s/queue/rotational", dev + 5);
	r = sb_sys_write(path, sb_arg_str(a, "rotational"));
	if (r < 0)
		return sb_exec_fail(x, r, "%s: cannot set rotational: %s", dev, strerror(-r));
	sb_arg_set(result, "dev", dev);
	sb_result_var(result, var, dev);
	return 0;
}

/* Loop devices whose backing file is path ("(deleted)" when removed). */
static int for_each_backed_by(const char *file, int (*fn)(const char *dev, void *ud), void *ud)
{
	_cleanup_(closedirp) DIR *d = opendir("/sys/block");
	struct dirent *e;
	int r = 0;

	if (!d)
		return negerrno();
	while ((e = readdir(d))) {
		char p[300], buf[4096], dev[300];
		if (strncmp(e->d_name, "loop", 4) != 0)
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file", e->d_name);
		if (sb_sys_read(p, buf, sizeof(buf)) < 0)
			continue;
		size_t n = strlen(file);
		if (strncmp(buf, file, n) != 0 || (buf[n] && strcmp(buf + n, " (deleted)") != 0))
			continue;
		snprintf(dev, sizeof(dev), "/dev/%s", e->d_name);
		int k = fn(dev, ud);
		if (k < 0 && !r)
			r = k;
	}
	return r;
}

static int detach(const char *dev, void *ud)
{
	struct sb_exec *x = ud;
	_cleanup_close_ int fd = -1;
	int r = sb_wait_node(dev, 2000, false);
	if (r < 0)
		return r;
	fd = open(dev, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return negerrno();
	/* EBUSY right after an unmount can be transient. */
	for (int i = 0; i < 50; i++) {
		if (ioctl(fd, LOOP_CLR_FD, 0) == 0 || errno == ENXIO) {
			/* A device still open somewhere is only marked to detach on
			 * its last close (ours counts too): wait for it to go. */
			char p[96], buf[16];
			close(TAKE_FD(fd));
			snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file", dev + 5);
			for (int k = 0; k < 100 && sb_sys_read(p, buf, sizeof(buf)) == 0; k++)
				usleep(20000);
			if (sb_sys_read(p, buf, sizeof(buf)) == 0)
				return -EBUSY;
			sb_exec_log(x, "%s detached\n", dev);
			return 0;
		}
		if (errno != EBUSY)
			break;
		struct timespec ts = {0, 100 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	return negerrno();
}

static int undo(json_object *a, json_object *result, struct sb_exec *x)
{
	const char *file = sb_arg_str(a, "file");
	int r = for_each_backed_by(file, detach, x);
	if (r < 0)
		return sb_exec_fail(x, r, "%s: cannot detach its loop device: %s", file,
				    strerror(-r));
	if (unlink(file) < 0 && errno != ENOENT)
		return sb_exec_fail(x, negerrno(), "%s: cannot remove: %s", file, strerror(errno));
	return 0;
}

const struct sb_layer sb_layer_loop = {
    .kind = "loop",
    .describe = describe,
    .run = run,
    .undo = undo,
    .required = {"file"},
};
