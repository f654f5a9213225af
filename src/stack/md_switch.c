/* md's write-mostly flags and write-behind limit, switched on a running
 * array: the step that lets variants which differ only in them take turns
 * on one array (session/switch.c) instead of a build and a resync apart.
 * Through md's sysfs: each member's state takes "writemostly" and
 * "-writemostly"; bitmap/backlog is the write-behind limit (0 to 16383),
 * which the kernel refuses, even 0, while no member is write-mostly: so
 * the limit drops to 0 before the flags go, and grows after they are set,
 * and it is written only when it changes. Every value is read back. No
 * write is in flight while they change: the switch waits for the members'
 * queues to empty, then holds the array's writes in md (suspend_lo,
 * suspend_hi) until the values are set (hold_writes says why).
 *
 * prepare reads what the array has before the begin record; undo puts
 * that back from the journal alone (a kill between two turns leaves the
 * array as it was built). The array's identity (its md UUID) is journaled
 * and checked by undo; an array that is gone has nothing to restore. */
#include "stack/layers.h"
#include "stack/plan.h"
#include "util/clock.h"
#include "util/macro.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define A struct sb_mdsw_args
static const struct sb_field fields[] = {
    SB_FIELD(A, md, SB_FT_DEV, SB_FF_REQUIRED | SB_FF_IDENT),
    SB_FIELD(A, write_mostly, SB_FT_DEVV, 0),
    SB_FIELD(A, backlog, SB_FT_U64, 0),
    SB_FIELD(A, has_old, SB_FT_BOOL, 0),
    SB_FIELD(A, old_write_mostly, SB_FT_DEVV, 0),
    SB_FIELD(A, old_backlog, SB_FT_U64, 0),
};
#undef A

/* md's largest write-behind limit (drivers/md/md-bitmap.c: COUNTER_MAX / 2). */
#define MDSW_BACKLOG_MAX 16383

/* "/dev/vdb, /dev/vdc" or "none" */
static void list_text(FILE *f, const struct sb_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		fprintf(f, "%s%s", i ? ", " : "", l->v[i]);
	if (!l->n)
		fputs("none", f);
}

static int describe(const void *args, char **what, char **undo)
{
	const struct sb_mdsw_args *a = args;
	char *w = NULL, *u = NULL;
	size_t wl = 0, ul = 0;
	FILE *fw = open_memstream(&w, &wl), *fu = open_memstream(&u, &ul);

	if (!fw || !fu) {
		if (fw)
			fclose(fw);
		if (fu)
			fclose(fu);
		return -ENOMEM;
	}
	fprintf(fw, "md %s: write-mostly ", a->md);
	list_text(fw, &a->write_mostly);
	fprintf(fw,
		" (echo writemostly or -writemostly > /sys/block/<md>/md/dev-*/state); "
		"echo %llu > /sys/block/<md>/md/bitmap/backlog",
		(unsigned long long)a->backlog);
	if (a->has_old) {
		fprintf(fu, "md %s: write-mostly ", a->md);
		list_text(fu, &a->old_write_mostly);
		fprintf(fu, ", bitmap/backlog %llu, as before", (unsigned long long)a->old_backlog);
	} else {
		fprintf(fu, "md %s: write-mostly flags and bitmap/backlog as before the switch",
			a->md);
	}
	fclose(fw);
	fclose(fu);
	*what = w;
	*undo = u;
	return 0;
}

/* /sys/block/NAME/md of the array, or -ENOENT when it does not run. */
static int md_dir(const char *md, char *buf, size_t len)
{
	_cleanup_free_ char *name = sb_sys_name(md);
	if (!name)
		return -ENOMEM;
	snprintf(buf, len, "/sys/block/%s/md", name);
	return access(buf, F_OK) == 0 ? 0 : -ENOENT;
}

