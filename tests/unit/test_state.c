/* The units under the run command: run state (state.c: hidden name, lock,
 * rename; teardown's lock), safe files (util/safefile.c), flock holders
 * (devlock.c) and the shuffled order of repeats (variant.c). Works in a
 * private temporary directory; no devices. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stack/devlock.h"
#include "stack/state.h"
#include "session/variant.h"
#include "util/safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[] = "/tmp/sb-test-state-XXXXXX";

static int setup(void **state)
{
	return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_trusted_dir(void **state)
{
	char p[300], link[300];
	int fd;

	snprintf(p, sizeof(p), "%s/a/b", tmp);
	fd = sb_dir_open_trusted(p, true, 0700);
	assert_true(fd >= 0);
	close(fd);
	chmod(p, 0777);
	assert_int_equal(sb_dir_open_trusted(p, false, 0), -EACCES);
	chmod(p, 0720);
	assert_int_equal(sb_dir_open_trusted(p, false, 0), -EACCES);
	chmod(p, 0755);
	snprintf(link, sizeof(link), "%s/link", tmp);
	assert_int_equal(symlink(p, link), 0);
	assert_int_equal(sb_dir_open_trusted(link, false, 0), -ELOOP);
	assert_int_equal(sb_dir_open_trusted(link, true, 0700), -ELOOP);
	if (geteuid() == 0) {
		assert_int_equal(chown(p, 65534, 65534), 0);
		assert_int_equal(sb_dir_open_trusted(p, false, 0), -EPERM);
		assert_int_equal(chown(p, 0, 0), 0);
	}
	assert_non_null(sb_trust_text(-ELOOP));
}

static void test_write_at(void **state)
{
	char d[300], target[300], p[400], buf[64] = "";
	int dfd;

	snprintf(d, sizeof(d), "%s/w", tmp);
	dfd = sb_dir_open_trusted(d, true, 0700);
	assert_true(dfd >= 0);
	snprintf(target, sizeof(target), "%s/precious", tmp);
	FILE *f = fopen(target, "w");
	fputs("keep", f);
	fclose(f);
	snprintf(p, sizeof(p), "%s/plan.txt", d);
	assert_int_equal(symlink(target, p), 0);
	/* the symlink is replaced, its target untouched */
	assert_int_equal(sb_write_at(dfd, "plan.txt", "new", 3, 0644), 0);
	f = fopen(target, "r");
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "keep");
	struct stat st;
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_size, 3);
	/* appending never follows a symlink either */
	snprintf(p, sizeof(p), "%s/run.log", d);
	assert_int_equal(symlink(target, p), 0);
	assert_int_equal(sb_open_append_at(dfd, "run.log", 0644), -ELOOP);
	close(dfd);
}

static void test_runstate(void **state)
{
	char sd[300];
	const char *what = NULL;
	struct sb_runstate rs = SB_RUNSTATE_INIT;

	snprintf(sd, sizeof(sd), "%s/state", tmp);
	setenv("STACKBENCH_STATE_DIR", sd, 1);
	assert_int_equal(sb_runstate_create(&rs, &what), 0);
	assert_true(rs.lock_fd >= 0);
	struct stat st;
	assert_int_equal(stat(rs.run_dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);
	/* no hidden leftover: it was renamed */
	char hidden[400];
	snprintf(hidden, sizeof(hidden), "%s/.new-%s", sd, rs.run_id);
	assert_int_not_equal(access(hidden, F_OK), 0);
	/* teardown cannot take a live run's lock */
	assert_int_equal(sb_runstate_lock(rs.run_dir), -EWOULDBLOCK);
	/* flock holders name us */
	char lock[400];
	pid_t pids[4];
	snprintf(lock, sizeof(lock), "%s/lock", rs.run_dir);
	assert_int_equal(stat(lock, &st), 0);
	size_t n = sb_flock_holders(st.st_dev, st.st_ino, pids, 4);
	assert_int_equal(n, 1);
	assert_int_equal(pids[0], getpid());
	/* released: teardown can take it; the directory goes away */
	close(rs.lock_fd);
	rs.lock_fd = -1;
	int fd = sb_runstate_lock(rs.run_dir);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(sb_runstate_remove_dir(&rs), 0);
	assert_int_not_equal(access(rs.run_dir, F_OK), 0);
	sb_runstate_release(&rs);
	/* a world-writable state directory is refused */
	chmod(sd, 0777);
	struct sb_runstate rs2 = SB_RUNSTATE_INIT;
	assert_int_equal(sb_runstate_create(&rs2, &what), -EACCES);
	assert_string_equal(what, sd);
	sb_runstate_release(&rs2);
	unsetenv("STACKBENCH_STATE_DIR");
	assert_string_equal(sb_state_dir(), SB_STATE_DIR_DEFAULT);
}

static void test_order(void **state)
{
	size_t a[8], b[8];
	bool differs = false, first_moves = false;

	for (unsigned round = 0; round < 50; round++) {
		sb_vrun_order(a, 8, 42, round);
		sb_vrun_order(b, 8, 42, round);
		assert_memory_equal(a, b, sizeof(a)); /* from (seed, round) alone */
		bool seen[8] = {false};
		for (size_t i = 0; i < 8; i++) {
			assert_true(a[i] < 8);
			assert_false(seen[a[i]]);
			seen[a[i]] = true;
		}
		sb_vrun_order(b, 8, 43, round);
		differs |= memcmp(a, b, sizeof(a)) != 0;
		first_moves |= a[0] != 0;
	}
	assert_true(differs);
	assert_true(first_moves);
	sb_vrun_order(a, 1, 7, 3);
	assert_int_equal(a[0], 0);
}

/* teardown --all acts only on names shaped like run ids: a state directory
 * that is a file system of its own has lost+found (found by the VM's power
 * cut test, which had it "torn down"). */
static void test_run_id(void **state)
{
	static const struct {
		const char *name;
		bool ok;
	} cases[] = {
	    {"20261201-112046-170", true},
	    {"20261201-112046-4194304", true},
	    {"20261201-112046-1", true},
	    {"lost+found", false},
	    {"", false},
	    {"20261201-112046-", false},
	    {"20261201-112046", false},
	    {"2026120-112046-1", false},
	    {"20261201-11204-1", false},
	    {"20261201-112046-12345678901", false},
	    {"20261201-112046-1x", false},
	    {".new-20261201-112046-1", false},
	    {"20261201_112046-1", false},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (sb_run_id_valid(cases[i].name) != cases[i].ok)
			fail_msg("'%s': want %d", cases[i].name, cases[i].ok);
	/* and what sb_runstate_create names is one */
	char *stamp = sb_utc_stamp(0), id[64];
	snprintf(id, sizeof(id), "%s-%d", stamp, 99999);
	assert_true(sb_run_id_valid(id));
	free(stamp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_trusted_dir),
	    cmocka_unit_test(test_write_at),
	    cmocka_unit_test(test_runstate),
	    cmocka_unit_test(test_order),	  cmocka_unit_test(test_run_id),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
