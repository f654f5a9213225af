/* Variants switched on one stack: on real devices the variants cannot
 * each have a stack of their own, but where they differ only in mount
 * options one stack serves them all. Each round builds it once (the first
 * variant's plan), then runs every workload for every variant in turn, in
 * a balanced order (ABBA, a Williams design for more), the file system
 * unmounted and mounted again with the turn's variant's options between
 * turns. The two sides of a pair are one workload apart on the same file
 * system, instead of a whole build (an md resync on real disks) apart.
 * A turn is a whole workload, not a phase: a phase keeps its files open,
 * and a file system with open files cannot be unmounted. */
#include "session/side.h"
#include "session/design.h"
#include "session/variant-int.h"
#include "stack/stack.h"
#include "util/clock.h"
#include "util/exitcode.h"
#include "util/log.h"
#include "util/macro.h"
#include "workload/progress.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <time.h>
#include <unistd.h>

/* The plan's mount step: its index, or p->n when it has none. */
static size_t mount_step(const struct sb_plan *p)
{
	size_t i = 0;
	while (i < p->n && p->steps[i].kind != SB_STEP_MOUNT)
		i++;
	return i;
}

/* A key's value in variant v's config, as result.json has it ("" when
 * the variant has none). */
static void value_of(const struct sb_side *sd, size_t v, const char *key, char *buf, size_t len)
{
	json_object *o = sb_config_to_json(&sd->variants[v].cfg), *val;
	snprintf(buf, len, "%s",
		 json_object_object_get_ex(o, key, &val) ? json_object_get_string(val) : "");
	json_object_put(o);
}

static bool differ(const struct sb_side *sd, size_t a, size_t b, const char *key)
{
	return sb_config_differ(&sd->variants[a].cfg, &sd->variants[b].cfg, key);
}

/* The role of md member m (a kernel name: "vdb", "vdb1"): the slot whose
 * device it is, or whose device it is a partition of. */
static const char *member_role(const struct sb_side *sd, struct sb_exec *x, const char *m)
{
	for (size_t k = 0; k < sd->proto->n_slots; k++) {
		const char *dev = sb_exec_var(x, sd->proto->slot_names[k]);
		_cleanup_free_ char *real = dev ? realpath(dev, NULL) : NULL;
		const char *b = real ? strrchr(real, '/') : NULL;
		size_t n = b ? strlen(b + 1) : 0, lm = strlen(m);
		if (b && lm >= n && memcmp(m, b + 1, n) == 0 &&
		    strspn(m + n, "p0123456789") == lm - n)
			return sd->slot_roles[k];
	}
	return NULL;
}

/* md's write-mostly flags and write-behind limit as variant v has them,
 * through sysfs on the running array: each member's state takes
 * "writemostly" / "-writemostly", bitmap/backlog the limit, which the
 * kernel refuses while no member is write-mostly (so the flags go first
 * when it grows, last when it drops to 0). Each value is read back. The
 * array's teardown stops it: nothing to restore. 0 or the exit code. */
