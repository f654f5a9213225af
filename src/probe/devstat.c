/* The block devices under a mount and their I/O counters (see devstat.h).
 * Everything reads below a sysfs root so the unit tests can walk a captured
 * tree; helpers return -errno and do not print. */
#include "probe/devstat.h"
#include "util/macro.h"
#include "util/strutil.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <libmount.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

int sb_devstat_parse(const char *line, uint64_t v[SB_ST_N])
{
	const char *p = line;
	int n = 0;

	memset(v, 0, SB_ST_N * sizeof(*v));
	while (n < SB_ST_N) {
		char *end;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n')
			break;
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		errno = 0;
		v[n++] = strtoull(p, &end, 10);
		if (errno || (*end && !isspace((unsigned char)*end)))
			return -EINVAL;
		p = end;
	}
	/* Kernels write 11 (before 4.18), 15 (before 5.5) or 17 fields. */
	return n >= 11 ? n : -EINVAL;
}

static bool exists(const char *root, const char *name, const char *sub)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/class/block/%s/%s", root, name, sub);
	return access(p, F_OK) == 0;
}

static const char *dev_type(const char *root, const char *name)
{
	if (exists(root, name, "md"))
		return "md";
	if (exists(root, name, "dm"))
		return "dm";
	if (exists(root, name, "partition"))
		return "part";
	if (exists(root, name, "loop") || strncmp(name, "loop", 4) == 0)
		return "loop";
	/* bcacheN (its backing and cache devices have a bcache directory too) */
	if (strncmp(name, "bcache", 6) == 0 && exists(root, name, "bcache"))
		return "bcache";
	return "disk";
}

static int find(const struct sb_devstack *st, const char *name)
{
	for (size_t i = 0; i < st->n; i++)
		if (strcmp(st->dev[i].name, name) == 0)
			return (int)i;
	return -1;
}

static int add(struct sb_devstack *st, const char *name, int parent)
{
	const char *root = st->sysroot;
	char p[PATH_MAX];
	int idx;

	if (find(st, name) >= 0)
		return 0;
	if (st->n >= SB_DEVSTACK_MAX)
		return -E2BIG;
	if (!exists(root, name, "stat"))
		return -ENODEV;
	idx = (int)st->n++;
	struct sb_dev *d = &st->dev[idx];
	snprintf(d->name, sizeof(d->name), "%s", name);
	snprintf(d->type, sizeof(d->type), "%s", dev_type(root, name));
	snprintf(d->kind, sizeof(d->kind), "%s", parent < 0 ? "top" : d->type);
	d->parent = parent;

	if (strcmp(d->type, "part") == 0) {
		/* class/block/sda1 -> .../block/sda/sda1: the disk is the directory above. */
		char real[PATH_MAX], *slash;
		snprintf(p, sizeof(p), "%s/class/block/%s", root, name);
		if (!realpath(p, real) || !(slash = strrchr(real, '/')))
			return 0;
		*slash = '\0';
		slash = strrchr(real, '/');
		if (slash && exists(root, slash + 1, "stat"))
			return add(st, slash + 1, idx);
		return 0;
	}
	snprintf(p, sizeof(p), "%s/class/block/%s/slaves", root, name);
	DIR *dir = opendir(p);
	if (!dir)
		return 0;
	struct dirent *de;
	char names[SB_DEVSTACK_MAX][64];
	size_t n = 0;
	while ((de = readdir(dir)) && n < SB_DEVSTACK_MAX)
		if (de->d_name[0] != '.')
			snprintf(names[n++], sizeof(names[0]), "%.63s", de->d_name);
	closedir(dir);
	/* readdir order is the file system's: sort for stable output. */
	qsort(names, n, sizeof(names[0]), (int (*)(const void *, const void *))strcmp);
	for (size_t i = 0; i < n; i++) {
		int r = add(st, names[i], idx);
		if (r < 0 && r != -ENODEV)
			return r;
	}
	return 0;
}

