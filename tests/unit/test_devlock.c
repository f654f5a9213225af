/* Device locking (devlock.c), the parts that need no device: the O_EXCL
 * proof's errors and its fd handling, holders and whole disk of what is
 * no block device, and flock holders from /proc/locks. The proof on real
 * devices held by another program is tests/loop/guard-exclusive.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stack/devlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[] = "/tmp/sb-test-devlock-XXXXXX";
static char file[300], missing[300];

static int setup(void **state)
{
	int fd;
	if (!mkdtemp(tmp))
		return -1;
	snprintf(file, sizeof(file), "%s/file", tmp);
	snprintf(missing, sizeof(missing), "%s/missing", tmp);
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	unlink(file);
	rmdir(tmp);
	return 0;
}

/* One call, with and without fd and why, for each kind of path. */
static void test_excl_open(void **state)
{
	const struct {
		const char *path;
		int want;
		const char *why; /* prefix, NULL: none */
	} cases[] = {
	    {missing, -ENOENT, NULL}, /* filled in below: "PATH: cannot open: ..." */
	    {file, 0, NULL},	      /* not a block device: O_EXCL claims nothing */
	    {"/dev/null", 0, NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *why = (char *)"untouched";
		int fd = -2;
		int r = sb_devlock_excl_open(cases[i].path, &fd, &why);
		if (r != cases[i].want)
			fail_msg("case %zu %s: rc %d, want %d", i, cases[i].path, r, cases[i].want);
		if (r == 0) {
			assert_true(fd >= 0);
			assert_null(why);
			close(fd);
		} else {
			char want[400];
			assert_int_equal(fd, -1);
			snprintf(want, sizeof(want), "%s: cannot open: %s", cases[i].path,
				 strerror(-cases[i].want));
			assert_non_null(why);
			assert_string_equal(why, want);
			free(why);
		}
		/* Without fd the claim is closed at once; without why nothing is said. */
		int before = dup(0), after;
		close(before);
		assert_int_equal(sb_devlock_excl_open(cases[i].path, NULL, NULL), cases[i].want);
		after = dup(0);
		close(after);
		assert_int_equal(after, before); /* no descriptor left open */
	}
}

/* Holders and whole disks exist only for block devices. */
static void test_not_block(void **state)
{
	const char *const paths[] = {file, missing, "/dev/null", tmp};
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		assert_null(sb_devlock_holders(paths[i]));
		assert_null(sb_devlock_whole_disk(paths[i]));
	}
}

/* /proc/locks names the process holding a flock, and nobody once it goes. */
static void test_flock_holders(void **state)
{
	struct stat st;
	pid_t pids[4];
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(sb_flock_holders(st.st_dev, st.st_ino, pids, 4), 0);
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
	assert_int_equal(sb_flock_holders(st.st_dev, st.st_ino, pids, 4), 1);
	assert_int_equal(pids[0], getpid());
	/* max bounds what is written */
	assert_int_equal(sb_flock_holders(st.st_dev, st.st_ino, pids, 0), 0);
	flock(fd, LOCK_UN);
	assert_int_equal(sb_flock_holders(st.st_dev, st.st_ino, pids, 4), 0);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_excl_open),
	    cmocka_unit_test(test_not_block),
	    cmocka_unit_test(test_flock_holders),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
