/* An SSD cache under the LV of [lvm], through LVM: dm-cache (lvmcache,
 * `type = cache`) or dm-writecache (`type = writecache`). The cache
 * device (one role's one device, taken whole and kept out of the units
 * of md and LVM below, as fs.log's) becomes a PV, joins the [lvm] VG, and
 * gets one linear LV on it alone, which `lvconvert --type cache|writecache
 * --cachevol` attaches to the LV. The LV keeps its path: mkfs and mount
 * above see /dev/VG/LV, now cached.
 *
 * Both types use a cachevol, not a cache pool: one LV on the SSD that LVM
 * splits into metadata and data itself, so one code path for both types,
 * and no pool metadata spare (_pmspare), which `lvcreate --type
 * cache-pool` would put anywhere in the VG, the HDD PVs included.
 *
 * Steps (each journaled, identity-checked, undone in reverse): pvcreate
 * (lvm.c's own step), vgextend, lvcreate of the cachevol on the cache PV
 * only, lvconvert. Undo: `lvconvert --splitcache` (which flushes a
 * writeback cache first; the executor's time limit applies), lvremove of
 * the cachevol, vgreduce, pvremove; each finds out what is still there,
 * so a kill between any two steps leaves a journal teardown completes.
 * Every LVM command gets --devices with the VG's PVs and the cache PV. */
#include "stack/capture.h"
#include "stack/counters.h"
#include "stack/dmstatus.h"
#include "stack/layers.h"
#include "stack/plan.h"
#include "util/macro.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define CACHE_LV "sbcache"

static const struct sb_prog progs[] = {
    {"pvs", "lvm2"},	  {"lvs", "lvm2"},	{"vgextend", "lvm2"},  {"vgreduce", "lvm2"},
    {"lvcreate", "lvm2"}, {"lvremove", "lvm2"}, {"lvconvert", "lvm2"}, {NULL, NULL}};
/* dm-cache's metadata is checked by LVM with cache_check at activation. */
static const struct sb_prog progs_cache[] = {
    {"pvs", "lvm2"},	   {"lvs", "lvm2"},
    {"vgextend", "lvm2"},  {"vgreduce", "lvm2"},
    {"lvcreate", "lvm2"},  {"lvremove", "lvm2"},
    {"lvconvert", "lvm2"}, {"cache_check", "thin-provisioning-tools"},
    {NULL, NULL}};

/* Is kernel module mod loaded, built in, or installed for this kernel? */
static bool have_module(const char *mod)
{
	char p[PATH_MAX], ko[64], line[512];
	struct utsname u;
	bool found = false;

	snprintf(p, sizeof(p), "/sys/module/%s", mod);
	if (access(p, F_OK) == 0)
		return true;
	if (uname(&u) < 0)
		return false;
	snprintf(ko, sizeof(ko), "/%s.ko", mod);
	for (char *c = ko; *c; c++)
		if (*c == '_')
			*c = '-';
	static const char *const lists[] = {"modules.builtin", "modules.dep"};
	for (size_t i = 0; i < ARRAY_SIZE(lists) && !found; i++) {
		snprintf(p, sizeof(p), "/lib/modules/%s/%s", u.release, lists[i]);
		FILE *f = fopen(p, "r");
		while (f && !found && fgets(line, sizeof(line), f))
			found = strstr(line, ko) != NULL;
		if (f)
			fclose(f);
	}
	return found;
}

static const char *preflight_type(const char *type)
{
	bool wc = type && strcmp(type, "writecache") == 0;
	if (access("/dev/mapper/control", F_OK) != 0)
		return wc ? "dm-writecache target not available (no device-mapper here: no "
			    "/dev/mapper/control): run it in the VM (contrib/vm/run)"
			  : "dm-cache target not available (no device-mapper here: no "
			    "/dev/mapper/control): run it in the VM (contrib/vm/run)";
	if (!have_module(wc ? "dm_writecache" : "dm_cache"))
		return wc ? "dm-writecache target not available: this kernel has no dm_writecache "
			    "module (CONFIG_DM_WRITECACHE); run it in the VM (contrib/vm/run)"
			  : "dm-cache target not available: this kernel has no dm_cache module "
			    "(CONFIG_DM_CACHE); run it in the VM (contrib/vm/run)";
	return NULL;
}

static int fmt_vec(struct sb_vec *v, char **out)
{
	*out = sb_vec_format(v);
	sb_vec_free(v);
	return *out ? 0 : -ENOMEM;
}

