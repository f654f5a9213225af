/* Running one variant once: journal open, steps, workloads (with the time
 * limit), and the teardown from the journal, the same way `teardown` does
 * it. Whatever happens after the journal is open ends in that teardown. */
#include "session/variant.h"
#include "session/variant-int.h"
#include "stack/scenario.h"
#include "util/exitcode.h"
#include "probe/probe.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/spawn.h"
#include "probe/devstat.h"
#include "workload/progress.h"
#include "workload/workload.h"

#include <limits.h>
#include <string.h>
#include <unistd.h>

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void sb_vrun_order(size_t *order, size_t n, uint64_t seed, unsigned round)
{
	uint64_t st = seed ^ ((uint64_t)round * 0xd1b54a32d192ed03ULL);
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(splitmix64(&st) % i), t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
}

/* The precondition steps' records, from the journal (before the teardown
 * removes it), and the non-rotational devices under the mount: a variant
 * on one of them without a precondition measured whatever state the
 * device was in (after mkfs's own discard, nearly fresh out of the box). */
json_object *sb_vrun_precondition(const struct sb_vrun *vr, const char *mnt, unsigned first,
				  unsigned last, bool *fresh)
{
	const char *mode = sb_precond_mode(&vr->v->cfg);
	json_object *o = json_object_new_object(), *steps = json_object_new_array(),
		    *nonrot = json_object_new_array();
	struct sb_jread jr = {0};
	struct sb_devstack st = {0};
	double secs = 0;
	bool all_steady = true;
	size_t n = 0;

	if (sb_journal_read(vr->rs->journal, &jr) == 0) {
		for (size_t i = 0; i < jr.n; i++) {
			if (strcmp(jr.rec[i].kind, "precondition") != 0 || !jr.rec[i].result ||
			    jr.rec[i].step < first || jr.rec[i].step > last)
				continue;
			json_object *res = jr.rec[i].result, *stv, *reached;
			json_object *sec = json_object_object_get(res, "seconds");
			secs += sec ? json_object_get_double(sec) : 0;
			if (!json_object_object_get_ex(res, "steady", &stv) ||
			    !json_object_object_get_ex(stv, "reached", &reached) ||
			    !json_object_get_boolean(reached))
				all_steady = false;
			json_object_array_add(steps, json_object_get(res));
			n++;
		}
		sb_jread_free(&jr);
	}
	if (mnt && sb_devstack_for_dir(mnt, &st) == 0) {
		for (size_t i = 0; i < st.n; i++) {
			char p[160], buf[16];
			if (strcmp(st.dev[i].type, "disk") != 0 &&
			    strcmp(st.dev[i].type, "loop") != 0)
				continue;
			snprintf(p, sizeof(p), "/sys/class/block/%s/queue/rotational",
				 st.dev[i].name);
			if (sb_sys_read(p, buf, sizeof(buf)) >= 0 && buf[0] == '0')
				json_object_array_add(nonrot,
						      json_object_new_string(st.dev[i].name));
		}
	}
	*fresh = strcmp(mode, "none") == 0 && json_object_array_length(nonrot) > 0;
	json_object_object_add(o, "mode", json_object_new_string(mode));
	json_object_object_add(o, "seconds", json_object_new_double(secs));
	if (strcmp(mode, "steady") == 0)
		json_object_object_add(o, "steady_reached",
				       json_object_new_boolean(n && all_steady));
	json_object_object_add(o, "non_rotational", nonrot);
	json_object_object_add(o, "fresh", json_object_new_boolean(*fresh));
	json_object_object_add(o, "devices", steps);
	return o;
}

/* What result.json keeps of a failed variant: the step ("2 mkfs",
 * "workload seq", "teardown"), the exit code and the message, the tool's
 * own words included. The first failure is the one kept. */
void sb_vrun_note_failure(json_object **failed, const char *step, int code, const char *msg)
{
	if (*failed)
		return;
	*failed = json_object_new_object();
	json_object_object_add(*failed, "step", json_object_new_string(step));
	json_object_object_add(*failed, "exit", json_object_new_int(code));
	json_object_object_add(*failed, "message", json_object_new_string(msg ? msg : "failed"));
}