static int md_switch(struct sb_side *sd, struct sb_exec *x, size_t v, json_object **failed)
{
	char wm[64], wb[32], p[PATH_MAX], got[PATH_MAX + 400] = "";
	const char *md = sb_exec_var(x, "md");
	_cleanup_free_ char *real = md ? realpath(md, NULL) : NULL;
	const char *name = real ? strrchr(real, '/') + 1 : NULL;
	int r = 0;

	value_of(sd, v, "md.write-mostly", wm, sizeof(wm));
	value_of(sd, v, "md.write-behind", wb, sizeof(wb));
	if (!name) {
		sb_vrun_note_failure(failed, "switch", SB_EXIT_FAILED, "no md array to switch");
		return SB_EXIT_FAILED;
	}
	/* The kernel takes no backlog, not even 0, while no member is
	 * write-mostly: it is written only when it changes, 0 while the
	 * flags of the turn before are still set. */
	char cur[32] = "";
	snprintf(p, sizeof(p), "/sys/block/%s/md/bitmap/backlog", name);
	bool grow = strcmp(wb, "0") != 0 && *wb;
	bool has = sb_sys_read(p, cur, sizeof(cur)) >= 0;
	if (!grow && has && strcmp(cur, "0") != 0 && (r = sb_sys_write(p, "0")) < 0)
		snprintf(got, sizeof(got), "%s: %s", p, strerror(-r));
	snprintf(p, sizeof(p), "/sys/block/%s/md", name);
	DIR *d = opendir(p);
	struct dirent *e;
	while (r >= 0 && d && (e = readdir(d))) {
		if (strncmp(e->d_name, "dev-", 4) != 0)
			continue;
		const char *role = member_role(sd, x, e->d_name + 4);
		bool want = role && strcmp(role, wm) == 0;
		char sp[PATH_MAX + 300];
		snprintf(sp, sizeof(sp), "%s/%s/state", p, e->d_name);
		r = sb_sys_write(sp, want ? "writemostly" : "-writemostly");
		if (r >= 0 && (sb_sys_read(sp, got, sizeof(got)) < 0 ||
			       (strstr(got, "write_mostly") != NULL) != want))
			r = -EIO;
		if (r < 0)
			snprintf(got, sizeof(got), "%s: %s", sp, strerror(-r));
	}
	if (d)
		closedir(d);
	snprintf(p, sizeof(p), "/sys/block/%s/md/bitmap/backlog", name);
	if (r >= 0 && grow && strcmp(cur, wb) != 0 && (r = sb_sys_write(p, wb)) < 0)
		snprintf(got, sizeof(got), "%s: %s", p, strerror(-r));
	if (r >= 0)
		return 0;
	sb_error("%s: cannot switch md to write-mostly %s, write-behind %s: %s",
		 sd->variants[v].name, wm, wb, got);
	sb_vrun_note_failure(failed, "switch", SB_EXIT_FAILED, got);
	return SB_EXIT_FAILED;
}

struct one {
	size_t var;
	struct sb_vrun vr;
	struct sb_wl_result **wl;
	size_t n_wl;
	json_object *failed;
	int code;
};

/* Unmount the stack's file system and mount it with variant v's options:
 * v's own mount step, journaled under a number of its own (the mount's
 * undo at teardown finds whichever is mounted). 0 or the exit code. */
static int switch_to(struct sb_side *sd, struct sb_exec *x, const char *mnt, size_t from, size_t v,
		     unsigned *base, json_object **failed)
{
	const struct sb_plan *p = &sd->plans[v];
	size_t m = mount_step(p);
	struct sb_plan one = {.steps = p->steps + m, .n = 1, .mountpoint = p->mountpoint};
	int r;

	if ((differ(sd, from, v, "md.write-mostly") || differ(sd, from, v, "md.write-behind")) &&
	    (r = md_switch(sd, x, v, failed)) != 0)
		return r;
	if (!differ(sd, from, v, "mount.options"))
		return 0;
	sync();
	if (umount2(mnt, 0) < 0 && errno != EINVAL) {
		r = -errno;
		sb_vrun_note_failure(failed, "switch", SB_EXIT_FAILED, strerror(-r));
		sb_error("%s: cannot unmount to switch to %s: %s", mnt, sd->variants[v].name,
			 strerror(-r));
		return SB_EXIT_FAILED;
	}
	x->step_base = *base;
	*base += 1;
	r = sb_exec_plan(x, &one);
	if (r == 0)
		return 0;
	sb_error("%s: %s", sd->variants[v].name, x->errmsg ? x->errmsg : strerror(-r));
	sb_vrun_note_failure(failed, "switch", SB_EXIT_FAILED,
			     x->errmsg ? x->errmsg : strerror(-r));
	return *sd->proto->stop ? SB_EXIT_INTERRUPTED : SB_EXIT_FAILED;
}

/* Workload w of variant o->var in mnt: its result appended to o's. */
static int run_one(struct sb_side *sd, struct one *o, struct sb_exec *x, const char *mnt, size_t w,
		   const char **role_devs)
{
	struct sb_pvariant view = sd->variants[o->var];
	struct sb_wl_result **wl = NULL;
	size_t n = 0;

	view.cfg.workloads = sd->variants[o->var].cfg.workloads + w;
	view.cfg.n_workloads = 1;
	o->vr.v = &view;
	int code = sb_vrun_workloads(&o->vr, mnt, sb_exec_var(x, "memcg"), role_devs, false, &wl,
				     &n, &o->failed);
	o->vr.v = &sd->variants[o->var];
	for (size_t i = 0; i < n; i++) {
		struct sb_wl_result **nw = realloc(o->wl, (o->n_wl + 1) * sizeof(*nw));
		if (!nw) {
			sb_wl_result_free(wl[i]);
			continue;
		}
		o->wl = nw;
		o->wl[o->n_wl++] = wl[i];
	}
	free(wl);
	return code;
}