int sb_devstack_build(const char *sysroot, const char *const *top, size_t ntop,
		      struct sb_devstack *st)
{
	memset(st, 0, sizeof(*st));
	snprintf(st->sysroot, sizeof(st->sysroot), "%s", sysroot);
	for (size_t i = 0; i < ntop; i++) {
		int r = add(st, top[i], -1);
		if (r < 0)
			return r;
	}
	return st->n ? 0 : -ENODEV;
}

/* The btrfs members of the file system that has dev among its devices. */
static int btrfs_members(const char *root, const char *dev, char names[][64], size_t max, size_t *n)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/fs/btrfs", root);
	DIR *fsd = opendir(p);
	struct dirent *fe;
	int rc = -ENOENT;

	if (!fsd)
		return -errno;
	while (rc < 0 && (fe = readdir(fsd))) {
		if (fe->d_name[0] == '.' || strcmp(fe->d_name, "features") == 0)
			continue;
		if (snprintf(p, sizeof(p), "%s/fs/btrfs/%s/devices/%s", root, fe->d_name, dev) >=
		    (int)sizeof(p))
			continue;
		if (access(p, F_OK) != 0)
			continue;
		snprintf(p, sizeof(p), "%s/fs/btrfs/%s/devices", root, fe->d_name);
		DIR *dd = opendir(p);
		struct dirent *de;
		if (!dd)
			break;
		*n = 0;
		while ((de = readdir(dd)) && *n < max)
			if (de->d_name[0] != '.')
				snprintf(names[(*n)++], 64, "%.63s", de->d_name);
		closedir(dd);
		qsort(names, *n, 64, (int (*)(const void *, const void *))strcmp);
		rc = 0;
	}
	closedir(fsd);
	return rc;
}

static bool under(const char *path, const char *mnt)
{
	size_t l = strlen(mnt);
	if (strcmp(mnt, "/") == 0)
		return true;
	return strncmp(path, mnt, l) == 0 && (path[l] == '/' || path[l] == '\0');
}

int sb_devstack_tops(const char *mountinfo, const char *sysroot, const char *dir, char names[][64],
		     size_t max, size_t *n)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_BACKWARD);
	struct libmnt_fs *fs, *best = NULL;
	char real[PATH_MAX];
	int rc = 0;

	*n = 0;
	if (!tb || !it) {
		rc = -ENOMEM;
		goto out;
	}
	if (mnt_table_parse_file(tb, mountinfo) != 0) {
		rc = -EINVAL;
		goto out;
	}
	if (!realpath(dir, real))
		snprintf(real, sizeof(real), "%s", dir);
	/* The last mount (backward: the newest first) with the longest target. */
	while (mnt_table_next_fs(tb, it, &fs) == 0) {
		const char *t = mnt_fs_get_target(fs);
		if (t && under(real, t) && (!best || strlen(t) > strlen(mnt_fs_get_target(best))))
			best = fs;
	}
	if (!best) {
		rc = -ENOENT;
		goto out;
	}
	const char *src = mnt_fs_get_srcpath(best), *type = mnt_fs_get_fstype(best);
	dev_t devno = mnt_fs_get_devno(best);
	char p[PATH_MAX], link[PATH_MAX];
	if (type && strcmp(type, "btrfs") == 0 && src) {
		/* st_dev of btrfs is an anonymous number: go by the source's name. */
		char rs[PATH_MAX];
		const char *b = realpath(src, rs) ? rs : src, *slash = strrchr(b, '/');
		b = slash ? slash + 1 : b;
		if (btrfs_members(sysroot, b, names, max, n) == 0)
			goto out;
		snprintf(names[0], 64, "%.63s", b);
		*n = 1;
		goto out;
	}
	if (major(devno) == 0) {
		rc = -ENODEV;
		goto out;
	}
	snprintf(p, sizeof(p), "%s/dev/block/%u:%u", sysroot, major(devno), minor(devno));
	ssize_t l = readlink(p, link, sizeof(link) - 1);
	if (l <= 0) {
		rc = -ENODEV;
		goto out;
	}
	link[l] = '\0';
	const char *slash = strrchr(link, '/');
	snprintf(names[0], 64, "%.63s", slash ? slash + 1 : link);
	*n = 1;
