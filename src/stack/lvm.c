/* LVM through the lvm2 tools: one PV per device, one VG named per run (so
 * that it never clashes with the machine's own), one LV. Every command is
 * given --devices with our PVs only, so that it sees no other device (no
 * reliance on lvm.conf filters or the devices file): a duplicate PV label
 * seen through an md 1.0 member or a second path cannot be picked up. The
 * PV and VG UUIDs are journaled and checked before undo. Undo removes them
 * with -ff -y; what the tools cannot remove is removed through
 * libdevmapper. Its profile section [lvm] (keys, rules, plan) and its
 * capture of pe_start are here too, beside the PV row of the registry. */
#include "stack/layers.h"
#include "stack/plan.h"
#include "stack/capture.h"
#include "util/macro.h"
#include "util/size.h"
#include "util/spawn.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct sb_prog progs[] = {
    {"pvcreate", "lvm2"}, {"pvremove", "lvm2"}, {"vgcreate", "lvm2"}, {"vgremove", "lvm2"},
    {"lvcreate", "lvm2"}, {"lvremove", "lvm2"}, {"pvs", "lvm2"},      {"vgs", "lvm2"},
    {"lvs", "lvm2"},	  {NULL, NULL}};

static const char *preflight(const void *args)
{
	if (access("/dev/mapper/control", F_OK) != 0)
		return "device-mapper: not available (no /dev/mapper/control; try 'modprobe "
		       "dm_mod', or run the profile in the VM runner)";
	return NULL;
}

char *sb_lvm_devices(const struct sb_list *pvs)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	for (size_t i = 0; i < pvs->n; i++)
		fprintf(f, "%s%s", i ? "," : "", pvs->v[i]);
	fclose(f);
	return out;
}

/* tool --devices PVS ARGS...: the argv both plans and runs show. */
static void lvm_argv(struct sb_vec *v, const char *tool, const struct sb_list *pvs)
{
	_cleanup_free_ char *d = sb_lvm_devices(pvs);
	sb_vec_add(v, tool);
	sb_vec_add(v, "--devices");
	sb_vec_add(v, d ? d : "");
}

static int fmt_vec(struct sb_vec *v, char **out)
{
	*out = sb_vec_format(v);
	sb_vec_free(v);
	return *out ? 0 : -ENOMEM;
}

/* Every LVM tool also gets a --config that keeps our devices usable without
 * the devices file, and without udev when no udevd runs (else the tools
 * wait for udev to create nodes it never will). Shown in run.log. */
static int lvm_run(struct sb_exec *x, struct sb_vec *v, int *status, char **out)
{
	struct sb_vec w = {0};
	int r;
	sb_vec_add(&w, v->v[0]);
	sb_vec_add(&w, "--config");
	sb_vec_add(&w, x->udev ? "devices { use_devicesfile = 0 }"
			       : "devices { use_devicesfile = 0 obtain_device_list_from_udev = 0 } "
				 "activation { udev_sync = 0 udev_rules = 0 }");
	for (size_t i = 1; i < v->n; i++)
		sb_vec_add(&w, v->v[i]);
	if (out)
		r = sb_exec_cmd_output(x, (const char *const *)w.v, status, out);
	else if (status)
		r = sb_exec_cmd_quiet(x, (const char *const *)w.v, status);
	else
		r = sb_exec_cmd(x, (const char *const *)w.v);
	sb_vec_free(&w);
	return r;
}

/* "vgs -o vg_uuid VG" through our PVs: the UUID in buf, or -ENOENT. */
static int lvm_uuid(struct sb_exec *x, const char *tool, const char *field,
		    const struct sb_list *pvs, const char *what, char *buf, size_t len)
{
	struct sb_vec v = {0};
	_cleanup_free_ char *out = NULL;
	int st = -1, r;
	lvm_argv(&v, tool, pvs);
	sb_vec_add(&v, "--noheadings");
	sb_vec_add(&v, "-o");
	sb_vec_add(&v, field);
	sb_vec_add(&v, what);
	r = lvm_run(x, &v, &st, &out);
	sb_vec_free(&v);
	if (r < 0)
		return r;
	char *s = out ? out + strspn(out, " \t\n") : NULL;
	if (st != 0 || !s || !*s)
		return -ENOENT;
	s[strcspn(s, " \t\n")] = '\0';
	snprintf(buf, len, "%s", s);
	return 0;
}