/* "2 mkfs": the step that began last (the one that failed). */
static char *failed_step(const struct sb_plan *p, unsigned began)
{
	unsigned n = began ? began : 1;
	const char *kind = n <= p->n ? sb_layer_get(p->steps[n - 1].kind)->kind : "step";
	char *s = NULL;
	return asprintf(&s, "%u %s", n, kind) < 0 ? NULL : s;
}

/* The variant's workloads in the mounted file system, in order, each
 * under workloads.time-limit: the results go to *wl; a workload stopped by
 * the limit keeps what it measured and the next one runs; a failure ends
 * the loop (noted in *failed). 0, or the exit code. */
int sb_vrun_workloads(struct sb_vrun *vr, const char *mnt, const char *memcg,
		      const char **role_devs, bool fresh, struct sb_wl_result ***wl, size_t *n_wl,
		      json_object **failed)
{
	const struct sb_pvariant *v = vr->v;
	struct sb_runstate *rs = vr->rs;
	uint64_t limit_ms = sb_cfg_u64(&v->cfg, K_WL_TIME_LIMIT);
	int code = 0;
	/* A test's hook (enter.c refuses it outside a test's state
	 * directory), for the benches that check what a comparison finds:
	 * "V:PCT", variant V's psync I/O made PCT% slower. */
	const char *delay = getenv("STACKBENCH_DELAY");
	unsigned delay_pct = 0;
	if (delay && *delay && strtoul(delay, NULL, 10) == vr->index && strchr(delay, ':'))
		delay_pct = (unsigned)strtoul(strchr(delay, ':') + 1, NULL, 10);

	for (size_t w = 0; w < v->cfg.n_workloads && !*vr->stop; w++) {
		const char *spec = v->cfg.workloads[w];
		struct sb_wl_env env = {.dir = mnt,
					.quick = vr->quick,
					.ram_bytes = vr->ram,
					.cap_cache = vr->cap_cache,
					.memcg = memcg,
					.log_fd = rs->log_fd,
					.stop = vr->wl_stop,
					.role_names = vr->slot_names,
					.role_devs = role_devs,
					.n_roles = vr->n_slots,
					.cpus = vr->cpus,
					.gate = vr->gate,
					.turn = vr->turn,
					.gate_ud = vr->gate_ud,
					.delay_pct = delay_pct};
		struct sb_wl_result *res = NULL;
		char *err = NULL;

		*vr->wl_stop = *vr->stop;
		sb_info("workload %s", spec);
		dprintf(rs->log_fd, "== workload %s in %s\n", spec, mnt);
		if (limit_ms)
			alarm((unsigned)((limit_ms + 999) / 1000));
		int r = sb_workload_run(spec, &env, &res, &err);
		alarm(0);
		if (res) {
			if (*vr->wl_stop && !*vr->stop)
				res->flags |= SB_RES_INCOMPLETE;
			if (fresh)
				res->flags |= SB_RES_FRESH;
			struct sb_wl_result **nw = realloc(*wl, (*n_wl + 1) * sizeof(*nw));
			if (nw) {
				*wl = nw;
				(*wl)[(*n_wl)++] = res;
			} else {
				sb_wl_result_free(res);
			}
		}
		if (r < 0 && *vr->wl_stop && !*vr->stop) {
			/* The time limit: keep what was measured, go on. */
			sb_warn("%s: workload %s stopped by workloads.time-limit", v->name, spec);
			dprintf(rs->log_fd, "!! workload %s: stopped by the time limit\n", spec);
			free(err);
			continue;
		}
		if (r < 0) {
			sb_error("%s: %s", v->name, err ? err : strerror(-r));
			dprintf(rs->log_fd, "!! workload %s: %s\n", spec, err ? err : strerror(-r));
			/* -EXDEV: a path of the workload's leads outside the
			 * mount (util/freetext.c): a refusal. */
			code = *vr->stop     ? SB_EXIT_INTERRUPTED
			       : r == -EXDEV ? SB_EXIT_REFUSED
					     : SB_EXIT_FAILED;
			_cleanup_free_ char *step = NULL;
			if (asprintf(&step, "workload %s", spec) < 0)
				step = NULL;
			sb_vrun_note_failure(failed, step ? step : "workload", code,
					     err ? err : strerror(-r));
			free(err);
			break;
		}
		free(err);
	}
	return code;
}

