/* GPT partitions through libfdisk. Partition nodes come from udev, or from
 * sysfs when there is none (loop devices on a host without udevd). Undo
 * wipes the table, rereads it and removes the nodes that went stale. */
#include "stack/stack.h"
#include "util/macro.h"
#include "util/size.h"

#include <ctype.h>
#include <fcntl.h>
#include <libfdisk.h>
#include <linux/blkpg.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* /dev/sdb -> /dev/sdb1, /dev/loop3 -> /dev/loop3p1, /dev/nvme0n1 -> /dev/nvme0n1p1 */
static void part_path(const char *dev, unsigned n, char *buf, size_t len)
{
	size_t l = strlen(dev);
	snprintf(buf, len, "%s%s%u", dev, l && isdigit((unsigned char)dev[l - 1]) ? "p" : "", n);
}

static int describe(json_object *a, char **what, char **undo)
{
	const char *dev = sb_arg_str(a, "dev");
	char *w = NULL;
	size_t wl = 0;
	FILE *f = open_memstream(&w, &wl);
	if (!f)
		return -ENOMEM;
	fprintf(f, "libfdisk: new GPT on %s:", dev);
	for (size_t i = 0; i < sb_arg_len(a, "sizes"); i++)
		fprintf(f, " p%zu=%s", i + 1, sb_arg_idx(a, "sizes", i));
	fprintf(f, " -> ${%s.p1}..", sb_arg_str(a, "var"));
	fclose(f);
	*what = w;
	if (asprintf(undo, "wipefs -a %s; blockdev --rereadpt %s", dev, dev) < 0)
		return -ENOMEM;
	return 0;
}

static void predict(json_object *a, struct sb_exec *x)
{
	const char *dev = sb_arg_str(a, "dev"), *var = sb_arg_str(a, "var");
	if (strstr(dev, "${"))
		return;
	for (size_t i = 0; i < sb_arg_len(a, "sizes"); i++) {
		char p[300], v[64];
		part_path(dev, (unsigned)i + 1, p, sizeof(p));
		snprintf(v, sizeof(v), "%s.p%zu", var, i + 1);
		sb_exec_set_var(x, v, p);
	}
}

static void fdisk_unrefp(struct fdisk_context **c)
{
	if (*c)
		fdisk_unref_context(*c);
}

/* Adds or deletes one partition in the kernel's view, like partx -a/-d. */
static int blkpg(int fd, int op, unsigned pno, uint64_t start, uint64_t len)
{
	struct blkpg_partition part = {
	    .start = (long long)start, .length = (long long)len, .pno = (int)pno};
	struct blkpg_ioctl_arg arg = {.op = op, .datalen = sizeof(part), .data = &part};
	return ioctl(fd, BLKPG, &arg) < 0 ? negerrno() : 0;
}

static bool part_in_sysfs(const char *dev, unsigned n)
{
	char p[300], sys[340];
	part_path(dev, n, p, sizeof(p));
	snprintf(sys, sizeof(sys), "/sys/class/block/%s", strrchr(p, '/') + 1);
	return access(sys, F_OK) == 0;
}

static int write_table(struct sb_exec *x, json_object *a, const char *dev, json_object *result)
{
	_cleanup_(fdisk_unrefp) struct fdisk_context *cxt = fdisk_new_context();
	size_t n = sb_arg_len(a, "sizes");
	fdisk_sector_t first, last, grain, ssz, usable;
	int r;

	if (!cxt)
		return -ENOMEM;
	r = fdisk_assign_device(cxt, dev, 0);
	if (r < 0)
		return sb_exec_fail(x, r, "%s: cannot open: %s", dev, strerror(-r));
	fdisk_disable_dialogs(cxt, 1);
	r = fdisk_create_disklabel(cxt, "gpt");
	if (r < 0)
		return sb_exec_fail(x, r, "%s: cannot create a GPT: %s", dev, strerror(-r));
	first = fdisk_get_first_lba(cxt);
	last = fdisk_get_last_lba(cxt);
	ssz = fdisk_get_sector_size(cxt);
	grain = fdisk_get_grain_size(cxt) / ssz;
	if (!grain)
		grain = 1;
	first = (first + grain - 1) / grain * grain;
	usable = last - first + 1;
	for (size_t i = 0; i < n; i++) {
		const char *s = sb_arg_idx(a, "sizes", i);
		struct fdisk_partition *pa = fdisk_new_partition();
		uint64_t v;
		bool pct;

		if (!pa)
			return -ENOMEM;
		fdisk_partition_partno_follow_default(pa, 1);
		fdisk_partition_start_follow_default(pa, 1);
		if (strcmp(s, "rest") == 0 || i + 1 == n) {
			fdisk_partition_end_follow_default(pa, 1);
		} else {
			if (sb_parse_size(s, &v, true, &pct) < 0) {
				fdisk_unref_partition(pa);
				return sb_exec_fail(x, -EINVAL, "%s: bad partition size '%s'", dev,
						    s);
			}
			fdisk_sector_t secs = pct ? usable * v / 100 : v / ssz;
			secs = secs / grain * grain;
			fdisk_partition_set_size(pa, secs);
		}
		r = fdisk_add_partition(cxt, pa, NULL);
		fdisk_unref_partition(pa);
		if (r < 0)
			return sb_exec_fail(x, r, "%s: cannot add partition %zu (%s): %s", dev,
					    i + 1, s, strerror(-r));
	}
	r = fdisk_write_disklabel(cxt);
	if (r < 0)
		return sb_exec_fail(x, r, "%s: cannot write the partition table: %s", dev,
				    strerror(-r));
	r = fdisk_reread_partition_table(cxt);
	if (r < 0)
		return sb_exec_fail(x, r, "%s: the kernel did not take the new partition table: %s",
				    dev, strerror(-r));
	/* Some kernels accept the reread yet add no partition to a loop device:
	 * then tell it about each one, as partx -a does. */
	for (int i = 0; i < 25 && !part_in_sysfs(dev, 1); i++)
		usleep(20000);
	if (!part_in_sysfs(dev, 1)) {
		struct fdisk_table *tb = NULL;
		struct fdisk_iter *itr = fdisk_new_iter(FDISK_ITER_FORWARD);
		struct fdisk_partition *pa;
		int fd = fdisk_get_devfd(cxt);
		if (!itr || fdisk_get_partitions(cxt, &tb) < 0) {
			fdisk_free_iter(itr);
			return sb_exec_fail(x, -EIO, "%s: cannot list the new partitions", dev);
		}
		while (fdisk_table_next_partition(tb, itr, &pa) == 0) {
			unsigned pno = (unsigned)fdisk_partition_get_partno(pa) + 1;
			r = blkpg(fd, BLKPG_ADD_PARTITION, pno, fdisk_partition_get_start(pa) * ssz,
				  fdisk_partition_get_size(pa) * ssz);
			if (r < 0 && r != -EBUSY) {
				fdisk_free_iter(itr);
				fdisk_unref_table(tb);
				return sb_exec_fail(x, r, "%s: cannot add partition %u: %s", dev,
						    pno, strerror(-r));
			}
		}
		fdisk_free_iter(itr);
		fdisk_unref_table(tb);
		sb_arg_set(result, "blkpg", "yes");
		sb_exec_log(x, "%s: partitions added with BLKPG (the reread added none)\n", dev);
	}
	r = fdisk_deassign_device(cxt, 0);
	if (r < 0)
		return sb_exec_fail(x, r, "%s: cannot close: %s", dev, strerror(-r));
	return 0;
}