static int check_uuid(struct sb_exec *x, json_object *result, const char *tool, const char *field,
		      const struct sb_list *pvs, const char *what)
{
	const char *want = sb_json_str(result, "uuid");
	char cur[128];
	int r;
	if (!want)
		return 0;
	r = lvm_uuid(x, tool, field, pvs, what, cur, sizeof(cur));
	if (r == -ENOENT)
		return SB_GONE;
	if (r < 0)
		return r;
	if (strcmp(cur, want) != 0)
		return sb_exec_fail(x, -ESTALE, "%s: not ours: UUID %s != journaled %s", what, cur,
				    want);
	return 0;
}

/* ---- pvcreate ---- */

#define PA struct sb_pv_args
static const struct sb_field pv_fields[] = {
    SB_FIELD(PA, dev, SB_FT_DEV, SB_FF_REQUIRED | SB_FF_WRITES | SB_FF_IDENT),
};
#undef PA

static struct sb_list one(const char *dev)
{
	static char *v[2];
	v[0] = (char *)dev;
	return (struct sb_list){v, 1};
}

static int pv_describe(const void *args, char **what, char **undo)
{
	const struct sb_pv_args *a = args;
	struct sb_list d = one(a->dev);
	struct sb_vec v = {0}, u = {0};
	lvm_argv(&v, "pvcreate", &d);
	sb_vec_add(&v, "-y");
	sb_vec_add(&v, a->dev);
	lvm_argv(&u, "pvremove", &d);
	sb_vec_add(&u, "-ff");
	sb_vec_add(&u, "-y");
	sb_vec_add(&u, a->dev);
	return fmt_vec(&v, what) ?: fmt_vec(&u, undo);
}

static int pv_run(void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_pv_args *a = args;
	struct sb_list d = one(a->dev);
	struct sb_vec v = {0};
	char uuid[128];
	int r;
	lvm_argv(&v, "pvcreate", &d);
	sb_vec_add(&v, "-y");
	sb_vec_add(&v, a->dev);
	r = lvm_run(x, &v, NULL, NULL);
	sb_vec_free(&v);
	if (r < 0)
		return r;
	if (lvm_uuid(x, "pvs", "pv_uuid", &d, a->dev, uuid, sizeof(uuid)) == 0)
		json_object_object_add(result, "uuid", json_object_new_string(uuid));
	return 0;
}

static int pv_check(const void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_pv_args *a = args;
	struct sb_list d = one(a->dev);
	int r = check_uuid(x, result, "pvs", "pv_uuid", &d, a->dev);
	/* No PV label: the wipe below still clears what may be left. */
	return r == SB_GONE ? 0 : r;
}

static int pv_undo(const void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_pv_args *a = args;
	struct sb_list d = one(a->dev);
	struct stat st;
	int r, status = -1;
	if (strstr(a->dev, "${") || stat(a->dev, &st) < 0)
		return 0;
	struct sb_vec q = {0};
	lvm_argv(&q, "pvs", &d);
	sb_vec_add(&q, "--noheadings");
	sb_vec_add(&q, a->dev);
	r = lvm_run(x, &q, &status, NULL);
	sb_vec_free(&q);
	if (r == 0 && status == 0) {
		struct sb_vec v = {0};
		lvm_argv(&v, "pvremove", &d);
		sb_vec_add(&v, "-ff");
		sb_vec_add(&v, "-y");
		sb_vec_add(&v, a->dev);
		r = lvm_run(x, &v, NULL, NULL);
		sb_vec_free(&v);
		if (r < 0)
			return r;
	}
	/* A label the tools no longer see (or could not run to remove). */
	r = sb_wipe_signatures(a->dev);
	return r < 0 ? sb_exec_fail(x, r, "%s: cannot wipe: %s", a->dev, strerror(-r)) : 0;
}

/* ---- vgcreate ---- */

#define VA struct sb_vg_args
static const struct sb_field vg_fields[] = {
    SB_FIELD(VA, vg, SB_FT_STR, SB_FF_REQUIRED),
    SB_FIELD(VA, pvs, SB_FT_DEVV, SB_FF_REQUIRED | SB_FF_WRITES | SB_FF_IDENT),
};
#undef VA

static void vg_argv(const struct sb_vg_args *a, struct sb_vec *v)
{
	lvm_argv(v, "vgcreate", &a->pvs);
	sb_vec_add(v, "-y");
	sb_vec_add(v, a->vg);
	for (size_t i = 0; i < a->pvs.n; i++)
		sb_vec_add(v, a->pvs.v[i]);
}

