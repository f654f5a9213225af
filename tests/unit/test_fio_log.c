/* fio's per-interval logs (write_iops_log, write_bw_log): the lines fio 3.33
 * writes, and the shapes that are refused. Table-driven. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "workload/wl.h"
#include "util/macro.h"

#include <stdlib.h>
#include <string.h>

static void test_parse(void **state)
{
	static const struct {
		const char *text;
		int rc;
		size_t n;
		uint64_t msec0, value0;
		unsigned ddir_last;
	} cases[] = {
	    {"1000, 5697, 0, 0, 0\n2000, 4861, 0, 0, 0\n", 0, 2, 1000, 5697, 0},
	    {"1000, 4921856, 1, 0, 0\n", 0, 1, 1000, 4921856, 1},
	    /* fio 3.3x may add a priority column */
	    {"1000, 12, 2, 4096, 0, 0\n", 0, 1, 1000, 12, 2},
	    {"\n\n1000, 1, 0, 0, 0\r\n\n", 0, 1, 1000, 1, 0},
	    {"", 0, 0, 0, 0, 0},
	    {"1000, 1, 3, 0, 0\n", -EINVAL, 0, 0, 0, 0}, /* no such direction */
	    {"1000; 1; 0\n", -EINVAL, 0, 0, 0, 0},
	    {"1000, x, 0, 0, 0\n", -EINVAL, 0, 0, 0, 0},
	    {"1000, 1\n", -EINVAL, 0, 0, 0, 0},
	    {"99999999999999999999, 1, 0\n", -EINVAL, 0, 0, 0, 0},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct sb_fio_log_pt *p = NULL;
		size_t n = 99;
		int rc = sb_fio_log_parse(cases[i].text, strlen(cases[i].text), &p, &n);
		if (rc != cases[i].rc)
			fail_msg("case %zu: rc %d, want %d", i, rc, cases[i].rc);
		if (rc == 0) {
			assert_int_equal(n, cases[i].n);
			if (n) {
				assert_int_equal(p[0].msec, cases[i].msec0);
				assert_int_equal(p[0].value, cases[i].value0);
				assert_int_equal(p[n - 1].ddir, cases[i].ddir_last);
			}
		}
		free(p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_parse)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
