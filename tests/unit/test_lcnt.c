/* The layers' counters per phase (src/stack/counters.c): the rows of two
 * snapshots: a counter's increase, a level's end value, an entry only one
 * snapshot has, a counter that went down (the device was re-created), and
 * the bound on the rows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stack/counters.h"

#include <math.h>
#include <string.h>

static const struct sb_layer_counters cache = {.key = "dmcache"};
static const struct sb_layer_counters bc = {.key = "bcache"};

static struct sb_lcnt_entry *entry(struct sb_lcnt_snap *s, const struct sb_layer_counters *lc,
				   const char *dev)
{
	struct sb_lcnt_entry *e = &s->e[s->n++];
	memset(e, 0, sizeof(*e));
	e->lc = lc;
	strcpy(e->dev, dev);
	return e;
}

static void val(struct sb_lcnt_entry *e, const char *name, uint64_t v, bool gauge)
{
	e->v[e->n++] = (struct sb_lcnt_val){.name = name, .v = v, .gauge = gauge};
}

static void test_rows(void **state)
{
	struct sb_lcnt_snap a = {0}, b = {0};
	struct sb_lcnt_row rows[8];
	struct sb_lcnt_entry *e;

	e = entry(&a, &cache, "dm-2");
	val(e, "read_hits", 100, false);
	val(e, "dirty", 7, true);
	val(e, "promotions", 50, false);
	e = entry(&a, &bc, "bcache0"); /* gone at the end */
	val(e, "cache_hits", 1, false);

	e = entry(&b, &cache, "dm-2");
	val(e, "read_hits", 400, false);
	val(e, "dirty", 3, true);
	val(e, "promotions", 10, false); /* went down: re-created */
	val(e, "demotions", 5, false);	 /* not there at the start */
	e = entry(&b, &bc, "bcache1");	 /* new at the end */
	val(e, "cache_hits", 9, false);

	size_t n = sb_lcnt_rows(&a, &b, 150, rows, 8);
	assert_int_equal(n, 2);
	assert_string_equal(rows[0].name, "dmcache_read_hits");
	assert_string_equal(rows[0].dev, "dm-2");
	assert_true(rows[0].per_op);
	assert_int_equal(rows[0].raw, 300);
	assert_true(fabs(rows[0].value - 2.0) < 1e-12);
	assert_string_equal(rows[1].name, "dmcache_dirty");
	assert_false(rows[1].per_op);
	assert_int_equal(rows[1].raw, 3);
	assert_true(fabs(rows[1].value - 3.0) < 1e-12);

	/* no operations: per op is unknown, never a zero */
	n = sb_lcnt_rows(&a, &b, 0, rows, 8);
	assert_int_equal(n, 2);
	assert_true(isnan(rows[0].value));
	/* the bound */
	assert_int_equal(sb_lcnt_rows(&a, &b, 1, rows, 1), 1);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