static int lvm_do(struct sb_exec *x, struct sb_vec *v)
{
	int r = sb_lvm_run(x, v, NULL, NULL);
	sb_vec_free(v);
	return r;
}

/* ---- vgextend: the cache PV joins the [lvm] VG ---- */

struct lvc_vgx_args {
	char *vg;
	char *dev;	    /* the cache PV */
	struct sb_list pvs; /* the VG's PVs and the cache PV: what every command sees */
};

#define XA struct lvc_vgx_args
static const struct sb_field vgx_fields[] = {
    SB_FIELD(XA, vg, SB_FT_STR, SB_FF_REQUIRED),
    SB_FIELD(XA, dev, SB_FT_DEV, SB_FF_REQUIRED | SB_FF_WRITES | SB_FF_IDENT),
    SB_FIELD(XA, pvs, SB_FT_DEVV, SB_FF_REQUIRED | SB_FF_IDENT),
};
#undef XA

static void vgx_argv(const struct lvc_vgx_args *a, struct sb_vec *v, bool undo)
{
	sb_lvm_argv(v, undo ? "vgreduce" : "vgextend", &a->pvs);
	sb_vec_add(v, a->vg);
	sb_vec_add(v, a->dev);
}

static int vgx_describe(const void *args, char **what, char **undo)
{
	struct sb_vec v = {0}, u = {0};
	vgx_argv(args, &v, false);
	vgx_argv(args, &u, true);
	return fmt_vec(&v, what) ?: fmt_vec(&u, undo);
}

static int vgx_run(void *args, json_object *result, struct sb_exec *x)
{
	const struct lvc_vgx_args *a = args;
	struct sb_vec v = {0};
	char uuid[128];
	int r;
	vgx_argv(a, &v, false);
	if ((r = lvm_do(x, &v)) < 0)
		return r;
	if (sb_lvm_field(x, "pvs", "pv_uuid", &a->pvs, a->dev, uuid, sizeof(uuid)) == 0)
		json_object_object_add(result, "uuid", json_object_new_string(uuid));
	return 0;
}

/* In our VG (0), in no VG or no PV at all (SB_GONE), or another's (-ESTALE). */
static int vgx_check(const void *args, json_object *result, struct sb_exec *x)
{
	const struct lvc_vgx_args *a = args;
	const char *want = sb_json_str(result, "uuid");
	char vg[256], uuid[128];
	int r;
	if (strstr(a->dev, "${"))
		return SB_GONE;
	r = sb_lvm_field(x, "pvs", "vg_name", &a->pvs, a->dev, vg, sizeof(vg));
	if (r == -ENOENT)
		return SB_GONE;
	if (r < 0)
		return r;
	if (strcmp(vg, a->vg) != 0)
		return sb_exec_fail(x, -ESTALE, "%s: in volume group %s, not %s", a->dev, vg,
				    a->vg);
	if (want && sb_lvm_field(x, "pvs", "pv_uuid", &a->pvs, a->dev, uuid, sizeof(uuid)) == 0 &&
	    strcmp(uuid, want) != 0)
		return sb_exec_fail(x, -ESTALE, "%s: not ours: PV UUID %s != journaled %s", a->dev,
				    uuid, want);
	return 0;
}

static int vgx_undo(const void *args, json_object *result, struct sb_exec *x)
{
	const struct lvc_vgx_args *a = args;
	struct sb_vec v = {0};
	char vg[256];
	if (strstr(a->dev, "${") ||
	    sb_lvm_field(x, "pvs", "vg_name", &a->pvs, a->dev, vg, sizeof(vg)) != 0 ||
	    strcmp(vg, a->vg) != 0)
		return SB_GONE;
	vgx_argv(a, &v, true);
	return lvm_do(x, &v);
}

/* ---- lvcreate: the cachevol, on the cache PV only ---- */

struct lvc_lv_args {
	char *vg, *lv;
	uint64_t size; /* bytes, or a percentage of the cache PV when pct */
	bool pct;
	char *dev;	    /* the cache PV: the LV's only PV */
	struct sb_list pvs; /* every PV of the VG */
};

#define LA struct lvc_lv_args
static const struct sb_field lv_fields[] = {
    SB_FIELD(LA, vg, SB_FT_STR, SB_FF_REQUIRED),
    SB_FIELD(LA, lv, SB_FT_STR, SB_FF_REQUIRED),
    SB_FIELD(LA, size, SB_FT_U64, 0),
    SB_FIELD(LA, pct, SB_FT_BOOL, 0),
    SB_FIELD(LA, dev, SB_FT_DEV, SB_FF_REQUIRED | SB_FF_IDENT),
    SB_FIELD(LA, pvs, SB_FT_DEVV, SB_FF_REQUIRED | SB_FF_IDENT),
};
#undef LA

