/* Issue 24 item 6: the one escaper of names printed on a terminal
 * (util/escape.h), table-driven, in a UTF-8 and in the C locale. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/escape.h"
#include "util/macro.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *in, *utf8, *c; /* expected in C.UTF-8 and in C */
} cases[] = {
    {"plain name", "plain name", "plain name"},
    {"", "", ""},
    {"a\x1b[2Jb", "a\\x1b[2Jb", "a\\x1b[2Jb"},				 /* ESC: clear screen */
    {"t\x1b]0;title\x07", "t\\x1b]0;title\\x07", "t\\x1b]0;title\\x07"}, /* OSC title, BEL */
    {"a\rb\nc\td", "a\\x0db\\x0ac\\x09d", "a\\x0db\\x0ac\\x09d"},	 /* no forged lines */
    {"del\x7f", "del\\x7f", "del\\x7f"},
    {"csi\xc2\x9b"
     "31m",
     "csi\\xc2\\x9b31m", "csi\\xc2\\x9b31m"},				 /* C1 CSI as UTF-8 */
    {"raw\x9b", "raw\\x9b", "raw\\x9b"},				 /* a lone byte */
    {"rlo\xe2\x80\xae", "rlo\\xe2\\x80\\xae", "rlo\\xe2\\x80\\xae"},	 /* bidi override */
    {"iso\xe2\x81\xa6", "iso\\xe2\\x81\\xa6", "iso\\xe2\\x81\\xa6"},	 /* bidi isolate */
    {"\xc3\xa9t\xc3\xa9", "\xc3\xa9t\xc3\xa9", "\\xc3\\xa9t\\xc3\\xa9"}, /* été */
    {"cut\xc3", "cut\\xc3", "cut\\xc3"},				 /* a cut sequence */
    {"over\xc0\xaf", "over\\xc0\\xaf", "over\\xc0\\xaf"},		 /* overlong '/' */
    {"sur\xed\xa0\x80", "sur\\xed\\xa0\\x80", "sur\\xed\\xa0\\x80"},	 /* a surrogate */
    {"nc\xef\xbf\xbf", "nc\\xef\\xbf\\xbf", "nc\\xef\\xbf\\xbf"},	 /* a non-character */
    {"back\\slash", "back\\slash", "back\\slash"},
};

static void check(bool utf8)
{
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *want = utf8 ? cases[i].utf8 : cases[i].c;
		char *got = sb_escape(cases[i].in);
		assert_non_null(got);
		if (strcmp(got, want) != 0)
			fail_msg("%s case %zu: got '%s', want '%s'", utf8 ? "UTF-8" : "C", i, got,
				 want);
		assert_int_equal(sb_escape_clean(cases[i].in, strlen(cases[i].in), 0),
				 strcmp(cases[i].in, want) == 0);
		free(got);
	}
}

static void test_escape_utf8(void **state)
{
	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		skip();
	check(true);
	setlocale(LC_CTYPE, "C");
}

static void test_escape_c(void **state)
{
	setlocale(LC_CTYPE, "C");
	check(false);
}

/* Whole lines keep their newlines and tabs, nothing else. */
static void test_escape_lines(void **state)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	const char text[] = "baseline: a\x1b[2J\n\tnote: b\r\n";

	setlocale(LC_CTYPE, "C");
	assert_non_null(f);
	assert_int_equal(sb_escape_write(f, text, sizeof(text) - 1, SB_ESC_KEEP_NL), 0);
	fclose(f);
	assert_string_equal(out, "baseline: a\\x1b[2J\n\tnote: b\\x0d\n");
	free(out);
	out = sb_escape(NULL);
	assert_string_equal(out, "(null)");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_escape_utf8),
	    cmocka_unit_test(test_escape_c),
	    cmocka_unit_test(test_escape_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
