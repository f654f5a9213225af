/* The payload generator (src/workload/data.c): compressibility per 128 KiB
 * chunk (btrfs's compression unit) measured with the zstd program at
 * compress=0 and compress=50, the share of duplicate 4 KiB blocks at
 * dedupe=50, tags still verifiable, and the same bytes however a buffer is
 * split. zstd is not a linked library here: /usr/bin/zstd runs through
 * sb_spawn (argv), and the compression cases are skipped without it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/spawn.h"
#include "workload/data.h"
#include "workload/wl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (128u << 10)

/* zstd -3 (btrfs's default level) output size of buf. */
static long zstd_size(const void *buf, size_t len)
{
	char path[] = "/tmp/sb-test-data-XXXXXX";
	int fd = mkstemp(path);
	long out = -1;
	if (fd < 0)
		return -1;
	if (write(fd, buf, len) == (ssize_t)len) {
		const char *argv[] = {"zstd", "-3", "-q", "-c", "--no-check", path, NULL};
		struct sb_child c = {
		    .argv = argv, .capture = true, .log_fd = -1, .timeout_ms = 20000};
		if (sb_spawn_run(&c) == 0 && c.status == 0)
			out = (long)c.out_len;
		sb_child_release(&c);
	}
	close(fd);
	unlink(path);
	return out;
}

static void test_compressibility(void **state)
{
	static const struct {
		unsigned pct;
		double lo, hi; /* compressed / original, per chunk */
	} cases[] = {
	    {0, 1 / 1.05, 1.01}, /* at most 1.05:1 */
	    {50, 0.45, 0.55},	 /* target 50 % within 5 points */
	    {80, 0.15, 0.25},
	};
	char *buf = malloc(CHUNK);
	if (!sb_have_program("zstd")) {
		free(buf);
		skip();
	}
	assert_non_null(buf);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct sb_data d;
		sb_data_init(&d, 7, cases[k].pct, 0);
		/* Several chunks: at the start, far in, and of other generations. */
		for (unsigned i = 0; i < 4; i++) {
			uint64_t off = (uint64_t)i * 977 * CHUNK;
			sb_data_fill(&d, buf, off, CHUNK, i);
			long z = zstd_size(buf, CHUNK);
			assert_true(z > 0);
			double r = (double)z / CHUNK;
			if (r < cases[k].lo || r > cases[k].hi)
				fail_msg(
				    "compress=%u: chunk %u compresses to %.3f, expected %.2f..%.2f",
				    cases[k].pct, i, r, cases[k].lo, cases[k].hi);
		}
	}
	free(buf);
}

/* A file of fresh blocks does not compress as a whole either (no block
 * repeats another): the case of the issue, where 64 MiB compressed 57:1. */
static void test_no_repeats(void **state)
{
	const size_t len = 4u << 20;
	char *buf = malloc(len);
	struct sb_data d;
	if (!sb_have_program("zstd")) {
		free(buf);
		skip();
	}
	assert_non_null(buf);
	sb_data_init(&d, 1, 0, 0);
	for (size_t off = 0; off < len; off += 8192)
		sb_data_fill(&d, buf + off, off, 8192, 1);
	long z = zstd_size(buf, len);
	assert_true(z > (long)(len / 1.05));
	free(buf);
}

static int cmp_block(const void *a, const void *b)
{
	return memcmp(a, b, SB_DATA_DEDUPE_BLOCK);
}

static void test_dedupe(void **state)
{
	static const unsigned pcts[] = {0, 50, 90};
	const size_t nb = 4096, len = nb * SB_DATA_DEDUPE_BLOCK;
	char *buf = malloc(len);
	assert_non_null(buf);
	for (size_t k = 0; k < sizeof(pcts) / sizeof(pcts[0]); k++) {
		struct sb_data d;
		size_t dups = 0, distinct_pool = 0;
		sb_data_init(&d, 3, 0, pcts[k]);
		sb_data_fill(&d, buf, 1ull << 30, len, 2);
		/* Verifiable: every tag as expected, and not for another generation. */
		assert_int_equal(sb_data_check(&d, buf, 1ull << 30, len, 2), 0);
		assert_true(sb_data_check(&d, buf, 1ull << 30, len, 3) > 0);
		qsort(buf, nb, SB_DATA_DEDUPE_BLOCK, cmp_block);
		for (size_t i = 1; i < nb; i++) {
			bool same =
			    memcmp(buf + (i - 1) * SB_DATA_DEDUPE_BLOCK,
				   buf + i * SB_DATA_DEDUPE_BLOCK, SB_DATA_DEDUPE_BLOCK) == 0;
			dups += same;
			distinct_pool +=
			    !same && i + 1 < nb &&
			    memcmp(buf + i * SB_DATA_DEDUPE_BLOCK,
				   buf + (i + 1) * SB_DATA_DEDUPE_BLOCK, SB_DATA_DEDUPE_BLOCK) == 0;
		}
		double share = 100.0 * (double)dups / nb;
		if (share < pcts[k] - 5.0 || share > pcts[k] + 5.0)
			fail_msg("dedupe=%u: %.1f %% duplicate blocks", pcts[k], share);
		assert_true(distinct_pool <= SB_DATA_DUP_POOL);
	}
	free(buf);
}

/* The same bytes however a buffer is split, and tags at every sector. */
static void test_split(void **state)
{
	static const size_t cuts[] = {1, 7, 8, 500, 512, 513, 4096, 5000};
	char a[16384], b[16384];
	struct sb_data d;
	sb_data_init(&d, 11, 30, 20);
	sb_data_fill(&d, a, 4096, sizeof(a), 5);
	for (size_t k = 0; k < sizeof(cuts) / sizeof(cuts[0]); k++) {
		for (size_t o = 0; o < sizeof(b); o += cuts[k]) {
			size_t n = sizeof(b) - o < cuts[k] ? sizeof(b) - o : cuts[k];
			sb_data_fill(&d, b + o, 4096 + o, n, 5);
		}
		assert_memory_equal(a, b, sizeof(a));
	}
	assert_int_equal(sb_data_check(&d, a, 4096, sizeof(a), 5), 0);
	/* Without dedupe the tag is the one sb_pattern_check knows. */
	sb_data_init(&d, 11, 0, 0);
	sb_data_fill(&d, a, 4096, sizeof(a), 5);
	assert_int_equal(sb_pattern_check(a, 4096, sizeof(a), 5), 0);
	/* Two seeds give different payloads, same tags. */
	struct sb_data d2;
	sb_data_init(&d2, 12, 0, 0);
	sb_data_fill(&d2, b, 4096, sizeof(b), 5);
	assert_int_equal(sb_pattern_check(b, 4096, sizeof(b), 5), 0);
	assert_memory_not_equal(a + 8, b + 8, 504);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_compressibility),
	    cmocka_unit_test(test_no_repeats),
	    cmocka_unit_test(test_dedupe),
	    cmocka_unit_test(test_split),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
