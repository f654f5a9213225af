/* Shared by the pieces of the workload engine (workload.c, workload_phase.c,
 * workload_capped.c) and nothing else. */
#pragma once

#include "workload/wl.h"

/* The object extra.KEY of c's result, made when missing (workload.c). */
json_object *sb_wl_extra_obj(struct sb_wl_ctx *c, const char *key);
/* --cap-cache: runs c's workload in a child inside the memory cgroup
 * (workload_capped.c). */
int sb_wl_run_capped(struct sb_wl_ctx *c, const struct sb_wl_env *env);