/* The options the file system at mnt is mounted with, as /proc/mounts
 * has them (the kernel's word that the switch took), or NULL. */
static json_object *mounted_options(const char *mnt)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char line[4096], dev[1024], dir[1024], type[64], opts[2048];
	json_object *o = NULL;

	while (f && !o && fgets(line, sizeof(line), f))
		if (sscanf(line, "%1023s %1023s %63s %2047s", dev, dir, type, opts) == 4 &&
		    strcmp(dir, mnt) == 0)
			o = json_object_new_string(opts);
	if (f)
		fclose(f);
	return o;
}

static void record_turn(struct sb_side *sd, unsigned step, size_t pos, size_t v, const char *spec,
			uint64_t t0, double switch_ms, const char *mnt)
{
	json_object *t = json_object_new_object();
	json_object *opts = mounted_options(mnt);
	if (opts)
		json_object_object_add(t, "mounted", opts);
	json_object_object_add(t, "round", json_object_new_int((int)sd->round));
	json_object_object_add(t, "step", json_object_new_int((int)step));
	json_object_object_add(t, "position", json_object_new_int((int)pos));
	json_object_object_add(t, "stack", json_object_new_int(0));
	json_object_object_add(t, "variant", json_object_new_int((int)v));
	json_object_object_add(t, "workload", json_object_new_string(spec));
	json_object_object_add(t, "phase", json_object_new_string("(the whole workload)"));
	json_object_object_add(t, "switch_ms", json_object_new_double(switch_ms));
	json_object_object_add(t, "start_s",
			       json_object_new_double((double)(t0 - sd->t_origin) / 1e9));
	json_object_object_add(t, "secs",
			       json_object_new_double((double)(sb_mono_ns() - t0) / 1e9));
	json_object_array_add(sd->turns, t);
}

/* The turns: workload by workload, every variant in the step's order,
 * switched to before its turn. 0 or the exit code that ends the round. */
static int run_turns(struct sb_side *sd, struct one *o, struct sb_exec *x, const char *mnt,
		     unsigned *base, size_t *mounted)
{
	size_t k = sd->n_active, order[k], n_wl = sd->variants[o[0].var].cfg.n_workloads;
	const char *role_devs[sd->proto->n_slots + 1];

	for (size_t j = 0; j < sd->proto->n_slots; j++)
		role_devs[j] = sb_exec_var(x, sd->proto->slot_names[j]);
	for (size_t w = 0; w < n_wl && !*sd->proto->stop; w++) {
		/* One design across the rounds: with one workload, round after
		 * round is then A B, B A (a round of its own has one step). */
		sb_design_order(k, sd->seed, 0, sd->round * (unsigned)n_wl + (unsigned)w, order);
		for (size_t pos = 0; pos < k && !*sd->proto->stop; pos++) {
			struct one *t = &o[order[pos]];
			uint64_t s0 = sb_mono_ns();
			if (t->code)
				continue;
			if (*mounted != order[pos]) {
				int code = switch_to(sd, x, mnt, o[*mounted].var, t->var, base,
						     &t->failed);
				if (code)
					return code;
				*mounted = order[pos];
			}
			uint64_t t0 = sb_mono_ns();
			sb_progress_turn(t->var, sd->round);
			dprintf(sd->proto->rs->log_fd,
				"== turn: round %u, workload %zu, variant %s\n", sd->round + 1,
				w + 1, sd->variants[t->var].name);
			t->code = run_one(sd, t, x, mnt, w, role_devs);
			record_turn(sd, (unsigned)w, pos, t->var,
				    sd->variants[t->var].cfg.workloads[w], t0,
				    (double)(t0 - s0) / 1e6, mnt);
		}
	}
	return 0;
}

/* The integrity check of the one stack after every variant's turns (md's
 * check, btrfs scrub, the workloads' data read back): one check of the
 * array they all wrote to, which no variant has alone, so each variant's
 * repeat of the round holds it, with the variants that shared it named. */
static json_object *check_shared(struct sb_side *sd, struct one *o, struct sb_vrun *base_vr,
				 struct sb_exec *x, const char *mnt)
{
	size_t k = sd->n_active, n = 0;

