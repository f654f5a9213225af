/* One block device's facts as the probe collects them (struct sb_device),
 * its class and the bits of its verdict: the data the probe's collectors
 * (sysfs.c, mounts.c, blkid.c) fill, apart from the scan that drives them
 * (probe.h). */
#pragma once

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
