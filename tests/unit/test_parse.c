/* The one value parser (src/util/parse.c, size.c) shared by profiles,
 * workload specs and the command line, the one "did you mean", and the one
 * scheduler parser: table-driven. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "profile/profile.h"
#include "util/macro.h"
#include "util/parse.h"
#include "util/suggest.h"
#include "workload/workload.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_bool(void **state)
{
	static const struct {
		const char *in;
		int rc;
		bool want;
	} cases[] = {
	    {"yes", 0, true},  {"Yes", 0, true},     {"TRUE", 0, true}, {"on", 0, true},
	    {"1", 0, true},    {"no", 0, false},     {"Off", 0, false}, {"false", 0, false},
	    {"0", 0, false},   {"", -EINVAL, 0},     {"y", -EINVAL, 0}, {"yes ", -EINVAL, 0},
	    {"2", -EINVAL, 0}, {"nope", -EINVAL, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool b = !cases[i].want;
		int r = sb_parse_bool(cases[i].in, &b);
		if (r != cases[i].rc || (r == 0 && b != cases[i].want))
			fail_msg("'%s': rc %d value %d", cases[i].in, r, b);
		/* the profile and the workload spec agree with it */
		char *m = sb_key_check_value(sb_key_find("md.assume-clean"), cases[i].in);
		if (!m != !r && *cases[i].in)
			fail_msg("profile bool '%s': %s", cases[i].in, m ? m : "accepted");
		free(m);
		char spec[64], *err = NULL;
		snprintf(spec, sizeof(spec), "rand:4k,direct=%s", cases[i].in);
		int wr = sb_workload_check(spec, &err);
		if ((wr == 0) != (r == 0))
			fail_msg("workload bool '%s': %d (%s)", cases[i].in, wr, err ? err : "");
		free(err);
	}
}

