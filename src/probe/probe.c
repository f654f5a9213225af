/* Device scan: enumerate block devices (libudev, or /sys/class/block when
 * libudev cannot start), collect each one's facts, then decide verdicts
 * once everything is known (a disk's verdict depends on its partitions). */
#include "probe/probe-internal.h"
#include "probe/probe.h"
#include "util/macro.h"

#include <dirent.h>
#include <errno.h>
#include <libudev.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

static void device_clear(struct sb_device *d)
{
	free(d->path);
	free(d->name);
	free(d->model);
	free(d->serial);
	free(d->firmware);
	free(d->vendor);
	free(d->transport);
	free(d->scheduler);
	free(d->parent);
	free(d->backing_file);
	sb_strv_free(d->holders);
	sb_strv_free(d->mounts);
	sb_signatures_free(d->sigs, d->n_sigs);
	sb_strv_free(d->reasons);
	free(d->reason_bits);
	free(d->syspath);
	free(d->note);
	memset(d, 0, sizeof(*d));
}

void sb_probe_free(struct sb_probe *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		device_clear(&p->dev[i]);
	for (size_t i = 0; i < p->n_below; i++)
		device_clear(&p->below[i]);
	free(p->dev);
	free(p->below);
	free(p);
}

static int add_syspath(char ***paths, const char *p)
{
	return sb_strv_contains(*paths, p) ? 0 : sb_strv_push(paths, p);
}

/* Every /sys/.../block/X directory, by udev's enumeration or by hand. */
static int list_block_syspaths(struct udev *udev, char ***out)
{
	_cleanup_free_ char *classdir = NULL;
	int r = 0;

	if (udev) {
		struct udev_enumerate *e = udev_enumerate_new(udev);
		struct udev_list_entry *le;

		if (e && udev_enumerate_add_match_subsystem(e, "block") >= 0 &&
		    udev_enumerate_scan_devices(e) >= 0) {
			udev_list_entry_foreach(le, udev_enumerate_get_list_entry(e))
			{
				if ((r = add_syspath(out, udev_list_entry_get_name(le))) < 0)
					break;
			}
			udev_enumerate_unref(e);
			return r;
		}
		udev_enumerate_unref(e);
	}
	if (asprintf(&classdir, "%s/sys/class/block", sb_probe_root()) < 0)
		return -ENOMEM;
	DIR *dh = opendir(classdir);
	struct dirent *de;
	if (!dh)
		return negerrno();
	while ((de = readdir(dh))) {
		_cleanup_free_ char *p = NULL, *real = NULL;
		if (de->d_name[0] == '.')
			continue;
		if (asprintf(&p, "%s/%s", classdir, de->d_name) < 0) {
			r = -ENOMEM;
			break;
		}
		real = realpath(p, NULL);
		if (real && (r = add_syspath(out, real)) < 0)
			break;
	}
	closedir(dh);
	return r;
}

/* Natural order, partitions right after their disk (as lsblk shows them). */
static int device_cmp(const void *a, const void *b)
{
	const struct sb_device *x = a, *y = b;
	const char *dx = x->parent ? x->parent : x->name, *dy = y->parent ? y->parent : y->name;
	int c = strverscmp(dx, dy);

	if (c)
		return c;
	if (x->is_partition != y->is_partition)
		return x->is_partition ? 1 : -1;
	return x->partn < y->partn ? -1 : x->partn > y->partn;
}

/* Named on the command line: by path (symlinks resolved, device number
 * compared) or by bare name; a node-less partition by its /dev path. */
static bool named_matches(const char *want, const struct sb_device *d)
{
	struct stat st;

	if (!*sb_probe_root() && strchr(want, '/') && stat(want, &st) == 0)
		return S_ISBLK(st.st_mode) && major(st.st_rdev) == d->major &&
		       minor(st.st_rdev) == d->minor;
	if (strcmp(want, d->name) == 0 || strcmp(want, d->path) == 0)
		return true;
	return strncmp(want, "/dev/", 5) == 0 && strcmp(want + 5, d->name) == 0;
}

