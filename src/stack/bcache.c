/* bcache: one role's device (the SSD) taken whole as the cache set, the one
 * unit the layers below hand up (an md array, or a single HDD) as the
 * backing device, /dev/bcacheN handed up. Three journaled steps of one
 * kind: make-bcache -C and register (identity: the cache set UUID of the
 * superblock), make-bcache -B and register (the backing device's UUID; the
 * step finds bcacheN), then attach, cache_mode and sequential_cutoff.
 *
 * The superblock is read by bcache_sysfs.c itself (4 KiB at 4 KiB, parsed by
 * sb_bcache_sb_parse): no tool output to parse for identity. Registration
 * goes through /sys/fs/bcache/register; with udevd running, bcache-tools'
 * rule may have registered the device already, so each step first waits
 * for udev and then registers only what is not. Undo works from the
 * devices' sysfs and superblocks alone (a step killed before its result
 * was journaled is undone the same way): detach (bounded wait for dirty
 * data in writeback), stop the bcache device, unregister the cache set,
 * then zero the bcache superblock, opened exclusively, so never under a
 * registration udev made again after the stop (the undo then stops that
 * one too and tries again). */
#include "stack/bcache.h"
#include "stack/capture.h"
#include "stack/layers.h"
#include "stack/plan.h"
#include "util/log.h"
#include "util/macro.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The step's typed arguments (its journal record, through fields[]). */
struct sb_bcache_args {
	char *op;		/* "cache", "backing" or "attach" */
	char *dev;		/* cache, backing: the device make-bcache writes */
	char *on;		/* attach: the backing device (held by bcache: not opened) */
	char *cset;		/* attach: ${bcache_cset}, the cache set the first step made */
	char *mode;		/* attach: cache_mode */
	uint64_t cutoff;	/* attach: sequential_cutoff, bytes */
	uint64_t block, bucket; /* make-bcache -w / -b, bytes; 0: its default */
	bool wipe;		/* backing: a device the run made (an md array): old
				   signatures in it are its members' old data, wiped */
	char *var;		/* backing: the variable that gets /dev/bcacheN */
};

#define A struct sb_bcache_args
static const struct sb_field fields[] = {
    SB_FIELD(A, op, SB_FT_STR, SB_FF_REQUIRED),
    SB_FIELD(A, dev, SB_FT_DEV, SB_FF_WRITES | SB_FF_IDENT),
    SB_FIELD(A, on, SB_FT_DEV, SB_FF_IDENT),
    SB_FIELD(A, cset, SB_FT_STR, SB_FF_OPTIONAL),
    SB_FIELD(A, mode, SB_FT_STR, SB_FF_OPTIONAL),
    SB_FIELD(A, cutoff, SB_FT_U64, 0),
    SB_FIELD(A, block, SB_FT_U64, 0),
    SB_FIELD(A, bucket, SB_FT_U64, 0),
    SB_FIELD(A, wipe, SB_FT_BOOL, 0),
    SB_FIELD(A, var, SB_FT_STR, SB_FF_OPTIONAL),
};
#undef A

static const struct sb_prog progs[] = {{"make-bcache", "bcache-tools"}, {NULL, NULL}};

#define DETACH_WAIT_S 300 /* dirty data written back before a detach gives up */
#define GONE_WAIT_MS 30000

static const char *preflight(const void *args)
{
	(void)args;
	if (access("/sys/fs/bcache/register", F_OK) != 0)
		return "bcache: this kernel has no bcache (no /sys/fs/bcache; try 'modprobe "
		       "bcache', "
		       "or run it in the VM (contrib/vm/run))";
	return NULL;
}

static bool is_op(const struct sb_bcache_args *a, const char *op)
{
	return a->op && strcmp(a->op, op) == 0;
}

/* A record the plan could have made (a damaged journal's may not be). */
static bool well_formed(const struct sb_bcache_args *a)
{
	if (is_op(a, "cache") || is_op(a, "backing"))
		return a->dev && (is_op(a, "cache") || a->var);
	return is_op(a, "attach") && a->on && a->cset && a->mode;
}

static bool unfilled(const char *s)
{
	return !s || strstr(s, "${");
}

