/* Replays every fuzz target's seed corpus and regression corpus (fuzz/corpus/T,
 * fuzz/regress/T) through the target's entry function, without libFuzzer: an
 * input that once crashed or broke an invariant stays fixed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../fuzz/fuzz_result.c"
#include "../../fuzz/fuzz_size.c"
#include "../../fuzz/fuzz_wlspec.c"
#include "../../fuzz/fuzz_profile.c"
#include "../../fuzz/fuzz_journal.c"
#include "../../fuzz/fuzz_report.c"
#include "../../fuzz/fuzz_measure.c"
#include "../../fuzz/fuzz_kmsg.c"
#include "../../fuzz/fuzz_fio_log.c"
#include "../../fuzz/fuzz_import_bonnie.c"
#include "../../fuzz/fuzz_import_fio.c"
#include "../../fuzz/fuzz_history.c"
#include "../../fuzz/fuzz_cpulist.c"
#include "../../fuzz/fuzz_scen.c"
#include "../../fuzz/fuzz_dmstatus.c"
#include "../../fuzz/fuzz_bcache.c"
#include "../../fuzz/fuzz_floor.c"
#include "util/macro.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/wait.h>

static const struct {
	const char *name;
	int (*fn)(const uint8_t *data, size_t size);
} targets[] = {
	{"result", sb_fuzz_result},
	{"size", sb_fuzz_size},
	{"wlspec", sb_fuzz_wlspec},
	{"profile", sb_fuzz_profile},
	{"journal", sb_fuzz_journal},
	{"report", sb_fuzz_report},
	{"measure", sb_fuzz_measure},
	{"kmsg", sb_fuzz_kmsg},
	{"fio_log", sb_fuzz_fio_log},
	{"import_bonnie", sb_fuzz_import_bonnie},
	{"import_fio", sb_fuzz_import_fio},
	{"history", sb_fuzz_history},
	{"cpulist", sb_fuzz_cpulist},
	{"scen", sb_fuzz_scen},
	{"dmstatus", sb_fuzz_dmstatus},
	{"bcache", sb_fuzz_bcache},
	{"floor", sb_fuzz_floor},
};

static char *read_all(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0)
		fail_msg("%s: %s", path, strerror(errno));
	buf = malloc((size_t)st.st_size + 1);
	assert_non_null(buf);
	assert_int_equal(read(fd, buf, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

/* Runs fn over every file in DIR; returns how many. */
static size_t replay_dir(const char *dir, int (*fn)(const uint8_t *, size_t))
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[4096];
		size_t len;
		char *buf;
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		/* Named before the run: if it crashes, the runner shows which input. */
		fprintf(stderr, "replay %s\n", path);
		buf = read_all(path, &len);
		fn((const uint8_t *)buf, len);
		free(buf);
		n++;
	}
	closedir(d);
	return n;
}

/* fuzz/pending/T: findings in code this area does not own, reported and
 * waiting for their fix. Each runs in a child so that a crash does not stop
 * the test; the state of each is printed. Once one passes, move it to
 * fuzz/regress/T, where it guards the fix. */
static void replay_pending(const char *dir, int (*fn)(const uint8_t *, size_t))
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[4096 + 256];
		int status;
		pid_t pid;
		if (e->d_name[0] == '.' || strcmp(e->d_name, "README") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		fflush(NULL);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			size_t len;
			char *buf = read_all(path, &len);
			/* quiet: the finding's own report is not news here; and
			 * cmocka's crash handlers must not carry on in the child */
			if (!freopen("/dev/null", "w", stderr))
				_exit(2);
			for (int sig = 1; sig < 32; sig++)
				signal(sig, SIG_DFL);
			fn((const uint8_t *)buf, len);
			_exit(0);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			fprintf(stderr, "pending %s: FIXED, move it to fuzz/regress\n", path);
		else
			fprintf(stderr, "pending %s: still open\n", path);
	}
	closedir(d);
}

static void test_replay(void **state)
{
	const char *top = getenv("SB_TOP") ? getenv("SB_TOP") : ".";

	for (size_t i = 0; i < ARRAY_SIZE(targets); i++) {
		char dir[4096];
		size_t seeds, regress;
		snprintf(dir, sizeof(dir), "%s/fuzz/corpus/%s", top, targets[i].name);
		seeds = replay_dir(dir, targets[i].fn);
		/* A missing corpus would make this test pass without testing. */
		if (seeds == 0)
			fail_msg("%s: no seed inputs (run from the source tree or set SB_TOP)", dir);
		snprintf(dir, sizeof(dir), "%s/fuzz/regress/%s", top, targets[i].name);
		regress = replay_dir(dir, targets[i].fn);
		snprintf(dir, sizeof(dir), "%s/fuzz/pending/%s", top, targets[i].name);
		replay_pending(dir, targets[i].fn);
		fprintf(stderr, "%s: %zu seeds, %zu regression inputs\n", targets[i].name, seeds,
			regress);
	}
}

/* A result.json whose workloads array has many entries once sized a
 * variable-length array on the stack by it: a crafted file overflowed the
 * stack. Run the reader on a thread with a small stack to prove it no longer
 * does (too big for the regression corpus as a file). */
static void *huge_workloads(void *arg)
{
	const size_t n = 100000;
	const char *head = "{\"format\":\"stackbench-result\",\"version\":1,\"variants\":"
			   "[{\"name\":\"a\",\"repeats\":[{\"workloads\":[";
	size_t len = strlen(head) + 2 * n + 8, off;
	char *text = malloc(len);

	assert_non_null(text);
	off = (size_t)sprintf(text, "%s", head);
	for (size_t i = 0; i < n; i++)
		off += (size_t)sprintf(text + off, "%s0", i ? "," : "");
	off += (size_t)sprintf(text + off, "]}]}]}");
	sb_fuzz_result((const uint8_t *)text, off);
	free(text);
	return arg;
}

static void test_result_huge_array(void **state)
{
	pthread_attr_t attr;
	pthread_t t;
	static int done;
	void *ret = NULL;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	assert_int_equal(pthread_create(&t, &attr, huge_workloads, &done), 0);
	assert_int_equal(pthread_join(t, &ret), 0);
	assert_ptr_equal(ret, &done);
	pthread_attr_destroy(&attr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay),
		cmocka_unit_test(test_result_huge_array),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
