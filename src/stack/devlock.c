/* Device locking, one unit: an exclusive flock on each whole disk, held
 * for the run's life, and who holds a lock we want (/proc/locks); the
 * O_EXCL open that proves nobody else holds a device before a step writes
 * it, and who does when it fails (holders in sysfs, mountinfo, processes
 * with it open). */
#include "stack/devlock.h"
#include "util/log.h"
#include "util/macro.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
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

/* ---- exclusive opens ---- */

static void add(FILE *f, bool *first, const char *what, const char *a)
{
	fprintf(f, "%s%s%s", *first ? "" : ", ", what, a);
	*first = false;
}

/* "pid 42 (comm)" for every process with an fd on the device rdev. */
static void add_processes(FILE *f, bool *first, dev_t rdev)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	char p[PATH_MAX];

	while (d && (e = readdir(d))) {
		DIR *fd;
		struct dirent *fe;
		bool hit = false;
		if (!isdigit((unsigned char)e->d_name[0]) ||
		    strtol(e->d_name, NULL, 10) == (long)getpid())
			continue;
		snprintf(p, sizeof(p), "/proc/%s/fd", e->d_name);
		if (!(fd = opendir(p)))
			continue;
		while (!hit && (fe = readdir(fd))) {
			char l[PATH_MAX + 300];
			struct stat fs;
			snprintf(l, sizeof(l), "%s/%s", p, fe->d_name);
			hit = fe->d_name[0] != '.' && stat(l, &fs) == 0 && S_ISBLK(fs.st_mode) &&
			      fs.st_rdev == rdev;
		}
		closedir(fd);
		if (!hit)
			continue;
		char comm[64] = "?";
		snprintf(p, sizeof(p), "/proc/%s/comm", e->d_name);
		_cleanup_fclose_ FILE *c = fopen(p, "re");
		if (c && fgets(comm, sizeof(comm), c))
			comm[strcspn(comm, "\n")] = '\0';
		add(f, first, "pid ", e->d_name);
		fprintf(f, " (%s)", comm);
	}
	if (d)
		closedir(d);
}

char *sb_devlock_holders(const char *dev)
{
	struct stat st;
	char p[PATH_MAX], line[4096], mm[32];
	char *out = NULL;
	size_t len = 0;
	bool first = true;
	FILE *f, *in;
	DIR *d;
	struct dirent *e;

	if (stat(dev, &st) < 0 || !S_ISBLK(st.st_mode))
		return NULL;
	f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/holders", major(st.st_rdev),
		 minor(st.st_rdev));
	if ((d = opendir(p))) {
		while ((e = readdir(d)))
			if (e->d_name[0] != '.')
				add(f, &first, "used by ", e->d_name);
		closedir(d);
	}
	snprintf(mm, sizeof(mm), "%u:%u", major(st.st_rdev), minor(st.st_rdev));
	if ((in = fopen("/proc/self/mountinfo", "re"))) {
		/* "36 35 98:0 /mnt1 /mnt2 ...": the third field is the device. */
		while (fgets(line, sizeof(line), in)) {
			char *save = NULL, *id = strtok_r(line, " ", &save);
			char *par = id ? strtok_r(NULL, " ", &save) : NULL;
			char *m = par ? strtok_r(NULL, " ", &save) : NULL;
			char *root = m ? strtok_r(NULL, " ", &save) : NULL;
			char *target = root ? strtok_r(NULL, " ", &save) : NULL;
			if (target && strcmp(m, mm) == 0)
				add(f, &first, "mounted on ", target);
		}
		fclose(in);
	}
	add_processes(f, &first, st.st_rdev);
	fclose(f);
	if (out && !*out) {
		free(out);
		return NULL;
	}
	return out;
}

int sb_devlock_excl_open(const char *dev, int *fd, char **why)
{
	int r, efd = open(dev, O_RDONLY | O_EXCL | O_CLOEXEC | O_NONBLOCK);

	if (why)
		*why = NULL;
	if (efd >= 0) {
		if (fd)
			*fd = efd;
		else
			close(efd);
		return 0;
	}
	r = negerrno();
	if (fd)
		*fd = -1;
	if (!why)
		return r;
	if (r == -EBUSY) {
		_cleanup_free_ char *h = sb_devlock_holders(dev);
		if (asprintf(why, "refused: %s is held open exclusively by another program%s%s%s",
			     dev, h ? " (" : "", h ? h : "", h ? ")" : "") < 0)
			*why = NULL;
	} else if (asprintf(why, "%s: cannot open: %s", dev, strerror(-r)) < 0) {
		*why = NULL;
	}
	return r;
}

char *sb_devlock_whole_disk(const char *dev)
{
	struct stat st;
	char p[PATH_MAX], real[PATH_MAX], *out = NULL;

	if (stat(dev, &st) < 0 || !S_ISBLK(st.st_mode))
		return NULL;
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/partition", major(st.st_rdev),
		 minor(st.st_rdev));
	if (access(p, F_OK) != 0)
		return NULL;
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/..", major(st.st_rdev), minor(st.st_rdev));
	if (!realpath(p, real) || asprintf(&out, "/dev/%s", basename(real)) < 0)
		return NULL;
	return out;
}
