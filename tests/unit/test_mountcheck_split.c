/* Which mount options the kernel is asked to judge before a run
 * (stack/mount.c): the file system's own, not the generic ones libmount
 * and the VFS handle (a generic one sent to fsconfig would be "unknown"
 * to the file system). Table-driven. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stack/layers.h"

#include <stdlib.h>
#include <string.h>

static void test_fs_options(void **state)
{
	static const struct {
		const char *in, *want; /* want NULL: nothing for the file system */
	} cases[] = {
	    {"noatime", NULL},
	    {"relatime", NULL},
	    {"relatme", "relatme"},
	    {"noatime,logbufs=8,logbsize=256k", "logbufs=8,logbsize=256k"},
	    {"ro,nodev,nosuid,noexec,lazytime", NULL},
	    {"ssd,compress=zstd:3,noatime", "ssd,compress=zstd:3"},
	    /* an LSM option: the kernel's to judge too, its comma quoted */
	    {"context=\"system_u:object_r:tmp_t:s0,c1\",noatime",
	     "context=\"system_u:object_r:tmp_t:s0,c1\""},
	    {"discard,data=ordered", "discard,data=ordered"},
	    {"", NULL},
	    {NULL, NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = (char *)"unset";
		int r = sb_mount_fs_options(cases[i].in, &got);
		assert_int_equal(r, 0);
		if (!cases[i].want ? got != NULL : !got || strcmp(got, cases[i].want) != 0)
			fail_msg("case %zu '%s': got '%s', want '%s'", i,
				 cases[i].in ? cases[i].in : "(null)", got ? got : "(none)",
				 cases[i].want ? cases[i].want : "(none)");
		free(got);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_fs_options)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