/* A signature on a device the user gave is refused, as the probe does for
 * every device; on one the run made (wipe), it is old data of the members. */
static int clean_device(struct sb_exec *x, const char *dev, bool wipe)
{
	char type[64];
	if (sb_blkid_value(dev, "TYPE", type, sizeof(type)) != 0)
		return 0;
	if (!wipe) {
		x->refused = true;
		return sb_exec_fail(x, -EEXIST,
				    "%s carries a %s signature: bcache refuses to write over it "
				    "(wipefs -a %s, if its contents are no longer needed)",
				    dev, type, dev);
	}
	int r = sb_wipe_signatures(dev);
	if (r < 0)
		return sb_exec_fail(x, r, "%s: cannot wipe: %s", dev, strerror(-r));
	sb_exec_log(x, "%s: %d old signature(s) (%s) of the members' data wiped\n", dev, r, type);
	return 0;
}

/* ---- the steps ---- */

static void make_argv(const struct sb_bcache_args *a, struct sb_vec *v)
{
	bool cache = is_op(a, "cache");
	sb_vec_add(v, "make-bcache");
	sb_vec_add(v, cache ? "-C" : "-B");
	if (a->block)
		sb_vec_addf(v, "-w%llu", (unsigned long long)a->block);
	if (cache && a->bucket)
		sb_vec_addf(v, "-b%llu", (unsigned long long)a->bucket);
	sb_vec_add(v, a->dev);
}

static int describe(const void *args, char **what, char **undo)
{
	const struct sb_bcache_args *a = args;
	if (!well_formed(a))
		return -EINVAL;
	if (is_op(a, "attach")) {
		const char *n = sb_bcache_base_name(a->on);
		if (asprintf(what,
			     "echo %s > /sys/block/%s/bcache/attach; echo %s > .../cache_mode; "
			     "echo %llu > .../sequential_cutoff",
			     a->cset, n, a->mode, (unsigned long long)a->cutoff) < 0)
			return -ENOMEM;
		return asprintf(undo, "echo 1 > /sys/block/%s/bcache/detach (waits for dirty data)",
				n) < 0
			   ? -ENOMEM
			   : 0;
	}
	struct sb_vec v = {0};
	make_argv(a, &v);
	_cleanup_free_ char *m = sb_vec_format(&v);
	sb_vec_free(&v);
	if (!m)
		return -ENOMEM;
	bool cache = is_op(a, "cache");
	if (asprintf(what, "%s%s%s%s; echo %s > /sys/fs/bcache/register -> ${%s}",
		     a->wipe ? "wipefs -a " : "", a->wipe ? a->dev : "", a->wipe ? "; " : "", m,
		     a->dev, cache ? "bcache_cset" : a->var) < 0)
		return -ENOMEM;
	if (cache)
		return asprintf(undo,
				"echo 1 > /sys/fs/bcache/${bcache_cset}/unregister; wipefs -a -t "
				"bcache %s",
				a->dev) < 0
			   ? -ENOMEM
			   : 0;
	return asprintf(undo, "echo 1 > /sys/block/%s/bcache/stop; wipefs -a -t bcache %s",
			sb_bcache_base_name(a->dev), a->dev) < 0
		   ? -ENOMEM
		   : 0;
}

/* make-bcache, then the superblock it wrote (of the kind asked). */
static int make(const struct sb_bcache_args *a, struct sb_exec *x, struct sb_bcache_sb *sb)
{
	struct sb_vec v = {0};
	int r = clean_device(x, a->dev, a->wipe);
	if (r < 0)
		return r;
	make_argv(a, &v);
	r = sb_exec_cmd(x, (const char *const *)v.v);
	sb_vec_free(&v);
	if (r < 0)
		return r;
	r = sb_bcache_read_sb(a->dev, sb);
	if (r < 0 || sb->cache != is_op(a, "cache"))
		return sb_exec_fail(x, r < 0 ? r : -EIO,
				    "%s: no bcache %s superblock after make-bcache", a->dev,
				    is_op(a, "cache") ? "cache" : "backing");
	return 0;
}

