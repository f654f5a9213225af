/* See hist.h: the log-linear latency histogram, cold-path functions. */
#include "result/hist.h"

#include <math.h>
#include <string.h>

void sb_hist_init(struct sb_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void sb_hist_merge(struct sb_hist *dst, const struct sb_hist *src)
{
	if (!src->count)
		return;
	for (unsigned i = 0; i < SB_HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
	dst->sum += src->sum;
	dst->sumsq += src->sumsq;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t sb_hist_bucket_low(unsigned i)
{
	unsigned g = i / SB_HIST_SUB, m = i % SB_HIST_SUB;
	if (g == 0)
		return m;
	return (uint64_t)(SB_HIST_SUB + m) << (g - 1);
}

uint64_t sb_hist_bucket_width(unsigned i)
{
	unsigned g = i / SB_HIST_SUB;
	return g == 0 ? 1 : (uint64_t)1 << (g - 1);
}

double sb_hist_percentile(const struct sb_hist *h, double q)
{
	uint64_t rank, seen = 0;
	double v;

	if (!h->count)
		return 0;
	if (q <= 0)
		return (double)h->min;
	if (q >= 1)
		return (double)h->max;
	rank = (uint64_t)ceil(q * (double)h->count);
	if (rank < 1)
		rank = 1;
	for (unsigned i = 0; i < SB_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen < rank)
			continue;
		/* Exact buckets report their value; wider ones their middle. */
		if (sb_hist_bucket_width(i) == 1)
			v = (double)sb_hist_bucket_low(i);
		else
			v = (double)sb_hist_bucket_low(i) + (double)sb_hist_bucket_width(i) / 2.0;
		if (v < (double)h->min)
			v = (double)h->min;
		if (v > (double)h->max)
			v = (double)h->max;
		return v;
	}
	return (double)h->max;
}

double sb_hist_mean(const struct sb_hist *h)
{
	return h->count ? h->sum / (double)h->count : 0;
}

double sb_hist_stdev(const struct sb_hist *h)
{
	double m, var;
	if (h->count < 2)
		return 0;
	m = h->sum / (double)h->count;
	var = h->sumsq / (double)h->count - m * m;
	return var > 0 ? sqrt(var) : 0;
}