static void vgremove_argv(const struct sb_vg_args *a, struct sb_vec *v)
{
	lvm_argv(v, "vgremove", &a->pvs);
	sb_vec_add(v, "-ff");
	sb_vec_add(v, "-y");
	sb_vec_add(v, a->vg);
}

static int vg_describe(const void *args, char **what, char **undo)
{
	struct sb_vec v = {0}, u = {0};
	vg_argv(args, &v);
	vgremove_argv(args, &u);
	return fmt_vec(&v, what) ?: fmt_vec(&u, undo);
}

static int vg_prepare(void *args, struct sb_exec *x)
{
	const struct sb_vg_args *a = args;
	char uuid[128];
	/* Undo removes the VG by name: it must not be someone else's. */
	if (lvm_uuid(x, "vgs", "vg_uuid", &a->pvs, a->vg, uuid, sizeof(uuid)) == 0)
		return sb_exec_fail(x, -EEXIST, "volume group %s exists already", a->vg);
	return 0;
}

static int vg_run(void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_vg_args *a = args;
	struct sb_vec v = {0};
	char uuid[128];
	int r;
	vg_argv(a, &v);
	r = lvm_run(x, &v, NULL, NULL);
	sb_vec_free(&v);
	if (r < 0)
		return r;
	if (lvm_uuid(x, "vgs", "vg_uuid", &a->pvs, a->vg, uuid, sizeof(uuid)) == 0)
		json_object_object_add(result, "uuid", json_object_new_string(uuid));
	return 0;
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

static int vg_check(const void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_vg_args *a = args;
	int r = check_uuid(x, result, "vgs", "vg_uuid", &a->pvs, a->vg);
	/* Gone from the tools' view: leftover dm devices may still need removing. */
	return r == SB_GONE ? 0 : r;
}

static int vg_undo(const void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_vg_args *a = args;
	char prefix[300], uuid[128];
	int r = 0;

	if (strstr(a->vg, "${"))
		return 0;
	if (lvm_uuid(x, "vgs", "vg_uuid", &a->pvs, a->vg, uuid, sizeof(uuid)) == 0) {
		struct sb_vec v = {0};
		vgremove_argv(a, &v);
		r = lvm_run(x, &v, NULL, NULL);
		sb_vec_free(&v);
	}
	dm_prefix(a->vg, prefix, sizeof(prefix));
	int n = sb_dm_remove_prefix(prefix, NULL);
	if (n > 0)
		sb_exec_log(x, "removed %d leftover device-mapper device(s) %s*\n", n, prefix);
	return r;
}

/* ---- lvcreate ---- */

#define LA struct sb_lv_args
static const struct sb_field lv_fields[] = {
    SB_FIELD(LA, vg, SB_FT_STR, SB_FF_REQUIRED),
    SB_FIELD(LA, lv, SB_FT_STR, SB_FF_REQUIRED),
    SB_FIELD(LA, size, SB_FT_U64, 0),
    SB_FIELD(LA, pct, SB_FT_BOOL, 0),
    SB_FIELD(LA, stripes, SB_FT_U64, 0),
    SB_FIELD(LA, var, SB_FT_STR, SB_FF_REQUIRED),
    SB_FIELD(LA, pvs, SB_FT_DEVV, SB_FF_REQUIRED | SB_FF_IDENT),
};
#undef LA

static void lv_argv(const struct sb_lv_args *a, struct sb_vec *v)
{
	lvm_argv(v, "lvcreate", &a->pvs);
	sb_vec_add(v, "-y");
	sb_vec_add(v, "-n");
	sb_vec_add(v, a->lv);
	if (a->pct) {
		sb_vec_add(v, "-l");
		sb_vec_addf(v, "%llu%%%s", (unsigned long long)a->size,
			    a->size == 100 ? "FREE" : "VG");
	} else {
		sb_vec_add(v, "-L");
		sb_vec_addf(v, "%llub", (unsigned long long)a->size);
	}
	if (a->stripes) {
		sb_vec_add(v, "-i");
		sb_vec_addf(v, "%llu", (unsigned long long)a->stripes);
	}
	sb_vec_add(v, a->vg);
}

static void lvremove_argv(const struct sb_lv_args *a, struct sb_vec *v, char *lv, size_t len)
{
	snprintf(lv, len, "%s/%s", a->vg, a->lv);
	lvm_argv(v, "lvremove", &a->pvs);
	sb_vec_add(v, "-ff");
	sb_vec_add(v, "-y");
	sb_vec_add(v, lv);
}

static int lv_describe(const void *args, char **what, char **undo)
{
	const struct sb_lv_args *a = args;
	struct sb_vec v = {0}, u = {0};
	char lv[300];
	char *w = NULL;
	lv_argv(a, &v);
	lvremove_argv(a, &u, lv, sizeof(lv));
	if (fmt_vec(&v, &w) < 0 || asprintf(what, "%s -> /dev/%s", w, lv) < 0) {
		free(w);
		sb_vec_free(&u);
		return -ENOMEM;
	}
	free(w);
	return fmt_vec(&u, undo);
}

static int lv_run(void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_lv_args *a = args;
	struct sb_vec v = {0};
	char path[300], lv[300], uuid[128];
	int r;

	lv_argv(a, &v);
	r = lvm_run(x, &v, NULL, NULL);
	sb_vec_free(&v);
	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "/dev/%s/%s", a->vg, a->lv);
	/* LVM makes the /dev/VG/LV link itself (or udev does): wait for it. */
	for (int i = 0; i < 500 && access(path, F_OK) != 0; i++)
		usleep(20000);
	if (access(path, F_OK) != 0)
		return sb_exec_fail(x, -ETIMEDOUT, "%s did not appear", path);
	json_object_object_add(result, "dev", json_object_new_string(path));
	snprintf(lv, sizeof(lv), "%s/%s", a->vg, a->lv);
	if (lvm_uuid(x, "lvs", "lv_uuid", &a->pvs, lv, uuid, sizeof(uuid)) == 0)
		json_object_object_add(result, "uuid", json_object_new_string(uuid));
	sb_result_var(result, a->var, path);
	return 0;
}

