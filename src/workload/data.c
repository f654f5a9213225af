/* The workloads' payload generator (see data.h): xoshiro256+ per 4 KiB
 * block, tag word first in each sector, optional zeros at the end of each
 * sector (compress=) and duplicate blocks (dedupe=). */
#include "workload/data.h"
#include "workload/wl.h"

#include <string.h>

/* splitmix64's finalizer: a good 64-bit mix for seeding. */
static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xBF58476D1CE4E5B9ull;
	x ^= x >> 27;
	x *= 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

void sb_data_init(struct sb_data *d, uint64_t seed, unsigned compress, unsigned dedupe)
{
	unsigned z;
	d->seed = mix64(seed + 0x9E3779B97F4A7C15ull);
	d->compress = compress > 100 ? 100 : compress;
	d->dedupe = dedupe > 100 ? 100 : dedupe;
	z = (SB_SECTOR * d->compress + 50) / 100;
	d->zero_bytes = z > SB_SECTOR - 8 ? SB_SECTOR - 8 : z;
}

/* Pool blocks live far beyond any real file offset. */
#define DUP_BASE_BLOCK (1ull << 46)
#define PER_BLOCK (SB_DATA_DEDUPE_BLOCK / SB_SECTOR)

/* The block (and generation) whose content goes at block blk. */
static inline uint64_t source_block(const struct sb_data *d, uint64_t blk, uint64_t *gen)
{
	if (d->dedupe) {
		uint64_t h = mix64(d->seed ^ blk * 0xD6E8FEB86659FD93ull ^
				   (*gen + 1) * 0x9E3779B97F4A7C15ull);
		if (h % 100 < d->dedupe) {
			*gen = 0;
			return DUP_BASE_BLOCK + (h >> 32) % SB_DATA_DUP_POOL;
		}
	}
	return blk;
}

uint64_t sb_data_tag(const struct sb_data *d, uint64_t off, uint64_t gen)
{
	uint64_t s = off / SB_SECTOR, b = source_block(d, s / PER_BLOCK, &gen);
	return sb_pattern_word((b * PER_BLOCK + s % PER_BLOCK) * SB_SECTOR, gen);
}

typedef uint64_t v4 __attribute__((vector_size(32)));

/* 512 words from two xoshiro256+ generators of four lanes each (vector
 * extensions: AVX2 when the CPU has it, SSE2 otherwise, chosen at load
 * time). About 40 ms per GiB with AVX2, 120 without. */
__attribute__((target_clones("avx2", "default"))) static void xo_fill(char *w, uint64_t h)
{
	v4 a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, b0 = {0}, b1 = {0}, b2 = {0}, b3 = {0};
	for (int l = 0; l < 4; l++) {
		uint64_t k = (uint64_t)l * 8;
		a0[l] = mix64(h ^ (k + 1));
		a1[l] = mix64(h ^ (k + 2));
		a2[l] = mix64(h ^ (k + 3));
		a3[l] = mix64(h ^ (k + 4));
		b0[l] = mix64(h ^ (k + 5));
		b1[l] = mix64(h ^ (k + 6));
		b2[l] = mix64(h ^ (k + 7));
		b3[l] = mix64(h ^ (k + 8));
	}
	for (unsigned i = 0; i < SB_DATA_DEDUPE_BLOCK; i += 64) {
		v4 ra = a0 + a3, rb = b0 + b3, ta = a1 << 17, tb = b1 << 17;
		a2 ^= a0, a3 ^= a1, a1 ^= a2, a0 ^= a3, a2 ^= ta;
		a3 = (a3 << 45) | (a3 >> 19);
		b2 ^= b0, b3 ^= b1, b1 ^= b2, b0 ^= b3, b2 ^= tb;
		b3 = (b3 << 45) | (b3 >> 19);
		memcpy(w + i, &ra, 32);
		memcpy(w + i + 32, &rb, 32);
	}
}

/* One whole 4 KiB block: random words, then per sector the tag first and
 * compress='s zeros at the end. */
static void gen_block(const struct sb_data *d, char *w, uint64_t blk, uint64_t gen)
{
	uint64_t src = source_block(d, blk, &gen);
	xo_fill(w,
		mix64(d->seed ^ src * 0x9E3779B97F4A7C15ull ^ (gen + 1) * 0xC2B2AE3D27D4EB4Full));
	for (unsigned j = 0; j < PER_BLOCK; j++) {
		uint64_t tag = sb_pattern_word((src * PER_BLOCK + j) * SB_SECTOR, gen);
		memcpy(w + j * SB_SECTOR, &tag, 8);
		if (d->zero_bytes)
			memset(w + (j + 1) * SB_SECTOR - d->zero_bytes, 0, d->zero_bytes);
	}
}

void sb_data_fill(const struct sb_data *d, void *buf, uint64_t off, size_t len, uint64_t gen)
{
	const uint64_t B = SB_DATA_DEDUPE_BLOCK;
	char *b = buf;
	while (len) {
		uint64_t blk = off / B, in = off % B;
		size_t n = B - in < len ? B - in : len;
		if (n == B) {
			gen_block(d, b, blk, gen);
		} else {
			char tmp[SB_DATA_DEDUPE_BLOCK];
			gen_block(d, tmp, blk, gen);
			memcpy(b, tmp + in, n);
		}
		b += n;
		off += n;
		len -= n;
	}
}

uint64_t sb_data_check(const struct sb_data *d, const void *buf, uint64_t off, size_t len,
		       uint64_t gen)
{
	uint64_t bad = 0;
	if (!d->dedupe)
		return sb_pattern_check(buf, off, len, gen);
	for (size_t s = 0; s + 8 <= len; s += SB_SECTOR) {
		uint64_t w;
		memcpy(&w, (const char *)buf + s, 8);
		bad += w != sb_data_tag(d, off + s, gen);
	}
	return bad;
}
