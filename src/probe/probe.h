/* Device discovery: every block device with the facts lsblk shows, its
 * signatures, what uses it, and a usable/refused verdict with reasons.
 * Sources: libudev (sysfs when udev has no database), libblkid, libmount,
 * /proc/swaps. Everything else in stackbench asks this module about devices. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sb_class {
	SB_CLASS_UNKNOWN = 0,
	SB_CLASS_HDD,
	SB_CLASS_SSD,
	SB_CLASS_NVME,
	SB_CLASS_LOOP,
	SB_CLASS_VIRTUAL, /* virtio, xen, ram-backed... without a known medium */
	SB_CLASS_MD,
	SB_CLASS_DM,
};

/* Reasons a device is refused; a bit set each, all reported. */
enum {
	SB_REFUSE_MOUNTED = 1 << 0,
	SB_REFUSE_HOLDERS = 1 << 1,
	SB_REFUSE_SWAP = 1 << 2,
	SB_REFUSE_ROOT = 1 << 3, /* holds / or is a parent of what does */
	SB_REFUSE_READONLY = 1 << 4,
	SB_REFUSE_SIGNATURES = 1 << 5, /* the only one --wipe lifts */
	SB_REFUSE_PARTITIONS = 1 << 6, /* a mounted/used partition: see children */
	SB_REFUSE_UNPROBED = 1 << 7,   /* signatures unreadable (not root, no node): unknown */
	SB_REFUSE_DISK = 1 << 8,       /* a partition whose disk is in use (holders, siblings) */
	SB_REFUSE_EXCL = 1 << 9,       /* another program holds it open O_EXCL (run's check) */
	SB_REFUSE_TWICE = 1 << 10,     /* one disk under two names (two paths, one image twice) */
	SB_REFUSE_CHANGED = 1 << 11,   /* not the device checked before (re-probe) */
	SB_REFUSE_SMALL = 1 << 12,     /* empty (a detached loop device) or too small to build on */
};
#define SB_REFUSE_NBITS 13
/* Nothing can be built on less: a partition table, an md superblock or a
 * file system's own metadata take about this much. */
#define SB_DEVICE_MIN_BYTES (1u << 20)

struct sb_signature {
	char *type;  /* "ext4", "linux_raid_member", "LVM2_member", "gpt", "dos" */
	char *usage; /* "filesystem", "raid", "crypto", "partition table", "other" */
	char *label;
	char *uuid;
	uint64_t offset;
};

struct sb_device {
	char *path; /* /dev/sdb */
	char *name; /* sdb */
	unsigned major, minor;
	uint64_t size; /* bytes */
	unsigned log_sec, phys_sec;
	char *model, *serial, *vendor, *transport; /* NULL when unknown */
	char *firmware;				   /* the firmware revision, NULL when unknown */
	bool rotational, discard, readonly, removable, is_partition;
	char *scheduler; /* the one in use, e.g. "mq-deadline" */
	unsigned read_ahead_kb;
	char *parent;	    /* partitions: the whole disk's name */
	char *backing_file; /* loop: its file */
	char **holders;	    /* names, NULL-terminated */
	char **mounts;	    /* mount points of this device, NULL-terminated */
	bool swap, holds_root;
	struct sb_signature *sigs;
	size_t n_sigs;
	enum sb_class cls;
	unsigned refuse; /* SB_REFUSE_* bits */
	char **reasons;	 /* human-readable, one per reason, NULL-terminated */
	/* Added after the first version; keep new fields at the end. */
	char *syspath;	/* /sys/devices/.../block/sdb */
	bool has_node;	/* /dev/NAME exists and is this device (no udev: often not) */
	int sigs_err;	/* 0, or -errno when signatures could not be read */
	unsigned partn; /* partition number, 0 for whole disks */
	uint64_t start; /* partitions: offset in the parent, bytes */
	char *note;	/* remark for humans, e.g. how a node-less partition was read */
	/* reason_bits[i] is the SB_REFUSE_* bit of reasons[i]: callers decide by
	 * bit, never by the text. */
	unsigned *reason_bits;
	/* loop: the backing file's st_dev and st_ino (0 when unknown) */
	uint64_t backing_dev, backing_ino;
	/* loop over a block device (a disk, a partition, another loop, an md
	 * array, through any node or symlink): that device's number. Writing
	 * the loop writes it, and the kernel lists the loop as no holder of
	 * it, so the verdict takes over every refusal of it (classify.c). */
	bool has_lower;
	unsigned lower_major, lower_minor;
	/* -errno when what backs the loop could not be told (file or device) */
	int lower_err;
};

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
