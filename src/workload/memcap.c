/* --cap-cache: the workloads run inside a child memory cgroup whose limit is
 * the --ram size, so that the page cache (charged to the cgroup that reads or
 * writes a page) cannot hold more than a machine of that RAM could, and a
 * data set of twice --ram is read from the device. cgroup v1 (the memory
 * hierarchy's limit_in_bytes) and v2 (memory.max, where the parent can
 * delegate the controller). The process moves in for one workload and back
 * out after; the cgroup is removed (v1 moves its charges to the parent). */
#include "workload/memcap.h"
#include "util/strutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_file(const char *dir, const char *name, const char *val)
{
	char *p = sb_asprintf("%s/%s", dir, name);
	int fd = p ? open(p, O_WRONLY | O_CLOEXEC) : -1, r = 0;

	free(p);
	if (fd < 0)
		return -errno;
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

static int try_enter(struct sb_memcap *m, bool v2, uint64_t bytes, char **why)
{
	const char *root = v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory";
	char *own = own_cgroup(v2), val[32];
	struct stat st;
	int r;

	if (!own)
		return -ENOENT;
	m->parent = sb_asprintf("%s%s", root, strcmp(own, "/") == 0 ? "" : own);
	free(own);
	if (!m->parent)
		return -ENOMEM;
	char *probe = sb_asprintf("%s/%s", m->parent, v2 ? "cgroup.controllers" : "memory.limit_in_bytes");
	r = probe && stat(probe, &st) == 0 ? 0 : -ENOENT;
	free(probe);
	if (r < 0)
		goto fail;
	if (v2 && (r = write_file(m->parent, "cgroup.subtree_control", "+memory")) < 0) {
		*why = sb_asprintf("cgroup v2: the memory controller cannot be delegated below %s (%s)",
				   m->parent, strerror(-r));
		goto fail;
	}
	m->dir = sb_asprintf("%s/stackbench-%ld", m->parent, (long)getpid());
	if (!m->dir) {
		r = -ENOMEM;
		goto fail;
	}
	if (mkdir(m->dir, 0755) < 0 && errno != EEXIST) {
		r = -errno;
		*why = sb_asprintf("cannot make the memory cgroup %s: %s", m->dir, strerror(errno));
		goto fail;
	}
	snprintf(val, sizeof(val), "%llu", (unsigned long long)bytes);
	if ((r = write_file(m->dir, v2 ? "memory.max" : "memory.limit_in_bytes", val)) < 0) {
		*why = sb_asprintf("cannot set the limit of %s: %s", m->dir, strerror(-r));
		goto fail_dir;
	}
	snprintf(val, sizeof(val), "%ld", (long)getpid());
	if ((r = write_file(m->dir, "cgroup.procs", val)) < 0) {
		*why = sb_asprintf("cannot move into %s: %s", m->dir, strerror(-r));
		goto fail_dir;
	}
	m->v2 = v2;
	m->bytes = bytes;
	return 0;
fail_dir:
	rmdir(m->dir);
fail:
	free(m->dir);
	free(m->parent);
	m->dir = m->parent = NULL;
	return r;
}

int sb_memcap_enter(struct sb_memcap *m, uint64_t bytes, char **why)
{
	*m = (struct sb_memcap){0};
	*why = NULL;
	int r = try_enter(m, false, bytes, why);
	if (r == -ENOENT && !*why)
		r = try_enter(m, true, bytes, why);
	if (r < 0 && !*why)
		*why = strdup("no memory cgroup to cap the page cache with (neither "
			      "/sys/fs/cgroup/memory nor a cgroup v2 memory controller)");
	return r;
}

void sb_memcap_leave(struct sb_memcap *m)
{
	char val[32];

	if (!m->dir)
		return;
	snprintf(val, sizeof(val), "%ld", (long)getpid());
	write_file(m->parent, "cgroup.procs", val);
	/* v1 moves what is still charged (the cache) to the parent on rmdir;
	 * v2 keeps it as the parent's. A child process still inside keeps the
	 * cgroup: it goes with that process. */
	rmdir(m->dir);
	free(m->dir);
	free(m->parent);
	*m = (struct sb_memcap){0};
}