static void clv_argv(const struct lvc_lv_args *a, struct sb_vec *v)
{
	sb_lvm_argv(v, "lvcreate", &a->pvs);
	sb_vec_add(v, "-y");
	/* inactive: lvconvert --type writecache attaches only an inactive
	 * cachevol (and wipes it itself) */
	sb_vec_add(v, "-an");
	sb_vec_add(v, "-Zn");
	sb_vec_add(v, "-n");
	sb_vec_add(v, a->lv);
	if (a->pct) {
		sb_vec_add(v, "-l");
		sb_vec_addf(v, "%llu%%PVS", (unsigned long long)a->size);
	} else {
		sb_vec_add(v, "-L");
		sb_vec_addf(v, "%llub", (unsigned long long)a->size);
	}
	sb_vec_add(v, a->vg);
	sb_vec_add(v, a->dev);
}

static void clv_remove_argv(const struct lvc_lv_args *a, struct sb_vec *v)
{
	sb_lvm_argv(v, "lvremove", &a->pvs);
	sb_vec_add(v, "-ff");
	sb_vec_add(v, "-y");
	sb_vec_addf(v, "%s/%s", a->vg, a->lv);
}

static int clv_describe(const void *args, char **what, char **undo)
{
	struct sb_vec v = {0}, u = {0};
	clv_argv(args, &v);
	clv_remove_argv(args, &u);
	return fmt_vec(&v, what) ?: fmt_vec(&u, undo);
}

static int clv_run(void *args, json_object *result, struct sb_exec *x)
{
	const struct lvc_lv_args *a = args;
	struct sb_vec v = {0};
	char lv[300], uuid[128];
	int r;
	clv_argv(a, &v);
	if ((r = lvm_do(x, &v)) < 0)
		return r;
	snprintf(lv, sizeof(lv), "%s/%s", a->vg, a->lv);
	if (sb_lvm_field(x, "lvs", "lv_uuid", &a->pvs, lv, uuid, sizeof(uuid)) == 0)
		json_object_object_add(result, "uuid", json_object_new_string(uuid));
	return 0;
}

static int clv_check(const void *args, json_object *result, struct sb_exec *x)
{
	const struct lvc_lv_args *a = args;
	const char *want = sb_json_str(result, "uuid");
	char lv[300], uuid[128];
	int r;
	snprintf(lv, sizeof(lv), "%s/%s", a->vg, a->lv);
	if (strstr(lv, "${"))
		return SB_GONE;
	r = sb_lvm_field(x, "lvs", "lv_uuid", &a->pvs, lv, uuid, sizeof(uuid));
	if (r == -ENOENT)
		return SB_GONE;
	if (r < 0)
		return r;
	if (want && strcmp(uuid, want) != 0)
		return sb_exec_fail(x, -ESTALE, "%s: not ours: UUID %s != journaled %s", lv, uuid,
				    want);
	return 0;
}

static int clv_undo(const void *args, json_object *result, struct sb_exec *x)
{
	const struct lvc_lv_args *a = args;
	struct sb_vec v = {0};
	char lv[300], uuid[128];
	snprintf(lv, sizeof(lv), "%s/%s", a->vg, a->lv);
	if (strstr(lv, "${") || sb_lvm_field(x, "lvs", "lv_uuid", &a->pvs, lv, uuid, sizeof(uuid)))
		return SB_GONE;
	clv_remove_argv(a, &v);
	return lvm_do(x, &v);
}

/* ---- lvconvert: the cachevol attached to the LV ---- */

struct lvc_conv_args {
	char *vg, *lv, *cache;
	char *type;	     /* cache | writecache */
	char *mode, *policy; /* cache only; NULL: LVM's defaults */
	uint64_t chunk;	     /* bytes, cache only; 0: LVM's choice */
	uint64_t block_size; /* bytes, writecache only; 0: LVM's (4096) */
	struct sb_list pvs;
};

#define CA struct lvc_conv_args
static const struct sb_field conv_fields[] = {
    SB_FIELD(CA, vg, SB_FT_STR, SB_FF_REQUIRED),
    SB_FIELD(CA, lv, SB_FT_STR, SB_FF_REQUIRED),
    SB_FIELD(CA, cache, SB_FT_STR, SB_FF_REQUIRED),
    SB_FIELD(CA, type, SB_FT_STR, SB_FF_REQUIRED),
    SB_FIELD(CA, mode, SB_FT_STR, SB_FF_OPTIONAL),
    SB_FIELD(CA, policy, SB_FT_STR, SB_FF_OPTIONAL),
    SB_FIELD(CA, chunk, SB_FT_U64, 0),
    SB_FIELD(CA, block_size, SB_FT_U64, 0),
    SB_FIELD(CA, pvs, SB_FT_DEVV, SB_FF_REQUIRED | SB_FF_IDENT),
};
#undef CA

