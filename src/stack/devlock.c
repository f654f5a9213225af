/* Device locks: an exclusive flock on each whole disk, held for the run's
 * life; who holds a lock we want, from /proc/locks. */
#include "stack/devlock.h"
#include "util/log.h"
#include "util/macro.h"

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

/* Pids that hold a flock on the inode dev:ino, from /proc/locks (lines of
 * waiters, "N: -> FLOCK ...", are not holders and do not parse). */
size_t sb_flock_holders(dev_t dev, ino_t ino, pid_t *pids, size_t max)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/locks", "re");
	char line[256];
	size_t n = 0;

	while (f && n < max && fgets(line, sizeof(line), f)) {
		/* "1: FLOCK  ADVISORY  WRITE 1234 fe:00:5678 0 EOF" */
		char *tok[6], *save = NULL, *end;
		size_t nt = 0;
		for (char *t = strtok_r(line, " \t\n", &save); t && nt < ARRAY_SIZE(tok);
		     t = strtok_r(NULL, " \t\n", &save))
			tok[nt++] = t;
		if (nt < 6 || strcmp(tok[1], "FLOCK") != 0)
			continue;
		long pid = strtol(tok[4], &end, 10);
		unsigned long maj = strtoul(tok[5], &end, 16);
		if (*end != ':')
			continue;
		unsigned long min = strtoul(end + 1, &end, 16);
		if (*end != ':')
			continue;
		unsigned long long i = strtoull(end + 1, &end, 10);
		if (*end == '\0' && major(dev) == maj && minor(dev) == min && (ino_t)i == ino)
			pids[n++] = (pid_t)pid;
	}
	return n;
}

/* Is the holder of fd's flock a stackbench run, that is a process that also
 * holds the lock of a run in the state directory? */
static bool run_holds(int fd, const char *sd)
{
	DIR *d = NULL;
	pid_t dev_pids[16], run_pids[16];
	bool found = false;
	size_t n_dev, n_run;
	struct dirent *e;
	struct stat st;

	if (fstat(fd, &st) < 0)
		return false;
	n_dev = sb_flock_holders(st.st_dev, st.st_ino, dev_pids, ARRAY_SIZE(dev_pids));
	d = n_dev ? opendir(sd) : NULL;
	while (d && !found && (e = readdir(d))) {
		char lock[4096];
		if (e->d_name[0] == '.')
			continue;
		snprintf(lock, sizeof(lock), "%s/%s/lock", sd, e->d_name);
		if (stat(lock, &st) < 0)
			continue;
		n_run = sb_flock_holders(st.st_dev, st.st_ino, run_pids, ARRAY_SIZE(run_pids));
		for (size_t i = 0; i < n_run; i++)
			for (size_t k = 0; k < n_dev; k++)
				found |= run_pids[i] == dev_pids[k];
	}
	if (d)
		closedir(d);
	return found;
}

void sb_devlock_init(struct sb_devlock *l)
{
	l->n = 0;
	for (size_t i = 0; i < SB_DEVLOCK_MAX; i++)
		l->fd[i] = -1;
}

void sb_devlock_release(struct sb_devlock *l)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->fd[i] >= 0)
			close(l->fd[i]);
	sb_devlock_init(l);
}

int sb_devlock_take(struct sb_devlock *l, const struct sb_device *d, const char *state_dir,
		    unsigned wait_ms, volatile sig_atomic_t *stop, const char **path)
{
	char whole[300];
	int fd;

	snprintf(whole, sizeof(whole), "/dev/%s",
		 d->is_partition && d->parent ? d->parent : d->name);
	/* Two partitions of one disk: its lock is ours already (a second
	 * flock from this process would conflict with the first). */
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->path[i], whole) == 0) {
			*path = l->path[i];
			return 0;
		}
	if (l->n >= SB_DEVLOCK_MAX)
		return -E2BIG;
	snprintf(l->path[l->n], sizeof(l->path[0]), "%s", whole);
	*path = l->path[l->n];
	fd = open(whole, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open(d->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return negerrno();
	l->fd[l->n++] = fd;
	for (unsigned waited = 0; flock(fd, LOCK_EX | LOCK_NB) < 0; waited += 100) {
		if (errno != EWOULDBLOCK)
			return negerrno();
		if (run_holds(fd, state_dir))
			return -EBUSY;
		if (waited >= wait_ms)
			return -ETIMEDOUT;
		if (stop && *stop)
			return -EINTR;
		if (waited == 0)
			sb_verbose("%s: locked by another program: waiting", whole);
		nanosleep(&(struct timespec){0, 100 * 1000000L}, NULL);
	}
	return 0;
}

int sb_devlock_excl_check(const char *path)
{
	int fd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return negerrno();
	close(fd);
	return 0;
}

static void add_holder(FILE *m, bool *first, const char *what)
{
	fprintf(m, "%s%s", *first ? "" : ", ", what);
	*first = false;
}

char *sb_devlock_holders(const char *name, dev_t devno)
{
	char *buf = NULL, p[900];
	size_t len = 0;
	bool first = true;
	FILE *m = open_memstream(&buf, &len);
	DIR *d;
	struct dirent *e;

	if (!m)
		return NULL;
	snprintf(p, sizeof(p), "/sys/class/block/%s/holders", name);
	if ((d = opendir(p))) {
		while ((e = readdir(d)))
			if (e->d_name[0] != '.')
				add_holder(m, &first, e->d_name);
		closedir(d);
	}
	/* The kernel does not say which open is the exclusive one (fdinfo
	 * flags drop O_EXCL): every process that has it open is named. */
	{
		DIR *proc = opendir("/proc");
		while (proc && (e = readdir(proc))) {
			char pid[256];
			if (e->d_name[0] < '0' || e->d_name[0] > '9' || strtol(e->d_name, NULL, 10) == getpid())
				continue;
			snprintf(pid, sizeof(pid), "%s", e->d_name);
			snprintf(p, sizeof(p), "/proc/%s/fd", pid);
			DIR *fds = opendir(p);
			struct dirent *f;
			bool hit = false;
			while (fds && !hit && (f = readdir(fds))) {
				struct stat st;
				if (f->d_name[0] == '.')
					continue;
				snprintf(p, sizeof(p), "/proc/%s/fd/%s", pid, f->d_name);
				if (stat(p, &st) == 0 && S_ISBLK(st.st_mode) && st.st_rdev == devno)
					hit = true;
			}
			if (fds)
				closedir(fds);
			if (!hit)
				continue;
			char comm[64] = "?";
			snprintf(p, sizeof(p), "/proc/%s/comm", pid);
			_cleanup_fclose_ FILE *c = fopen(p, "re");
			if (c && fgets(comm, sizeof(comm), c))
				comm[strcspn(comm, "\n")] = '\0';
			snprintf(p, sizeof(p), "pid %s (%s)", pid, comm);
			add_holder(m, &first, p);
		}
		if (proc)
			closedir(proc);
	}
	fclose(m);
	if (!len) {
		free(buf);
		return NULL;
	}
	return buf;
}
