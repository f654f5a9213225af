/* LVM through the lvm2 tools: one PV per device, one VG named per run (so
 * that it never clashes with the machine's own), one LV. Undo removes them
 * with -ff -y; what the tools cannot remove is removed through libdevmapper. */
#include "stack/stack.h"
#include "util/macro.h"
#include "util/size.h"
#include "util/spawn.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fmt(char **out, const char *const *argv)
{
	struct sb_vec v = {(char **)argv, 0};
	while (argv[v.n])
		v.n++;
	*out = sb_vec_format(&v);
	return *out ? 0 : -ENOMEM;
}

/* Every LVM tool gets a --config that keeps our devices usable without
 * the devices file, and without udev when no udevd runs (else the tools
 * wait for udev to create nodes it never will). Shown in run.log. */
static int lvm_run(struct sb_exec *x, const char *const *argv, int *status)
{
	struct sb_vec v = {0};
	int r;
	sb_vec_add(&v, argv[0]);
	sb_vec_add(&v, "--config");
	sb_vec_add(&v, x->udev ? "devices { use_devicesfile = 0 }"
			       : "devices { use_devicesfile = 0 obtain_device_list_from_udev = 0 } "
				 "activation { udev_sync = 0 udev_rules = 0 }");
	for (size_t i = 1; argv[i]; i++)
		sb_vec_add(&v, argv[i]);
	r = status ? sb_exec_cmd_quiet(x, (const char *const *)v.v, status)
		   : sb_exec_cmd(x, (const char *const *)v.v);
	sb_vec_free(&v);
	return r;
}

/* Does "vgs VG" (or lvs, pvs) find it? */
static bool lvm_has(struct sb_exec *x, const char *tool, const char *what)
{
	const char *argv[] = {tool, "--noheadings", what, NULL};
	int st = -1;
	return lvm_run(x, argv, &st) == 0 && st == 0;
}

/* ---- pvcreate ---- */

static int pv_describe(json_object *a, char **what, char **undo)
{
	const char *dev = sb_arg_str(a, "dev");
	const char *w[] = {"pvcreate", "-y", dev, NULL},
		   *u[] = {"pvremove", "-ff", "-y", dev, NULL};
	return fmt(what, w) ?: fmt(undo, u);
}

static int pv_run(json_object *a, json_object *result, struct sb_exec *x)
{
	const char *argv[] = {"pvcreate", "-y", sb_arg_str(a, "dev"), NULL};
	return lvm_run(x, argv, NULL);
}

static int pv_undo(json_object *a, json_object *result, struct sb_exec *x)
{
	const char *dev = sb_arg_str(a, "dev");
	struct stat st;
	int r;
	if (strstr(dev, "${") || stat(dev, &st) < 0)
		return 0;
	if (lvm_has(x, "pvs", dev)) {
		const char *argv[] = {"pvremove", "-ff", "-y", dev, NULL};
		r = lvm_run(x, argv, NULL);
		if (r < 0)
			return r;
	}
	/* A label the tools no longer see (or could not run to remove). */
	r = sb_wipe_signatures(dev);
	return r < 0 ? sb_exec_fail(x, r, "%s: cannot wipe: %s", dev, strerror(-r)) : 0;
}

/* ---- vgcreate ---- */

static void vg_argv(json_object *a, struct sb_vec *v)
{
	sb_vec_add(v, "vgcreate");
	sb_vec_add(v, "-y");
	sb_vec_add(v, sb_arg_str(a, "vg"));
	for (size_t i = 0; i < sb_arg_len(a, "pvs"); i++)
		sb_vec_add(v, sb_arg_idx(a, "pvs", i));
}

static int vg_describe(json_object *a, char **what, char **undo)
{
	struct sb_vec v = {0};
	const char *u[] = {"vgremove", "-ff", "-y", sb_arg_str(a, "vg"), NULL};
	vg_argv(a, &v);
	*what = sb_vec_format(&v);
	sb_vec_free(&v);
	return *what ? fmt(undo, u) : -ENOMEM;
}

static int vg_prepare(json_object *a, struct sb_exec *x)
{
	/* Undo removes the VG by name: it must not be someone else's. */
	if (lvm_has(x, "vgs", sb_arg_str(a, "vg")))
		return sb_exec_fail(x, -EEXIST, "volume group %s exists already",
				    sb_arg_str(a, "vg"));
	return 0;
}

static int vg_run(json_object *a, json_object *result, struct sb_exec *x)
{
	struct sb_vec v = {0};
	int r;
	vg_argv(a, &v);
	r = lvm_run(x, (const char *const *)v.v, NULL);
	sb_vec_free(&v);
	return r;
}

/* device-mapper doubles the dashes of VG and LV names. */
static void dm_prefix(const char *vg, char *buf, size_t len)
{
	size_t k = 0;
	for (const char *c = vg; *c && k + 3 < len; c++) {
		buf[k++] = *c;
		if (*c == '-')
			buf[k++] = '-';
	}
	buf[k++] = '-';
	buf[k] = '\0';
}