/* The LV's path is known before it exists (with the run id still a name
 * in a dry run), so that plans show /dev/VG/LV rather than ${lv}. */
static void lv_predict(const void *args, struct sb_exec *x)
{
	const struct sb_lv_args *a = args;
	char path[300];
	snprintf(path, sizeof(path), "/dev/%s/%s", a->vg, a->lv);
	sb_exec_set_var(x, a->var, path);
}

static int lv_check(const void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_lv_args *a = args;
	char lv[300];
	snprintf(lv, sizeof(lv), "%s/%s", a->vg, a->lv);
	return check_uuid(x, result, "lvs", "lv_uuid", &a->pvs, lv);
}

static int lv_undo(const void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_lv_args *a = args;
	struct sb_vec v = {0};
	char lv[300], uuid[128];
	int r;
	snprintf(lv, sizeof(lv), "%s/%s", a->vg, a->lv);
	if (strstr(lv, "${") || lvm_uuid(x, "lvs", "lv_uuid", &a->pvs, lv, uuid, sizeof(uuid)) != 0)
		return 0;
	lvremove_argv(a, &v, lv, sizeof(lv));
	r = lvm_run(x, &v, NULL, NULL);
	sb_vec_free(&v);
	return r;
}

/* ---- LVM's profile facts: section, keys, rules, plan, capture ---- */

/* [lvm], typed (filled through the key table's offsetof). */
struct lvm_cfg {
	struct sb_present present; /* the section appears: [lvm] alone builds LVM */
	const char *vg, *lv;
	struct sb_size_pct lv_size;
	uint64_t stripes; /* 0: not given */
	bool enable;
	struct sb_sel pvs; /* without a layer below taking units: what becomes a PV */
};

enum { LVM_VG, LVM_LV, LVM_LV_SIZE, LVM_STRIPES, LVM_ENABLE, LVM_PVS, LVM_KEY_N };

#define C struct lvm_cfg
static const struct sb_key keys[LVM_KEY_N] = {
    [LVM_VG] = SB_KEY(C, vg, "vg", SB_KT_NAME, NULL, 0, 0, "sbvg", 0,
		      "volume group name (the run id is appended, so that it cannot clash)"),
    [LVM_LV] = SB_KEY(C, lv, "lv", SB_KT_NAME, NULL, 0, 0, "sblv", 0, "logical volume name"),
    [LVM_LV_SIZE] = SB_KEY(C, lv_size, "lv-size", SB_KT_SIZEPCT, NULL, 0, 0, "100%", 0,
			   "size of the LV: '20G' or a percentage of the VG"),
    [LVM_STRIPES] = SB_KEY(C, stripes, "stripes", SB_KT_UINT, NULL, 1, 64, NULL, 0,
			   "stripe the LV over this many PVs"),
    [LVM_ENABLE] = SB_KEY(C, enable, "enable", SB_KT_BOOL, NULL, 0, 0, "yes", 0,
			  "build the LVM layer ('no' leaves it out, e.g. as the baseline of a "
			  "matrix)"),
    [LVM_PVS] = SB_KEY(C, pvs, "pvs", SB_KT_MEMBERS, NULL, 0, 0, "all", 0,
		       "what becomes a PV when there is no md below: roles or partitions "
		       "('any', 'ssd.p2'); the others are left untouched"),
};
#undef C

