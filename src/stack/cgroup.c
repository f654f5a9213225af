/* The workloads' memory cgroup (--cap-cache) as a step of the plan: made
 * after the mount with the cap as its limit, journaled like any step, so
 * that the undo (and `teardown --all` after a kill) removes it together
 * with whatever of the workload is still inside. The cgroup facts live in
 * util/memcap.c; this is the journal's view of them. */
#include "stack/layers.h"
#include "stack/plan.h"
#include "util/macro.h"
#include "util/strutil.h"
#include "util/memcap.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#define A struct sb_memcg_args
static const struct sb_field fields[] = {
    SB_FIELD(A, name, SB_FT_STR, SB_FF_REQUIRED),
    SB_FIELD(A, bytes, SB_FT_U64, 0),
    SB_FIELD(A, dir, SB_FT_STR, SB_FF_OPTIONAL),
};
#undef A

static int describe(const void *args, char **what, char **undo)
{
	const struct sb_memcg_args *a = args;
	_cleanup_free_ char *d =
	    a->dir ? strdup(a->dir) : sb_asprintf("<this process's memory cgroup>/%s", a->name);

	if (!d)
		return -ENOMEM;
	*what = sb_asprintf("mkdir %s; limit %llu bytes (memory.limit_in_bytes or memory.max); "
			    "the workloads run in it",
			    d, (unsigned long long)a->bytes);
	*undo = sb_asprintf("kill what is left in %s; rmdir %s", d, d);
	return *what && *undo ? 0 : -ENOMEM;
}

/* The name comes from the run id: never a path of its own. */
static int prepare(void *args, struct sb_exec *x)
{
	struct sb_memcg_args *a = args;
	_cleanup_free_ char *why = NULL;
	char *parent = NULL;
	bool v2;
	struct stat st;
	int r;

	if (strchr(a->name, '/') || strncmp(a->name, SB_MEMCG_PREFIX, strlen(SB_MEMCG_PREFIX)) != 0)
		return sb_exec_fail(x, -EINVAL, "memory cgroup name '%s' is not one of ours",
				    a->name);
	r = sb_memcap_parent(&parent, &v2, &why);
	if (r < 0)
		return sb_exec_fail(x, r, "--cap-cache: %s", why ? why : strerror(-r));
	free(a->dir);
	a->dir = sb_asprintf("%s/%s", parent, a->name);
	free(parent);
	if (!a->dir)
		return -ENOMEM;
	/* Refused before the begin record, so that undo can never remove a
	 * cgroup that someone else made. */
	if (lstat(a->dir, &st) == 0) {
		x->refused = true;
		return sb_exec_fail(
		    x, -EEXIST, "the memory cgroup %s exists already: it is not reused", a->dir);
	}
	return 0;
}

static int run(void *args, json_object *result, struct sb_exec *x)
{
	struct sb_memcg_args *a = args;
	_cleanup_free_ char *why = NULL;
	int r = sb_memcap_make(a->dir, sb_memcap_is_v2(a->dir), a->bytes, &why);

	if (r < 0) {
		x->refused = r == -EEXIST;
		return sb_exec_fail(x, r, "--cap-cache: %s", why ? why : strerror(-r));
	}
	sb_exec_log(x, "memory cgroup %s: limit %llu bytes\n", a->dir,
		    (unsigned long long)a->bytes);
	sb_result_var(result, "memcg", a->dir);
	return 0;
}

static int check(const void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_memcg_args *a = args;
	struct stat st;

	if (!a->dir)
		return SB_GONE; /* refused in prepare: nothing was made */
	/* The journal's own run: stackbench-RUN-ID, never another run's. */
	const char *run = x->run_dir ? strrchr(x->run_dir, '/') : NULL;
	const char *last = strrchr(a->dir, '/');
	if (!sb_memcap_path_ok(a->dir) || !run || !last ||
	    strncmp(last + 1, SB_MEMCG_PREFIX, strlen(SB_MEMCG_PREFIX)) != 0 ||
	    strcmp(last + 1 + strlen(SB_MEMCG_PREFIX), run + 1) != 0)
		return sb_exec_fail(x, -ESTALE, "%s is no memory cgroup of this run's", a->dir);
	return lstat(a->dir, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : SB_GONE;
}

static int undo(const void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_memcg_args *a = args;
	int r = sb_memcap_remove(a->dir);

	if (r < 0)
		return sb_exec_fail(x, r, "%s: cannot remove the memory cgroup: %s", a->dir,
				    strerror(-r));
	return 0;
}

/* --cap-cache: the plan's last step, over the mounted file system. */
static int memcg_plan(const void *cfg, struct sb_pctx *b)
{
	if (!b->in->cap_bytes)
		return 0;
	struct sb_memcg_args *cg = sb_plan_add_step(b, SB_STEP_MEMCG);
	cg->name = sb_plan_fmt("stackbench-${id}");
	cg->bytes = b->in->cap_bytes;
	return 0;
}

const struct sb_layer sb_layer_memcg = {
    .kind = "memory-cgroup",
    .args_size = sizeof(struct sb_memcg_args),
    .fields = fields,
    .n_fields = ARRAY_SIZE(fields),
    .prepare = prepare,
    .describe = describe,
    .run = run,
    .check = check,
    .undo = undo,
    .plan = memcg_plan,
};