/* An executor for the variant's steps, with the run's variables, and its
 * journal open. 0, or the exit code after reporting. */
void sb_vrun_exec_init(struct sb_vrun *vr, struct sb_exec *x, const char *run, const char *id)
{
	struct sb_runstate *rs = vr->rs;

	sb_exec_init(x);
	x->log_fd = rs->log_fd;
	x->stop = vr->stop;
	x->fail_step = rs->fail_step;
	x->kill_step = rs->kill_step;
	x->udev = rs->udev;
	sb_exec_set_var(x, "run", run);
	sb_exec_set_var(x, "id", id);
	for (size_t k = 0; vr->slot_devs && k < vr->n_slots; k++)
		sb_exec_set_var(x, vr->slot_names[k], vr->slot_devs[k]);
}

static int exec_open(struct sb_vrun *vr, struct sb_exec *x)
{
	struct sb_runstate *rs = vr->rs;
	int r;

	sb_vrun_exec_init(vr, x, rs->run_dir, rs->run_id);
	r = sb_journal_open(rs->journal, rs->run_id, &x->j);
	if (r < 0) {
		sb_error_errno(r, "%s: cannot create the journal", rs->journal);
		sb_exec_release(x);
		return SB_EXIT_FAILED;
	}
	return 0;
}

/* The checks right before the first write, then the plan's steps: 0, or
 * the exit code (the failure noted in *failed). */
int sb_vrun_build(struct sb_vrun *vr, struct sb_exec *x, json_object **failed)
{
	int r, code;

	/* The steps' programs: a time limit, and stopped (their process group)
	 * on a signal; the teardown's only by their time limit. */
	sb_spawn_defaults(SB_STEP_TIMEOUT_MS, vr->stop);
	code = vr->before_first_write ? vr->before_first_write(vr->ud) : 0;
	if (code)
		return code;
	r = sb_exec_plan(x, vr->plan);
	if (r == 0)
		return 0;
	_cleanup_free_ char *step = failed_step(vr->plan, x->steps_done);
	sb_error("%s: %s", vr->v->name, x->errmsg ? x->errmsg : strerror(-r));
	code = *vr->stop ? SB_EXIT_INTERRUPTED : x->refused ? SB_EXIT_REFUSED : SB_EXIT_FAILED;
	sb_vrun_note_failure(failed, step ? step : "step", code,
			     x->errmsg ? x->errmsg : strerror(-r));
	return code;
}

/* The loop devices the plan made, as the probe sees them, for result.json
 * (the first variant's only: the others make the same). */
void sb_vrun_loop_devices(struct sb_vrun *vr, struct sb_exec *x)
{
	const char *only[65];
	size_t n = 0;
	struct sb_probe *p = NULL;

	if (!vr->loop_devices || !*vr->loop_devices)
		return;
	for (size_t k = 0; k < vr->n_slots && n < 64; k++) {
		const char *d = sb_exec_var(x, vr->slot_names[k]);
		if (d && strncmp(d, "/dev/loop", 9) == 0)
			only[n++] = d;
	}
	only[n] = NULL;
	if (n && sb_probe_scan(only, &p, NULL) == 0) {
		for (size_t i = 0; i < p->n; i++)
			json_object_array_add(*vr->loop_devices, sb_device_to_json(&p->dev[i]));
		sb_probe_free(p);
	}
	*vr->loop_devices = NULL;
}

/* Teardown from the journal, the same way `teardown` does it: the exit
 * code after it (a failure noted in *failed, vr->left_behind set). */
