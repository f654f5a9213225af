/* bcache_sysfs.c's pure parsers: the on-disk superblock (made-up bytes laid out
 * as make-bcache writes them), bcache's sysfs values (bch_hprint sizes and
 * plain counts) and its bracketed choice lists. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stack/bcache.h"

#include <errno.h>
#include <string.h>

static const unsigned char magic[16] = {0xc6, 0x85, 0x73, 0xf6, 0x4e, 0x1a, 0x45, 0xca,
					0x82, 0x65, 0xf5, 0x7f, 0x48, 0xba, 0x6d, 0x81};

static void put_le64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		p[i] = (unsigned char)v;
}

/* A superblock of version ver, dev.uuid 00 01 .. 0f, set_uuid set (or 0). */
static void make_sb(unsigned char *b, uint64_t ver, bool set)
{
	memset(b, 0, SB_BCACHE_SB_LEN);
	put_le64(b + 8, 8);
	put_le64(b + 16, ver);
	memcpy(b + 24, magic, 16);
	for (int i = 0; i < 16; i++) {
		b[40 + i] = (unsigned char)i;
		b[56 + i] = set ? (unsigned char)(0xa0 + i) : 0;
	}
}

static void test_sb(void **state)
{
	unsigned char b[SB_BCACHE_SB_LEN];
	struct sb_bcache_sb sb;

	(void)state;
	make_sb(b, 3, true);
	assert_int_equal(sb_bcache_sb_parse(b, sizeof(b), &sb), 0);
	assert_true(sb.cache);
	assert_string_equal(sb.uuid, "00010203-0405-0607-0809-0a0b0c0d0e0f");
	assert_string_equal(sb.set_uuid, "a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf");
	/* A backing device not attached: no cache set. */
	make_sb(b, 1, false);
	assert_int_equal(sb_bcache_sb_parse(b, sizeof(b), &sb), 0);
	assert_false(sb.cache);
	assert_string_equal(sb.set_uuid, "");
	make_sb(b, 4, true);
	assert_int_equal(sb_bcache_sb_parse(b, sizeof(b), &sb), 0);
	assert_false(sb.cache);
	assert_string_equal(sb.set_uuid, "a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf");
	/* No magic, a short read, an unknown version, a wrong offset. */
	make_sb(b, 3, true);
	b[30] ^= 1;
	assert_int_equal(sb_bcache_sb_parse(b, sizeof(b), &sb), -ENOENT);
	make_sb(b, 3, true);
	assert_int_equal(sb_bcache_sb_parse(b, 39, &sb), -ENOENT);
	assert_int_equal(sb_bcache_sb_parse(b, 60, &sb), -EINVAL);
	make_sb(b, 2, true);
	assert_int_equal(sb_bcache_sb_parse(b, sizeof(b), &sb), -EINVAL);
	make_sb(b, 3, true);
	put_le64(b + 8, 16);
	assert_int_equal(sb_bcache_sb_parse(b, sizeof(b), &sb), -EINVAL);
}

static void test_value(void **state)
{
	static const struct {
		const char *in;
		int r;
		uint64_t v;
	} c[] = {
	    {"0\n", 0, 0},
	    {"1234\n", 0, 1234},
	    {"  42", 0, 42},
	    {"0.0k\n", 0, 0},
	    {"512.0k\n", 0, 512ull << 10},
	    {"1.5M\n", 0, 3ull << 19},
	    {"4.0M", 0, 4ull << 20},
	    {"2.9G", 0, (2ull << 30) + (9ull << 30) / 10},
	    {"1K", 0, 1024},
	    {"15.9E", 0, (15ull << 60) + (9ull << 60) / 10},
	    {"16.0E", -ERANGE, 0},
	    {"1.0Z", -ERANGE, 0},
	    {"18446744073709551615", 0, UINT64_MAX},
	    {"18446744073709551616", -ERANGE, 0},
	    {"1.5", -EINVAL, 0}, /* decimals need a unit */
	    {"-1.0k", -EINVAL, 0},
	    {"", -EINVAL, 0},
	    {"k", -EINVAL, 0},
	    {"1.k", -EINVAL, 0},
	    {"12 34", -EINVAL, 0},
	    {"3M junk", -EINVAL, 0},
	    {"7q", -EINVAL, 0},
	};
	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint64_t v = 99;
		int r = sb_bcache_parse_value(c[i].in, &v);
		if (r != c[i].r || (r == 0 && v != c[i].v))
			fail_msg("'%s': got %d %llu, want %d %llu", c[i].in, r, (unsigned long long)v,
				 c[i].r, (unsigned long long)c[i].v);
	}
}

static void test_choice(void **state)
{
	char buf[32];
	(void)state;
	assert_int_equal(sb_bcache_parse_choice("writethrough [writeback] writearound none\n", buf,
						sizeof(buf)),
			 0);
	assert_string_equal(buf, "writeback");
	assert_int_equal(sb_bcache_parse_choice("[none]", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "none");
	assert_int_equal(sb_bcache_parse_choice("writethrough writeback", buf, sizeof(buf)),
			 -EINVAL);
	assert_int_equal(sb_bcache_parse_choice("[a] [b]", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(sb_bcache_parse_choice("[a [b]", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(sb_bcache_parse_choice("[]", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(sb_bcache_parse_choice("[a b]", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(sb_bcache_parse_choice("[writethrough]", buf, 4), -EINVAL);
	assert_int_equal(sb_bcache_parse_choice("] [", buf, sizeof(buf)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sb),
	    cmocka_unit_test(test_value),
	    cmocka_unit_test(test_choice),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
