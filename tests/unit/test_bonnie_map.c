/* The one bonnie++ mapping (result/bonnie_csv.c): its table agrees with
 * bonnie++ 1.98's field order, names map back to their test, and a line
 * read and written again keeps every figure in its field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "result/bonnie_csv.h"

#include <stdlib.h>
#include <string.h>

/* bonnie++ 1.98: the six seq rates, each followed by its %CPU, from PUTC;
 * the six file tests likewise from SEQ_CREATE; the twelve latencies in the
 * same order from LAT_PUTC. */
static void test_table_order(void **state)
{
	for (size_t i = 0; i < SB_BONNIE_TESTS; i++) {
		const struct sb_bonnie_test *t = &sb_bonnie_tests[i];
		bool seq = i < 6;
		unsigned want = seq ? SB_BF_PUTC + 2 * i : SB_BF_SEQ_CREATE + 2 * (i - 6);
		if (t->field != want)
			fail_msg("%s: field %d, want %u", t->metric, t->field, want);
		assert_int_equal(t->lat_field, SB_BF_LAT_PUTC + i);
		assert_string_equal(t->workload, seq ? "seq" : "meta");
		assert_true(seq == (t->field < SB_BF_NUM_FILES));
		assert_non_null(t->unit);
	}
	assert_int_equal(SB_BF_COUNT, 50);
	assert_int_equal(SB_BF_LAT_RAN_DEL, SB_BF_COUNT - 1);
}

static void test_test_of(void **state)
{
	static const struct {
		const char *name, *want; /* want: the test's metric, or NULL */
	} cases[] = {
	    {"block_write", "block_write"},
	    {"block_write_cpu", "block_write"},
	    {"block write", "block_write"},
	    {"seek", "seeks"},
	    {"seeks_cpu", "seeks"},
	    {"rand delete", "rand_delete"},
	    {"putc_write", "putc_write"},
	    {"block_writes", NULL},
	    {"seeks_cpux", NULL},
	    {"block", NULL},
	    {"", NULL},
	    {"random write", NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct sb_bonnie_test *t = sb_bonnie_test_of(cases[i].name);
		if (!cases[i].want && t)
			fail_msg("'%s': test %s, want none", cases[i].name, t->metric);
		if (cases[i].want && (!t || strcmp(t->metric, cases[i].want) != 0))
			fail_msg("'%s': test %s, want %s", cases[i].name, t ? t->metric : "none",
				 cases[i].want);
	}
}

static char *field(const char *line, int k)
{
	const char *p = line;
	for (int i = 0; i < k && p; i++) {
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	assert_non_null(p);
	return strndup(p, strcspn(p, ","));
}

/* Read with the table, written with it: every rate, %CPU and latency we
 * keep lands in the field it came from (per-char latencies we do not keep
 * come back empty). */
static void test_roundtrip(void **state)
{
	const char *in = "1.98,2.00a,vm,1,1796029424,64M,,8192,5,"
			 "1141,99,52000,12,30000,8,1338,87,90000,10,1234.5,40,"
			 "16,,,,,4001,21,5002,22,6003,23,7004,24,8005,25,9006,26,"
			 ",3033us,194us,,58us,8060us,116us,68us,231us,175us,79us,11ms";
	struct sb_wl_result *r = sb_wl_result_new("bonnie++", "bonnie++");
	char *out;

	assert_non_null(r);
	assert_int_equal(sb_bonnie_csv_import(in, r), 0);
	out = sb_bonnie_csv_line(r, r, "vm");
	assert_non_null(out);
	for (int k = SB_BF_PUTC; k < SB_BF_COUNT; k++) {
		if (k >= SB_BF_NUM_FILES && k < SB_BF_SEQ_CREATE)
			continue; /* the file counts come from meta's own facts */
		char *want = field(in, k), *got = field(out, k);
		/* 1234.5 seeks/s is written as bonnie++ does: whole numbers */
		if (k == SB_BF_SEEKS_RATE)
			assert_string_equal(got, "1234");
		else if (strcmp(want, got) != 0)
			fail_msg("field %d: '%s', want '%s'", k, got, want);
		free(want);
		free(got);
	}
	free(out);
	sb_wl_result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table_order),
	    cmocka_unit_test(test_test_of),
	    cmocka_unit_test(test_roundtrip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