static void conv_argv(const struct lvc_conv_args *a, struct sb_vec *v)
{
	sb_lvm_argv(v, "lvconvert", &a->pvs);
	sb_vec_add(v, "-y");
	sb_vec_add(v, "--type");
	sb_vec_add(v, a->type);
	sb_vec_add(v, "--cachevol");
	sb_vec_add(v, a->cache);
	if (a->mode) {
		sb_vec_add(v, "--cachemode");
		sb_vec_add(v, a->mode);
	}
	if (a->policy) {
		sb_vec_add(v, "--cachepolicy");
		sb_vec_add(v, a->policy);
	}
	if (a->chunk) {
		sb_vec_add(v, "--chunksize");
		sb_vec_addf(v, "%lluk", (unsigned long long)(a->chunk >> 10));
	}
	if (a->block_size) {
		sb_vec_add(v, "--cachesettings");
		sb_vec_addf(v, "block_size=%llu", (unsigned long long)a->block_size);
	}
	sb_vec_addf(v, "%s/%s", a->vg, a->lv);
}

static void split_argv(const struct lvc_conv_args *a, struct sb_vec *v)
{
	sb_lvm_argv(v, "lvconvert", &a->pvs);
	sb_vec_add(v, "-y");
	sb_vec_add(v, "--splitcache");
	sb_vec_addf(v, "%s/%s", a->vg, a->lv);
}

static int conv_describe(const void *args, char **what, char **undo)
{
	struct sb_vec v = {0}, u = {0};
	conv_argv(args, &v);
	split_argv(args, &u);
	return fmt_vec(&v, what) ?: fmt_vec(&u, undo);
}

/* The LV's segment type now ("cache", "writecache", "linear"). */
static int lv_segtype(const struct lvc_conv_args *a, struct sb_exec *x, char *buf, size_t len)
{
	char lv[300];
	snprintf(lv, sizeof(lv), "%s/%s", a->vg, a->lv);
	return sb_lvm_field(x, "lvs", "segtype", &a->pvs, lv, buf, len);
}

static int conv_run(void *args, json_object *result, struct sb_exec *x)
{
	const struct lvc_conv_args *a = args;
	struct sb_vec v = {0};
	char seg[64], lv[300], uuid[128];
	int r;
	conv_argv(a, &v);
	if ((r = lvm_do(x, &v)) < 0)
		return r;
	if ((r = lv_segtype(a, x, seg, sizeof(seg))) < 0 || strcmp(seg, a->type) != 0)
		return sb_exec_fail(x, -EIO, "%s/%s: lvconvert ran but the LV is %s, not %s", a->vg,
				    a->lv, r < 0 ? "gone" : seg, a->type);
	snprintf(lv, sizeof(lv), "%s/%s", a->vg, a->lv);
	if (sb_lvm_field(x, "lvs", "lv_uuid", &a->pvs, lv, uuid, sizeof(uuid)) == 0)
		json_object_object_add(result, "uuid", json_object_new_string(uuid));
	return 0;
}

static bool cached(const char *seg)
{
	return strcmp(seg, "cache") == 0 || strcmp(seg, "writecache") == 0;
}

static int conv_check(const void *args, json_object *result, struct sb_exec *x)
{
	const struct lvc_conv_args *a = args;
	const char *want = sb_json_str(result, "uuid");
	char seg[64], lv[300], uuid[128];
	int r;
	if (strstr(a->vg, "${"))
		return SB_GONE;
	r = lv_segtype(a, x, seg, sizeof(seg));
	if (r == -ENOENT || (r == 0 && !cached(seg)))
		return SB_GONE;
	if (r < 0)
		return r;
	snprintf(lv, sizeof(lv), "%s/%s", a->vg, a->lv);
	if (want && sb_lvm_field(x, "lvs", "lv_uuid", &a->pvs, lv, uuid, sizeof(uuid)) == 0 &&
	    strcmp(uuid, want) != 0)
		return sb_exec_fail(x, -ESTALE, "%s: not ours: UUID %s != journaled %s", lv, uuid,
				    want);
	return 0;
}