static int cache_run(const struct sb_bcache_args *a, json_object *result, struct sb_exec *x)
{
	struct sb_bcache_sb sb;
	int r = make(a, x, &sb);
	if (r < 0)
		return r;
	json_object_object_add(result, "uuid", json_object_new_string(sb.set_uuid));
	json_object_object_add(result, "dev_uuid", json_object_new_string(sb.uuid));
	r = sb_bcache_do_register(x, a->dev, sb_bcache_cset_registered, sb.set_uuid);
	if (r < 0)
		return r;
	sb_exec_log(x, "%s: cache set %s\n", a->dev, sb.set_uuid);
	sb_result_var(result, "bcache_cset", sb.set_uuid);
	return 0;
}

static int backing_run(const struct sb_bcache_args *a, json_object *result, struct sb_exec *x)
{
	struct sb_bcache_sb sb;
	char p[PATH_MAX], real[PATH_MAX], dev[PATH_MAX + 8];
	int r = make(a, x, &sb);
	if (r < 0)
		return r;
	json_object_object_add(result, "uuid", json_object_new_string(sb.uuid));
	r = sb_bcache_do_register(x, a->dev, sb_bcache_backing_registered, a->dev);
	if (r < 0)
		return r;
	/* bcache/dev: the link to the bcacheN it made */
	if ((r = sb_bcache_sys_path(a->dev, "bcache/dev", p, sizeof(p))) < 0)
		return r;
	if (!realpath(p, real))
		return sb_exec_fail(x, -ENOENT, "%s: registered, but no bcache device (%s)", a->dev,
				    p);
	snprintf(dev, sizeof(dev), "/dev/%s", sb_bcache_base_name(real));
	r = sb_wait_node(dev, 10000, x->udev);
	if (r < 0)
		return sb_exec_fail(x, r, "%s: device node did not appear: %s", dev, strerror(-r));
	json_object_object_add(result, "dev", json_object_new_string(dev));
	sb_exec_log(x, "%s: backing device %s, %s\n", a->dev, sb.uuid, dev);
	sb_result_var(result, a->var, dev);
	return 0;
}

static int attach_run(const struct sb_bcache_args *a, json_object *result, struct sb_exec *x)
{
	struct sb_bcache_sb sb;
	char p[PATH_MAX], buf[256], cur[32], cutoff[32];
	int r;

	if (unfilled(a->cset) || !sb_bcache_backing_registered(a->on))
		return sb_exec_fail(x, -ENOENT, "%s: no registered backing device to attach",
				    a->on);
	if (sb_bcache_read_sb(a->on, &sb) == 0)
		json_object_object_add(result, "uuid", json_object_new_string(sb.uuid));
	if (!sb_bcache_attached(a->on) && (r = sb_bcache_set_attr(x, a->on, "attach", a->cset)) < 0)
		return r;
	if (!sb_bcache_attached(a->on))
		return sb_exec_fail(x, -EIO, "%s: not attached to cache set %s", a->on, a->cset);
	json_object_object_add(result, "cset", json_object_new_string(a->cset));
	snprintf(cutoff, sizeof(cutoff), "%llu", (unsigned long long)a->cutoff);
	if ((r = sb_bcache_set_attr(x, a->on, "cache_mode", a->mode)) < 0 ||
	    (r = sb_bcache_set_attr(x, a->on, "sequential_cutoff", cutoff)) < 0)
		return r;
	/* What bcache runs now, not what was asked. */
	if ((r = sb_bcache_sys_path(a->on, "bcache/cache_mode", p, sizeof(p))) < 0)
		return r;
	if (sb_sys_read(p, buf, sizeof(buf)) < 0 ||
	    sb_bcache_parse_choice(buf, cur, sizeof(cur)) < 0 || strcmp(cur, a->mode) != 0)
		return sb_exec_fail(x, -EIO, "%s: cache_mode reads '%s', want %s", p, buf, a->mode);
	return 0;
}

static int run(void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_bcache_args *a = args;
	if (!well_formed(a))
		return sb_exec_fail(x, -EINVAL, "bcache step '%s': arguments incomplete",
				    a->op ? a->op : "");
	if (is_op(a, "cache"))
		return cache_run(a, result, x);
	if (is_op(a, "backing"))
		return backing_run(a, result, x);
	return attach_run(a, result, x);
}

