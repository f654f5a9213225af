/* Run state: <state>/<run-id>/{lock,journal,*.img,mnt}. The lock is held by
 * the run for its whole life, so that teardown leaves a live run alone. */
#include "stack/state.h"
#include "util/macro.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *sb_state_dir(void)
{
	const char *s = getenv("STACKBENCH_STATE_DIR");
	return s && *s ? s : "/run/stackbench";
}

int sb_mkdir_p(const char *path, mode_t mode)
{
	_cleanup_free_ char *p = strdup(path);
	if (!p)
		return -ENOMEM;
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST)
			return negerrno();
		*s = '/';
	}
	if (mkdir(p, mode) < 0 && errno != EEXIST)
		return negerrno();
	return 0;
}

char *sb_utc_stamp(int form)
{
	char buf[64];
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	if (form == 0)
		strftime(buf, sizeof(buf), "%Y%m%d-%H%M%S", &tm);
	else if (form == 1)
		strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", &tm);
	else
		strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return strdup(buf);
}

int sb_runstate_create(struct sb_runstate *rs, const char **what)
{
	char real[PATH_MAX], p[PATH_MAX + 64];
	const char *sd = sb_state_dir();
	int r;

	*what = sd;
	r = sb_mkdir_p(sd, 0700);
	if (r < 0)
		return r;
	if (!realpath(sd, real))
		return negerrno();
	_cleanup_free_ char *stamp = sb_utc_stamp(0);
	if (!stamp || asprintf(&rs->run_id, "%s-%d", stamp, (int)getpid()) < 0 ||
	    asprintf(&rs->run_dir, "%s/%s", real, rs->run_id) < 0 ||
	    asprintf(&rs->journal, "%s/journal", rs->run_dir) < 0)
		return -ENOMEM;
	*what = rs->run_dir;
	if (mkdir(rs->run_dir, 0700) < 0)
		return negerrno();
	snprintf(p, sizeof(p), "%s/lock", rs->run_dir);
	rs->lock_fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (rs->lock_fd < 0 || flock(rs->lock_fd, LOCK_EX) < 0) {
		r = negerrno();
		sb_runstate_remove_dir(rs);
		return r;
	}
	return 0;
}

int sb_runstate_remove_dir(struct sb_runstate *rs)
{
	char p[PATH_MAX + 64];
	if (!rs->run_dir || access(rs->journal, F_OK) == 0)
		return 0;
	snprintf(p, sizeof(p), "%s/lock", rs->run_dir);
	unlink(p);
	if (rmdir(rs->run_dir) < 0 && errno != ENOENT)
		return negerrno();
	return 0;
}

void sb_runstate_release(struct sb_runstate *rs)
{
	if (rs->log_fd >= 0)
		close(rs->log_fd);
	if (rs->lock_fd >= 0)
		close(rs->lock_fd);
	rs->log_fd = rs->lock_fd = -1;
	free(rs->run_id);
	free(rs->run_dir);
	free(rs->journal);
	free(rs->results);
	rs->run_id = rs->run_dir = rs->journal = rs->results = NULL;
}