static void test_uint(void **state)
{
	static const struct {
		const char *in;
		uint64_t min, max;
		int rc;
		uint64_t want;
	} cases[] = {
	    {"0", 0, 10, 0, 0},
	    {"10", 0, 10, 0, 10},
	    {"11", 0, 10, -ERANGE, 0},
	    {"0", 1, 1000, -ERANGE, 0},
	    {"007", 0, 10, 0, 7},
	    {"18446744073709551615", 0, UINT64_MAX, 0, UINT64_MAX},
	    {"18446744073709551616", 0, UINT64_MAX, -ERANGE, 0},
	    {"", 0, 10, -EINVAL, 0},
	    {"-1", 0, 10, -EINVAL, 0},
	    {"+1", 0, 10, -EINVAL, 0},
	    {" 1", 0, 10, -EINVAL, 0},
	    {"1x", 0, 10, -EINVAL, 0},
	    {"1.5", 0, 10, -EINVAL, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 12345;
		int r = sb_parse_uint(cases[i].in, cases[i].min, cases[i].max, &v);
		if (r != cases[i].rc || (r == 0 && v != cases[i].want))
			fail_msg("'%s': rc %d value %llu", cases[i].in, r, (unsigned long long)v);
	}
}

/* fio's JSON numbers are doubles; a cast of one out of range is undefined
 * (found by fuzz/fuzz_import_fio.c: "N": 1e20). */
static void test_u64_of_double(void **state)
{
	static const struct {
		double in;
		uint64_t want;
	} cases[] = {
	    {0, 0},
	    {-1, 0},
	    {-1e300, 0},
	    {1.9, 1},
	    {4096, 4096},
	    {9007199254740993.0, 9007199254740992ull}, /* the nearest double */
	    {18446744073709549568.0, 18446744073709549568ull}, /* largest below 2^64 */
	    {18446744073709551616.0, UINT64_MAX},
	    {1e20, UINT64_MAX},
	    {1e300, UINT64_MAX},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (sb_u64_of_double(cases[i].in) != cases[i].want)
			fail_msg("%g: %llu", cases[i].in,
				 (unsigned long long)sb_u64_of_double(cases[i].in));
	assert_int_equal(sb_u64_of_double(NAN), 0);
	assert_true(sb_u64_of_double(INFINITY) == UINT64_MAX);
	assert_int_equal(sb_u64_of_double(-INFINITY), 0);
}

/* device/vpd_pg80 as QEMU's scsi-hd gives it, and damaged forms. */
static void test_vpd80(void **state)
{
	static const struct {
		const char *bytes; /* header bytes, then the page */
		size_t len;
		int rc;
		const char *want;
	} cases[] = {
	    {"\x00\x80\x00\x08sbvm-ssd", 12, 0, "sbvm-ssd"},
	    {"\x00\x80\x00\x0c  WD-123    ", 16, 0, "WD-123"},
	    {"\x00\x80\x00\x05" "A B\0\0", 9, 0, "A B"},
	    {"\x00\x83\x00\x08sbvm-ssd", 12, -EINVAL, NULL},  /* another page */
	    {"\x00\x80\x00\x20sbvm-ssd", 12, -EINVAL, NULL},  /* length past the data */
	    {"\x00\x80\x00\x04    ", 8, -EINVAL, NULL},       /* blank */
	    {"\x00\x80\x00\x03" "a\x01" "b", 7, -EINVAL, NULL},     /* not printable */
	    {"\x00\x80", 2, -EINVAL, NULL},
	};
	char out[64], tiny[4];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = sb_vpd80_serial((const unsigned char *)cases[i].bytes, cases[i].len, out,
					sizeof(out));
		if (r != cases[i].rc || (r == 0 && strcmp(out, cases[i].want) != 0))
			fail_msg("case %zu: rc %d '%s'", i, r, r == 0 ? out : "");
	}
	assert_int_equal(sb_vpd80_serial((const unsigned char *)"\x00\x80\x00\x04" "abcd", 8, tiny,
					 sizeof(tiny)),
			 -ENOBUFS);
}

static void test_size_duration(void **state)
{
	static const struct {
		const char *in;
		int rc;
		uint64_t size, ms; /* UINT64_MAX: that parser refuses it */
	} cases[] = {
	    {"4096", 0, 4096, 4096000},	       {"4k", 0, 4096, UINT64_MAX},
	    {"2G", 0, 2ull << 30, UINT64_MAX}, {"30s", 0, UINT64_MAX, 30000},
	    {"5m", 0, 5ull << 20, 300000},     {"250ms", 0, UINT64_MAX, 250},
	    {"", 0, UINT64_MAX, UINT64_MAX},   {"x", 0, UINT64_MAX, UINT64_MAX},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 0;
		int r = sb_parse_size(cases[i].in, &v, false, NULL);
		if ((r == 0) != (cases[i].size != UINT64_MAX) || (r == 0 && v != cases[i].size))
			fail_msg("size '%s': rc %d value %llu", cases[i].in, r,
				 (unsigned long long)v);
		r = sb_parse_duration_ms(cases[i].in, &v);
		if ((r == 0) != (cases[i].ms != UINT64_MAX) || (r == 0 && v != cases[i].ms))
			fail_msg("duration '%s': rc %d value %llu", cases[i].in, r,
				 (unsigned long long)v);
	}
}

static void test_suggest(void **state)
{
	static const char *const cands[] = {"level", "members", "write-mostly", "chunk"};
	static const struct {
		const char *in, *want;
	} cases[] = {
	    {"levl", "level"},	   {"levle", "level"}, /* swapped neighbours */
	    {"membrs", "members"}, {"write-mosty", "write-mostly"},
	    {"xyz", NULL},	   {"chnuk", "chunk"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *s = sb_suggest(cases[i].in, cands, 4);
		if ((!s) != (!cases[i].want) || (s && strcmp(s, cases[i].want)))
			fail_msg("'%s': '%s', want '%s'", cases[i].in, s ? s : "(none)",
				 cases[i].want ? cases[i].want : "(none)");
	}
}

static void test_scheduler(void **state)
{
	static const struct {
		const char *in;
		int rc;
		const char *cur, *names;
	} cases[] = {
	    {"none [mq-deadline] kyber bfq", 0, "mq-deadline", "none mq-deadline kyber bfq"},
	    {"[none] mq-deadline\n", 0, "none", "none mq-deadline"},
	    {"none", 0, "none", "none"},
	    {"  bfq [kyber] ", 0, "kyber", "bfq kyber"},
	    /* what the probe used to accept and the queue step refused */
	    {"none mq-deadline", -EINVAL, NULL, NULL},
	    {"", -EINVAL, NULL, NULL},
	    {"[broken", -EINVAL, NULL, NULL},
	    {"[a] [b]", -EINVAL, NULL, NULL},
	    {"[]", -EINVAL, NULL, NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char cur[64] = "", names[128] = "";
		int r = sb_scheduler_parse(cases[i].in, cur, sizeof(cur), names, sizeof(names));
		if (r != cases[i].rc)
			fail_msg("'%s': rc %d, want %d", cases[i].in, r, cases[i].rc);
		if (r == 0 && (strcmp(cur, cases[i].cur) || strcmp(names, cases[i].names)))
			fail_msg("'%s': '%s' / '%s'", cases[i].in, cur, names);
	}
	char tiny[4];
	assert_int_equal(sb_scheduler_parse("[mq-deadline]", tiny, sizeof(tiny), NULL, 0),
			 -ENOBUFS);
}

static void test_modules_dep(void **state)
{
	static const struct {
		const char *line, *name;
		bool want;
	} cases[] = {
	    {"kernel/block/bfq.ko.xz: \n", "bfq", true},
	    {"kernel/block/bfq.ko:\n", "bfq", true},
	    {"kernel/block/kyber-iosched.ko.zst: kernel/lib/x.ko\n", "kyber", true},
	    {"kernel/block/mq-deadline.ko:", "mq-deadline", true},
	    /* another module whose name starts or ends alike, a dependency */
	    {"kernel/block/bfqx.ko:", "bfq", false},
	    {"kernel/block/xbfq.ko:", "bfq", false},
	    {"kernel/drivers/a.ko: kernel/block/bfq.ko\n", "bfq", false},
	    {"kernel/block/bfq.kox:", "bfq", false},
	    {"kernel/block/kyber-iosched.ko:", "kyber-ios", false},
	    {"bfq.ko", "bfq", false}, /* no colon: not a modules.dep line */
	    {"", "bfq", false},
	    {"bfq.ko:", "", false},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		if (sb_modules_dep_has_iosched(cases[i].line, cases[i].name) != cases[i].want)
			fail_msg("'%s' / '%s': want %d", cases[i].line, cases[i].name,
				 cases[i].want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bool),	  cmocka_unit_test(test_uint),
	    cmocka_unit_test(test_size_duration), cmocka_unit_test(test_suggest),
	    cmocka_unit_test(test_scheduler),	  cmocka_unit_test(test_u64_of_double),
	    cmocka_unit_test(test_vpd80),	  cmocka_unit_test(test_modules_dep),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