/* The device's superblock is the journaled one (dev.uuid, or the cache
 * set's for the cache device); gone when there is none and nothing of it
 * is registered. */
static int check(const void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_bcache_args *a = args;
	const char *dev = is_op(a, "attach") ? a->on : a->dev, *want = sb_json_str(result, "uuid");
	struct sb_bcache_sb sb;
	char cset[37];
	int r;

	if (!well_formed(a))
		return sb_exec_fail(x, -ESTALE, "bcache step '%s': arguments incomplete",
				    a->op ? a->op : "");
	if (!want || unfilled(dev))
		return 0;
	r = sb_bcache_read_sb(dev, &sb);
	if (r == 0) {
		const char *have = is_op(a, "cache") ? sb.set_uuid : sb.uuid;
		if (strcmp(have, want) == 0)
			return 0;
		return sb_exec_fail(x, -ESTALE, "%s: not ours: bcache UUID %s != journaled %s", dev,
				    have, want);
	}
	if (is_op(a, "cache")) {
		sb_bcache_cache_dev_cset(dev, cset);
		return sb_bcache_cset_registered(want) || *cset ? 0 : SB_GONE;
	}
	return sb_bcache_held(dev) ? 0 : SB_GONE;
}

/* Detaches the cache set; in writeback, bcache first writes the dirty data
 * back: waited for DETACH_WAIT_S at most, then said and left going. */
static int attach_undo(const struct sb_bcache_args *a, struct sb_exec *x)
{
	char p[PATH_MAX], buf[64] = "";
	int r;

	if (unfilled(a->on) || !sb_bcache_backing_registered(a->on) || !sb_bcache_attached(a->on))
		return 0;
	if ((r = sb_bcache_set_attr(x, a->on, "detach", "1")) < 0)
		return r;
	sb_bcache_sys_path(a->on, "bcache/dirty_data", p, sizeof(p));
	for (unsigned s = 0; s < DETACH_WAIT_S * 10; s++) {
		if (!sb_bcache_attached(a->on))
			return 0;
		if (s % 100 == 99 && sb_sys_read(p, buf, sizeof(buf)) == 0)
			sb_exec_log(x, "%s: detaching, %s dirty\n", a->on, buf);
		usleep(100000);
	}
	sb_sys_read(p, buf, sizeof(buf));
	sb_exec_log(x,
		    "!! %s: still writing back %s of dirty data after %d s: stopping it anyway "
		    "(the data is the benchmark's, and is wiped)\n",
		    a->on, buf, DETACH_WAIT_S);
	sb_warn("%s: bcache detach still writing back %s of dirty data after %d s: stopping it "
		"anyway",
		a->on, buf, DETACH_WAIT_S);
	return 0;
}

/* Stops what is registered of dev: its cache set (the cache device), or
 * its bcacheN (the backing device); waits until bcache let go of it. */
static int stop_one(const struct sb_bcache_args *a, const char *uuid, struct sb_exec *x)
{
	char cset[37], p[PATH_MAX];
	int r;

	if (is_op(a, "cache")) {
		sb_bcache_cache_dev_cset(a->dev, cset);
		if (!*cset && uuid && sb_bcache_cset_registered(uuid))
			snprintf(cset, sizeof(cset), "%s", uuid);
		if (*cset) {
			snprintf(p, sizeof(p), "/sys/fs/bcache/%s/unregister", cset);
			sb_exec_log(x, "$ echo 1 > %s\n", p);
			sb_sys_write(p, "1");
			if (!sb_bcache_wait_for(sb_bcache_not_cset, cset, GONE_WAIT_MS))
				return sb_exec_fail(x, -ETIMEDOUT,
						    "cache set %s: still there after unregister",
						    cset);
		}
	} else if (sb_bcache_backing_registered(a->dev)) {
		if ((r = sb_bcache_set_attr(x, a->dev, "stop", "1")) < 0)
			return r;
	}
	if (!sb_bcache_wait_for(sb_bcache_not_held, a->dev, GONE_WAIT_MS))
		return sb_exec_fail(x, -ETIMEDOUT, "%s: bcache still holds it after the %s", a->dev,
				    is_op(a, "cache") ? "unregister" : "stop");
	return 0;
}