/* --splitcache flushes a writeback cache before it detaches it, and leaves
 * the cachevol for the lvcreate step's undo. */
static int conv_undo(const void *args, json_object *result, struct sb_exec *x)
{
	const struct lvc_conv_args *a = args;
	struct sb_vec v = {0};
	char seg[64];
	if (strstr(a->vg, "${") || lv_segtype(a, x, seg, sizeof(seg)) != 0 || !cached(seg))
		return SB_GONE;
	split_argv(a, &v);
	return lvm_do(x, &v);
}

static const struct sb_prog *conv_programs(const void *args)
{
	const struct lvc_conv_args *a = args;
	return strcmp(a->type, "cache") == 0 ? progs_cache : progs;
}

static const char *conv_preflight(const void *args)
{
	return preflight_type(((const struct lvc_conv_args *)args)->type);
}

/* ---- [lvmcache]: keys, rules, plan ---- */

struct lvc_cfg {
	struct sb_present present; /* the section appears: [lvmcache] alone builds the cache */
	bool enable;
	const char *type;
	int device; /* role */
	const char *mode, *policy;
	uint64_t chunk;
	struct sb_size_pct size;
	const char *block_size;
};

enum { LVC_ENABLE, LVC_TYPE, LVC_DEVICE, LVC_MODE, LVC_POLICY, LVC_CHUNK, LVC_SIZE, LVC_BS, LVC_N };

#define C struct lvc_cfg
static const struct sb_key keys[LVC_N] = {
    [LVC_ENABLE] = SB_KEY(C, enable, "enable", SB_KT_BOOL, NULL, 0, 0, "yes", 0,
			  "build the cache ('no' leaves it out, e.g. as the baseline of a matrix)"),
    [LVC_TYPE] = SB_KEY(C, type, "type", SB_KT_CHOICE, "cache|writecache", 0, 0, "cache", 0,
			"dm-cache (lvmcache: hot blocks promoted, reads and writes) or "
			"dm-writecache (writes only)"),
    [LVC_DEVICE] = SB_KEY(C, device, "device", SB_KT_ROLE, NULL, 0, 0, "ssd", 0,
			  "the role whose one device is the cache, taken whole; md and LVM "
			  "below must not use it"),
    [LVC_MODE] = SB_KEY(C, mode, "mode", SB_KT_CHOICE, "writethrough|writeback", 0, 0, NULL, 0,
			"cache: --cachemode (LVM's default: writethrough); writecache: "
			"writeback only"),
    [LVC_POLICY] = SB_KEY(C, policy, "policy", SB_KT_CHOICE, "smq", 0, 0, NULL, 0,
			  "cache: --cachepolicy (LVM's default: smq)"),
    [LVC_CHUNK] = SB_KEY(C, chunk, "chunk", SB_KT_SIZE, NULL, 0, 0, NULL, 0,
			 "cache: --chunksize, 32k..1g in steps of 32k (LVM's choice when unset)"),
    [LVC_SIZE] = SB_KEY(C, size, "size", SB_KT_SIZEPCT, NULL, 0, 0, "100%", 0,
			"the cachevol: '8G' or a percentage of the cache device (what LVM's "
			"metadata leaves)"),
    [LVC_BS] = SB_KEY(C, block_size, "block-size", SB_KT_CHOICE, "512|4096", 0, 0, NULL, 0,
		      "writecache: block_size (LVM's default: 4096)"),
};
#undef C

static bool lvc_on(const struct lvc_cfg *l)
{
	return l->present.section && l->enable;
}

static bool is_wc(const struct lvc_cfg *l)
{
	return l->type && strcmp(l->type, "writecache") == 0;
}

/* The keys against the type: each refused where it has no meaning. */
static int lvc_check_type(struct sb_vctx *v, const struct lvc_cfg *l, int base)
{
	const struct sb_config *c = sb_vctx_config(v);
	if (is_wc(l)) {
		if (l->mode && strcmp(l->mode, "writethrough") == 0)
			return sb_verr(v, base + LVC_MODE,
				       "lvmcache.mode: dm-writecache has no writethrough mode (it "
				       "keeps writes on the SSD and copies them to the LV later): "
				       "use type = cache for a write-through cache");
		if (c->val[base + LVC_POLICY])
			return sb_verr(v, base + LVC_POLICY,
				       "lvmcache.policy: dm-writecache has no policy (type = cache "
				       "has)");
		if (c->val[base + LVC_CHUNK])
			return sb_verr(v, base + LVC_CHUNK,
				       "lvmcache.chunk: dm-writecache has blocks, not chunks: use "
				       "block-size");
		return 0;
	}
	if (c->val[base + LVC_BS])
		return sb_verr(v, base + LVC_BS,
			       "lvmcache.block-size: only dm-writecache has a block size (dm-cache "
			       "has chunk)");
	if (c->val[base + LVC_CHUNK] &&
	    (l->chunk < (32u << 10) || l->chunk > (1u << 30) || l->chunk % (32u << 10)))
		return sb_verr(v, base + LVC_CHUNK,
			       "lvmcache.chunk: %s: LVM takes 32k..1g in multiples of 32k",
			       c->val[base + LVC_CHUNK]);
	return 0;
}