static int vg_undo(json_object *a, json_object *result, struct sb_exec *x)
{
	const char *vg = sb_arg_str(a, "vg");
	char prefix[300];
	int r = 0;

	if (strstr(vg, "${"))
		return 0;
	if (lvm_has(x, "vgs", vg)) {
		const char *argv[] = {"vgremove", "-ff", "-y", vg, NULL};
		r = lvm_run(x, argv, NULL);
	}
	dm_prefix(vg, prefix, sizeof(prefix));
	int n = sb_dm_remove_prefix(prefix, NULL);
	if (n > 0)
		sb_exec_log(x, "removed %d leftover device-mapper device(s) %s*\n", n, prefix);
	return r;
}

/* ---- lvcreate ---- */

static void lv_argv(json_object *a, struct sb_vec *v)
{
	const char *size = sb_arg_str(a, "size"), *st = sb_arg_str(a, "stripes");
	uint64_t u;
	bool pct = false;

	sb_vec_add(v, "lvcreate");
	sb_vec_add(v, "-y");
	sb_vec_add(v, "-n");
	sb_vec_add(v, sb_arg_str(a, "lv"));
	if (sb_parse_size(size, &u, true, &pct) == 0 && pct) {
		sb_vec_add(v, "-l");
		sb_vec_addf(v, "%llu%%%s", (unsigned long long)u, u == 100 ? "FREE" : "VG");
	} else {
		sb_vec_add(v, "-L");
		sb_vec_addf(v, "%llub", (unsigned long long)u);
	}
	if (st) {
		sb_vec_add(v, "-i");
		sb_vec_add(v, st);
	}
	sb_vec_add(v, sb_arg_str(a, "vg"));
}

static int lv_describe(json_object *a, char **what, char **undo)
{
	struct sb_vec v = {0};
	char lv[300];
	snprintf(lv, sizeof(lv), "%s/%s", sb_arg_str(a, "vg"), sb_arg_str(a, "lv"));
	const char *u[] = {"lvremove", "-ff", "-y", lv, NULL};
	lv_argv(a, &v);
	*what = sb_vec_format(&v);
	sb_vec_free(&v);
	if (!*what)
		return -ENOMEM;
	char *w = NULL;
	if (asprintf(&w, "%s -> /dev/%s", *what, lv) >= 0) {
		free(*what);
		*what = w;
	}
	return fmt(undo, u);
}

static int lv_run(json_object *a, json_object *result, struct sb_exec *x)
{
	struct sb_vec v = {0};
	char path[300];
	int r;

	lv_argv(a, &v);
	r = lvm_run(x, (const char *const *)v.v, NULL);
	sb_vec_free(&v);
	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "/dev/%s/%s", sb_arg_str(a, "vg"), sb_arg_str(a, "lv"));
	/* LVM makes the /dev/VG/LV link itself (or udev does): wait for it. */
	for (int i = 0; i < 500 && access(path, F_OK) != 0; i++)
		usleep(20000);
	if (access(path, F_OK) != 0)
		return sb_exec_fail(x, -ETIMEDOUT, "%s did not appear", path);
	sb_arg_set(result, "dev", path);
	sb_result_var(result, sb_arg_str(a, "var"), path);
	return 0;
}

/* The LV's path is known before it exists (with the run id still a name
 * in a dry run), so that plans show /dev/VG/LV rather than ${lv}. */
static void lv_predict(json_object *a, struct sb_exec *x)
{
	char path[300];
	snprintf(path, sizeof(path), "/dev/%s/%s", sb_arg_str(a, "vg"), sb_arg_str(a, "lv"));
	sb_exec_set_var(x, sb_arg_str(a, "var"), path);
}

static int lv_undo(json_object *a, json_object *result, struct sb_exec *x)
{
	char lv[300];
	snprintf(lv, sizeof(lv), "%s/%s", sb_arg_str(a, "vg"), sb_arg_str(a, "lv"));
	if (strstr(lv, "${") || !lvm_has(x, "lvs", lv))
		return 0;
	const char *argv[] = {"lvremove", "-ff", "-y", lv, NULL};
	return lvm_run(x, argv, NULL);
}

const struct sb_layer sb_layer_pv = {.kind = "pvcreate",
				     .describe = pv_describe,
				     .run = pv_run,
				     .undo = pv_undo,
				     .required = {"dev"}};
const struct sb_layer sb_layer_vg = {.kind = "vgcreate",
				     .prepare = vg_prepare,
				     .describe = vg_describe,
				     .run = vg_run,
				     .undo = vg_undo,
				     .required = {"vg"}};
const struct sb_layer sb_layer_lv = {.kind = "lvcreate",
				     .predict = lv_predict,
				     .describe = lv_describe,
				     .run = lv_run,
				     .undo = lv_undo,
				     .required = {"vg", "lv"}};