	for (size_t i = 0; i < k; i++)
		n += o[i].n_wl;
	struct sb_wl_result *all[n + 1];
	n = 0;
	for (size_t i = 0; i < k; i++)
		for (size_t w = 0; w < o[i].n_wl; w++)
			all[n++] = o[i].wl[w];
	json_object *integ =
	    sb_integrity_after(&base_vr->v->cfg, "the switched stack", base_vr->plan, x, mnt, all,
			       n, base_vr->quick, sd->proto->stop);
	if (!integ)
		return NULL;
	json_object *by = json_object_new_array();
	for (size_t i = 0; i < k; i++)
		json_object_array_add(by, json_object_new_string(sd->variants[o[i].var].name));
	json_object_object_add(integ, "shared_by", by);
	return integ;
}

int sb_switch_round(struct sb_side *sd, int *failed)
{
	size_t k = sd->n_active, mounted = 0;
	struct one o[k];
	struct sb_exec x;
	struct sb_vrun base_vr = *sd->proto;
	json_object *bfailed = NULL;
	_cleanup_free_ char *mnt = NULL, *started = sb_utc_stamp(2);
	unsigned base;
	uint64_t t_round = sb_mono_ns();
	int code;

	memset(o, 0, sizeof(o));
	base_vr.v = &sd->variants[sd->active[0]];
	base_vr.plan = &sd->plans[sd->active[0]];
	sb_vrun_exec_init(&base_vr, &x, base_vr.rs->run_dir, base_vr.rs->run_id);
	int r = sb_journal_open(base_vr.rs->journal, base_vr.rs->run_id, &x.j);
	if (r < 0) {
		sb_error_errno(r, "%s: cannot create the journal", base_vr.rs->journal);
		sb_exec_release(&x);
		return SB_EXIT_FAILED;
	}
	dprintf(base_vr.rs->log_fd, "\n=== one stack, round %u: built as %s\n", sd->round + 1,
		base_vr.v->name);
	code = sb_vrun_build(&base_vr, &x, &bfailed);
	base = (unsigned)base_vr.plan->n;
	for (size_t i = 0; i < k; i++) {
		json_object *a = json_object_new_object();
		json_object_object_add(a, "stack", json_object_new_int(0));
		json_object_object_add(a, "variant", json_object_new_int((int)sd->active[i]));
		json_object_array_add(sd->assignment, a);
	}
	for (size_t i = 0; i < k; i++) {
		o[i].var = sd->active[i];
		o[i].vr = *sd->proto;
		o[i].vr.v = &sd->variants[o[i].var];
		o[i].vr.plan = &sd->plans[o[i].var];
		o[i].vr.index = o[i].var;
	}
	if (code == 0) {
		mnt = sb_exec_expand(&x, base_vr.plan->mountpoint);
		for (size_t i = 0; i < k; i++)
			sb_progress_variant_begin(o[i].var, sd->round, o[i].vr.v->name);
		code = run_turns(sd, o, &x, mnt, &base, &mounted);
	}
	json_object *integ =
	    code || *sd->proto->stop ? NULL : check_shared(sd, o, &base_vr, &x, mnt);
	if (*sd->proto->stop && !code)
		code = SB_EXIT_INTERRUPTED;
	sb_journal_close(x.j);
	x.j = NULL;
	sb_exec_release(&x);
	code = sb_vrun_teardown(&base_vr, code, &bfailed);
	sd->proto->left_behind = base_vr.left_behind;
	size_t ran[k];
	for (size_t i = 0; i < k; i++)
		ran[i] = o[i].var;
	sb_progress_variants_end(ran, k, (double)(sb_mono_ns() - t_round) / 1e9);
	for (size_t i = 0; i < k; i++) {
		struct sb_variant *rv = &sd->set_vars[o[i].var];
		if (i == 0 && bfailed && !o[i].failed)
			o[i].failed = json_object_get(bfailed);
		if (!o[i].failed && !o[i].n_wl && code)
			continue;
		*failed += o[i].code == SB_EXIT_FAILED;
		sb_variant_add_repeat(rv, sd->round, o[i].wl, o[i].n_wl);
		if (rv->n_rep) {
			struct sb_repeat *rp = &rv->rep[rv->n_rep - 1];
			free(rp->started);
			rp->started = strdup(started ? started : "");
			rp->failed = TAKE_PTR(o[i].failed);
			rp->integrity = json_object_get(integ);
		}
		json_object_put(o[i].failed);
		free(o[i].wl);
	}
	json_object_put(bfailed);
	json_object_put(integ);
	return code;
}