/* Stops what is registered of dev, zeroes the superblock; again while udev
 * registers it anew from the superblock between the stop and the wipe. */
static int stop_and_wipe(const struct sb_bcache_args *a, const char *uuid, struct sb_exec *x)
{
	int r = 0;

	for (int round = 0; round < 5; round++) {
		if ((r = stop_one(a, uuid, x)) < 0)
			return r;
		/* The last opener's release can trail the sysfs directory. */
		for (int i = 0; i < 50; i++) {
			r = sb_bcache_zero_sb(x, a->dev, uuid);
			if (r != -EBUSY || sb_bcache_held(a->dev))
				break;
			usleep(100000);
		}
		if (r != -EBUSY)
			break;
		sb_exec_log(x, "%s: held again (udev registered it): stopping it again\n", a->dev);
		if (x->udev)
			sb_udev_settle_for(a->dev, 10000);
	}
	if (r < 0)
		return sb_exec_fail(x, r, "%s: cannot zero the bcache superblock: %s", a->dev,
				    strerror(-r));
	/* The wipe's events too: the next step (or run) finds udev quiet
	 * (those of a disk this run holds wait for its end). */
	if (x->udev)
		sb_udev_settle_for(a->dev, 10000);
	return 0;
}

static int undo(const void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_bcache_args *a = args;
	struct stat st;
	if (is_op(a, "attach"))
		return attach_undo(a, x);
	if (unfilled(a->dev) || stat(a->dev, &st) < 0)
		return 0;
	/* Without a result (killed before it was journaled): whatever bcache
	 * superblock is there is the step's, as the device had none before. */
	return stop_and_wipe(a, sb_json_str(result, "uuid"), x);
}

/* ---- bcache's profile facts: section, keys, rules, plan ---- */

/* [bcache], typed (filled through the key table's offsetof). */
struct bcache_cfg {
	struct sb_present present; /* the section appears: [bcache] alone builds bcache */
	bool enable;
	int cache; /* a role */
	const char *mode;
	uint64_t cutoff, block, bucket;
};

enum { BC_ENABLE, BC_CACHE, BC_MODE, BC_CUTOFF, BC_BLOCK, BC_BUCKET, BC_KEY_N };

#define C struct bcache_cfg
static const struct sb_key keys[BC_KEY_N] = {
    [BC_ENABLE] = SB_KEY(C, enable, "enable", SB_KT_BOOL, NULL, 0, 0, "yes", 0,
			 "build the bcache layer ('no' leaves it out, e.g. as the baseline of a "
			 "matrix)"),
    [BC_CACHE] = SB_KEY(C, cache, "cache", SB_KT_ROLE, NULL, 0, 0, "ssd", 0,
			"role whose one device becomes the cache set, taken whole (the layers "
			"below must not use it)"),
    [BC_MODE] = SB_KEY(C, mode, "mode", SB_KT_CHOICE, "writethrough|writeback|writearound|none", 0,
		       0, "writethrough", 0, "cache_mode"),
    [BC_CUTOFF] = SB_KEY(C, cutoff, "sequential-cutoff", SB_KT_SIZE, NULL, 0, 0, "4M", 0,
			 "sequential_cutoff: sequential I/O past this size bypasses the cache "
			 "(0: none does)"),
    [BC_BLOCK] = SB_KEY(C, block, "block-size", SB_KT_SIZE, NULL, 0, 0, NULL, 0,
			"make-bcache -w, for both devices (default: the devices' sector size)"),
    [BC_BUCKET] = SB_KEY(C, bucket, "bucket-size", SB_KT_SIZE, NULL, 0, 0, NULL, 0,
			 "make-bcache -b, for the cache device"),
};
#undef C

static bool bcache_on(const struct bcache_cfg *b)
{
	return b->present.section && b->enable;
}