out:
	mnt_free_iter(it);
	mnt_unref_table(tb);
	return rc;
}

int sb_devstack_for_dir(const char *dir, struct sb_devstack *st)
{
	char names[SB_DEVSTACK_MAX][64];
	const char *tops[SB_DEVSTACK_MAX];
	size_t n = 0;
	int rc = sb_devstack_tops("/proc/self/mountinfo", "/sys", dir, names, SB_DEVSTACK_MAX, &n);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < n; i++)
		tops[i] = names[i];
	return sb_devstack_build("/sys", tops, n, st);
}

int sb_devstack_snap(const struct sb_devstack *st, struct sb_devsnap *s)
{
	s->n = st->n;
	s->fields = SB_ST_N;
	for (size_t i = 0; i < st->n; i++) {
		char p[PATH_MAX], line[512];
		int nf = -1;
		snprintf(p, sizeof(p), "%s/class/block/%s/stat", st->sysroot, st->dev[i].name);
		if (sb_read_small(p, line, sizeof(line)) < 0 ||
		    (nf = sb_devstat_parse(line, s->v[i])) < 0)
			memset(s->v[i], 0, sizeof(s->v[i]));
		if (nf < s->fields)
			s->fields = nf < 0 ? 0 : nf;
	}
	return 0;
}

static uint64_t d(const struct sb_devsnap *a, const struct sb_devsnap *b, size_t i,
		  enum sb_stat_field f)
{
	return b->v[i][f] >= a->v[i][f] ? b->v[i][f] - a->v[i][f] : 0;
}

json_object *sb_devstat_json(const struct sb_devstack *st, const struct sb_devsnap *a,
			     const struct sb_devsnap *b, uint64_t wl_read, uint64_t wl_write)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array();
	json_object_object_add(o, "workload_read_bytes", json_object_new_int64((int64_t)wl_read));
	json_object_object_add(o, "workload_write_bytes", json_object_new_int64((int64_t)wl_write));
	for (size_t i = 0; i < st->n && i < a->n && i < b->n; i++) {
		const struct sb_dev *dv = &st->dev[i];
		json_object *e = json_object_new_object();
#define I(k, v) json_object_object_add(e, k, json_object_new_int64((int64_t)(v)))
		json_object_object_add(e, "name", json_object_new_string(dv->name));
		json_object_object_add(e, "kind", json_object_new_string(dv->kind));
		json_object_object_add(e, "type", json_object_new_string(dv->type));
		json_object_object_add(
		    e, "parent",
		    dv->parent < 0 ? NULL : json_object_new_string(st->dev[dv->parent].name));
		I("read_ios", d(a, b, i, SB_ST_READ_IOS));
		I("read_merges", d(a, b, i, SB_ST_READ_MERGES));
		I("read_bytes", d(a, b, i, SB_ST_READ_SECTORS) * 512);
		I("read_ticks_ms", d(a, b, i, SB_ST_READ_TICKS));
		I("write_ios", d(a, b, i, SB_ST_WRITE_IOS));
		I("write_merges", d(a, b, i, SB_ST_WRITE_MERGES));
		I("write_bytes", d(a, b, i, SB_ST_WRITE_SECTORS) * 512);
		I("write_ticks_ms", d(a, b, i, SB_ST_WRITE_TICKS));
		I("in_flight", b->v[i][SB_ST_IN_FLIGHT]);
		I("io_ticks_ms", d(a, b, i, SB_ST_IO_TICKS));
		I("time_in_queue_ms", d(a, b, i, SB_ST_TIME_IN_QUEUE));
		I("discard_ios", d(a, b, i, SB_ST_DISCARD_IOS));
		I("discard_bytes", d(a, b, i, SB_ST_DISCARD_SECTORS) * 512);
		if (a->fields >= 17 && b->fields >= 17) {
			I("flush_ios", d(a, b, i, SB_ST_FLUSH_IOS));
			I("flush_ticks_ms", d(a, b, i, SB_ST_FLUSH_TICKS));
		}
#undef I
		char cls[48];
		bool emulated = false;
		sb_devstack_class(st, i, cls, sizeof(cls), &emulated);
		json_object_object_add(e, "class", json_object_new_string(cls));
		if (emulated)
			json_object_object_add(e, "emulated",
					       json_object_new_string("rotational flag only"));
		json_object_array_add(arr, e);
	}
	json_object_object_add(o, "devices", arr);
	return o;
}

