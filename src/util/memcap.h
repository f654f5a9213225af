/* Caps a workload's memory, page cache included, at a size, through a
 * memory cgroup of its own (see memcap.c). Only the workload's process goes
 * in: stackbench itself stays outside, so that an OOM kill under the cap
 * ends the workload and never the run that must tear the stack down. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* The prefix of every cgroup this tool makes (teardown and journal checks
 * accept nothing else). */
#define SB_MEMCG_PREFIX "stackbench-"

struct sb_memcap {
	char *dir; /* the cgroup; NULL: not capped */
	uint64_t bytes;
	bool v2;
	bool own; /* made by sb_memcap_open (bench): sb_memcap_close removes it */
};

/* The directory under which this process may make a memory cgroup (its own
 * memory cgroup, v1 first, then v2 with the controller delegated), and
 * which version. 0, or -errno with *why allocated. */
int sb_memcap_parent(char **parent, bool *v2, char **why);
/* Makes the cgroup dir with the limit bytes. An existing one is refused
 * (-EEXIST), never reused: it would be someone else's, or hold their
 * processes and charges. 0 or -errno with *why allocated. */
int sb_memcap_make(const char *dir, bool v2, uint64_t bytes, char **why);
/* Kills what is left inside (only our workload ever joins it), waits for it
 * to go and removes the cgroup: 0, 1 when it was gone already, or -errno. */
int sb_memcap_remove(const char *dir);
/* Is dir a cgroup this tool could have made (under /sys/fs/cgroup, last
 * component SB_MEMCG_PREFIX..., no "." or ".." components)? Pure. */
bool sb_memcap_path_ok(const char *dir);
/* v2 when dir lies in a cgroup2 hierarchy (memory.max), else v1. */
bool sb_memcap_is_v2(const char *dir);

/* bench: makes a cgroup of its own, named after this process (made with
 * mkdir's exclusive semantics: another name is tried when it exists). */
int sb_memcap_open(struct sb_memcap *m, uint64_t bytes, char **why);
/* run: the cgroup the plan's step made. */
int sb_memcap_use(struct sb_memcap *m, const char *dir, uint64_t bytes);
/* Removes the cgroup when sb_memcap_open made it. */
void sb_memcap_close(struct sb_memcap *m);
/* Called in the workload's child: moves the calling process in. */
int sb_memcap_join(const struct sb_memcap *m);
/* The OOM kills the kernel counted in the cgroup so far (-errno: unknown). */
int64_t sb_memcap_oom_kills(const struct sb_memcap *m);