static bool is_named(const char *const *only, const struct sb_device *d)
{
	for (size_t i = 0; only && only[i]; i++)
		if (named_matches(only[i], d))
			return true;
	return false;
}

/* Devices nobody would put in a stack, unless asked for by name. */
static bool boring(const struct sb_device *d)
{
	if (strncmp(d->name, "ram", 3) == 0 || strncmp(d->name, "zram", 4) == 0)
		return true;
	return strncmp(d->name, "loop", 4) == 0 && !d->is_partition && !d->backing_file;
}

static int read_signatures(struct sb_device *d, const struct sb_probe *all)
{
	const char *path = d->path;
	uint64_t off = 0, size = 0;
	_cleanup_free_ char *full = NULL;
	int r;

	if (!d->has_node && d->is_partition) {
		/* No udev, no node: read the partition as a window of its disk. */
		const struct sb_device *p = sb_probe_find(all, d->parent);
		if (!p || !p->has_node) {
			d->sigs_err = -ENOENT;
			return asprintf(&d->note, "no device node") < 0 ? -ENOMEM : 0;
		}
		path = p->path;
		off = d->start;
		size = d->size;
		if (asprintf(&d->note, "no device node: read through %s", p->path) < 0)
			return -ENOMEM;
	} else if (!d->has_node) {
		d->sigs_err = -ENOENT;
		return asprintf(&d->note, "no device node") < 0 ? -ENOMEM : 0;
	}
	if (asprintf(&full, "%s%s", sb_probe_root(), path) < 0)
		return -ENOMEM;
	r = sb_blkid_signatures(full, off, size, &d->sigs, &d->n_sigs);
	if (r == -ENOMEM)
		return r;
	d->sigs_err = r < 0 ? r : 0;
	return 0;
}

/* need[i]: 1 asked for, 2 beneath a loop device asked for (judged with
 * it, its signatures too, however deep the chain: one pass per level). */
static void mark_needed(const struct sb_probe *p, const char *const *only, unsigned char *need)
{
	for (size_t i = 0; i < p->n; i++)
		need[i] = only ? is_named(only, &p->dev[i]) : !boring(&p->dev[i]);
	for (bool more = true; more;) {
		more = false;
		for (size_t i = 0; i < p->n; i++) {
			const struct sb_device *l = need[i] ? sb_device_lower(&p->dev[i], p) : NULL;
			if (l && !need[l - p->dev]) {
				need[l - p->dev] = 2;
				more = true;
			}
		}
	}
}

/* Verdicts need every device (partitions, holders, what lies beneath), so
 * they are computed before dropping what was not asked for; what lies
 * beneath is kept in p->below. Signatures are read only for what is kept:
 * opening devices is the slow part. */
static int judge(struct sb_probe *p, const char *const *only)
{
	_cleanup_free_ unsigned char *need = calloc(p->n ? p->n : 1, sizeof(*need));
	size_t keep = 0;
	int r;

	if (!need || !(p->below = calloc(p->n ? p->n : 1, sizeof(*p->below))))
		return -ENOMEM;
	mark_needed(p, only, need);
	for (size_t i = 0; i < p->n; i++)
		if (need[i] && (r = read_signatures(&p->dev[i], p)) < 0)
			return r;
	for (size_t i = 0; i < p->n; i++)
		if (need[i] == 1 && (r = sb_device_verdict(&p->dev[i], p)) < 0)
			return r;
	for (size_t i = 0; i < p->n; i++) {
		if (need[i] == 1)
			p->dev[keep++] = p->dev[i];
		else if (need[i] == 2)
			p->below[p->n_below++] = p->dev[i];
		else
			device_clear(&p->dev[i]);
	}
	p->n = keep;
	return 0;
}

