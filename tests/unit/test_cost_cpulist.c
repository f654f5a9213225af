/* --cpus lists (src/workload/cpulist.c) as taskset takes them: single
 * CPUs, ranges, strides; the errors name what is wrong; printing folds
 * ranges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "workload/cpulist.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_parse(void **state)
{
	static const struct {
		const char *list;
		const char *want; /* formatted back, or the error's words */
		int rc;
	} cases[] = {
	    {"0", "0", 0},
	    {"0-3,6", "0-3,6", 0},
	    {"6,0-3", "0-3,6", 0},
	    {"0-7:2", "0,2,4,6", 0},
	    {"1,2,3,5", "1-3,5", 0},
	    {"3-3", "3", 0},
	    {"1023", "1023", 0},
	    {"", "no CPU number", -EINVAL},
	    {"1,", "no CPU number", -EINVAL},
	    {",1", "no CPU number", -EINVAL},
	    {"3-1", "range backwards", -EINVAL},
	    {"1-", "bad range end", -EINVAL},
	    {"0-7:0", "bad stride", -EINVAL},
	    {"1024", "too large", -EINVAL},
	    {"0 1", "unexpected character", -EINVAL},
	    {"-1", "no CPU number", -EINVAL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cpu_set_t set;
		char *why = NULL, out[128];
		int rc = sb_cpulist_parse(cases[i].list, &set, &why);
		if (rc != cases[i].rc)
			fail_msg("'%s': rc %d, want %d", cases[i].list, rc, cases[i].rc);
		if (rc == 0) {
			assert_null(why);
			sb_cpulist_format(&set, out, sizeof(out));
			if (strcmp(out, cases[i].want) != 0)
				fail_msg("'%s': printed '%s', want '%s'", cases[i].list, out,
					 cases[i].want);
		} else {
			assert_non_null(why);
			if (!strstr(why, cases[i].want) || !strstr(why, cases[i].list))
				fail_msg("'%s': error '%s' lacks '%s'", cases[i].list, why,
					 cases[i].want);
		}
		free(why);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_parse)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
