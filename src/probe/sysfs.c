/* Facts of one block device from sysfs, with udev's properties (model,
 * serial, bus) taken first when udev has a database for it. Without udevd
 * (containers, the VM, this host) sysfs is all there is. */
#include "probe/probe-internal.h"
#include "util/macro.h"
#include "util/parse.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <libudev.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

int sb_sysfs_read(const char *dir, const char *attr, char **out)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_close_ int fd = -1;
	char buf[4096];
	ssize_t n;

	if (asprintf(&path, "%s/%s", dir, attr) < 0)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return negerrno();
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		return negerrno();
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		n--;
	buf[n] = 0;
	*out = strdup(buf);
	return *out ? 0 : -ENOMEM;
}

static int read_u64(const char *dir, const char *attr, uint64_t *v)
{
	_cleanup_free_ char *s = NULL;
	char *end;
	int r = sb_sysfs_read(dir, attr, &s);

	if (r < 0)
		return r;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	return 0;
}

/* A sysfs text value worth showing: not empty, and not virtio's PCI vendor
 * id ("0x1af4"), which is no vendor name. */
static char *nonempty(char *s)
{
	if (s && (!*s || strncmp(s, "0x", 2) == 0)) {
		free(s);
		return NULL;
	}
	return s;
}

static char *read_str(const char *dir, const char *attr)
{
	char *s = NULL;
	if (sb_sysfs_read(dir, attr, &s) < 0)
		return NULL;
	/* Model and vendor strings are space-padded (SCSI INQUIRY). */
	char *p = s;
	while (isspace((unsigned char)*p))
		p++;
	memmove(s, p, strlen(p) + 1);
	return nonempty(s);
}

static char *udev_prop(struct udev_device *u, const char *key)
{
	const char *v = u ? udev_device_get_property_value(u, key) : NULL;
	return v && *v ? strdup(v) : NULL;
}

static int list_holders(const char *syspath, char ***out)
{
	_cleanup_free_ char *dir = NULL;
	DIR *dh;
	struct dirent *e;
	int r = 0;

	if (asprintf(&dir, "%s/holders", syspath) < 0)
		return -ENOMEM;
	dh = opendir(dir);
	if (!dh)
		return errno == ENOENT ? 0 : negerrno();
	while ((e = readdir(dh)))
		if (e->d_name[0] != '.' && (r = sb_strv_push(out, e->d_name)) < 0)
			break;
	closedir(dh);
	return r;
}

/* Is /dev/NAME this device's node? Without udev, partitions of loop
 * devices have none, and a stale node could name something else. */
static bool node_matches(const char *path, unsigned maj, unsigned min)
{
	_cleanup_free_ char *full = NULL;
	const char *root = sb_probe_root();
	struct stat st;

	if (asprintf(&full, "%s%s", root, path) < 0 || stat(full, &st) < 0)
		return false;
	if (*root) /* golden tests: an image file stands for the device */
		return S_ISREG(st.st_mode);
	return S_ISBLK(st.st_mode) && major(st.st_rdev) == maj && minor(st.st_rdev) == min;
}

/* What a loop device reads: the kernel's own answer (LOOP_GET_STATUS64's
 * lo_rdevice, the backing inode's rdev, 0 for a regular file) when the
 * node opens, else the backing path's stat (the path sysfs shows is the
 * node actually opened, symlinks resolved; " (deleted)" when it is gone).
 * A partition of a loop device takes its disk's (probe.c). */
