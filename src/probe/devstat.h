/* Per-device accounting: the stack of block devices under a mounted
 * directory (mount source, or every btrfs member, then recursively slaves/
 * down to the members and loop devices, partitions' parent disks too), and
 * snapshots of their /sys/class/block/X/stat counters (layout:
 * Documentation/block/stat.rst) so each phase stores what every device
 * did while it ran. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Fields of a stat line, in order. */
enum sb_stat_field {
	SB_ST_READ_IOS,
	SB_ST_READ_MERGES,
	SB_ST_READ_SECTORS,
	SB_ST_READ_TICKS,
	SB_ST_WRITE_IOS,
	SB_ST_WRITE_MERGES,
	SB_ST_WRITE_SECTORS,
	SB_ST_WRITE_TICKS,
	SB_ST_IN_FLIGHT,
	SB_ST_IO_TICKS,
	SB_ST_TIME_IN_QUEUE,
	SB_ST_DISCARD_IOS,
	SB_ST_DISCARD_MERGES,
	SB_ST_DISCARD_SECTORS,
	SB_ST_DISCARD_TICKS,
	SB_ST_FLUSH_IOS,
	SB_ST_FLUSH_TICKS,
	SB_ST_N
};

#define SB_DEVSTACK_MAX 32

struct sb_dev {
	char name[64];
	char kind[8]; /* "top" for the mount's own devices, else its type */
	char type[8]; /* md, dm, part, disk, loop */
	int parent;   /* index of the device above it, -1 for top devices */
};

struct sb_devstack {
	char sysroot[256]; /* "/sys", or a captured tree in tests */
	size_t n;
	struct sb_dev dev[SB_DEVSTACK_MAX];
};

struct sb_devsnap {
	size_t n;
	int fields; /* the fewest fields a stat line had (17 from 5.5: flushes) */
	uint64_t v[SB_DEVSTACK_MAX][SB_ST_N];
};

/* One stat line into v (older kernels have 11 or 15 fields: the rest is 0).
 * Returns the number of fields read, or -EINVAL. Pure. */
int sb_devstat_parse(const char *line, uint64_t v[SB_ST_N]);
/* From the top devices' names, walks sysroot/class/block down (slaves/,
 * partitions' parents). Returns 0 or -errno. */
int sb_devstack_build(const char *sysroot, const char *const *top, size_t ntop,
		      struct sb_devstack *st);
/* The top device names of the file system mounted at or above dir, from
 * mountinfo (and /sys/fs/btrfs/UUID/devices for btrfs): 0 (count in *n),
 * -ENODEV when the mount has no block device (tmpfs). */
int sb_devstack_tops(const char *mountinfo, const char *sysroot, const char *dir, char names[][64],
		     size_t max, size_t *n);
/* Both of the above for a real directory. */
int sb_devstack_for_dir(const char *dir, struct sb_devstack *st);
int sb_devstack_snap(const struct sb_devstack *st, struct sb_devsnap *s);
/* The extra.devstat entry of one phase: deltas b - a (in_flight: at the end). */
json_object *sb_devstat_json(const struct sb_devstack *st, const struct sb_devsnap *a,
			     const struct sb_devsnap *b, uint64_t wl_read, uint64_t wl_write);
/* Bytes read (write: written) by the top devices between a and b. */
uint64_t sb_devstat_top_bytes(const struct sb_devstack *st, const struct sb_devsnap *a,
			      const struct sb_devsnap *b, bool write);
/* Background work on the stack now: I/O in flight on any device, or an md
 * array whose sync_action is not idle. Names it in why. */
bool sb_devstack_busy(const struct sb_devstack *st, char *why, size_t len);
/* What a device is, for labels: "ssd" or "hdd" from queue/rotational (a
 * partition's disk's), and ", loop" when a loop device is at its bottom; a
 * rotational loop device's "hdd" is only the flag: *emulated is set. */
/* The device at the bottom of i (its first child, down to the end): a
 * partition's disk, a member's loop device. */
size_t sb_devstack_bottom(const struct sb_devstack *st, size_t i);
void sb_devstack_class(const struct sb_devstack *st, size_t i, char *buf, size_t len,
		       bool *emulated);
