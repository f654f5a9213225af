/* The payload the built-in workloads write: fresh pseudo-random data per
 * sector, so that neither a compressing file system (btrfs compress=zstd)
 * nor a deduplicating layer measures the pattern instead of the device,
 * unless compress=PCT / dedupe=PCT ask for it (as fio's
 * buffer_compress_percentage and dedupe_percentage do).
 *
 * Every 512-byte sector still starts with the tag word of sb_pattern_word()
 * (its offset and generation), so verification stays one load per sector
 * (sb_pattern_check). The other words come from xoshiro256+ seeded by (seed,
 * 4 KiB block, generation): the same (seed, offset, generation) always gives
 * the same bytes, however a buffer is split, so a byte-wise check (getc,
 * meta) can regenerate what it expects.
 *
 * compress=PCT: the last PCT% of each sector (at most all but the tag) is
 * zeros, so zstd compresses a 128 KiB chunk to about (100 - PCT)% of it.
 * dedupe=PCT: that share of 4 KiB blocks (chosen by a hash of seed, block and
 * generation) are copies of one of SB_DATA_DUP_POOL blocks; their sectors carry
 * the pool block's tags, which sb_data_check() knows to expect. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define SB_DATA_DUP_POOL 64u
#define SB_DATA_DEDUPE_BLOCK 4096u

struct sb_data {
	uint64_t seed;
	unsigned compress;   /* 0..100 */
	unsigned dedupe;     /* 0..100 */
	unsigned zero_bytes; /* derived by sb_data_init: zeros at the end of each sector */
};

void sb_data_init(struct sb_data *d, uint64_t seed, unsigned compress, unsigned dedupe);
/* Fills len bytes (any length, any offset) as written at file offset off. */
void sb_data_fill(const struct sb_data *d, void *buf, uint64_t off, size_t len, uint64_t gen);
/* Sectors in buf (off and len multiples of 512) whose tag is not the one
 * sb_data_fill() wrote for generation gen at off. */
uint64_t sb_data_check(const struct sb_data *d, const void *buf, uint64_t off, size_t len,
		       uint64_t gen);
/* The tag word expected at sector-aligned offset off. */
uint64_t sb_data_tag(const struct sb_data *d, uint64_t off, uint64_t gen);
