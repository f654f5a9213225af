/* device-mapper cache targets as `dmsetup status` and `dmsetup table`
 * print them: dm-cache (lvmcache) and dm-writecache. Pure parsers of one
 * line ("START LENGTH TARGET PARAMS..."), unit-tested
 * (tests/unit/test_dmstatus.c) and fuzzed (fuzz/fuzz_dmstatus.c); the
 * layer (stack/lvmcache.c) reads the lines through libdevmapper. Field
 * order: the kernel's Documentation/admin-guide/device-mapper/cache.rst
 * and writecache.rst. */
#pragma once

#include "stack/counters.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sb_dms_type { SB_DMS_OTHER, SB_DMS_CACHE, SB_DMS_WRITECACHE };

/* dm-writecache's status numbers after the error indicator, as far as
 * the kernel prints them (4.18: blocks, free, writeback; 5.15 and later
 * add reads, read hits, writes ... discards). */
#define SB_DMS_WC_N 13

struct sb_dmstatus {
	enum sb_dms_type type;
	uint64_t length; /* sectors */
	/* dm-cache */
	uint64_t md_block_sectors, md_used, md_total;
	uint64_t block_sectors, used, total;
	uint64_t read_hits, read_misses, write_hits, write_misses;
	uint64_t demotions, promotions, dirty;
	char mode[16];	 /* writethrough, writeback, passthrough (from the features) */
	char policy[16]; /* smq ... */
	char md_mode[8]; /* rw, ro, or Fail */
	bool needs_check;
	bool fail; /* the target reports "Fail" (dm-cache) or an error (writecache) */
	/* dm-writecache */
	uint64_t wc_error;
	uint64_t wc[SB_DMS_WC_N];
	unsigned wc_n; /* how many of wc the kernel printed (3 or 13) */
};

/* One status line into out. 0: a cache or writecache line parsed (or
 * SB_DMS_OTHER for another target, nothing else filled); -EINVAL: a cache
 * target line that does not have the documented fields. */
int sb_dmstatus_parse(const char *line, struct sb_dmstatus *out);

/* The per-phase counters of a parsed status (stack/counters.h): counters
 * and gauges with static names; returns how many (at most SB_LCNT_MAX),
 * 0 for another target. */
size_t sb_dmstatus_counters(const struct sb_dmstatus *s, struct sb_lcnt_val *out);

/* dm-writecache's table line ("0 N writecache s ORIGIN CACHE BLOCKSIZE
 * #OPT OPT..."): the block size in bytes, 's' (SSD) or 'p' (persistent
 * memory) in *kind; 0 when the line is not a writecache table. */
uint64_t sb_dmtable_wc_block(const char *line, char *kind);
