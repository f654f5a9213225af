/* LVM pe_start in the effective configuration: pvs output as it prints it
 * (captured from lvm2 2.03.16), and what the parser must leave out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stack/capture.h"

#include <string.h>

static void test_pvs(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		const char *json; /* the object, as json-c prints it plainly */
	} cases[] = {
	    {"  /dev/md127  1048576\n", "{\"md127\":1048576}"},
	    {"  /dev/sdb   1048576\n  /dev/sdc1 3145728\n", "{\"sdb\":1048576,\"sdc1\":3145728}"},
	    {"  /dev/mapper/mpath-a  65536", "{\"mpath-a\":65536}"},
	    /* units left on, a header, a warning, a negative, trailing words */
	    {"  /dev/sdb  1048576B\n", "{}"},
	    {"  PV         1st PE \n", "{}"},
	    {"  WARNING: Not using device /dev/sdd 1\n", "{}"},
	    {"  /dev/sdb  -1\n", "{}"},
	    {"  /dev/sdb  1048576 extra\n", "{}"},
	    {"  /dev/sdb  99999999999999999999\n", "{}"},
	    {"", "{}"},
	    {NULL, "{}"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_object *o = sb_capture_parse_pvs(cases[i].text);
		const char *got = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
		if (strcmp(got, cases[i].json) != 0)
			fail_msg("case %zu: got %s, want %s", i, got, cases[i].json);
		json_object_put(o);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_pvs)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