/* What the cache needs below: [lvm] on, the size sane, nothing else set
 * aside (fs.log: one device aside per variant). */
static int lvc_check_below(struct sb_vctx *v, const struct lvc_cfg *l, int base)
{
	const struct sb_config *c = sb_vctx_config(v);

	if (!sb_lvm_on(c))
		return sb_verr(v, -1,
			       "[lvmcache]: the cache goes under the LV of [lvm], which is off in "
			       "this variant: add [lvm] (pvs = the data devices), or "
			       "lvmcache.enable = no");
	if (sb_fs_log_role(c) >= 0)
		return sb_verr(v, sb_fs_key(SB_FS_KEY_LOG),
			       "fs.log: the cache already takes a device of its own "
			       "(lvmcache.device); a variant sets one device aside, not two");
	if (l->size.pct && (l->size.v == 0 || l->size.v > 100))
		return sb_verr(v, base + LVC_SIZE, "lvmcache.size: %llu%%: want 1%%..100%%",
			       (unsigned long long)l->size.v);
	if (!l->size.pct && l->size.v < (8u << 20))
		return sb_verr(v, base + LVC_SIZE,
			       "lvmcache.size: %s: a cachevol needs at least 8M",
			       sb_cfg_str(c, base + LVC_SIZE));
	return 0;
}

/* The cache device: one device of its role, whole, and not in the data
 * stack (the selector that took the data devices: md.members or lvm.pvs). */
static int lvc_check_device(struct sb_vctx *v, const struct lvc_cfg *l, const struct sb_vstate *st,
			    int base)
{
	const struct sb_config *c = sb_vctx_config(v);
	int k = base + LVC_DEVICE, sk = st->taker;
	const char *name = l->device >= 0 ? sb_role_names[l->device] : "none";
	struct sb_sel s;
	char *why = NULL;
	bool taken;

	if (l->device < 0 || sb_cfg_role_count(c, (enum sb_role)l->device) == 0)
		return sb_verr(v, k, "lvmcache.device: no %s device in [devices]", name);
	if (sb_cfg_role_count(c, (enum sb_role)l->device) > 1)
		return sb_verr(v, k,
			       "lvmcache.device: the cache takes exactly one device, [devices] "
			       "has %u %s devices: give the cache a role of its own",
			       sb_cfg_role_count(c, (enum sb_role)l->device), name);
	if (st->parted & (1u << l->device))
		return sb_verr(v, k,
			       "lvmcache.device: the %s device is partitioned but the cache "
			       "takes a whole device: leave %s out of partition.on",
			       name, name);
	if (sk < 0 || sb_sel_parse(sb_cfg_str(c, sk), &s, &why) < 0) {
		free(why);
		return 0; /* said by that layer's own check */
	}
	taken = s.all;
	for (size_t i = 0; i < s.n; i++)
		taken |= s.item[i].role == (enum sb_role)l->device;
	if (taken)
		return sb_verr(v, k,
			       "lvmcache.device: the %s device would also be in the data stack "
			       "(%s.%s = %s): the cache device must be the cache's alone; name the "
			       "data devices in %s.%s",
			       name, sb_sec_names[sb_keys[sk].sec], sb_keys[sk].name,
			       sb_cfg_str(c, sk), sb_sec_names[sb_keys[sk].sec], sb_keys[sk].name);
	return 0;
}

static int lvc_validate(struct sb_vctx *v, const void *cfg, struct sb_vstate *st)
{
	const struct lvc_cfg *l = cfg;
	int base = sb_keytab_base(&sb_keytab_lvmcache), r;

	if (!lvc_on(l))
		return 0;
	if ((r = lvc_check_below(v, l, base)) < 0 || (r = lvc_check_device(v, l, st, base)) < 0)
		return r;
	return lvc_check_type(v, l, base);
}