/* Is the member of kernel name m in l (device paths)? */
static bool listed(const struct sb_list *l, const char *m)
{
	for (size_t i = 0; i < l->n; i++) {
		_cleanup_free_ char *n = sb_sys_name(l->v[i]);
		if (n && strcmp(n, m) == 0)
			return true;
	}
	return false;
}

static int prepare(void *args, struct sb_exec *x)
{
	struct sb_mdsw_args *a = args;
	char dir[PATH_MAX], p[PATH_MAX + 300], buf[256];
	int r = md_dir(a->md, dir, sizeof(dir));

	if (r < 0)
		return sb_exec_fail(x, r, "%s: no running md array to switch", a->md);
	if (a->backlog > MDSW_BACKLOG_MAX)
		return sb_exec_fail(x, -EINVAL, "%s: write-behind %llu: md takes 0 to %d", a->md,
				    (unsigned long long)a->backlog, MDSW_BACKLOG_MAX);
	sb_list_free(&a->old_write_mostly);
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));) {
		if (strncmp(e->d_name, "dev-", 4) != 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s/state", dir, e->d_name);
		if (sb_sys_read(p, buf, sizeof(buf)) == 0 && strstr(buf, "write_mostly")) {
			char dev[300];
			snprintf(dev, sizeof(dev), "/dev/%s", e->d_name + 4);
			sb_list_add(&a->old_write_mostly, dev);
		}
	}
	if (d)
		closedir(d);
	/* No bitmap: no write-behind, and nothing to put back. */
	snprintf(p, sizeof(p), "%s/bitmap/backlog", dir);
	a->old_backlog = sb_sys_read(p, buf, sizeof(buf)) == 0 ? strtoull(buf, NULL, 10) : 0;
	a->has_old = true;
	return 0;
}

/* How long a switch waits for the members' queues to empty. A
 * throttled HDD behind a write-behind limit of 16383 can hold 64 MiB of
 * writes the file system was told are done. */
#define MDSW_DRAIN_S 300

/* Requests in flight on the array's members (each member's block/inflight:
 * reads and writes), or -errno. */
