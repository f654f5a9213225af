/* Size, duration parsing and suggestions: table-driven. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/size.h"
#include "util/suggest.h"

#include <errno.h>
#include <string.h>

static void test_sizes(void **state)
{
	static const struct {
		const char *in;
		int rc;
		uint64_t want;
		bool pct;
	} cases[] = {
		{"4096", 0, 4096, false},
		{"4k", 0, 4096, false},
		{"4K", 0, 4096, false},
		{"4KiB", 0, 4096, false},
		{"512M", 0, 512ULL << 20, false},
		{"2G", 0, 2ULL << 30, false},
		{"1.5G", 0, 3ULL << 29, false},
		{"1T", 0, 1ULL << 40, false},
		{"50%", 0, 50, true},
		{"100%", 0, 100, true},
		{"101%", -EINVAL, 0, false},
		{"", -EINVAL, 0, false},
		{"G", -EINVAL, 0, false},
		{"-1G", -EINVAL, 0, false},
		{"2X", -EINVAL, 0, false},
		{"2Gx", -EINVAL, 0, false},
		{"1.5", -EINVAL, 0, false},
		{"99999999P", -ERANGE, 0, false},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 0;
		bool pct = false;
		int rc = sb_parse_size(cases[i].in, &v, true, &pct);
		if (rc != cases[i].rc)
			fail_msg("'%s': rc %d, want %d", cases[i].in, rc, cases[i].rc);
		if (rc == 0) {
			assert_int_equal(v, cases[i].want);
			assert_int_equal(pct, cases[i].pct);
		}
	}
	uint64_t v;
	assert_int_equal(sb_parse_size("50%", &v, false, NULL), -EINVAL);
}

static void test_format(void **state)
{
	char buf[16];
	assert_string_equal(sb_format_size(2ULL << 30, buf, sizeof(buf)), "2G");
	assert_string_equal(sb_format_size(1536ULL << 20, buf, sizeof(buf)), "1.5G");
	assert_string_equal(sb_format_size(100, buf, sizeof(buf)), "100");
}

static void test_durations(void **state)
{
	static const struct {
		const char *in;
		int rc;
		uint64_t ms;
	} cases[] = {
		{"30s", 0, 30000}, {"30", 0, 30000},      {"250ms", 0, 250}, {"5m", 0, 300000},
		{"1h", 0, 3600000}, {"1.5s", 0, 1500},    {"x", -EINVAL, 0}, {"5d", -EINVAL, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t ms = 0;
		int rc = sb_parse_duration_ms(cases[i].in, &ms);
		if (rc != cases[i].rc)
			fail_msg("'%s': rc %d, want %d", cases[i].in, rc, cases[i].rc);
		if (rc == 0)
			assert_int_equal(ms, cases[i].ms);
	}
}

static void test_suggest(void **state)
{
	const char *cands[] = {"devices", "loop", "results", "repeat", "quick"};
	assert_string_equal(sb_suggest("device", cands, 5), "devices");
	assert_string_equal(sb_suggest("repaet", cands, 5), "repeat");
	assert_null(sb_suggest("zzzzzz", cands, 5));
	assert_int_equal(sb_edit_distance("kitten", "sitting"), 3);
	assert_int_equal(sb_edit_distance("", "abc"), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_suggest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