int sb_probe_scan(const char *const *only, struct sb_probe **out, const char **missing)
{
	/* NULL is fine: sysfs then */
	struct udev *udev = *sb_probe_root() ? NULL : udev_new();
	struct sb_mounts *mounts = NULL;
	struct sb_probe *p = NULL;
	char **paths = NULL;
	size_t n;
	int r;

	*out = NULL;
	if (missing)
		*missing = NULL;
	r = list_block_syspaths(udev, &paths);
	if (r < 0)
		goto out;
	r = -ENOMEM;
	n = sb_strv_len(paths);
	p = calloc(1, sizeof(*p));
	if (!p || !(p->dev = calloc(n ? n : 1, sizeof(*p->dev))))
		goto out;
	r = sb_mounts_load(&mounts);
	if (r < 0)
		goto out;

	for (size_t i = 0; i < n; i++) {
		struct sb_device *d = &p->dev[p->n];
		struct udev_device *u = udev ? udev_device_new_from_syspath(udev, paths[i]) : NULL;

		/* Only udev's own database is worth reading; uninitialized devices
		 * carry nothing sysfs does not have. */
		if (u && !udev_device_get_is_initialized(u)) {
			udev_device_unref(u);
			u = NULL;
		}
		r = sb_sysfs_read_device(d, paths[i], u);
		udev_device_unref(u);
		if (r == -ENOMEM)
			goto out;
		if (r < 0) {
			/* Vanished between listing and reading: not ours to report. */
			device_clear(d);
			continue;
		}
		if ((r = sb_mounts_apply(mounts, d)) < 0) {
			p->n++;
			goto out;
		}
		d->cls = sb_device_classify(d);
		p->n++;
	}
	/* Partitions take what only the whole disk tells. */
	for (size_t i = 0; i < p->n; i++) {
		struct sb_device *d = &p->dev[i];
		const struct sb_device *w = d->is_partition ? sb_probe_find(p, d->parent) : NULL;
		if (w && !d->backing_file && w->backing_file &&
		    !(d->backing_file = strdup(w->backing_file))) {
			r = -ENOMEM;
			goto out;
		}
		if (w && !d->backing_ino) {
			d->backing_dev = w->backing_dev;
			d->backing_ino = w->backing_ino;
		}
		if (w && !d->has_lower && !d->lower_err) {
			d->has_lower = w->has_lower;
			d->lower_major = w->lower_major;
			d->lower_minor = w->lower_minor;
			d->lower_err = w->lower_err;
		}
	}
	for (size_t i = 0; only && only[i]; i++) {
		size_t j;
		for (j = 0; j < p->n && !named_matches(only[i], &p->dev[j]); j++)
			;
		if (j == p->n) {
			if (missing)
				*missing = only[i];
			r = -ENODEV;
			goto out;
		}
	}
	qsort(p->dev, p->n, sizeof(*p->dev), device_cmp);
	r = judge(p, only);
	if (r < 0)
		goto out;
	*out = TAKE_PTR(p);
	r = 0;
out:
	sb_probe_free(p);
	sb_mounts_free(mounts);
	sb_strv_free(paths);
	udev_unref(udev);
	return r;
}

struct sb_device *sb_probe_find(const struct sb_probe *p, const char *path_or_name)
{
	_cleanup_free_ char *real = NULL;
	const char *want = path_or_name;

	if (!p || !want)
		return NULL;
	if (!*sb_probe_root() && strchr(want, '/') && (real = realpath(want, NULL)))
		want = real;
	for (size_t i = 0; i < p->n; i++) {
		struct sb_device *d = &p->dev[i];
		if (strcmp(want, d->path) == 0 || strcmp(want, d->name) == 0 ||
		    (strncmp(want, "/dev/", 5) == 0 && strcmp(want + 5, d->name) == 0))
			return d;
	}
	return NULL;
}
