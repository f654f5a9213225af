/* bcache's pure parsers (bcache_sysfs.c; unit-tested and fuzzed): the
 * on-disk superblock, and the sysfs texts its capture and counters read;
 * and what bcache.c and bcache_sysfs.c share. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stack/counters.h"
#include "stack/stack.h"

/* Where make-bcache writes the superblock (sector 8), and how much of it
 * the parser reads. */
#define SB_BCACHE_SB_OFFSET 4096
#define SB_BCACHE_SB_LEN 4096

struct sb_bcache_sb {
	bool cache;	   /* a cache device (else a backing device) */
	uint64_t version;  /* 0, 3, 5: cache; 1, 4, 6: backing */
	char uuid[37];	   /* dev.uuid */
	char set_uuid[37]; /* cset.uuid: the cache set (a backing device: the one it is
			      attached to, "" when none) */
};

/* The superblock in buf (the len bytes at SB_BCACHE_SB_OFFSET): 0 and out
 * filled, -ENOENT when there is no bcache magic, -EINVAL when the magic is
 * there but the rest is not a superblock bcache would take (unknown
 * version, wrong offset). */
int sb_bcache_sb_parse(const unsigned char *buf, size_t len, struct sb_bcache_sb *out);

/* One sysfs value: a plain count ("1234\n") or a size as bcache prints it
 * (bch_hprint: "0.0k", "1.5M", 1024-based, one decimal), in bytes. 0,
 * -EINVAL (not such a value), -ERANGE (does not fit 64 bits). */
int sb_bcache_parse_value(const char *text, uint64_t *out);

/* A sysfs choice list with the current one bracketed ("writethrough
 * [writeback] writearound none"): 0 and the bracketed word in buf, or
 * -EINVAL when no (or more than one) word is bracketed. */
int sb_bcache_parse_choice(const char *text, char *buf, size_t len);

/* bcacheN's counters: stats_total's cache_hits, cache_misses,
 * cache_bypass_hits, cache_bypass_misses, cache_miss_collisions,
 * cache_readaheads (counters) and dirty_data (a gauge, bytes). */
size_t sb_bcache_counters_read(const struct sb_devstack *st, size_t i, struct sb_lcnt_val *out,
			       int log_fd);
extern const struct sb_layer_counters sb_bcache_counters;

/* ---- between bcache.c (the layer, its steps and plan) and bcache_sysfs.c ---- */

const char *sb_bcache_base_name(const char *dev);
/* The superblock on dev: 0, -ENOENT (none), -EINVAL (damaged), -errno. */
int sb_bcache_read_sb(const char *dev, struct sb_bcache_sb *sb);
/* /sys/class/block/NAME/SUB of a /dev path (NAME its kernel name). */
int sb_bcache_sys_path(const char *dev, const char *sub, char *buf, size_t len);
/* Is dev registered as a backing device (its bcache directory there)? */
bool sb_bcache_backing_registered(const char *dev);
bool sb_bcache_cset_registered(const char *uuid);
/* The cache set a registered cache device belongs to (its "set" link), in
 * uuid; "" when it is not registered. */
void sb_bcache_cache_dev_cset(const char *dev, char uuid[37]);
/* Waits (bounded) until done(arg) holds. */
bool sb_bcache_wait_for(bool (*done)(const char *), const char *arg, unsigned ms);
/* Does bcache still hold dev (its bcache directory, which goes only after
 * bcache let go of the device, some time after the stop)? */
bool sb_bcache_held(const char *dev);
bool sb_bcache_not_held(const char *dev);
bool sb_bcache_not_cset(const char *uuid);
/* udev's rule (69-bcache.rules) registers what it sees with a superblock:
 * let it finish, then register what it did not. */
int sb_bcache_do_register(struct sb_exec *x, const char *dev, bool (*done)(const char *),
			  const char *arg);
/* Zeroes the bcache superblock of dev when it is one (of uuid, when given:
 * dev.uuid or cset.uuid), opened exclusively: -EBUSY while something holds
 * it (udev registered it again). 0, or -errno. */
int sb_bcache_zero_sb(struct sb_exec *x, const char *dev, const char *uuid);
/* Writes value to the backing device's bcache/FILE, logged. */
int sb_bcache_set_attr(struct sb_exec *x, const char *on, const char *file, const char *value);
bool sb_bcache_attached(const char *on);
/* cache_mode, sequential_cutoff, state, and the cache set's UUID, block
 * and bucket sizes, as bcache runs them: {"bcache0": {...}}. */
void sb_bcache_capture(json_object *into, const struct sb_devstack *st, size_t i, int log_fd);
/* The fields of its capture that are no configuration (left out of the rows
 * the report compares): dirty data and state change as the run writes, the
 * cache set is named by its UUID. */
extern const char *const sb_bcache_capture_skip[];
