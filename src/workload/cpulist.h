/* --cpus LIST: the CPUs the workloads' threads are pinned to, written as
 * taskset(1) and cpuset.cpus take them ("0-3,6", "0-7:2" every second). */
#pragma once

#include <sched.h>
#include <stddef.h>

/* LIST into set. 0, or -EINVAL with why (malloc'ed) naming what is wrong:
 * an empty item, a range backwards, a CPU beyond CPU_SETSIZE, a stride of
 * 0. Pure. */
int sb_cpulist_parse(const char *list, cpu_set_t *set, char **why);
/* set as a list again, ranges folded ("0-3,6"). Pure. */
void sb_cpulist_format(const cpu_set_t *set, char *buf, size_t len);
/* For the option: LIST parses and every CPU in it may run this process
 * (sched_getaffinity). 0, or -EINVAL with why (malloc'ed). */
int sb_cpulist_check(const char *list, char **why);
