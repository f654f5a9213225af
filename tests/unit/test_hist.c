/* The latency histogram: bucket math, percentiles of known distributions
 * within the documented bound, and merge == one histogram fed with both. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "result/hist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 11;
}

static double unit(uint64_t *s)
{
	return (lcg(s) + 0.5) / 9007199254740992.0; /* (0, 1) */
}

static void test_buckets(void **state)
{
	static const uint64_t vals[] = {
	    0,	       1,    31,	32,	    33,
	    63,	       64,   65,	100,	    1000,
	    4095,      4096, 123456789, 1ull << 40, (1ull << 40) + 12345,
	    UINT64_MAX};
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		uint64_t v = vals[i];
		unsigned b = sb_hist_index(v);
		uint64_t lo = sb_hist_bucket_low(b), w = sb_hist_bucket_width(b);
		assert_true(b < SB_HIST_BUCKETS);
		if (!(lo <= v && v - lo < w))
			fail_msg("value %llu not in bucket %u [%llu, +%llu)", (unsigned long long)v,
				 b, (unsigned long long)lo, (unsigned long long)w);
		/* the documented width bound */
		assert_true(w == 1 || w * SB_HIST_SUB <= lo);
	}
	/* buckets are contiguous and increasing */
	for (unsigned b = 1; b < SB_HIST_BUCKETS; b++)
		assert_true(sb_hist_bucket_low(b) ==
			    sb_hist_bucket_low(b - 1) + sb_hist_bucket_width(b - 1));
}

enum dist { UNIFORM, EXPONENTIAL, LOGNORMAL, CONSTANT, BIMODAL };

static uint64_t draw(enum dist d, uint64_t *s)
{
	switch (d) {
	case UNIFORM:
		return 1 + lcg(s) % 1000000;
	case EXPONENTIAL:
		return (uint64_t)(-log(unit(s)) * 50000.0);
	case LOGNORMAL: {
		double z = sqrt(-2 * log(unit(s))) * cos(2 * M_PI * unit(s));
		return (uint64_t)exp(9.0 + 1.5 * z);
	}
	case CONSTANT:
		return 1234567;
	default:
		return lcg(s) % 10 ? 900 + lcg(s) % 200 : 5000000 + lcg(s) % 1000000;
	}
}

static void test_known_distributions(void **state)
{
	static const struct {
		enum dist d;
		size_t n;
	} cases[] = {
	    {UNIFORM, 100000}, {EXPONENTIAL, 100000}, {LOGNORMAL, 200000},
	    {CONSTANT, 1000},  {BIMODAL, 50000},      {UNIFORM, 7},
	};
	static const double qs[] = {0.01, 0.5, 0.9, 0.99, 0.999};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uint64_t *v = malloc(cases[c].n * sizeof(*v)), seed = 42 + c;
		struct sb_hist *h = malloc(sizeof(*h));
		double sum = 0, sumsq = 0;
		assert_non_null(v);
		assert_non_null(h);
		sb_hist_init(h);
		for (size_t i = 0; i < cases[c].n; i++) {
			v[i] = draw(cases[c].d, &seed);
			sb_hist_add(h, v[i]);
			sum += (double)v[i];
		}
		qsort(v, cases[c].n, sizeof(*v), cmp_u64);
		double mean = sum / cases[c].n;
		for (size_t i = 0; i < cases[c].n; i++)
			sumsq += ((double)v[i] - mean) * ((double)v[i] - mean);
		assert_int_equal(h->count, cases[c].n);
		assert_int_equal(h->min, v[0]);
		assert_int_equal(h->max, v[cases[c].n - 1]);
		assert_true(fabs(sb_hist_mean(h) - mean) <= 1e-9 * mean);
		double sd = sqrt(sumsq / cases[c].n);
		assert_true(fabs(sb_hist_stdev(h) - sd) <= 1e-6 * (sd + 1));
		for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
			size_t rank = (size_t)ceil(qs[k] * cases[c].n);
			double exact = (double)v[rank ? rank - 1 : 0];
			double got = sb_hist_percentile(h, qs[k]);
			if (fabs(got - exact) > exact * SB_HIST_MAX_REL_ERR + 1e-9)
				fail_msg("case %zu q %.3f: got %.1f exact %.1f (bound %.4f)", c,
					 qs[k], got, exact, SB_HIST_MAX_REL_ERR);
		}
		free(v);
		free(h);
	}
}

static void test_merge(void **state)
{
	struct sb_hist *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b)),
		       *all = malloc(sizeof(*all));
	uint64_t s = 7;
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(all);
	sb_hist_init(a);
	sb_hist_init(b);
	sb_hist_init(all);
	for (int i = 0; i < 50000; i++) {
		uint64_t v = draw(i % 2 ? LOGNORMAL : BIMODAL, &s);
		sb_hist_add(i % 3 ? a : b, v);
		sb_hist_add(all, v);
	}
	sb_hist_merge(a, b);
	assert_int_equal(a->count, all->count);
	assert_int_equal(a->min, all->min);
	assert_int_equal(a->max, all->max);
	assert_memory_equal(a->b, all->b, sizeof(a->b));
	assert_true(fabs(a->sum - all->sum) <= 1e-12 * all->sum);
	for (double q = 0.05; q < 1; q += 0.05)
		assert_true(sb_hist_percentile(a, q) == sb_hist_percentile(all, q));
	/* merging an empty one changes nothing */
	sb_hist_init(b);
	sb_hist_merge(a, b);
	assert_int_equal(a->count, all->count);
	assert_int_equal(a->min, all->min);
	free(a);
	free(b);
	free(all);
}

static void test_empty(void **state)
{
	struct sb_hist h;
	sb_hist_init(&h);
	assert_true(sb_hist_percentile(&h, 0.5) == 0);
	assert_true(sb_hist_mean(&h) == 0);
	assert_true(sb_hist_stdev(&h) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_buckets),
	    cmocka_unit_test(test_known_distributions),
	    cmocka_unit_test(test_merge),
	    cmocka_unit_test(test_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