static long members_inflight(const char *dir)
{
	char p[PATH_MAX + 300], buf[64];
	long n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return negerrno();
	for (struct dirent *e; (e = readdir(d));) {
		unsigned long rd = 0, wr = 0;
		if (strncmp(e->d_name, "dev-", 4) != 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s/block/inflight", dir, e->d_name);
		if (sb_sys_read(p, buf, sizeof(buf)) == 0 && sscanf(buf, "%lu %lu", &rd, &wr) == 2)
			n += (long)(rd + wr);
	}
	closedir(d);
	return n;
}

/* Waits until no member has a request in flight: the writes md still
 * sends behind (write-behind) to the write-mostly members, the file
 * system's last ones. A member's state and the backlog are changed under
 * md's reconfiguration lock, and those that add or drop write-behind's
 * collision checks suspend the array until every request is done; with
 * the queues empty first, the lock is held for a moment, not for as long
 * as a throttled HDD takes to catch up. The wait is logged. */
static void drain(struct sb_exec *x, const char *dir)
{
	double t0 = sb_mono_s();
	long n = members_inflight(dir);
	if (n <= 0)
		return;
	while (n > 0 && sb_mono_s() - t0 < MDSW_DRAIN_S) {
		usleep(10000);
		n = members_inflight(dir);
	}
	sb_exec_log(x, "%s: members' queues %s after %.2f s\n", dir, n > 0 ? "still busy" : "empty",
		    sb_mono_s() - t0);
}

/* Holds the array's writes (on) or lets them go (off), through md's
 * suspend_lo/suspend_hi: a write into [suspend_lo, suspend_hi) waits in md
 * before it reaches raid1, and each store suspends the array until every
 * request in flight is done, behind writes too. In Debian's 6.1, raid1
 * decides at each member's completion, by that member's write-mostly flag
 * as it is then, whether the write may be acknowledged: a flag changed
 * with writes in flight can acknowledge one before the SSD has it, and
 * free its pages under the I/O. Two CI runs hung in md's threads, a third
 * had a later scenario's mkfs.xfs read its own metadata back corrupt, in
 * the guest that had switched. So no write is in flight while a flag
 * changes. 0 or -errno. */
static int hold_writes(struct sb_exec *x, const char *dir, bool on)
{
	char p[PATH_MAX + 32], size[64] = "0";
	int r;

	snprintf(p, sizeof(p), "%s/../size", dir);
	if (on && (r = sb_sys_read(p, size, sizeof(size))) < 0)
		return r;
	snprintf(p, sizeof(p), "%s/suspend_lo", dir);
	if (on && (r = sb_sys_write(p, "0")) < 0)
		return r;
	snprintf(p, sizeof(p), "%s/suspend_hi", dir);
	/* the array's size and suspend_hi are both in 512-byte sectors */
	char hi[80];
	snprintf(hi, sizeof(hi), "%llu", on ? strtoull(size, NULL, 10) + 8 : 0ull);
	if ((r = sb_sys_write(p, hi)) < 0)
		return r;
	sb_exec_log(x, "%s: %s\n", p, hi);
	return 0;
}

/* The array's members flagged as wm says, its backlog set to backlog;
 * every value read back, and only what differs written (each write of a
 * member's state updates md's superblock on every member). 0 or -errno
 * with x->errmsg set. */
static int flip(struct sb_exec *x, const char *md, const struct sb_list *wm, uint64_t backlog)
{
	char dir[PATH_MAX], bl[PATH_MAX + 32], p[PATH_MAX + 300], cur[64] = "", want[32], got[256];
	int r = md_dir(md, dir, sizeof(dir));

	if (r < 0)
		return sb_exec_fail(x, r, "%s: no running md array to switch", md);
	snprintf(bl, sizeof(bl), "%s/bitmap/backlog", dir);
	snprintf(want, sizeof(want), "%llu", (unsigned long long)backlog);
	bool has = sb_sys_read(bl, cur, sizeof(cur)) == 0;
	if (!has && backlog)
		return sb_exec_fail(x, -EOPNOTSUPP,
				    "%s: write-behind %s needs a write-intent bitmap (md has none)",
				    md, want);
	/* Down to 0 while the flags of the turn before still stand. */
	if (has && !backlog && strcmp(cur, "0") != 0) {
		if ((r = sb_sys_write(bl, "0")) < 0)
			return sb_exec_fail(x, r, "%s: cannot set 0: %s", bl, strerror(-r));
		sb_exec_log(x, "%s: 0\n", bl);
	}
	DIR *d = opendir(dir);
	if (!d)
		return sb_exec_fail(x, negerrno(), "%s: %s", dir, strerror(errno));
	r = 0;
	for (struct dirent *e; r == 0 && (e = readdir(d));) {
		if (strncmp(e->d_name, "dev-", 4) != 0)
			continue;
		bool on = listed(wm, e->d_name + 4);
		snprintf(p, sizeof(p), "%s/%s/state", dir, e->d_name);
		if (sb_sys_read(p, got, sizeof(got)) == 0 &&
		    (strstr(got, "write_mostly") != NULL) == on)
			continue;
		r = sb_sys_write(p, on ? "writemostly" : "-writemostly");
		if (r < 0) {
			sb_exec_fail(x, r, "%s: cannot write %s: %s", p,
				     on ? "writemostly" : "-writemostly", strerror(-r));
			break;
		}
		if (sb_sys_read(p, got, sizeof(got)) < 0 ||
		    (strstr(got, "write_mostly") != NULL) != on) {
			r = sb_exec_fail(x, -EIO, "%s: reads '%s' after %s", p, got,
					 on ? "writemostly" : "-writemostly");
			break;
		}
		sb_exec_log(x, "%s: %s\n", p, got);
	}
	closedir(d);
	if (r < 0)
		return r;
	if (backlog && strcmp(cur, want) != 0) {
		if ((r = sb_sys_write(bl, want)) < 0)
			return sb_exec_fail(x, r, "%s: cannot set %s: %s%s", bl, want, strerror(-r),
					    wm->n ? "" : " (no member is write-mostly)");
		if (sb_sys_read(bl, got, sizeof(got)) < 0 || strcmp(got, want) != 0)
			return sb_exec_fail(x, -EIO, "%s: reads '%s' after %s", bl, got, want);
		sb_exec_log(x, "%s: %s\n", bl, got);
	}
	return 0;
}

/* flip() with the array's writes held (hold_writes), once the members'
 * queues are empty (drain): the writes are let go whatever flip did. */
static int apply(struct sb_exec *x, const char *md, const struct sb_list *wm, uint64_t backlog)
{
	char dir[PATH_MAX];
	int r = md_dir(md, dir, sizeof(dir));

	if (r < 0)
		return sb_exec_fail(x, r, "%s: no running md array to switch", md);
	drain(x, dir);
	if ((r = hold_writes(x, dir, true)) < 0) {
		hold_writes(x, dir, false);
		return sb_exec_fail(x, r, "%s: cannot hold its writes (suspend_lo, suspend_hi): %s",
				    md, strerror(-r));
	}
	r = flip(x, md, wm, backlog);
	int rr = hold_writes(x, dir, false);
	if (r == 0 && rr < 0)
		r = sb_exec_fail(x, rr, "%s: cannot let its writes go (suspend_hi 0): %s", md,
				 strerror(-rr));
	return r;
}

static int run(void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_mdsw_args *a = args;
	(void)result;
	return apply(x, a->md, &a->write_mostly, a->backlog);
}

static int undo(const void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_mdsw_args *a = args;
	char dir[PATH_MAX];
	(void)result;
	/* The array stopped already (its own undo ran): nothing to put back. */
	if (md_dir(a->md, dir, sizeof(dir)) < 0)
		return SB_GONE;
	/* killed with the writes held: let them go before anything else */
	hold_writes(x, dir, false);
	if (!a->has_old)
		return 0;
	return apply(x, a->md, &a->old_write_mostly, a->old_backlog);
}

const struct sb_layer sb_layer_md_switch = {
    .kind = "md-switch",
    .args_size = sizeof(struct sb_mdsw_args),
    .fields = fields,
    .n_fields = ARRAY_SIZE(fields),
    .prepare = prepare,
    .describe = describe,
    .run = run,
    .undo = undo,
};

int sb_md_switch_preview(const struct sb_plan *p, FILE *out)
{
	const struct sb_layer *md = sb_layer_get(SB_STEP_MD);
	struct sb_mdsw_args a = {0};
	json_object *rec = NULL, *v;
	size_t i = 0;
	char *what = NULL, *undo = NULL;

	while (i < p->n && p->steps[i].kind != SB_STEP_MD)
		i++;
	if (i == p->n)
		return -ENOENT;
	/* The array's step through its journal record: its variable, the
	 * members it flags, its write-behind. */
	rec = sb_fields_to_json(md->fields, md->n_fields, p->steps[i].args);
	a.md = sb_plan_fmt("${%s}", sb_json_str(rec, "var") ? sb_json_str(rec, "var") : "md");
	if (json_object_object_get_ex(rec, "write_mostly", &v) &&
	    json_object_is_type(v, json_type_array))
		for (size_t k = 0; k < json_object_array_length(v); k++)
			sb_list_add(&a.write_mostly,
				    json_object_get_string(json_object_array_get_idx(v, k)));
	a.backlog = (uint64_t)sb_json_i64(rec, "write_behind", 0);
	json_object_put(rec);
	int r = describe(&a, &what, &undo);
	if (r == 0) {
		fprintf(out, "      %-13s %s\n", sb_layer_md_switch.kind, what);
		fprintf(out, "      %-13s %s\n", "undo:", undo);
	}
	free(what);
	free(undo);
	free(a.md);
	sb_list_free(&a.write_mostly);
	return r;
}