static bool pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static int check_sizes(struct sb_vctx *v, const struct bcache_cfg *b, int base)
{
	if (b->block && (!pow2(b->block) || b->block < 512 || b->block > (64u << 10)))
		return sb_verr(v, base + BC_BLOCK,
			       "bcache.block-size: a power of two from 512 to 64K, not %llu",
			       (unsigned long long)b->block);
	if (b->bucket && (!pow2(b->bucket) || b->bucket < 4096 || b->bucket > (16u << 20)))
		return sb_verr(v, base + BC_BUCKET,
			       "bcache.bucket-size: a power of two from 4K to 16M, not %llu",
			       (unsigned long long)b->bucket);
	if (b->bucket && b->bucket < (b->block ? b->block : 512))
		return sb_verr(v, base + BC_BUCKET, "bcache.bucket-size: smaller than block-size");
	if (b->cutoff > UINT32_MAX)
		return sb_verr(v, base + BC_CUTOFF, "bcache.sequential-cutoff: at most 4G-1");
	return 0;
}

/* The cache role: one device of its own, whole, nowhere below. */
static int check_cache(struct sb_vctx *v, const struct bcache_cfg *b, const struct sb_vstate *st,
		       int base)
{
	const struct sb_config *c = sb_vctx_config(v);
	const char *name;
	unsigned n;

	if (b->cache < 0)
		return sb_verr(v, base + BC_CACHE,
			       "bcache.cache: the cache set needs a role's device "
			       "(ssd, say)");
	name = sb_role_names[b->cache];
	if (b->cache == SB_ROLE_HDD)
		return sb_verr(v, base + BC_CACHE,
			       "bcache.cache: an HDD as the cache set makes the cache the slow "
			       "device: give the ssd or nvme role");
	n = sb_cfg_role_count(c, (enum sb_role)b->cache);
	if (n == 0)
		return sb_verr(v, base + BC_CACHE, "bcache.cache: no %s device in [devices]", name);
	if (n > 1)
		return sb_verr(
		    v, base + BC_CACHE,
		    "bcache.cache: the cache set takes exactly one device, [devices] has "
		    "%u %s devices: give the cache a role of its own",
		    n, name);
	if (st->parted & (1u << b->cache))
		return sb_verr(v, base + BC_CACHE,
			       "bcache.cache: the %s device is partitioned (partition.on) but the "
			       "cache set takes a whole device: leave %s out of partition.on",
			       name, name);
	if (sb_loop_emulates(c) && b->cache == SB_ROLE_ANY)
		return sb_verr(v, base + BC_CACHE,
			       "bcache.cache: 'any' devices are emulated arrays with --loop "
			       "(devices.loop.emulate): give the cache another role");
	if (sb_fs_log_role(c) >= 0)
		return sb_verr(
		    v, sb_fs_key(SB_FS_KEY_LOG),
		    "fs.log: bcache takes the %s device for its cache set already, and "
		    "a stack sets one device aside at most: leave fs.log out with bcache",
		    name);
	return 0;
}

/* Is the cache role among what the layer below took (md.members)? */
static int check_below(struct sb_vctx *v, const struct bcache_cfg *b, const struct sb_vstate *st,
		       int base)
{
	const struct sb_config *c = sb_vctx_config(v);
	int sk = st->taker;
	struct sb_sel s;
	char *why = NULL;
	bool taken;

	if (sb_sel_parse(sb_cfg_str(c, sk), &s, &why) < 0) {
		free(why);
		return 0; /* said by the layer's own check */
	}
	taken = s.all;
	for (size_t i = 0; i < s.n; i++)
		taken |= s.item[i].role == (enum sb_role)b->cache;
	if (!taken)
		return 0;
	return sb_verr(v, base + BC_CACHE,
		       "bcache.cache: the %s device would also be below bcache (%s.%s = %s): the "
		       "cache device must be the cache set's alone; name the others in %s.%s",
		       sb_role_names[b->cache], sb_sec_names[sb_keys[sk].sec], sb_keys[sk].name,
		       sb_cfg_str(c, sk), sb_sec_names[sb_keys[sk].sec], sb_keys[sk].name);
}