const struct sb_keytab sb_keytab_lvmcache = {
    .section = "lvmcache",
    .keys = keys,
    .n = LVC_N,
    .cfg_size = sizeof(struct lvc_cfg),
    .present = SB_PRESENT(struct lvc_cfg, present),
    .validate = lvc_validate,
};

static int lvc_aside(const void *cfg)
{
	const struct lvc_cfg *l = cfg;
	return lvc_on(l) ? l->device : -1;
}

/* The [lvm] LV this cache goes under: the plan's last lvcreate. */
static const struct sb_lv_args *lvm_lv(const struct sb_pctx *b)
{
	for (size_t i = b->p->n; i-- > 0;)
		if (b->p->steps[i].kind == SB_STEP_LV)
			return b->p->steps[i].args;
	return NULL;
}

static void lvc_plan_convert(const struct lvc_cfg *l, struct sb_pctx *b,
			     const struct sb_lv_args *lv, const struct sb_list *all)
{
	struct lvc_conv_args *cv = sb_plan_add_step(b, SB_STEP_LVC_CONVERT);
	cv->vg = sb_plan_fmt("%s", lv->vg);
	cv->lv = sb_plan_fmt("%s", lv->lv);
	cv->cache = sb_plan_fmt("%s", CACHE_LV);
	cv->type = sb_plan_fmt("%s", l->type);
	if (!is_wc(l) && l->mode)
		cv->mode = sb_plan_fmt("%s", l->mode);
	if (!is_wc(l) && l->policy)
		cv->policy = sb_plan_fmt("%s", l->policy);
	cv->chunk = is_wc(l) ? 0 : l->chunk;
	cv->block_size = is_wc(l) && l->block_size ? strtoull(l->block_size, NULL, 10) : 0;
	for (size_t i = 0; i < all->n; i++)
		sb_list_add(&cv->pvs, all->v[i]);
}

/* pvcreate (lvm.c's step), vgextend, lvcreate on the cache PV, lvconvert;
 * the LV's unit stays the one above. */
static int lvc_plan(const void *cfg, struct sb_pctx *b)
{
	const struct lvc_cfg *l = cfg;
	const struct sb_lv_args *lv = lvm_lv(b);
	struct sb_list all = {0};
	char *dev;

	if (!lvc_on(l))
		return 0;
	if (!lv || !*b->aside)
		return sb_plan_fail(b, -EINVAL, "[lvmcache]: no LV of [lvm], or no cache device");
	dev = sb_plan_fmt("${%s}", b->aside);
	b->aside[0] = '\0'; /* ours: not an external log for the file system above */
	struct sb_pv_args *pv = sb_plan_add_step(b, SB_STEP_PV);
	pv->dev = sb_plan_fmt("%s", dev);
	for (size_t i = 0; i < lv->pvs.n; i++)
		sb_list_add(&all, lv->pvs.v[i]);
	sb_list_add(&all, dev);
	struct lvc_vgx_args *x = sb_plan_add_step(b, SB_STEP_LVC_VGEXTEND);
	x->vg = sb_plan_fmt("%s", lv->vg);
	x->dev = sb_plan_fmt("%s", dev);
	struct lvc_lv_args *c = sb_plan_add_step(b, SB_STEP_LVC_LV);
	c->vg = sb_plan_fmt("%s", lv->vg);
	c->lv = sb_plan_fmt("%s", CACHE_LV);
	c->size = l->size.v;
	c->pct = l->size.pct;
	c->dev = sb_plan_fmt("%s", dev);
	for (size_t i = 0; i < all.n; i++) {
		sb_list_add(&x->pvs, all.v[i]);
		sb_list_add(&c->pvs, all.v[i]);
	}
	lvc_plan_convert(l, b, lv, &all);
	sb_list_free(&all);
	free(dev);
	return 0;
}

/* ---- reading the cache back: capture and per-phase counters ---- */

/* The first target's status or table line of the dm device whose kernel
 * name is st->dev[i]; -errno when it is not a dm device of the live kernel. */
static int dm_line(const struct sb_devstack *st, size_t i, bool table, char *buf, size_t len)
{
	char p[PATH_MAX], name[256];

	snprintf(p, sizeof(p), "%s/class/block/%s/dm/name", st->sysroot, st->dev[i].name);
	if (strcmp(st->dev[i].type, "dm") != 0 || sb_sys_read(p, name, sizeof(name)) < 0)
		return -ENODEV;
	name[strcspn(name, "\n")] = '\0';
	return sb_dm_first_target(name, table, buf, len);
}

