/* Internals shared by the probe's source files: the fact collectors
 * (sysfs.c, blkid.c, mounts.c). Not for other modules. */
#pragma once

#include "probe/device.h"
#include "util/strv.h"

#include <sys/types.h>

/* "" normally. For golden tests, STACKBENCH_PROBE_ROOT names a directory
 * standing in for / : sysfs under ROOT/sys, ROOT/proc/self/mountinfo,
 * ROOT/proc/swaps, and device images (regular files) under ROOT/dev. udev
 * is not asked then. */
const char *sb_probe_root(void);

/* classify.c, pure: the scheduler in use from queue/scheduler ("none
 * [mq-deadline]"; NULL when malformed, see sb_scheduler_parse), and the transport from the name,
 * the /sys/devices path and udev's ID_BUS (may be NULL). Both malloc'ed, NULL on -ENOMEM; the
 * transport is "" when unknown. */
char *sb_scheduler_in_use(const char *s);
/* Decodes udev's \xHH escapes (ID_MODEL_ENC) in place and trims the
 * padding spaces around the result. */
void sb_udev_decode(char *s);
char *sb_transport_from(const char *name, const char *devpath, const char *id_bus);

/* sysfs.c: facts of one device from its sysfs directory (and udev properties
 * when udev has a database). udev_dev may be NULL. */
struct udev_device;
int sb_sysfs_read_device(struct sb_device *d, const char *syspath, struct udev_device *udev_dev);
/* Reads a sysfs attribute, trailing white space stripped. 0 or -errno. */
int sb_sysfs_read(const char *dir, const char *attr, char **out);

/* blkid.c: every signature on path (at offset/size within it when size is
 * not 0, for partitions without a node). 0 or -errno (-EACCES as non-root). */
int sb_blkid_signatures(const char *path, uint64_t offset, uint64_t size,
			struct sb_signature **sigs, size_t *n);
void sb_signatures_free(struct sb_signature *sigs, size_t n);

/* mounts.c: mount points, root and swap use, by device number and path. */
struct sb_mounts;
int sb_mounts_load(struct sb_mounts **out);
void sb_mounts_free(struct sb_mounts *m);
/* Fills d->mounts, d->holds_root, d->swap. 0 or -ENOMEM. */
int sb_mounts_apply(const struct sb_mounts *m, struct sb_device *d);
