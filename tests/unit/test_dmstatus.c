/* dm-cache and dm-writecache status and table lines (stack/dmstatus.c):
 * the kernel's documented layouts, lines as the VM's kernel printed them,
 * and what must be refused whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stack/dmstatus.h"

#include <errno.h>
#include <string.h>

static uint64_t val(const struct sb_lcnt_val *v, size_t n, const char *name, bool *gauge)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0) {
			*gauge = v[i].gauge;
			return v[i].v;
		}
	fail_msg("no counter %s", name);
	return 0;
}

static void test_cache(void **state)
{
	(void)state;
	struct sb_dmstatus s;
	struct sb_lcnt_val v[SB_LCNT_MAX];
	bool g;
	/* cache.rst's example, counters made distinct */
	const char *line = "0 2097152 cache 8 27/2048 128 10/16384 11 49 12 13 14 15 16 1 "
			   "writethrough 2 migration_threshold 2048 smq 0 rw -";
	assert_int_equal(sb_dmstatus_parse(line, &s), 0);
	assert_int_equal(s.type, SB_DMS_CACHE);
	assert_int_equal(s.length, 2097152);
	assert_int_equal(s.md_used, 27);
	assert_int_equal(s.md_total, 2048);
	assert_int_equal(s.block_sectors, 128);
	assert_int_equal(s.used, 10);
	assert_int_equal(s.total, 16384);
	assert_string_equal(s.mode, "writethrough");
	assert_string_equal(s.policy, "smq");
	assert_string_equal(s.md_mode, "rw");
	assert_false(s.needs_check);
	size_t n = sb_dmstatus_counters(&s, v);
	assert_int_equal(n, 10);
	assert_int_equal(val(v, n, "read_hits", &g), 11);
	assert_false(g);
	assert_int_equal(val(v, n, "read_misses", &g), 49);
	assert_int_equal(val(v, n, "write_hits", &g), 12);
	assert_int_equal(val(v, n, "write_misses", &g), 13);
	assert_int_equal(val(v, n, "demotions", &g), 14);
	assert_int_equal(val(v, n, "promotions", &g), 15);
	assert_false(g);
	assert_int_equal(val(v, n, "dirty_blocks", &g), 16);
	assert_true(g);
	assert_int_equal(val(v, n, "used_blocks", &g), 10);
	assert_true(g);

	/* no features: the kernel's default mode is writeback; needs_check */
	assert_int_equal(sb_dmstatus_parse("0 8 cache 8 1/2 64 0/4 0 0 0 0 0 0 0 0 2 "
					   "migration_threshold 2048 smq 2 a b ro needs_check",
					   &s),
			 0);
	assert_string_equal(s.mode, "writeback");
	assert_string_equal(s.md_mode, "ro");
	assert_true(s.needs_check);

	/* as the VM's kernel (6.1) printed it, lvm2 2.03.16's cachevol: the
	 * mq alias of smq with its ignored arguments */
	assert_int_equal(sb_dmstatus_parse(
			     "0 2088960 cache 8 40/2048 128 7/16192 50 79 13 1175 0 7 0 2 "
			     "metadata2 writethrough 2 migration_threshold 2048 mq 10 "
			     "random_threshold 0 sequential_threshold 0 discard_promote_adjustment "
			     "0 read_promote_adjustment 0 write_promote_adjustment 0 rw - ",
			     &s),
			 0);
	assert_string_equal(s.mode, "writethrough");
	assert_string_equal(s.policy, "mq");
	assert_int_equal(s.read_hits, 50);
	assert_int_equal(s.promotions, 7);
	assert_int_equal(s.total, 16192);

	/* failed cache: parsed, no counters */
	assert_int_equal(sb_dmstatus_parse("0 8 cache Fail", &s), 0);
	assert_true(s.fail);
	assert_int_equal(sb_dmstatus_counters(&s, v), 0);
}

