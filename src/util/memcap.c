/* --cap-cache: each workload runs in a child process inside a memory cgroup
 * whose limit is the --ram size, so that the page cache (charged to the
 * cgroup that reads or writes a page) cannot hold more than a machine of
 * that RAM could, and a data set of twice --ram is read from the device.
 * cgroup v1 (the memory hierarchy's limit_in_bytes) and v2 (memory.max,
 * where the parent can delegate the controller). stackbench never moves
 * itself in: an OOM kill under the cap must end the workload, not the run
 * that holds the stack and its journal. `run` makes the cgroup as a step of
 * the plan (stack/cgroup.c: journaled, so teardown removes one a kill left);
 * `bench`, which has no journal, makes its own here. */
#include "util/memcap.h"
#include "util/macro.h"
#include "util/strutil.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#define CGROUP_ROOT "/sys/fs/cgroup/"
#define CGROUP2_MAGIC 0x63677270

static int write_file(const char *dir, const char *name, const char *val)
{
	_cleanup_free_ char *p = sb_asprintf("%s/%s", dir, name);
	int fd = p ? open(p, O_WRONLY | O_CLOEXEC | O_NOFOLLOW) : -1, r = 0;

	if (fd < 0)
		return p ? -errno : -ENOMEM;
	if (write(fd, val, strlen(val)) < 0)
		r = -errno;
	close(fd);
	return r;
}

/* This process's cgroup path in the hierarchy that matches (v1: the line
 * whose controllers include memory; v2: the "0::" line). */
static char *own_cgroup(bool v2)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[1024], *path = NULL;

	if (!f)
		return NULL;
	while (!path && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = '\0';
		const char *ctl = c1 + 1;
		bool match = v2 ? strcmp(line, "0") == 0 && *ctl == '\0' : false;
		if (!v2)
			for (char *save = NULL, *t = strtok_r((char *)ctl, ",", &save); t;
			     t = strtok_r(NULL, ",", &save))
				match |= strcmp(t, "memory") == 0;
		if (match)
			path = strdup(c2 + 1);
	}
	fclose(f);
	return path;
}

static int try_parent(bool v2, char **parent, char **why)
{
	const char *root = v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory";
	_cleanup_free_ char *own = own_cgroup(v2), *probe = NULL;
	struct stat st;
	int r;

	if (!own)
		return -ENOENT;
	_cleanup_free_ char *p = sb_asprintf("%s%s", root, strcmp(own, "/") == 0 ? "" : own);
	if (!p)
		return -ENOMEM;
	probe = sb_asprintf("%s/%s", p, v2 ? "cgroup.controllers" : "memory.limit_in_bytes");
	if (!probe || stat(probe, &st) < 0)
		return -ENOENT;
	if (v2 && (r = write_file(p, "cgroup.subtree_control", "+memory")) < 0) {
		*why = sb_asprintf(
		    "cgroup v2: the memory controller cannot be delegated below %s (%s)", p,
		    strerror(-r));
		return r;
	}
	*parent = TAKE_PTR(p);
	return 0;
}

int sb_memcap_parent(char **parent, bool *v2, char **why)
{
	int r;

	*parent = *why = NULL;
	*v2 = false;
	r = try_parent(false, parent, why);
	if (r == -ENOENT && !*why) {
		*v2 = true;
		r = try_parent(true, parent, why);
	}
	if (r < 0 && !*why)
		*why = strdup("no memory cgroup to cap the page cache with (neither "
			      "/sys/fs/cgroup/memory nor a cgroup v2 memory controller)");
	return r;
}

bool sb_memcap_is_v2(const char *dir)
{
	struct statfs sf;
	_cleanup_free_ char *up = sb_asprintf("%s/..", dir);
	return up && statfs(up, &sf) == 0 && (unsigned long)sf.f_type == CGROUP2_MAGIC;
}

int sb_memcap_make(const char *dir, bool v2, uint64_t bytes, char **why)
{
	char val[32];
	int r;

	*why = NULL;
	if (mkdir(dir, 0755) < 0) {
		r = -errno;
		*why = r == -EEXIST
			   ? sb_asprintf("the memory cgroup %s exists already: it is not "
					 "reused (another run's, or left by one: "
					 "'stackbench teardown --all' removes ours)",
					 dir)
			   : sb_asprintf("cannot make the memory cgroup %s: %s", dir, strerror(-r));
		return r;
	}
	snprintf(val, sizeof(val), "%llu", (unsigned long long)bytes);
	r = write_file(dir, v2 ? "memory.max" : "memory.limit_in_bytes", val);
	if (r < 0) {
		*why = sb_asprintf("cannot set the limit of %s: %s", dir, strerror(-r));
		rmdir(dir);
		return r;
	}
	/* No swap to escape to: the cap is on memory, not memory + swap. */
	if (v2)
		write_file(dir, "memory.swap.max", "0");
	else
		write_file(dir, "memory.memsw.limit_in_bytes", val);
	return 0;
}

