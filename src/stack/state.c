/* Run state: <state>/<run-id>/{lock,journal,*.img,mnt}. The lock is held by
 * the run for its whole life, so that teardown leaves a live run alone; it
 * exists before the run directory has its name (made under a hidden name,
 * locked, then renamed), so that teardown never sees a run without it. The
 * state directory is persistent (after a power cut only the journal can
 * take apart what udev assembles again at boot), root's, and writable by no
 * one else. */
#include "stack/state.h"
#include "util/macro.h"
#include "util/safefile.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *sb_state_dir(void)
{
	const char *s = getenv("STACKBENCH_STATE_DIR");
	return s && *s ? s : SB_STATE_DIR_DEFAULT;
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

int sb_state_open(const char **why)
{
	const char *sd = sb_state_dir();
	int fd = sb_dir_open_trusted(sd, true, 0700);
	*why = fd < 0 ? sb_trust_text(fd) : NULL;
	return fd;
}

bool sb_run_id_valid(const char *name)
{
	/* 8 digits, '-', 6 digits, '-', 1 to 10 digits */
	static const unsigned group[] = {8, 6, 0};
	const char *p = name;

	for (size_t g = 0; g < 3; g++) {
		size_t n = 0;
		while (p[n] >= '0' && p[n] <= '9')
			n++;
		if (group[g] ? n != group[g] : (n < 1 || n > 10))
			return false;
		p += n;
		if (g < 2 && *p++ != '-')
			return false;
	}
	return *p == '\0';
}

int sb_runstate_create(struct sb_runstate *rs, const char **what)
{
	char real[PATH_MAX], tmp[300];
	const char *sd = sb_state_dir();
	_cleanup_close_ int sfd = -1, dfd = -1;
	int r;

	*what = sd;
	sfd = sb_dir_open_trusted(sd, true, 0700);
	if (sfd < 0)
		return sfd;
	if (!realpath(sd, real))
		return negerrno();
	_cleanup_free_ char *stamp = sb_utc_stamp(0);
	if (!stamp || asprintf(&rs->run_id, "%s-%d", stamp, (int)getpid()) < 0 ||
	    asprintf(&rs->run_dir, "%s/%s", real, rs->run_id) < 0 ||
	    asprintf(&rs->journal, "%s/journal", rs->run_dir) < 0)
		return -ENOMEM;
	*what = rs->run_dir;
	/* Hidden (teardown skips dot names) until its lock is held. */
	snprintf(tmp, sizeof(tmp), ".new-%s", rs->run_id);
	if (mkdirat(sfd, tmp, 0700) < 0)
		return negerrno();
	dfd = openat(sfd, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		r = negerrno();
		goto fail;
	}
	rs->lock_fd = openat(dfd, "lock", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (rs->lock_fd < 0 || flock(rs->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		r = negerrno();
		goto fail;
	}
	/* RENAME_NOREPLACE: never over a directory of the same name. */
	if (renameat2(sfd, tmp, sfd, rs->run_id, RENAME_NOREPLACE) < 0) {
		r = negerrno();
		goto fail;
	}
	if (setenv(SB_RUN_ENV, rs->run_id, 1) < 0)
		return negerrno(); /* the directory is the caller's to remove now */
	return 0;
fail:
	if (rs->lock_fd >= 0)
		close(rs->lock_fd);
	rs->lock_fd = -1;
	if (dfd >= 0)
		unlinkat(dfd, "lock", 0);
	unlinkat(sfd, tmp, AT_REMOVEDIR);
	return r;
}

int sb_runstate_lock(const char *run_dir)
{
	_cleanup_close_ int dfd = open(run_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int fd;

	if (dfd < 0)
		return negerrno();
	/* Created when missing: a run always has one, so a missing lock means
	 * no run holds it, and taking it keeps a second teardown out. */
	fd = openat(dfd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return negerrno();
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int r = negerrno();
		close(fd);
		return r;
	}
	return fd;
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
