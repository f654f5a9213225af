/* Side by side on one shared stack: on real devices, variants that differ
 * only in md's write-mostly flags and write-behind limit cannot each have
 * a stack, but they need no stack of their own either. Stack 0 is built
 * as its variant's; the others are views of it (its devices and
 * variables); every variant's workloads run in a directory of their own on
 * its file system (mnt/vN), each in its own process as side by side, and
 * before each turn the array is switched to the turn's variant (md-switch,
 * journaled with its undo). So the two sides of a pair are one phase
 * apart on one array, as on loop devices, instead of a workload apart
 * (session/switch.c, which a change of mount options still needs: a file
 * system with open files cannot be mounted again). */
#include "session/side-int.h"
#include "stack/state.h"
#include "util/clock.h"
#include "util/exitcode.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/strutil.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>

int sb_side_build_shared(struct sb_side *sd, struct stack *st, struct sb_journal *j, size_t *made)
{
	size_t k = sd->n_active;
	_cleanup_free_ char *now = sb_utc_stamp(2);

	for (size_t s = 0; s < k; s++) {
		size_t v = sd->active[s];
		st[s].var = v;
		st[s].vr = *sd->proto;
		st[s].vr.v = &sd->variants[v];
		st[s].vr.plan = &sd->plans[v];
		st[s].vr.index = v;
		snprintf(st[s].started, sizeof(st[s].started), "%s", now ? now : "");
		if (s)
			st[s].vr.before_first_write = NULL;
		json_object *a = json_object_new_object();
		json_object_object_add(a, "stack", json_object_new_int(0));
		json_object_object_add(a, "variant", json_object_new_int((int)v));
		json_object_array_add(sd->assignment, a);
	}
	*made = 1;
	int code = sb_side_build_stack(sd, &st[0], 0, j, 0);
	if (code)
		return code;
	sd->md_now = 0;
	sd->step_next = st[0].last;
	_cleanup_free_ char *root = st[0].mnt;
	st[0].mnt = NULL;
	for (size_t s = 0; s < k; s++) {
		struct stack *x = &st[s];
		x->mnt = sb_asprintf("%s/v%zu", root ? root : "?", s);
		if (!x->mnt || (mkdir(x->mnt, 0755) < 0 && errno != EEXIST)) {
			sb_error("%s: cannot create: %s", x->mnt ? x->mnt : root, strerror(errno));
			sb_vrun_note_failure(&st[0].failed, "build", SB_EXIT_FAILED,
					     "cannot create a variant's directory");
			return SB_EXIT_FAILED;
		}
		*made = s + 1;
		if (!s)
			continue;
		memcpy(x->dir, st[0].dir, sizeof(x->dir));
		memcpy(x->id, st[0].id, sizeof(x->id));
		sb_exec_init(&x->x);
		json_object_put(x->x.vars);
		x->x.vars = json_object_get(st[0].x.vars);
		x->first = st[0].first;
		x->last = st[0].last;
		x->built = true;
		x->fresh = st[0].fresh;
		x->pre = json_object_get(st[0].pre);
		x->devs = calloc(1, sizeof(*x->devs));
		if (x->devs && sb_devstack_for_dir(x->mnt, x->devs) < 0) {
			free(x->devs);
			x->devs = NULL;
		}
	}
	return 0;
}

int sb_side_switch_for(struct sb_side *sd, struct stack *st, size_t k, size_t s, json_object *t)
{
	if (!sd->shared || sd->md_now == s)
		return 0;
	uint64_t t0 = sb_mono_ns();
	unsigned keep = st[0].x.step_base;
	int code = sb_switch_md(sd, &st[0].x, st[s].var, &sd->step_next, &st[s].failed);
	st[0].x.step_base = keep;
	json_object_object_add(t, "switch_ms",
			       json_object_new_double((double)(sb_mono_ns() - t0) / 1e6));
	if (!code) {
		sd->md_now = s;
		return 0;
	}
	/* No turn may run on an array that is not its variant's: the round
	 * ends here, every stack's workloads with it. */
	sd->switch_code = *sd->proto->stop ? SB_EXIT_INTERRUPTED : code;
	for (size_t o = 0; o < k; o++) {
		if (st[o].pid > 0 && st[o].waiting)
			kill(st[o].pid, SIGKILL);
		st[o].waiting = false;
		if (!st[o].code)
			st[o].code = code;
	}
	return code;
}

void sb_side_check_shared(struct sb_side *sd, struct stack *st, size_t k)
{
	size_t n = 0;

	for (size_t s = 0; s < k; s++)
		n += st[s].n_wl;
	struct sb_wl_result *all[n + 1];
	n = 0;
	for (size_t s = 0; s < k; s++)
		for (size_t w = 0; w < st[s].n_wl; w++)
			all[n++] = st[s].wl[w];
	_cleanup_free_ char *root = sb_exec_expand(&st[0].x, st[0].vr.plan->mountpoint);
	json_object *integ =
	    sb_integrity_after(&st[0].vr.v->cfg, "the shared stack", st[0].vr.plan, &st[0].x, root,
			       all, n, st[0].vr.quick, sd->proto->stop);
	if (!integ)
		return;
	json_object *by = json_object_new_array();
	for (size_t s = 0; s < k; s++)
		json_object_array_add(by, json_object_new_string(st[s].vr.v->name));
	json_object_object_add(integ, "shared_by", by);
	for (size_t s = 0; s < k; s++)
		st[s].integ = json_object_get(integ);
	json_object_put(integ);
}