/* SIGKILL to every process in dir; how many there were (-errno). */
static int kill_members(const char *dir)
{
	_cleanup_free_ char *p = sb_asprintf("%s/cgroup.procs", dir);
	FILE *f = p ? fopen(p, "re") : NULL;
	long pid;
	int n = 0;

	if (!f)
		return p ? -errno : -ENOMEM;
	while (fscanf(f, "%ld", &pid) == 1)
		if (pid > 1 && pid != (long)getpid() && kill((pid_t)pid, SIGKILL) == 0)
			n++;
	fclose(f);
	return n;
}

int sb_memcap_remove(const char *dir)
{
	const struct timespec tick = {0, 20 * 1000 * 1000};

	/* A few seconds for killed processes to leave (an OOM-killed one
	 * exits as soon as it is scheduled). */
	for (int i = 0; i < 250; i++) {
		if (rmdir(dir) == 0)
			return 0;
		if (errno == ENOENT)
			return i == 0 ? 1 : 0;
		if (errno != EBUSY)
			return -errno;
		if (kill_members(dir) == -ENOENT)
			return 1;
		nanosleep(&tick, NULL);
	}
	return -EBUSY;
}

bool sb_memcap_path_ok(const char *dir)
{
	size_t n = strlen(CGROUP_ROOT);
	const char *last = strrchr(dir, '/');

	if (strncmp(dir, CGROUP_ROOT, n) != 0 || !last ||
	    strncmp(last + 1, SB_MEMCG_PREFIX, strlen(SB_MEMCG_PREFIX)) != 0)
		return false;
	for (const char *c = dir + n - 1; c && *c; c = strchr(c + 1, '/')) {
		const char *next = c + 1;
		size_t len = strcspn(next, "/");
		if (len == 0 || (len == 1 && next[0] == '.') ||
		    (len == 2 && next[0] == '.' && next[1] == '.'))
			return false;
	}
	return true;
}

int sb_memcap_open(struct sb_memcap *m, uint64_t bytes, char **why)
{
	_cleanup_free_ char *parent = NULL;
	bool v2;
	int r;

	*m = (struct sb_memcap){0};
	r = sb_memcap_parent(&parent, &v2, why);
	if (r < 0)
		return r;
	/* mkdir is the exclusive create: a name taken (a dead bench's, or
	 * anyone's) is skipped, never entered. */
	for (unsigned k = 0; k < 16; k++) {
		free(*why);
		*why = NULL;
		m->dir =
		    sb_asprintf("%s/" SB_MEMCG_PREFIX "bench-%ld-%u", parent, (long)getpid(), k);
		if (!m->dir)
			return -ENOMEM;
		r = sb_memcap_make(m->dir, v2, bytes, why);
		if (r == 0) {
			m->bytes = bytes;
			m->v2 = v2;
			m->own = true;
			return 0;
		}
		free(m->dir);
		m->dir = NULL;
		if (r != -EEXIST)
			return r;
	}
	return r;
}

int sb_memcap_use(struct sb_memcap *m, const char *dir, uint64_t bytes)
{
	*m = (struct sb_memcap){.bytes = bytes};
	if (!sb_memcap_path_ok(dir))
		return -EPERM;
	m->dir = strdup(dir);
	if (!m->dir)
		return -ENOMEM;
	m->v2 = sb_memcap_is_v2(dir);
	return 0;
}

void sb_memcap_close(struct sb_memcap *m)
{
	/* v1 moves what is still charged (the cache) to the parent on rmdir;
	 * v2 keeps it as the parent's. */
	if (m->dir && m->own)
		sb_memcap_remove(m->dir);
	free(m->dir);
	*m = (struct sb_memcap){0};
}

int sb_memcap_join(const struct sb_memcap *m)
{
	char val[32];
	snprintf(val, sizeof(val), "%ld", (long)getpid());
	return write_file(m->dir, "cgroup.procs", val);
}

int64_t sb_memcap_oom_kills(const struct sb_memcap *m)
{
	_cleanup_free_ char *p =
	    sb_asprintf("%s/%s", m->dir, m->v2 ? "memory.events" : "memory.oom_control");
	FILE *f = p ? fopen(p, "re") : NULL;
	char key[64];
	long long v;
	int64_t n = -ENOENT;

	if (!f)
		return p ? -errno : -ENOMEM;
	while (fscanf(f, "%63s %lld", key, &v) == 2)
		if (strcmp(key, "oom_kill") == 0)
			n = v;
	fclose(f);
	return n;
}
