/* The workloads' payload generator (see data.h): wyrand per sector, tag word
 * first, optional zeros at the end (compress=) and duplicate blocks
 * (dedupe=). About one 64x64->128 multiply per 8 bytes. */
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
#define DUP_BASE_SECTOR (1ull << 50)

/* The sector (and generation) whose content goes at sector s. */
static inline uint64_t source_sector(const struct sb_data *d, uint64_t s, uint64_t *gen)
{
	if (d->dedupe) {
		const uint64_t per = SB_DATA_DEDUPE_BLOCK / SB_SECTOR;
		uint64_t h = mix64(d->seed ^ (s / per) * 0xD6E8FEB86659FD93ull ^
				   (*gen + 1) * 0x9E3779B97F4A7C15ull);
		if (h % 100 < d->dedupe) {
			*gen = 0;
			return DUP_BASE_SECTOR + ((h >> 32) % SB_DATA_DUP_POOL) * per + s % per;
		}
	}
	return s;
}

uint64_t sb_data_tag(const struct sb_data *d, uint64_t off, uint64_t gen)
{
	uint64_t s = source_sector(d, off / SB_SECTOR, &gen);
	return sb_pattern_word(s * SB_SECTOR, gen);
}

/* One whole sector into w (8-byte stores, any alignment). */
static inline void gen_sector(const struct sb_data *d, char *w, uint64_t s, uint64_t gen)
{
	uint64_t src = source_sector(d, s, &gen);
	uint64_t x = mix64(d->seed ^ src * 0x9E3779B97F4A7C15ull ^ gen * 0xC2B2AE3D27D4EB4Full);
	uint64_t tag = sb_pattern_word(src * SB_SECTOR, gen);
	const unsigned rnd = SB_SECTOR - d->zero_bytes; /* bytes of tag + random */
	unsigned i;

	memcpy(w, &tag, 8);
	for (i = 8; i + 8 <= rnd; i += 8) {
		x += 0xA0761D6478BD642Full;
		unsigned __int128 t = (unsigned __int128)x * (x ^ 0xE7037ED1A0B428DBull);
		uint64_t v = (uint64_t)(t >> 64) ^ (uint64_t)t;
		memcpy(w + i, &v, 8);
	}
	if (i < SB_SECTOR) {
		memset(w + i, 0, SB_SECTOR - i);
		if (i < rnd) {
			x += 0xA0761D6478BD642Full;
			unsigned __int128 t = (unsigned __int128)x * (x ^ 0xE7037ED1A0B428DBull);
			uint64_t v = (uint64_t)(t >> 64) ^ (uint64_t)t;
			memcpy(w + i, &v, rnd - i);
		}
	}
}

void sb_data_fill(const struct sb_data *d, void *buf, uint64_t off, size_t len, uint64_t gen)
{
	char *b = buf;
	while (len) {
		uint64_t s = off / SB_SECTOR, in = off % SB_SECTOR;
		size_t n = SB_SECTOR - in < len ? SB_SECTOR - in : len;
		if (n == SB_SECTOR) {
			gen_sector(d, b, s, gen);
		} else {
			char tmp[SB_SECTOR];
			gen_sector(d, tmp, s, gen);
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
