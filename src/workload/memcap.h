/* Caps this process's memory, page cache included, at a size for the life of
 * a workload, through a child memory cgroup (see memcap.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct sb_memcap {
	char *parent; /* the cgroup the process came from */
	char *dir;    /* the cgroup it is in; NULL: not capped */
	uint64_t bytes;
	bool v2;
};

/* Moves the process into a new memory cgroup limited to bytes. 0, or -errno
 * with *why saying why it could not (the process is where it was). */
int sb_memcap_enter(struct sb_memcap *m, uint64_t bytes, char **why);
/* Moves it back and removes the cgroup; nothing when not capped. */
void sb_memcap_leave(struct sb_memcap *m);
