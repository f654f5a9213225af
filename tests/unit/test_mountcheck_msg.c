/* The tool's message in an error (util/toolmsg.c), table-driven: whole,
 * indented, escaped, bounded, usage text left out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/toolmsg.h"

#include <stdlib.h>
#include <string.h>

static void test_tool_msg(void **state)
{
	static const struct {
		const char *in;
		size_t max;
		const char *want;
	} cases[] = {
	    {"one line\n", 4096, "one line"},
	    {"first\nsecond\n\n\n", 4096, "first\n  second"},
	    /* the reason before the last line is kept (mkfs.xfs on 200M) */
	    {"Filesystem must be larger than 300MB.\n<value> is xxx (512 byte blocks).\n", 4096,
	     "Filesystem must be larger than 300MB.\n  <value> is xxx (512 byte blocks)."},
	    {"bad\x1b[31mred\x07\n", 4096, "bad\\x1b[31mred\\x07"},
	    {"tab\there", 4096, "tab\there"},
	    {"abcdefghij", 4, "abcd... (6 more bytes)"},
	    {"too small.\nUsage: mkfs.xfs\n  [-b size=num]\n", 4096,
	     "too small. (and its usage text, 31 bytes)"},
	    {"", 4096, ""},
	    {"\n\n", 4096, ""},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = sb_tool_msg(cases[i].in, strlen(cases[i].in), cases[i].max, "  ");
		assert_non_null(got);
		if (strcmp(got, cases[i].want) != 0)
			fail_msg("case %zu: got '%s', want '%s'", i, got, cases[i].want);
		free(got);
	}
	char *n = sb_tool_msg(NULL, 5, 10, "");
	assert_string_equal(n, "");
	free(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_tool_msg)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
