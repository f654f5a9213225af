/* Log-linear latency histogram (in the manner of fio's and HdrHistogram's):
 * fixed size, no allocation, O(1) add, mergeable across threads.
 *
 * Values are nanoseconds (any uint64_t). Values below 2^SB_HIST_SUB_BITS go
 * into exact buckets; above that each power of two [2^e, 2^(e+1)) is split
 * into 2^SB_HIST_SUB_BITS equal buckets, so a bucket is at most 1/32 of its
 * lower bound wide. A percentile is reported as the middle of its bucket
 * (clamped to the exact min and max), hence:
 *
 *   |reported - exact| <= exact / 64   (relative error at most 1.5625 %)
 *
 * where "exact" is the value of rank ceil(q * count) in the sorted input.
 * count, min, max, mean and stdev are exact (kept alongside the buckets). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define SB_HIST_SUB_BITS 5
#define SB_HIST_SUB (1u << SB_HIST_SUB_BITS)
/* Groups 0 (exact values < SUB) and 1..(64 - SUB_BITS) (one per power of two). */
#define SB_HIST_BUCKETS ((64 - SB_HIST_SUB_BITS + 1) * SB_HIST_SUB)
/* The documented bound, as a fraction of the exact value. */
#define SB_HIST_MAX_REL_ERR (1.0 / (2 * SB_HIST_SUB))

struct sb_hist {
	uint64_t count;
	uint64_t min, max;
	double sum, sumsq; /* for the exact mean and standard deviation */
	uint64_t b[SB_HIST_BUCKETS];
};

static inline unsigned sb_hist_index(uint64_t v)
{
	if (v < SB_HIST_SUB)
		return (unsigned)v;
	unsigned e = 63u - (unsigned)__builtin_clzll(v); /* e >= SUB_BITS */
	unsigned shift = e - SB_HIST_SUB_BITS;
	return (shift + 1) * SB_HIST_SUB + (unsigned)((v >> shift) & (SB_HIST_SUB - 1));
}

/* The hot path: a handful of instructions, no branches but min/max. */
static inline void sb_hist_add(struct sb_hist *h, uint64_t v)
{
	double d = (double)v;
	h->b[sb_hist_index(v)]++;
	h->count++;
	h->sum += d;
	h->sumsq += d * d;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void sb_hist_init(struct sb_hist *h);
/* dst += src: the same as if dst had been fed src's values too. */
void sb_hist_merge(struct sb_hist *dst, const struct sb_hist *src);
/* Lowest value that falls into bucket i, and the bucket's width. */
uint64_t sb_hist_bucket_low(unsigned i);
uint64_t sb_hist_bucket_width(unsigned i);
/* q in [0, 1]; 0 when empty. */
double sb_hist_percentile(const struct sb_hist *h, double q);
double sb_hist_mean(const struct sb_hist *h);
double sb_hist_stdev(const struct sb_hist *h); /* population standard deviation */