static int bcache_validate(struct sb_vctx *v, const void *cfg, struct sb_vstate *st)
{
	const struct bcache_cfg *b = cfg;
	int base = sb_keytab_base(&sb_keytab_bcache), r;
	unsigned backing;

	if (!bcache_on(b))
		return 0;
	if ((r = check_cache(v, b, st, base)) < 0 || (r = check_sizes(v, b, base)) < 0)
		return r;
	if (st->taker >= 0) {
		if ((r = check_below(v, b, st, base)) < 0)
			return r;
		backing = st->units;
	} else {
		/* No layer below took units: every device but the cache's. */
		backing = st->units - sb_cfg_role_count(sb_vctx_config(v), (enum sb_role)b->cache);
	}
	if (backing != 1)
		return sb_verr(v, -1,
			       "[bcache]: a bcache device has one backing device, the layers below "
			       "hand up %u: make them one md array ([md] level = 1, members = the "
			       "other roles) or give one",
			       backing);
	/* bcache takes the units now: the layers above see its one device
	 * (bcache.cache stands for the selector: it names what bcache took). */
	if (st->taker < 0)
		st->taker = base + BC_CACHE;
	st->units = 1;
	return 0;
}

const struct sb_keytab sb_keytab_bcache = {
    .section = "bcache",
    .keys = keys,
    .n = BC_KEY_N,
    .cfg_size = sizeof(struct bcache_cfg),
    .present = SB_PRESENT(struct bcache_cfg, present),
    .validate = bcache_validate,
};

/* Below md (which comes first in the registry, and takes its members
 * itself when it is on), every device is used: the cache one set aside,
 * the others the backing device. */
static const struct sb_sel *bcache_takes(const void *cfg)
{
	static const struct sb_sel all = {.all = true};
	return bcache_on(cfg) ? &all : NULL;
}

static int bcache_aside(const void *cfg)
{
	const struct bcache_cfg *b = cfg;
	return bcache_on(b) ? b->cache : -1;
}

static int bcache_plan(const void *cfg, struct sb_pctx *b)
{
	const struct bcache_cfg *c = cfg;
	struct sb_bcache_args *s;
	char cache[sizeof(b->aside)];

	if (!bcache_on(c))
		return 0;
	if (!*b->aside)
		return sb_plan_fail(b, -EINVAL, "bcache.cache: no %s device for the cache set",
				    c->cache >= 0 ? sb_role_names[c->cache] : "none");
	if (b->n_u != 1)
		return sb_plan_fail(b, -EINVAL,
				    "[bcache]: the layers below hand up %zu devices, a bcache "
				    "device has one backing device",
				    b->n_u);
	/* The cache device is bcache's: nothing above (fs.log) gets it. */
	snprintf(cache, sizeof(cache), "%s", b->aside);
	b->aside[0] = '\0';
	s = sb_plan_add_step(b, SB_STEP_BCACHE);
	s->op = sb_plan_fmt("cache");
	s->dev = sb_plan_fmt("${%s}", cache);
	s->block = c->block;
	s->bucket = c->bucket;
	s = sb_plan_add_step(b, SB_STEP_BCACHE);
	s->op = sb_plan_fmt("backing");
	s->dev = sb_plan_fmt("${%s}", b->u[0].var);
	s->block = c->block;
	s->wipe = b->taken; /* an array the run made just now */
	s->var = sb_plan_fmt("bcache");
	s = sb_plan_add_step(b, SB_STEP_BCACHE);
	s->op = sb_plan_fmt("attach");
	s->on = sb_plan_fmt("${%s}", b->u[0].var);
	s->cset = sb_plan_fmt("${bcache_cset}");
	s->mode = sb_plan_fmt("%s", c->mode);
	s->cutoff = c->cutoff;
	b->n_u = 0;
	sb_plan_add_unit(b, SB_ROLE_ANY, 0, "bcache");
	return 0;
}

const struct sb_layer sb_layer_bcache = {
    .kind = "bcache",
    .args_size = sizeof(struct sb_bcache_args),
    .fields = fields,
    .n_fields = ARRAY_SIZE(fields),
    .progs = progs,
    .preflight = preflight,
    .describe = describe,
    .run = run,
    .check = check,
    .undo = undo,
    .flags = SB_LF_CREATES_DEV,
    .keytab = &sb_keytab_bcache,
    .takes = bcache_takes,
    .aside = bcache_aside,
    .plan = bcache_plan,
    .capture = &(const struct sb_capture){.key = "bcache",
					  .type = "bcache",
					  .fn = sb_bcache_capture,
					  .skip = sb_bcache_capture_skip},
    .counters = &sb_bcache_counters,
};