static void test_writecache(void **state)
{
	(void)state;
	struct sb_dmstatus s;
	struct sb_lcnt_val v[SB_LCNT_MAX];
	bool g;

	/* 4.18 .. 5.14: error, blocks, free, writeback */
	assert_int_equal(sb_dmstatus_parse("0 2097152 writecache 0 262144 262000 3", &s), 0);
	assert_int_equal(s.type, SB_DMS_WRITECACHE);
	assert_int_equal(s.wc_n, 3);
	size_t n = sb_dmstatus_counters(&s, v);
	assert_int_equal(n, 4);
	assert_int_equal(val(v, n, "free_blocks", &g), 262000);
	assert_true(g);
	assert_int_equal(val(v, n, "writeback", &g), 3);
	assert_true(g);

	/* 5.15 on: reads, read hits, writes ... discards */
	assert_int_equal(sb_dmstatus_parse("0 2097152 writecache 0 100 90 1 "
					   "20 5 30 2 3 4 26 0 7 8",
					   &s),
			 0);
	n = sb_dmstatus_counters(&s, v);
	assert_int_equal(n, 14);
	assert_int_equal(val(v, n, "reads", &g), 20);
	assert_false(g);
	assert_int_equal(val(v, n, "read_hits", &g), 5);
	assert_int_equal(val(v, n, "writes", &g), 30);
	assert_int_equal(val(v, n, "write_alloc", &g), 26);
	assert_int_equal(val(v, n, "discards", &g), 8);
	assert_false(g);

	/* the VM's 6.1 kernel */
	assert_int_equal(sb_dmstatus_parse("0 2088960 writecache 0 260103 243628 0 346 148 17029 "
					   "36 1 0 16992 0 2 261120",
					   &s),
			 0);
	assert_int_equal(s.wc_n, 13);
	n = sb_dmstatus_counters(&s, v);
	assert_int_equal(val(v, n, "writes", &g), 17029);
	assert_int_equal(val(v, n, "discards", &g), 261120);

	/* an error is a parsed status, flagged */
	assert_int_equal(sb_dmstatus_parse("0 8 writecache 5 1 1 0", &s), 0);
	assert_true(s.fail);

	assert_int_equal(sb_dmtable_wc_block("0 2097152 writecache s 253:1 253:2 4096 0", NULL),
			 4096);
	char kind = 0;
	assert_int_equal(sb_dmtable_wc_block("0 8 writecache p 8:1 8:2 512 2 a b", &kind), 512);
	assert_int_equal(kind, 'p');
	assert_int_equal(sb_dmtable_wc_block("0 8 writecache x 8:1 8:2 512 0", NULL), 0);
	assert_int_equal(sb_dmtable_wc_block("0 8 writecache s 8:1 8:2 3000 0", NULL), 0);
	assert_int_equal(sb_dmtable_wc_block("0 8 cache 8:1 8:2 8:3 128", NULL), 0);
}

static void test_refused(void **state)
{
	(void)state;
	struct sb_dmstatus s;
	static const char *const bad[] = {
	    "",
	    "0",
	    "x 8 cache 8 1/2 64 0/4 0 0 0 0 0 0 0 0 0 smq 0 rw -",
	    "0 8 cache 8 3/2 64 0/4 0 0 0 0 0 0 0 0 0 smq 0 rw -", /* used > total */
	    "0 8 cache 8 1/2 64 0/4 0 0 0 0 0 -1 0 0 0 smq 0 rw -",
	    "0 8 cache 8 1/2 64 0/4 0 0 0 0 0 0 0 5 writeback 0 smq 0 rw -", /* 5 features */
	    "0 8 cache 8 1/2 64 0/4 0 0 0 0 0 0 0 0 0 smq 0 rw",	     /* torn */
	    "0 8 cache 8 1/2 64 0/4 0 0 0 0 0 0 0 0 0 smq 0 rw - extra",
	    "0 8 cache 8 1/2 64 0/4 0 0 0 0 0 0 0 0 0 smq 0 rw maybe",
	    "0 8 cache 8 1/2 64 0/4 0 0 0 0 0 0 0 0 0 smq 99999999999999999999 rw -",
	    "0 8 writecache 0 1 1",
	    "0 8 writecache 0 1 x 0",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (sb_dmstatus_parse(bad[i], &s) != -EINVAL)
			fail_msg("accepted: '%s'", bad[i]);
		assert_int_equal(s.type, SB_DMS_OTHER);
	}
	assert_int_equal(sb_dmstatus_parse("0 8 linear 8:16 2048", &s), 0);
	assert_int_equal(s.type, SB_DMS_OTHER);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_cache),
					   cmocka_unit_test(test_writecache),
					   cmocka_unit_test(test_refused)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