static bool lvm_on(const struct lvm_cfg *l)
{
	return l->present.section && l->enable;
}

/* A volume group is no array to lose a member from (no mirror or RAID
 * LVs here). */
static int lvm_redundancy(const void *cfg, struct sb_redundancy *out)
{
	if (!lvm_on(cfg))
		return -1;
	*out = (struct sb_redundancy){
	    .why = "LVM without md has no redundancy to lose a member from", .kind = "lvm"};
	return 0;
}

/* PVs from the devices when no layer below took them (lvm.pvs), at most one
 * stripe per PV; the LV is one unit above. */
static int lvm_validate(struct sb_vctx *v, const void *cfg, struct sb_vstate *st)
{
	const struct lvm_cfg *l = cfg;
	int base = sb_keytab_base(&sb_keytab_lvm), r;

	if (!lvm_on(l))
		return 0;
	if (st->taker < 0 && (r = sb_vselect(v, base + LVM_PVS, st)) < 0)
		return r;
	if (l->stripes > st->units)
		return sb_verr(v, base + LVM_STRIPES, "lvm.stripes: %llu stripes but only %u PVs",
			       (unsigned long long)l->stripes, st->units);
	st->units = 1;
	return 0;
}

const struct sb_keytab sb_keytab_lvm = {
    .section = "lvm",
    .keys = keys,
    .n = LVM_KEY_N,
    .cfg_size = sizeof(struct lvm_cfg),
    .present = SB_PRESENT(struct lvm_cfg, present),
    .validate = lvm_validate,
};

bool sb_lvm_on(const struct sb_config *c)
{
	struct lvm_cfg l = {0};
	sb_keytab_fill(&sb_keytab_lvm, c, &l);
	return lvm_on(&l);
}

static const struct sb_sel *lvm_takes(const void *cfg)
{
	const struct lvm_cfg *l = cfg;
	return lvm_on(l) ? &l->pvs : NULL;
}

/* Every unit a PV, one VG (named per run), one LV; every command is told
 * the PVs, so that it sees no other device. */
static int lvm_plan(const void *cfg, struct sb_pctx *b)
{
	const struct lvm_cfg *l = cfg;
	char *vgname;

	if (!lvm_on(l))
		return 0;
	if (!b->taken && !l->pvs.all) {
		size_t k = 0;
		for (size_t i = 0; i < b->n_u; i++)
			if (sb_sel_match(&l->pvs, b->u[i].role, b->u[i].part))
				b->u[k++] = b->u[i];
		b->n_u = k;
	}
	vgname = sb_plan_fmt("%s_${id}", l->vg);
	for (size_t i = 0; i < b->n_u; i++) {
		struct sb_pv_args *a = sb_plan_add_step(b, SB_STEP_PV);
		a->dev = sb_plan_fmt("${%s}", b->u[i].var);
	}
	struct sb_vg_args *vg = sb_plan_add_step(b, SB_STEP_VG);
	vg->vg = sb_plan_fmt("%s", vgname);
	for (size_t i = 0; i < b->n_u; i++)
		sb_plan_addv(&vg->pvs, b->u[i].var);
	struct sb_lv_args *lv = sb_plan_add_step(b, SB_STEP_LV);
	lv->vg = vgname;
	lv->lv = sb_plan_fmt("%s", l->lv);
	lv->size = l->lv_size.v;
	lv->pct = l->lv_size.pct;
	lv->stripes = l->stripes;
	lv->var = sb_plan_fmt("lv");
	for (size_t i = 0; i < b->n_u; i++)
		sb_plan_addv(&lv->pvs, b->u[i].var);
	b->n_u = 0;
	sb_plan_add_unit(b, SB_ROLE_ANY, 0, "lv");
	return 0;
}

/* Where each PV's first extent starts (pe_start), which decides the data's
 * alignment to a RAID stripe below: {"pe_start": {"sdb": N}}. Every PV is a
 * device right below an LV; pvs is told that one device only, so that it
 * scans nothing else. */
