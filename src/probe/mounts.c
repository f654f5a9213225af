/* What uses a device from the kernel's point of view: mount points (libmount,
 * /proc/self/mountinfo), the root file system, active swap (/proc/swaps).
 * Matched by device number, and by source path for btrfs, whose mounts carry
 * an anonymous device number. */
#include "probe/probe-internal.h"
#include "util/macro.h"

#include <errno.h>
#include <libmount.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

struct sb_mounts {
	struct libmnt_table *mounts;
	struct libmnt_table *swaps; /* NULL when /proc/swaps cannot be read */
	struct libmnt_fs *root;	    /* entry mounted on / (the topmost), or NULL */
};

void sb_mounts_free(struct sb_mounts *m)
{
	if (!m)
		return;
	mnt_unref_table(m->mounts);
	mnt_unref_table(m->swaps);
	free(m);
}

int sb_mounts_load(struct sb_mounts **out)
{
	struct sb_mounts *m = calloc(1, sizeof(*m));
	_cleanup_free_ char *mountinfo = NULL, *swaps = NULL;
	const char *root = sb_probe_root();
	int r;

	if (!m)
		return -ENOMEM;
	m->mounts = mnt_new_table();
	m->swaps = mnt_new_table();
	if (!m->mounts || !m->swaps) {
		r = -ENOMEM;
		goto fail;
	}
	if (*root && (asprintf(&mountinfo, "%s/proc/self/mountinfo", root) < 0 ||
		      asprintf(&swaps, "%s/proc/swaps", root) < 0)) {
		r = -ENOMEM;
		goto fail;
	}
	r = *root ? mnt_table_parse_file(m->mounts, mountinfo)
		  : mnt_table_parse_mtab(m->mounts, NULL);
	if (r < 0)
		goto fail;
	/* No /proc/swaps (swap not configured in the kernel) is not an error. */
	if (mnt_table_parse_swaps(m->swaps, swaps) < 0) {
		mnt_unref_table(m->swaps);
		m->swaps = NULL;
	}
	/* Backward: the last mount on / is the one in effect. */
	m->root = mnt_table_find_target(m->mounts, "/", MNT_ITER_BACKWARD);
	*out = m;
	return 0;
fail:
	sb_mounts_free(m);
	return r;
}

static bool fs_is(struct libmnt_fs *fs, const struct sb_device *d)
{
	const char *src = mnt_fs_get_srcpath(fs);
	dev_t dn = mnt_fs_get_devno(fs);

	if (dn && major(dn) == d->major && minor(dn) == d->minor)
		return true;
	return src && strcmp(src, d->path) == 0;
}

static bool swap_is(struct libmnt_fs *fs, const struct sb_device *d)
{
	const char *src = mnt_fs_get_srcpath(fs);
	struct stat st;

	if (!src)
		return false;
	if (!*sb_probe_root() && stat(src, &st) == 0 && S_ISBLK(st.st_mode))
		return major(st.st_rdev) == d->major && minor(st.st_rdev) == d->minor;
	return strcmp(src, d->path) == 0;
}

int sb_mounts_apply(const struct sb_mounts *m, struct sb_device *d)
{
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	int r = 0;

	if (!it)
		return -ENOMEM;
	while (mnt_table_next_fs(m->mounts, it, &fs) == 0) {
		const char *t = mnt_fs_get_target(fs);
		if (!t || !fs_is(fs, d) || sb_strv_contains(d->mounts, t))
			continue;
		if ((r = sb_strv_push(&d->mounts, t)) < 0)
			goto out;
	}
	d->holds_root = m->root && fs_is(m->root, d);
	if (m->swaps) {
		mnt_reset_iter(it, MNT_ITER_FORWARD);
		while (mnt_table_next_fs(m->swaps, it, &fs) == 0)
			if (swap_is(fs, d))
				d->swap = true;
	}
out:
	mnt_free_iter(it);
	return r;
}