int sb_vrun_teardown(struct sb_vrun *vr, int code, json_object **failed)
{
	struct sb_runstate *rs = vr->rs;
	struct sb_exec u;
	int r;

	sb_spawn_defaults(SB_STEP_TIMEOUT_MS, NULL);
	sb_exec_init(&u);
	u.log_fd = rs->log_fd;
	u.udev = rs->udev;
	u.keep_images = vr->keep_images;
	dprintf(rs->log_fd, "== teardown%s\n", vr->keep_images ? " (the images kept)" : "");
	r = sb_exec_undo_journal(&u, rs->journal);
	vr->left_behind = r < 0;
	vr->images_kept = r == 0 && vr->keep_images && access(rs->journal, F_OK) == 0;
	if (r < 0) {
		sb_error("%s: teardown: %s (the journal is kept: run 'stackbench teardown %s')",
			 vr->v->name, u.errmsg ? u.errmsg : strerror(-r), rs->run_id);
		/* An interruption stays one; anything else is a failure. */
		if (code != SB_EXIT_INTERRUPTED)
			code = SB_EXIT_FAILED;
		sb_vrun_note_failure(failed, "teardown", code, u.errmsg ? u.errmsg : strerror(-r));
	}
	sb_exec_release(&u);
	return code;
}

/* The workloads, with a rebuild (scenario.rebuild) watched while they run
 * and the integrity checked after them: both records for result.json. */
static int run_watched(struct sb_vrun *vr, struct sb_exec *x, const char *mnt,
		       const char **role_devs, bool fresh, struct sb_wl_result ***wl, size_t *n_wl,
		       json_object **failed, json_object **scen, json_object **integ)
{
	const struct sb_pvariant *v = vr->v;
	struct sb_scen_watch sw;
	int code;

	sb_scen_watch_start(&sw, vr->rs->journal, x);
	code =
	    sb_vrun_workloads(vr, mnt, sb_exec_var(x, "memcg"), role_devs, fresh, wl, n_wl, failed);
	*scen = sb_scen_watch_end(&sw, sb_scen_rebuild_limit_ms(&v->cfg), vr->stop);
	*integ =
	    sb_integrity_after(&v->cfg, v->name, vr->plan, x, mnt, *wl, *n_wl, vr->quick, vr->stop);
	return code;
}

int sb_vrun(struct sb_vrun *vr, unsigned rep, struct sb_variant *rv)
{
	const struct sb_pvariant *v = vr->v;
	struct sb_exec x;
	struct sb_wl_result **wl = NULL;
	json_object *pre = NULL, *failed = NULL, *scen = NULL, *integ = NULL;
	bool fresh = false;
	size_t n_wl = 0;
	int code;
	_cleanup_free_ char *mnt = NULL, *started = sb_utc_stamp(2);

	sb_progress_variant_begin(vr->index, rep, v->name);
	dprintf(vr->rs->log_fd, "\n=== variant %s, repeat %u\n", v->name, rep + 1);
	code = exec_open(vr, &x);
	if (code)
		return code;
	code = sb_vrun_build(vr, &x, &failed);
	if (code == 0) {
		sb_vrun_loop_devices(vr, &x);
		mnt = sb_exec_expand(&x, vr->plan->mountpoint);
		pre = sb_vrun_precondition(vr, mnt, 0, UINT_MAX, &fresh);
		/* Which device plays which role, for the per-member cost rows. */
		const char *role_devs[vr->n_slots + 1];
		for (size_t k = 0; k < vr->n_slots; k++)
			role_devs[k] = sb_exec_var(&x, vr->slot_names[k]);
		code =
		    run_watched(vr, &x, mnt, role_devs, fresh, &wl, &n_wl, &failed, &scen, &integ);
		if (*vr->stop && !code)
			code = SB_EXIT_INTERRUPTED;
	}
	sb_journal_close(x.j);
	x.j = NULL;
	sb_exec_release(&x);
	code = sb_vrun_teardown(vr, code, &failed);
	sb_progress_variant_end();
	sb_variant_add_repeat(rv, rep, wl, n_wl);
	if (rv->n_rep) {
		free(rv->rep[rv->n_rep - 1].started);
		rv->rep[rv->n_rep - 1].started = TAKE_PTR(started);
		rv->rep[rv->n_rep - 1].precondition = TAKE_PTR(pre);
		rv->rep[rv->n_rep - 1].failed = TAKE_PTR(failed);
		rv->rep[rv->n_rep - 1].scenario = TAKE_PTR(scen);
		rv->rep[rv->n_rep - 1].integrity = TAKE_PTR(integ);
	}
	json_object_put(scen);
	json_object_put(integ);
	json_object_put(pre);
	json_object_put(failed);
	free(wl);
	return code;
}
