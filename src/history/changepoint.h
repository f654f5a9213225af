/* Change points in a metric's sequence of runs: where its level stepped.
 * Pure code, no I/O (tests/unit/test_changepoint.c). */
#pragma once

#include <stddef.h>

/* One run of the sequence: the mean of its repeats and the square of that
 * mean's standard error (its own interval; 0 when the run has one repeat
 * and so no interval of its own). */
struct sb_cp_point {
	double mean;
	double var;
};

struct sb_cp {
	size_t index;	   /* the first run of the new level */
	double before;	   /* weighted mean of the segment that ends at index - 1 */
	double after;	   /* weighted mean of the segment that starts at index */
	double change_pct; /* (after - before) / |before|, in percent */
	double t, p;	   /* the split's t and its p-value, Bonferroni-adjusted over the splits */
};

struct sb_cp_opts {
	double alpha;	   /* adjusted p below which a split is taken (SB_CP_ALPHA) */
	double min_change; /* relative step below which a split is not taken (SB_CP_MIN_CHANGE) */
	size_t min_seg;	   /* runs on each side of a split, at least 2 (SB_CP_MIN_SEG) */
};

/* alpha 0.01 after Bonferroni over the splits a segment offers keeps a
 * flat sequence's chance of any false change point near 1% (the unit test
 * bounds it over 2000 seeded sequences); a step under 1% is below what a
 * benchmark on shared or loop-backed machines can pin on one run. */
#define SB_CP_ALPHA 0.01
#define SB_CP_MIN_CHANGE 0.01
#define SB_CP_MIN_SEG 2

/* Finds the change points of x[0..n) (opts NULL: the defaults), writing at
 * most max of them to out in order of index. Returns how many it found
 * (possibly more than max), -EINVAL (a mean not finite, a variance below 0)
 * or -ENOMEM. */
int sb_changepoints(const struct sb_cp_point *x, size_t n, const struct sb_cp_opts *opts,
		    struct sb_cp *out, size_t max);