static void read_lower(struct sb_device *d, const struct stat *st, int serr)
{
	struct loop_info64 li;
	int fd;

	if (!st)
		return;
	fd = d->has_node ? open(d->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
	if (fd >= 0 && ioctl(fd, LOOP_GET_STATUS64, &li) == 0) {
		close(fd);
		d->has_lower = li.lo_rdevice != 0;
		d->lower_major = major(li.lo_rdevice);
		d->lower_minor = minor(li.lo_rdevice);
		return;
	}
	d->lower_err = fd >= 0 ? negerrno() : 0;
	if (fd >= 0)
		close(fd);
	if (serr == 0) {
		d->lower_err = 0;
		d->has_lower = S_ISBLK(st->st_mode);
		d->lower_major = major(st->st_rdev);
		d->lower_minor = minor(st->st_rdev);
	} else if (!d->lower_err) {
		d->lower_err = serr;
	}
}

/* The flags and queue limits, from the device (ro) and its whole disk. */
static void read_flags(struct sb_device *d, const char *real, const char *whole)
{
	_cleanup_free_ char *sched = NULL;
	uint64_t v;

	if (read_u64(real, "ro", &v) == 0)
		d->readonly = v;
	if (read_u64(whole, "removable", &v) == 0)
		d->removable = v;
	if (read_u64(whole, "queue/rotational", &v) == 0)
		d->rotational = v;
	if (read_u64(whole, "queue/logical_block_size", &v) == 0)
		d->log_sec = v;
	if (read_u64(whole, "queue/physical_block_size", &v) == 0)
		d->phys_sec = v;
	if (read_u64(whole, "queue/discard_max_bytes", &v) == 0)
		d->discard = v > 0;
	if (read_u64(whole, "queue/read_ahead_kb", &v) == 0)
		d->read_ahead_kb = v;
	if (sb_sysfs_read(whole, "queue/scheduler", &sched) == 0 && *sched)
		d->scheduler = sb_scheduler_in_use(sched);
}

/* Model, vendor, serial and firmware revision: udev's when it has them,
 * else sysfs's. */
static void read_identity(struct sb_device *d, struct udev_device *u, const char *whole)
{
	/* The _ENC forms keep the spaces that ID_MODEL turns into '_'. */
	d->model = udev_prop(u, "ID_MODEL_ENC");
	if (d->model) {
		sb_udev_decode(d->model);
		d->model = nonempty(d->model);
	}
	if (!d->model)
		d->model = udev_prop(u, "ID_MODEL");
	if (!d->model)
		d->model = read_str(whole, "device/model");
	d->vendor = udev_prop(u, "ID_VENDOR_ENC");
	if (d->vendor) {
		sb_udev_decode(d->vendor);
		d->vendor = nonempty(d->vendor);
	}
	if (!d->vendor)
		d->vendor = udev_prop(u, "ID_VENDOR");
	if (!d->vendor)
		d->vendor = read_str(whole, "device/vendor");
	d->serial = udev_prop(u, "ID_SERIAL_SHORT");
	if (!d->serial)
		d->serial = udev_prop(u, "ID_SERIAL");
	/* nvme and SCSI: device/serial or wwid; virtio-blk: serial on the disk */
	static const char *const serial_attrs[] = {"device/serial", "serial", "wwid",
						   "device/wwid"};
	for (size_t i = 0; !d->serial && i < ARRAY_SIZE(serial_attrs); i++)
		d->serial = read_str(whole, serial_attrs[i]);
	/* SCSI disks whose wwid cannot be read (QEMU's: EINVAL) */
	char vpd[PATH_MAX], sn[256];
	snprintf(vpd, sizeof(vpd), "%s/device/vpd_pg80", whole);
	if (!d->serial && sb_vpd80_serial_file(vpd, sn, sizeof(sn)) == 0)
		d->serial = strdup(sn);
	/* The firmware revision: udev's, else NVMe's firmware_rev or SCSI's
	 * (and libata's) rev; part of the history's host fingerprint. */
	d->firmware = udev_prop(u, "ID_REVISION");
	if (!d->firmware)
		d->firmware = read_str(whole, "device/firmware_rev");
	if (!d->firmware)
		d->firmware = read_str(whole, "device/rev");
}

int sb_sysfs_read_device(struct sb_device *d, const char *syspath, struct udev_device *u)
{
	_cleanup_free_ char *real = NULL, *dev = NULL, *pdir = NULL, *sched = NULL;
	const char *whole; /* directory of the whole disk: queue/ and device/ live there */
	size_t rootlen;
	uint64_t v;
	int r;

	real = realpath(syspath, NULL);
	if (!real)
		return negerrno();
	rootlen = strlen(sb_probe_root());
	if (strncmp(real, sb_probe_root(), rootlen) != 0)
		rootlen = 0;
	d->syspath = strdup(real + rootlen);
	d->name = strdup(basename(real));
	if (!d->syspath || !d->name)
		return -ENOMEM;
	if (u && udev_device_get_devnode(u))
		d->path = strdup(udev_device_get_devnode(u));
	else if (asprintf(&d->path, "/dev/%s", d->name) < 0)
		d->path = NULL;
	if (!d->path)
		return -ENOMEM;

	r = sb_sysfs_read(real, "dev", &dev);
	if (r < 0)
		return r;
	if (sscanf(dev, "%u:%u", &d->major, &d->minor) != 2)
		return -EINVAL;
	d->has_node = node_matches(d->path, d->major, d->minor);

	if (read_u64(real, "size", &v) == 0)
		d->size = v * 512; /* always 512-byte units, whatever the sector size */
	d->is_partition = read_u64(real, "partition", &v) == 0;
	whole = real;
	if (d->is_partition) {
		d->partn = v;
		if (read_u64(real, "start", &v) == 0)
			d->start = v * 512;
		pdir = strdup(real);
		if (!pdir)
			return -ENOMEM;
		whole = dirname(pdir);
		d->parent = strdup(basename((char *)whole));
		if (!d->parent)
			return -ENOMEM;
	}
	read_flags(d, real, whole);

	read_identity(d, u, whole);
	d->backing_file = read_str(whole, "loop/backing_file");
	/* The same file attached twice is one disk under two names. */
	struct stat bst;
	int serr = -ENOENT;
	if (d->backing_file && !*sb_probe_root()) {
		serr = stat(d->backing_file, &bst) == 0 ? 0 : negerrno();
		if (serr == 0) {
			d->backing_dev = bst.st_dev;
			d->backing_ino = bst.st_ino;
		}
		read_lower(d, d->is_partition ? NULL : &bst, serr);
	}

	d->transport = sb_transport_from(d->name, d->syspath,
					 u ? udev_device_get_property_value(u, "ID_BUS") : NULL);
	if (d->transport && !*d->transport) {
		free(d->transport);
		d->transport = NULL;
	}
	return list_holders(real, &d->holders);
}