/* Only the last size may be "rest"; a last percentage means up to the end. */
static int run(json_object *a, json_object *result, struct sb_exec *x)
{
	const char *dev = sb_arg_str(a, "dev"), *var = sb_arg_str(a, "var");
	json_object *nodes = json_object_new_array();
	int r;

	json_object_object_add(result, "nodes", nodes);
	r = write_table(x, a, dev, result);
	if (r < 0)
		return r;
	sb_exec_log(x, "%s: GPT written, %zu partitions\n", dev, sb_arg_len(a, "sizes"));
	for (size_t i = 0; i < sb_arg_len(a, "sizes"); i++) {
		char p[300], v[64];
		part_path(dev, (unsigned)i + 1, p, sizeof(p));
		r = sb_wait_node(p, 10000, x->udev);
		if (r < 0)
			return sb_exec_fail(x, r, "%s: partition node did not appear: %s", p,
					    strerror(-r));
		if (r == 1)
			json_object_array_add(nodes, json_object_new_string(p));
		snprintf(v, sizeof(v), "%s.p%zu", var, i + 1);
		sb_result_var(result, v, p);
	}
	return 0;
}

static int undo(json_object *a, json_object *result, struct sb_exec *x)
{
	const char *dev = sb_arg_str(a, "dev");
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	if (stat(dev, &st) < 0 || !S_ISBLK(st.st_mode))
		return 0;
	fd = open(dev, O_RDONLY | O_CLOEXEC);
	/* Partitions the kernel still knows about go first (partx -d). */
	for (size_t i = 0; fd >= 0 && i < sb_arg_len(a, "sizes"); i++)
		for (int k = 0; k < 50 && part_in_sysfs(dev, (unsigned)i + 1); k++) {
			r = blkpg(fd, BLKPG_DEL_PARTITION, (unsigned)i + 1, 0, 0);
			if (r == 0 || r != -EBUSY)
				break;
			usleep(100000);
		}
	r = sb_wipe_signatures(dev);
	if (r < 0)
		return sb_exec_fail(x, r, "%s: cannot wipe the partition table: %s", dev,
				    strerror(-r));
	if (fd >= 0) {
		/* The kernel may still be busy with the partitions just released. */
		for (int i = 0; i < 50 && ioctl(fd, BLKRRPART, 0) < 0 && errno == EBUSY; i++) {
			struct timespec ts = {0, 100 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
	}
	/* Nodes we made by hand are not removed by anyone else. */
	for (size_t i = 0; i < sb_arg_len(a, "sizes"); i++) {
		char p[300], sys[340];
		part_path(dev, (unsigned)i + 1, p, sizeof(p));
		snprintf(sys, sizeof(sys), "/sys/class/block/%s", strrchr(p, '/') + 1);
		if (access(sys, F_OK) != 0 && lstat(p, &st) == 0 && S_ISBLK(st.st_mode) && !x->udev)
			unlink(p);
	}
	sb_exec_log(x, "%s: partition table wiped\n", dev);
	return 0;
}

const struct sb_layer sb_layer_part = {
    .kind = "partition",
    .describe = describe,
    .predict = predict,
    .run = run,
    .undo = undo,
    .required = {"dev"},
};
