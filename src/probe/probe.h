/* Device discovery: every block device with the facts lsblk shows, its
 * signatures, what uses it, and a usable/refused verdict with reasons.
 * Sources: libudev (sysfs when udev has no database), libblkid, libmount,
 * /proc/swaps. Everything else in stackbench asks this module about devices. */
#pragma once

#include "probe/device.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sb_probe {
	struct sb_device *dev;
	size_t n;
	/* Devices beneath loop devices in dev[] that were not asked for
	 * themselves: kept for their facts (sb_device_lower, the run's
	 * O_EXCL proof), never listed nor found by name. */
	struct sb_device *below;
	size_t n_below;
};

/* Scan all block devices (skipping ram, zram and detached loop devices
 * unless named in only[]). only: NULL-terminated paths or names, or NULL for
 * all; with only, *out holds just those. A named device that does not exist:
 * -ENODEV with *missing set to it. Verdicts always weigh the whole machine
 * (a named disk is refused when a partition of it is mounted). Devices come
 * sorted, partitions right after their disk. Needs no root; as non-root,
 * signatures are unknown and the device is refused (SB_REFUSE_UNPROBED).
 * Golden tests: STACKBENCH_PROBE_ROOT (see probe-internal.h). */
int sb_probe_scan(const char *const *only, struct sb_probe **out, const char **missing);
void sb_probe_free(struct sb_probe *p);
/* By path ("/dev/loop3") or name ("loop3"), after resolving symlinks. */
struct sb_device *sb_probe_find(const struct sb_probe *p, const char *path_or_name);

const char *sb_class_name(enum sb_class c);
/* Does the device fit a profile role ("ssd", "hdd", "nvme", "any")? A loop
 * device whose rotational flag is set fits "hdd"; one that is not fits "ssd". */
bool sb_device_fits_role(const struct sb_device *d, const char *role);

json_object *sb_device_to_json(const struct sb_device *d);

/* Pure helpers (classify.c), exposed for tests and for callers that build
 * devices themselves. */
enum sb_class sb_device_classify(const struct sb_device *d);
/* Derives refuse bits and reasons of d from its facts and from the other
 * devices in all (its partitions, its holders). 0 or -ENOMEM. */
int sb_device_verdict(struct sb_device *d, const struct sb_probe *all);
/* Roles a device can play ("any", "ssd", "hdd", "nvme", its class name):
 * static strings written into roles[] (up to max); returns the count. */
size_t sb_device_roles(const struct sb_device *d, const char **roles, size_t max);
/* Short machine names of refuse bits: "mounted", "holders", "swap", "root",
 * "readonly", "signatures", "partitions", "unprobed". */
const char *sb_refuse_name(unsigned bit);
/* Adds a refusal {bit, text} to d (text copied). 0 or -ENOMEM. */
int sb_device_refuse(struct sb_device *d, unsigned bit, const char *text);
/* Do a and b (distinct entries) reach one physical disk, or overlap (a disk
 * and its own partition)? Same major:minor, a parent/child pair, the same
 * serial/WWID (multipath, a dual-ported disk) or, for loop devices, the
 * same backing inode, or a loop device over the other (or two loop devices
 * over one block device). Pure. */
bool sb_device_same_disk(const struct sb_device *a, const struct sb_device *b);
/* The device a loop device d reads and writes (has_lower), from all by
 * device number; NULL for a loop over a file, or when it is not in all. */
const struct sb_device *sb_device_lower(const struct sb_device *d, const struct sb_probe *all);
/* Refuses d (SB_REFUSE_SMALL) when it is smaller than min bytes, naming
 * both sizes and what needs min (e.g. "xfs"). 0, 1 when refused, -ENOMEM. */
int sb_device_refuse_small(struct sb_device *d, uint64_t min, const char *what);
/* Parses a class name back ("hdd" -> SB_CLASS_HDD); SB_CLASS_UNKNOWN if none. */
enum sb_class sb_class_from_name(const char *s);