static size_t read_type(const struct sb_devstack *st, size_t i, struct sb_lcnt_val *out,
			enum sb_dms_type want)
{
	char line[1024];
	struct sb_dmstatus s;
	if (dm_line(st, i, false, line, sizeof(line)) < 0 || sb_dmstatus_parse(line, &s) < 0 ||
	    s.type != want)
		return 0;
	return sb_dmstatus_counters(&s, out);
}

static size_t read_cache(const struct sb_devstack *st, size_t i, struct sb_lcnt_val *out,
			 int log_fd)
{
	return read_type(st, i, out, SB_DMS_CACHE);
}

static size_t read_wc(const struct sb_devstack *st, size_t i, struct sb_lcnt_val *out, int log_fd)
{
	return read_type(st, i, out, SB_DMS_WRITECACHE);
}

static void add_u64(json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

/* {"lvmcache": {"dm-3": {"type": "cache", "mode": "writeback", "policy":
 * "smq", "chunk": 65536, "cache_size": N, ...}}}: what the kernel runs. */
static void lvc_capture(json_object *into, const struct sb_devstack *st, size_t i, int log_fd)
{
	char line[1024];
	struct sb_dmstatus s;
	json_object *o;

	if (dm_line(st, i, false, line, sizeof(line)) < 0 || sb_dmstatus_parse(line, &s) < 0 ||
	    s.type == SB_DMS_OTHER)
		return;
	o = json_object_new_object();
	if (s.type == SB_DMS_CACHE) {
		json_object_object_add(o, "type", json_object_new_string("cache"));
		json_object_object_add(o, "mode", json_object_new_string(s.mode));
		json_object_object_add(o, "policy", json_object_new_string(s.policy));
		add_u64(o, "chunk", s.block_sectors * 512);
		add_u64(o, "cache_blocks", s.total);
		add_u64(o, "cache_size", s.total * s.block_sectors * 512);
		add_u64(o, "metadata_size", s.md_total * s.md_block_sectors * 512);
		json_object_object_add(o, "metadata_mode", json_object_new_string(s.md_mode));
	} else {
		char kind = 's';
		uint64_t bs = 0;
		if (dm_line(st, i, true, line, sizeof(line)) == 0)
			bs = sb_dmtable_wc_block(line, &kind);
		json_object_object_add(o, "type", json_object_new_string("writecache"));
		json_object_object_add(o, "mode", json_object_new_string("writeback"));
		add_u64(o, "block_size", bs);
		add_u64(o, "cache_blocks", s.wc[0]);
		add_u64(o, "cache_size", s.wc[0] * bs);
		json_object_object_add(o, "medium",
				       json_object_new_string(kind == 'p' ? "pmem" : "ssd"));
	}
	add_u64(o, "origin_size", s.length * 512);
	json_object_object_add(into, st->dev[i].name, o);
}

static const struct sb_layer_counters counters_cache = {"dmcache", read_cache};
static const struct sb_layer_counters counters_wc = {"dmwritecache", read_wc};

const struct sb_layer sb_layer_lvc_vgextend = {
    .kind = "vgextend",
    .args_size = sizeof(struct lvc_vgx_args),
    .fields = vgx_fields,
    .n_fields = ARRAY_SIZE(vgx_fields),
    .progs = progs,
    .describe = vgx_describe,
    .run = vgx_run,
    .check = vgx_check,
    .undo = vgx_undo,
    .keytab = &sb_keytab_lvmcache,
    .aside = lvc_aside,
    .plan = lvc_plan,
    .capture = &(const struct sb_capture){.key = "lvmcache", .type = "dm", .fn = lvc_capture},
    .counters = &counters_cache};
const struct sb_layer sb_layer_lvc_lv = {.kind = "cachevol",
					 .args_size = sizeof(struct lvc_lv_args),
					 .fields = lv_fields,
					 .n_fields = ARRAY_SIZE(lv_fields),
					 .progs = progs,
					 .describe = clv_describe,
					 .run = clv_run,
					 .check = clv_check,
					 .undo = clv_undo,
					 .flags = SB_LF_CREATES_DEV,
					 .counters = &counters_wc};
const struct sb_layer sb_layer_lvc_convert = {.kind = "lvconvert",
					      .args_size = sizeof(struct lvc_conv_args),
					      .fields = conv_fields,
					      .n_fields = ARRAY_SIZE(conv_fields),
					      .progs = progs,
					      .programs = conv_programs,
					      .preflight = conv_preflight,
					      .describe = conv_describe,
					      .run = conv_run,
					      .check = conv_check,
					      .undo = conv_undo,
					      .flags = SB_LF_CREATES_DEV};