static void lvm_capture(json_object *into, const struct sb_devstack *st, size_t i, int log_fd)
{
	char p[PATH_MAX], uuid[256];
	json_object *all;

	snprintf(p, sizeof(p), "%s/class/block/%s/dm/uuid", st->sysroot, st->dev[i].name);
	if (sb_sys_read(p, uuid, sizeof(uuid)) < 0 || strncmp(uuid, "LVM-", 4) != 0)
		return;
	if (!json_object_object_get_ex(into, "pe_start", &all)) {
		all = json_object_new_object();
		json_object_object_add(into, "pe_start", all);
	}
	for (size_t k = 0; k < st->n; k++) {
		char dev[80];
		if (st->dev[k].parent != (int)i)
			continue;
		snprintf(dev, sizeof(dev), "/dev/%s", st->dev[k].name);
		const char *argv[] = {"pvs",
				      "--config",
				      "devices { use_devicesfile = 0 }",
				      "--devices",
				      dev,
				      "--noheadings",
				      "--nosuffix",
				      "--units",
				      "b",
				      "-o",
				      "pv_name,pe_start",
				      dev,
				      NULL};
		char *out = sb_capture_run(argv, log_fd);
		json_object *o = sb_capture_parse_pvs(out);
		free(out);
		/* pvs saw this one device only, under whatever name it prints */
		json_object_object_foreach(o, key, v)
		{
			(void)key;
			json_object_object_add(all, st->dev[k].name, json_object_get(v));
			break;
		}
		json_object_put(o);
	}
}

/* Its rows: each PV's pe_start as "lvmN.pe_start", N the PV's place. */
static void lvm_rows(json_object *rows, const struct sb_capture *c, json_object *captured)
{
	json_object *all;
	size_t n = 0;

	if (!captured || !json_object_object_get_ex(captured, "pe_start", &all) ||
	    !json_object_is_type(all, json_type_object))
		return;
	json_object_object_foreach(all, pv, v)
	{
		char key[64];
		(void)pv;
		snprintf(key, sizeof(key), "%s%zu.pe_start", c->key, n++);
		sb_capture_row(rows, key, v);
	}
}

const struct sb_layer sb_layer_pv = {
    .kind = "pvcreate",
    .args_size = sizeof(struct sb_pv_args),
    .fields = pv_fields,
    .n_fields = ARRAY_SIZE(pv_fields),
    .progs = progs,
    .preflight = preflight,
    .describe = pv_describe,
    .run = pv_run,
    .check = pv_check,
    .undo = pv_undo,
    .keytab = &sb_keytab_lvm,
    .takes = lvm_takes,
    .redundancy = lvm_redundancy,
    .plan = lvm_plan,
    .capture = &(const struct sb_capture){
	.key = "lvm", .type = "dm", .fn = lvm_capture, .rows = lvm_rows}};
const struct sb_layer sb_layer_vg = {.kind = "vgcreate",
				     .args_size = sizeof(struct sb_vg_args),
				     .fields = vg_fields,
				     .n_fields = ARRAY_SIZE(vg_fields),
				     .progs = progs,
				     .preflight = preflight,
				     .prepare = vg_prepare,
				     .describe = vg_describe,
				     .run = vg_run,
				     .check = vg_check,
				     .undo = vg_undo};
const struct sb_layer sb_layer_lv = {.kind = "lvcreate",
				     .args_size = sizeof(struct sb_lv_args),
				     .fields = lv_fields,
				     .n_fields = ARRAY_SIZE(lv_fields),
				     .progs = progs,
				     .preflight = preflight,
				     .predict = lv_predict,
				     .describe = lv_describe,
				     .run = lv_run,
				     .check = lv_check,
				     .undo = lv_undo,
				     .flags = SB_LF_CREATES_DEV};

/* For the layers that extend this VG (lvmcache.c): the same --devices
 * restriction and --config, and the one-field query. */
void sb_lvm_argv(struct sb_vec *v, const char *tool, const struct sb_list *pvs)
{
	lvm_argv(v, tool, pvs);
}

int sb_lvm_run(struct sb_exec *x, struct sb_vec *v, int *status, char **out)
{
	return lvm_run(x, v, status, out);
}

int sb_lvm_field(struct sb_exec *x, const char *tool, const char *field, const struct sb_list *pvs,
		 const char *what, char *buf, size_t len)
{
	return lvm_uuid(x, tool, field, pvs, what, buf, len);
}
