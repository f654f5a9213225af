/* mkfs: ext2/3/4 (-F), xfs (-f), btrfs (-f, see btrfs.c), extra options
 * split into words. Undo erases the file system signatures with libblkid. */
#include "stack/stack.h"
#include "util/macro.h"

#include <string.h>
#include <sys/stat.h>

void sb_btrfs_mkfs_argv(json_object *a, struct sb_vec *v);
void sb_btrfs_forget(const char *dev);

static void mkfs_argv(json_object *a, struct sb_vec *v)
{
	const char *t = sb_arg_str(a, "type");
	if (!t)
		t = "?"; /* a journal edited by hand; mkfs.? then fails cleanly */
	if (strcmp(t, "btrfs") == 0) {
		sb_btrfs_mkfs_argv(a, v);
		return;
	}
	sb_vec_addf(v, "mkfs.%s", t);
	sb_vec_add(v, strcmp(t, "xfs") == 0 ? "-f" : "-F");
	if (strcmp(t, "xfs") != 0)
		sb_vec_add(v, "-q");
	for (size_t i = 0; i < sb_arg_len(a, "opts"); i++)
		sb_vec_add(v, sb_arg_idx(a, "opts", i));
	/* Other file systems live on the first device only. */
	sb_vec_add(v, sb_arg_idx(a, "devs", 0));
}

static int describe(json_object *a, char **what, char **undo)
{
	struct sb_vec v = {0}, u = {0};
	mkfs_argv(a, &v);
	*what = sb_vec_format(&v);
	sb_vec_free(&v);
	sb_vec_add(&u, "wipefs");
	sb_vec_add(&u, "-a");
	for (size_t i = 0; i < sb_arg_len(a, "devs"); i++)
		sb_vec_add(&u, sb_arg_idx(a, "devs", i));
	*undo = sb_vec_format(&u);
	sb_vec_free(&u);
	return *what && *undo ? 0 : -ENOMEM;
}

static int run(json_object *a, json_object *result, struct sb_exec *x)
{
	struct sb_vec v = {0};
	int r;
	mkfs_argv(a, &v);
	r = sb_exec_cmd(x, (const char *const *)v.v);
	sb_vec_free(&v);
	return r;
}

static int undo(json_object *a, json_object *result, struct sb_exec *x)
{
	const char *t = sb_arg_str(a, "type");
	bool btrfs = t && strcmp(t, "btrfs") == 0;
	for (size_t i = 0; i < sb_arg_len(a, "devs"); i++) {
		const char *d = sb_arg_idx(a, "devs", i);
		struct stat st;
		int r;
		if (strstr(d, "${") || stat(d, &st) < 0 || !S_ISBLK(st.st_mode))
			continue;
		r = sb_wipe_signatures(d);
		if (r < 0)
			return sb_exec_fail(x, r, "%s: cannot wipe: %s", d, strerror(-r));
		if (r > 0)
			sb_exec_log(x, "%s: %d signature(s) wiped\n", d, r);
		if (btrfs)
			sb_btrfs_forget(d);
	}
	return 0;
}

const struct sb_layer sb_layer_mkfs = {
    .kind = "mkfs",
    .describe = describe,
    .run = run,
    .undo = undo,
    .required = {"type"},
};