uint64_t sb_devstat_top_bytes(const struct sb_devstack *st, const struct sb_devsnap *a,
			      const struct sb_devsnap *b, bool write)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < st->n && i < a->n && i < b->n; i++)
		if (st->dev[i].parent < 0)
			sum += d(a, b, i, write ? SB_ST_WRITE_SECTORS : SB_ST_READ_SECTORS) * 512;
	return sum;
}

bool sb_devstack_busy(const struct sb_devstack *st, char *why, size_t len)
{
	for (size_t i = 0; i < st->n; i++) {
		char p[PATH_MAX], buf[128];
		const char *name = st->dev[i].name;
		if (strcmp(st->dev[i].type, "md") == 0) {
			snprintf(p, sizeof(p), "%s/class/block/%s/md/sync_action", st->sysroot,
				 name);
			if (sb_read_small(p, buf, sizeof(buf)) > 0 && strcmp(buf, "idle") != 0) {
				snprintf(why, len, "%s: md %s", name, buf);
				return true;
			}
		}
		snprintf(p, sizeof(p), "%s/class/block/%s/inflight", st->sysroot, name);
		unsigned long r = 0, w = 0;
		char *e = NULL;
		if (sb_read_small(p, buf, sizeof(buf)) > 0) {
			r = strtoul(buf, &e, 10);
			w = e && e != buf ? strtoul(e, NULL, 10) : 0;
		}
		if (r + w) {
			snprintf(why, len, "%s: %lu I/Os in flight", name, r + w);
			return true;
		}
	}
	return false;
}

size_t sb_devstack_bottom(const struct sb_devstack *st, size_t i)
{
	for (bool more = true; more;) {
		more = false;
		for (size_t k = 0; k < st->n; k++)
			if (st->dev[k].parent == (int)i) {
				i = k;
				more = true;
				break;
			}
	}
	return i;
}

void sb_devstack_class(const struct sb_devstack *st, size_t i, char *buf, size_t len,
		       bool *emulated)
{
	char p[PATH_MAX], v[16], disk[64], real[PATH_MAX], *slash;
	size_t b = sb_devstack_bottom(st, i);
	const struct sb_dev *dv = &st->dev[b];
	bool loop, rot;

	snprintf(disk, sizeof(disk), "%s", dv->name);
	/* A partition whose disk is in the stack under another partition: the
	 * disk is the directory above it in sysfs. */
	snprintf(p, sizeof(p), "%s/class/block/%s", st->sysroot, dv->name);
	if (strcmp(dv->type, "part") == 0 && realpath(p, real) && (slash = strrchr(real, '/'))) {
		*slash = '\0';
		if ((slash = strrchr(real, '/')))
			snprintf(disk, sizeof(disk), "%.63s", slash + 1);
	}
	loop = strcmp(dev_type(st->sysroot, disk), "loop") == 0;
	snprintf(p, sizeof(p), "%s/class/block/%s/queue/rotational", st->sysroot, disk);
	rot = sb_read_small(p, v, sizeof(v)) > 0 && v[0] == '1';
	*emulated = rot && loop;
	snprintf(buf, len, "%s%s", rot ? "hdd" : "ssd", loop ? ", loop" : "");
}
