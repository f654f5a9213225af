/* bcache.c's pure parsers (unit-tested and fuzzed): the on-disk superblock,
 * and the sysfs texts its capture and counters read. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stack/counters.h"

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
