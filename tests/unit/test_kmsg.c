/* The kernel-log reader: record parsing and the removed-mount-options table
 * (pure, table-driven), and, as root, a message written to /dev/kmsg found
 * again by collect with its filter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/kmsg.h"
#include "util/macro.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_parse(void **state)
{
	static const struct {
		const char *rec;
		int rc;
		const char *text;
		unsigned prio;
		unsigned long long seq;
	} cases[] = {
	    {"6,1234,5678,-;xfs: Unknown parameter 'delaylog'\n", 0,
	     "xfs: Unknown parameter 'delaylog'", 6, 1234},
	    {"30,7,1,c;XFS (loop3): Mounting V5\n SUBSYSTEM=block\n", 0,
	     "XFS (loop3): Mounting V5", 6, 7},
	    {"3,1,2,-,caller=T1;text", 0, "text", 3, 1},
	    {"6,1234;no usec but two fields", 0, "no usec but two fields", 6, 1234},
	    {"no semicolon", -EINVAL, NULL, 0, 0},
	    {",1,2,-;empty prio", -EINVAL, NULL, 0, 0},
	    {"6;one field", -EINVAL, NULL, 0, 0},
	    {"x,1,2,-;bad", -EINVAL, NULL, 0, 0},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *t = NULL;
		size_t tl = 0;
		unsigned prio = 99;
		unsigned long long seq = 0;
		int rc = sb_kmsg_parse_record(cases[i].rec, strlen(cases[i].rec), &t, &tl, &prio,
					      &seq);
		assert_int_equal(rc, cases[i].rc);
		if (rc == 0) {
			assert_int_equal(tl, strlen(cases[i].text));
			assert_memory_equal(t, cases[i].text, tl);
			assert_int_equal(prio, cases[i].prio);
			assert_int_equal(seq, cases[i].seq);
		}
	}
}

static void test_removed(void **state)
{
	static const struct {
		const char *fs, *opts, *want; /* want: NULL or a substring */
	} cases[] = {
	    {"xfs", "noatime,logbufs=8,logbsize=256k,noikeep,attr2,delaylog",
	     "delaylog: removed from xfs in Linux 4.0"},
	    {"xfs", "nobarrier", "nobarrier: removed from xfs in Linux 4.19"},
	    {"xfs", "noatime,logbufs=8", NULL},
	    {"btrfs", "ssd,inode_cache", "inode_cache: removed from btrfs in Linux 5.11"},
	    {"ext4", "barrier", NULL}, /* ext4 still takes barrier */
	    {"xfs", "delaylogx", NULL},
	    {"xfs", "ihashsize=4", "ihashsize: removed"},
	    {"xfs", "", NULL},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *s = sb_mount_removed_options(cases[i].fs, cases[i].opts);
		if (!cases[i].want) {
			if (s)
				fail_msg("%s %s: unexpected '%s'", cases[i].fs, cases[i].opts, s);
		} else {
			assert_non_null(s);
			if (!strstr(s, cases[i].want))
				fail_msg("%s %s: '%s' lacks '%s'", cases[i].fs, cases[i].opts, s,
					 cases[i].want);
		}
		free(s);
	}
	char *two = sb_mount_removed_options("xfs", "delaylog,barrier");
	assert_non_null(two);
	assert_non_null(strstr(two, "delaylog"));
	assert_non_null(strstr(two, "; barrier"));
	free(two);
}

static void test_collect_real(void **state)
{
	struct sb_kmsg k;
	char msg[128], tag[64];
	int w = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);

	if (w < 0)
		skip(); /* not root, or no /dev/kmsg: the pure tests above still ran */
	snprintf(tag, sizeof(tag), "sbkmsgtest%d", (int)getpid());
	sb_kmsg_begin(&k);
	assert_true(k.fd >= 0);
	snprintf(msg, sizeof(msg), "<6>%s: before the filter\n", "unrelated");
	assert_true(write(w, msg, strlen(msg)) > 0);
	snprintf(msg, sizeof(msg), "<6>stackbench test: %s first\n", tag);
	assert_true(write(w, msg, strlen(msg)) > 0);
	snprintf(msg, sizeof(msg), "<6>stackbench test: %s second\n", tag);
	assert_true(write(w, msg, strlen(msg)) > 0);
	close(w);
	const char *words[] = {tag, NULL};
	char *got = sb_kmsg_collect(&k, words, 8);
	assert_non_null(got);
	assert_non_null(strstr(got, "first"));
	assert_non_null(strstr(got, "; stackbench test:"));
	assert_null(strstr(got, "unrelated"));
	free(got);
	/* Read already: nothing new. */
	assert_null(sb_kmsg_collect(&k, words, 8));
	sb_kmsg_end(&k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_removed),
	    cmocka_unit_test(test_collect_real),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
