/* mkfs: ext2/3/4 (-F), xfs (-f), btrfs (-f, see btrfs.c), extra options as
 * words. The new file system's UUID (libblkid) is journaled; undo erases
 * the signatures with libblkid only where that UUID is still found. */
#include "stack/layers.h"
#include "util/macro.h"

#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define A struct sb_mkfs_args
static const struct sb_field fields[] = {
    SB_FIELD(A, type, SB_FT_STR, SB_FF_REQUIRED),
    SB_FIELD(A, devs, SB_FT_DEVV, SB_FF_REQUIRED | SB_FF_WRITES | SB_FF_IDENT),
    SB_FIELD(A, opts, SB_FT_STRV, 0),
    SB_FIELD(A, data, SB_FT_STR, SB_FF_OPTIONAL),
    SB_FIELD(A, metadata, SB_FT_STR, SB_FF_OPTIONAL),
};
#undef A

static const struct sb_prog progs[] = {
    {"mkfs.ext2", "e2fsprogs"}, {"mkfs.ext3", "e2fsprogs"},   {"mkfs.ext4", "e2fsprogs"},
    {"mkfs.xfs", "xfsprogs"},	{"mkfs.btrfs", "btrfs-progs"}, {"btrfs", "btrfs-progs"},
    {NULL, NULL}};

static const struct sb_prog *programs(const void *args)
{
	const struct sb_mkfs_args *a = args;
	static struct sb_prog one[2];
	for (const struct sb_prog *p = progs; p->prog; p++)
		if (strncmp(p->prog, "mkfs.", 5) == 0 && strcmp(p->prog + 5, a->type) == 0) {
			one[0] = *p;
			return one;
		}
	return NULL;
}

static bool is_btrfs(const struct sb_mkfs_args *a)
{
	return strcmp(a->type, "btrfs") == 0;
}

static void mkfs_argv(const struct sb_mkfs_args *a, struct sb_vec *v)
{
	if (is_btrfs(a)) {
		sb_btrfs_mkfs_argv(a, v);
		return;
	}
	sb_vec_addf(v, "mkfs.%s", a->type);
	sb_vec_add(v, strcmp(a->type, "xfs") == 0 ? "-f" : "-F");
	if (strcmp(a->type, "xfs") != 0)
		sb_vec_add(v, "-q");
	for (size_t i = 0; i < a->opts.n; i++)
		sb_vec_add(v, a->opts.v[i]);
	/* Other file systems live on the first device only. */
	sb_vec_add(v, a->devs.v[0]);
}

static int describe(const void *args, char **what, char **undo)
{
	const struct sb_mkfs_args *a = args;
	struct sb_vec v = {0}, u = {0};
	mkfs_argv(a, &v);
	*what = sb_vec_format(&v);
	sb_vec_free(&v);
	sb_vec_add(&u, "wipefs");
	sb_vec_add(&u, "-a");
	for (size_t i = 0; i < a->devs.n; i++)
		sb_vec_add(&u, a->devs.v[i]);
	*undo = sb_vec_format(&u);
	sb_vec_free(&u);
	return *what && *undo ? 0 : -ENOMEM;
}

static int run(void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_mkfs_args *a = args;
	struct sb_vec v = {0};
	char uuid[128];
	int r;
	mkfs_argv(a, &v);
	r = sb_exec_cmd(x, (const char *const *)v.v);
	sb_vec_free(&v);
	if (r < 0)
		return r;
	if (sb_blkid_value(a->devs.v[0], "UUID", uuid, sizeof(uuid)) == 0)
		json_object_object_add(result, "uuid", json_object_new_string(uuid));
	return 0;
}

/* Each device carries our file system (its UUID), or none at all. */
static int check(const void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_mkfs_args *a = args;
	const char *want = sb_json_str(result, "uuid");
	char cur[128];
	size_t n = is_btrfs(a) ? a->devs.n : 1;
	if (!want)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (sb_blkid_value(a->devs.v[i], "UUID", cur, sizeof(cur)) < 0)
			continue;
		if (strcasecmp(cur, want) != 0)
			return sb_exec_fail(x, -ESTALE,
					    "%s: not ours: file system UUID %s != journaled %s",
					    a->devs.v[i], cur, want);
	}
	return 0;
}

static int undo(const void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_mkfs_args *a = args;
	for (size_t i = 0; i < a->devs.n; i++) {
		const char *d = a->devs.v[i];
		struct stat st;
		int r;
		if (strstr(d, "${") || stat(d, &st) < 0 || !S_ISBLK(st.st_mode))
			continue;
		r = sb_wipe_signatures(d);
		if (r < 0)
			return sb_exec_fail(x, r, "%s: cannot wipe: %s", d, strerror(-r));
		if (r > 0)
			sb_exec_log(x, "%s: %d signature(s) wiped\n", d, r);
		if (is_btrfs(a))
			sb_btrfs_forget(d);
	}
	return 0;
}

const struct sb_layer sb_layer_mkfs = {
    .kind = "mkfs",
    .args_size = sizeof(struct sb_mkfs_args),
    .fields = fields,
    .n_fields = ARRAY_SIZE(fields),
    .progs = progs,
    .programs = programs,
    .describe = describe,
    .run = run,
    .check = check,
    .undo = undo,
};
