/* Variants side by side (--loop): every variant of a round gets a stack of
 * its own, all built at once into the run's one journal; each stack's
 * workloads run in a child process that waits at every timed phase for its
 * turn, and the turns go round the stacks in a balanced order (ABBA, a
 * Williams design for more), so that the two sides of a comparison are one
 * phase apart instead of a whole build and every workload. The host's
 * noise moves over seconds: the closer in time, the less of it lands
 * between the two sides. Variants change stacks from round to round
 * (crossover), since two identically made stacks are not identical. */
#include "session/side.h"
#include "session/side-int.h"
#include "session/design.h"
#include "session/variant-int.h"
#include "probe/devstat.h"
#include "stack/stack.h"
#include "util/exitcode.h"
#include "util/log.h"
#include "util/clock.h"
#include "util/macro.h"
#include "workload/progress.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- the child: one stack's workloads ---- */

struct gate {
	int to, from;
	volatile sig_atomic_t *stop;
};

/* Says which phase it is at (and whether it can run in turns) and waits
 * for the turn: 'g' for the whole phase, 'T' for millisecond turns. The
 * workload time limit (an alarm) does not run while it waits. */
static bool child_gate(void *ud, const char *phase, bool turnable)
{
	struct gate *g = ud;
	unsigned left = alarm(0);
	char c = 'g';

	dprintf(g->to, "P %s%s\n", phase, turnable ? "\tturns" : "");
	while (read(g->from, &c, 1) < 0 && errno == EINTR && !*g->stop)
		;
	if (left)
		alarm(left);
	return c == 'T';
}

/* A turn over (or the phase ready for its first): "y DRAINED_NS", then
 * waits for "t NS\n", the next turn's length (0: run on). The alarm
 * waits too. */
static uint64_t child_turn(void *ud, uint64_t drained_ns)
{
	struct gate *g = ud;
	unsigned left = alarm(0);
	char line[32] = "";
	size_t n = 0;
	ssize_t r;

	if (dprintf(g->to, "y %llu\n", (unsigned long long)drained_ns) < 0)
		n = sizeof(line);
	while (n < sizeof(line) - 1) {
		r = read(g->from, line + n, 1);
		if (r < 0 && errno == EINTR && !*g->stop)
			continue;
		if (r <= 0 || line[n] == '\n')
			break;
		n++;
	}
	line[n < sizeof(line) ? n : sizeof(line) - 1] = '\0';
	if (left)
		alarm(left);
	unsigned long long ns = line[0] == 't' ? strtoull(line + 1, NULL, 10) : 0;
	return ns ? (uint64_t)ns : UINT64_MAX;
}

static void __attribute__((noreturn)) child_main(struct stack *s, int to, int from, pid_t parent)
{
	struct gate g = {.to = to, .from = from, .stop = s->vr.stop};
	const char *role_devs[s->vr.n_slots + 1];
	struct sb_wl_result **wl = NULL;
	size_t n_wl = 0;
	json_object *failed = NULL, *o = json_object_new_object(), *arr = json_object_new_array();

	/* A parent killed by SIGKILL takes its stacks' workloads with it:
	 * nothing keeps the mounts busy for teardown --all. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(SB_EXIT_INTERRUPTED);
	/* The run's lock is the parent's: teardown --all may take it as soon
	 * as the parent is gone. */
	if (s->vr.rs->lock_fd >= 0)
		close(s->vr.rs->lock_fd);
	for (size_t k = 0; k < s->vr.n_slots; k++)
		role_devs[k] = sb_exec_var(&s->x, s->vr.slot_names[k]);
	s->vr.gate = child_gate;
	s->vr.turn = child_turn;
	s->vr.gate_ud = &g;
	child_gate(&g, "start", false);
	int code = sb_vrun_workloads(&s->vr, s->mnt, sb_exec_var(&s->x, "memcg"), role_devs,
				     s->fresh, &wl, &n_wl, &failed);
	for (size_t i = 0; i < n_wl; i++)
		json_object_array_add(arr, sb_wl_result_to_json(wl[i]));
	json_object_object_add(o, "code", json_object_new_int(code));
	json_object_object_add(o, "workloads", arr);
	if (failed)
		json_object_object_add(o, "failed", failed);
	const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	dprintf(to, "R %zu\n%s", strlen(text), text);
	_exit(0);
}

/* ---- the parent: builds, turns, records ---- */

/* Up to n numbers of a line, as strtoull reads them: how many. */
static int numbers(const char *s, unsigned long long *v, int n)
{
	int got = 0;
	char *end;
	while (got < n) {
		errno = 0;
		v[got] = strtoull(s, &end, 10);
		if (end == s || errno)
			break;
		got++;
		s = end;
	}
	return got;
}

void sb_side_host_read(struct host *h)
{
	unsigned long long v[8] = {0};
	char line[256];
	FILE *f = fopen("/proc/stat", "re");

	memset(h, 0, sizeof(*h));
	if (f && fgets(line, sizeof(line), f) && strncmp(line, "cpu ", 4) == 0 &&
	    numbers(line + 4, v, 8) == 8) {
		for (int i = 0; i < 8; i++)
			h->all += v[i];
		h->steal = v[7];
		h->has_steal = true;
	}
	if (f)
		fclose(f);
	f = fopen("/proc/pressure/cpu", "re");
	if (f && fgets(line, sizeof(line), f)) {
		const char *t = strstr(line, "total=");
		h->has_psi = t && numbers(t + 6, &h->psi_us, 1) == 1;
	}
	if (f)
		fclose(f);
}

/* Every stack idle and clean before a turn: written back, caches
 * dropped, and no I/O in flight nor an md array syncing on the others (a
 * resync of the stack built last would run in the first one's turn), so
 * that no stack's leftovers run in another's turn. The wait is bounded;
 * a turn that starts with another stack still busy says so in its
 * record. */
void sb_side_quiet_all(struct sb_side *sd, struct stack *st, size_t k, size_t self, json_object *t)
{
	uint64_t t0 = sb_mono_ns(), limit = (sd->proto->quick ? 2ull : 30ull) * 1000000000ull;
	char why[160] = "";
	bool busy;

	sync();
	if (sb_sys_write("/proc/sys/vm/drop_caches", "3") < 0)
		sb_debug("drop_caches: not written");
	do {
		busy = false;
		for (size_t s = 0; s < k && !busy; s++)
			busy = s != self && st[s].devs &&
			       sb_devstack_busy(st[s].devs, why, sizeof(why));
		if (busy) {
			struct timespec ts = {0, 20000000};
			nanosleep(&ts, NULL);
		}
	} while (busy && sb_mono_ns() - t0 < limit && !*sd->proto->stop);
	json_object_object_add(t, "idle_wait_ms",
			       json_object_new_double((double)(sb_mono_ns() - t0) / 1e6));
	if (busy)
		json_object_object_add(t, "others_busy", json_object_new_string(why));
}

/* Reads the child's next message: its next phase (1), the end of a
 * millisecond turn (2), its results (0, with the stack's results filled
 * in), or its end without them (-1). */
int sb_side_next_message(struct stack *s)
{
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	for (;;) {
		clearerr(s->in);
		errno = 0;
		n = getline(&line, &cap, s->in);
		if (n >= 0)
			break;
		if (errno != EINTR)
			return -1;
		if (*s->vr.stop)
			kill(s->pid, SIGINT);
	}
	line[strcspn(line, "\n")] = '\0';
	if (line[0] == 'y' && (line[1] == '\0' || line[1] == ' ')) {
		s->drained_ns = line[1] ? strtoull(line + 2, NULL, 10) : 0;
		return 2;
	}
	if (line[0] == 'P' && line[1] == ' ') {
		char *tab = strchr(line + 2, '\t');
		s->turnable = tab && strcmp(tab, "\tturns") == 0;
		if (tab)
			*tab = '\0';
		free(s->phase);
		s->phase = strdup(line + 2);
		return 1;
	}
	size_t len = line[0] == 'R' ? strtoul(line + 1, NULL, 10) : 0;
	_cleanup_free_ char *text = len ? malloc(len + 1) : NULL;
	if (!text || fread(text, 1, len, s->in) != len)
		return -1;
	text[len] = '\0';
	json_object *o = json_tokener_parse(text), *arr, *v;
	if (!o)
		return -1;
	if (json_object_object_get_ex(o, "code", &v))
		s->code = json_object_get_int(v);
	if (json_object_object_get_ex(o, "failed", &v) && !s->failed)
		s->failed = json_object_get(v);
	if (json_object_object_get_ex(o, "workloads", &arr))
		for (size_t i = 0; i < json_object_array_length(arr); i++) {
			struct sb_wl_result *r = NULL, **nw;
			char *err = NULL;
			if (sb_wl_result_from_json(json_object_array_get_idx(arr, i), &r, &err) <
				0 ||
			    !(nw = realloc(s->wl, (s->n_wl + 1) * sizeof(*nw)))) {
				free(err);
				sb_wl_result_free(r);
				continue;
			}
			s->wl = nw;
			s->wl[s->n_wl++] = r;
		}
	json_object_put(o);
	return 0;
}

static int fork_child(struct stack *s)
{
	int down[2], up[2];
	pid_t parent = getpid();

	if (pipe2(down, O_CLOEXEC) < 0)
		return negerrno();
	if (pipe2(up, O_CLOEXEC) < 0) {
		close(down[0]);
		close(down[1]);
		return negerrno();
	}
	fflush(NULL);
	s->pid = fork();
	if (s->pid < 0) {
		int e = negerrno();
		close(down[0]);
		close(down[1]);
		close(up[0]);
		close(up[1]);
		return e;
	}
	if (s->pid == 0) {
		close(down[1]);
		close(up[0]);
		child_main(s, up[1], down[0], parent);
	}
	close(down[0]);
	close(up[1]);
	s->to = down[1];
	s->from = up[0];
	s->in = fdopen(s->from, "re");
	if (!s->in)
		return negerrno();
	s->waiting = sb_side_next_message(s) == 1;
	return 0;
}

/* What the child's answer r (next_message) to its turn leaves: waiting
 * at its next phase, done, or gone without its results. */
void sb_side_turn_over(struct stack *s, int r)
{
	s->waiting = r == 1;
	if (r < 0) {
		s->code = SB_EXIT_FAILED;
		sb_vrun_note_failure(&s->failed, "workloads", s->code,
				     "the stack's workload process ended without its results");
	}
}

/* The host's steal time and CPU pressure between h0 and h1, secs apart,
 * into the record t. */
void sb_side_host_record(json_object *t, const struct host *h0, const struct host *h1, double secs)
{
	if (h0->has_steal && h1->all > h0->all)
		json_object_object_add(
		    t, "steal_pct",
		    json_object_new_double(100.0 * (double)(h1->steal - h0->steal) /
					   (double)(h1->all - h0->all)));
	if (h0->has_psi && h1->has_psi && secs > 0)
		json_object_object_add(
		    t, "cpu_pressure_pct",
		    json_object_new_double((double)(h1->psi_us - h0->psi_us) / (secs * 1e4)));
}

/* One turn: stack s runs from the phase it waits at to the next one (or
 * to its end), the others idle; the record goes into turns. */
static void take_turn(struct sb_side *sd, struct stack *stacks, size_t k, size_t st, unsigned step,
		      size_t pos)
{
	struct stack *s = &stacks[st];
	struct host h0, h1;
	json_object *t = json_object_new_object();
	uint64_t t0;
	int r;

	sb_side_quiet_all(sd, stacks, k, st, t);
	sb_side_host_read(&h0);
	t0 = sb_mono_ns();
	json_object_object_add(t, "round", json_object_new_int((int)sd->round));
	json_object_object_add(t, "step", json_object_new_int((int)step));
	json_object_object_add(t, "position", json_object_new_int((int)pos));
	json_object_object_add(t, "stack", json_object_new_int((int)st));
	json_object_object_add(t, "variant", json_object_new_int((int)s->var));
	json_object_object_add(t, "phase", json_object_new_string(s->phase ? s->phase : "?"));
	dprintf(s->vr.rs->log_fd, "== turn: round %u, step %u, stack %zu, variant %s, %s\n",
		sd->round + 1, step + 1, st, s->vr.v->name, s->phase ? s->phase : "?");
	if (write(s->to, "g", 1) != 1) {
		s->waiting = false;
		json_object_put(t);
		return;
	}
	r = sb_side_next_message(s);
	sb_side_turn_over(s, r);
	sb_side_host_read(&h1);
	double secs = (double)(sb_mono_ns() - t0) / 1e9;
	json_object_object_add(t, "start_s",
			       json_object_new_double((double)(t0 - sd->t_origin) / 1e9));
	json_object_object_add(t, "secs", json_object_new_double(secs));
	sb_side_host_record(t, &h0, &h1, secs);
	json_object_array_add(sd->turns, t);
}

/* The turns of the round: step by step, each waiting stack in the step's
 * order, until every child has sent its results. */
static void run_turns(struct sb_side *sd, struct stack *st, size_t k)
{
	size_t order[k];
	bool any = true;

	for (unsigned step = 0; any; step++) {
		any = false;
		sb_design_order(k, sd->seed, sd->round, step, order);
		if (sb_side_turned_step(sd, st, k, step)) {
			size_t by_stack[k];
			for (size_t pos = 0; pos < k; pos++)
				by_stack[pos] = sb_design_stack(k, sd->seed, sd->round, order[pos]);
			sb_side_take_turns(sd, st, k, step, by_stack);
			any = true;
			continue;
		}
		for (size_t pos = 0; pos < k; pos++) {
			size_t s = sb_design_stack(k, sd->seed, sd->round, order[pos]);
			if (!st[s].waiting)
				continue;
			if (*sd->proto->stop)
				kill(st[s].pid, SIGINT);
			take_turn(sd, st, k, s, step, pos);
			any = true;
		}
	}
}

/* Stack s of the round: its directory, its executor (its own run and id
 * variables, the shared journal, its own step numbers) and its build. */
static int build_stack(struct sb_side *sd, struct stack *s, size_t n, struct sb_journal *j,
		       unsigned base)
{
	struct sb_runstate *rs = sd->proto->rs;
	int code;

	snprintf(s->dir, sizeof(s->dir), "%s/s%zu", rs->run_dir, n);
	snprintf(s->id, sizeof(s->id), "%s-s%zu", rs->run_id, n);
	if (mkdir(s->dir, 0700) < 0 && errno != EEXIST) {
		sb_error("%s: cannot create: %s", s->dir, strerror(errno));
		return SB_EXIT_FAILED;
	}
	sb_vrun_exec_init(&s->vr, &s->x, s->dir, s->id);
	s->x.j = j;
	s->x.keep_images = s->vr.keep_images;
	s->x.step_base = base;
	s->first = base + 1;
	s->last = base + (unsigned)s->vr.plan->n;
	dprintf(rs->log_fd, "\n=== stack %zu: variant %s, round %u\n", n, s->vr.v->name,
		sd->round + 1);
	code = sb_vrun_build(&s->vr, &s->x, &s->failed);
	if (code)
		return code;
	s->built = true;
	sb_vrun_loop_devices(&s->vr, &s->x);
	s->mnt = sb_exec_expand(&s->x, s->vr.plan->mountpoint);
	s->devs = calloc(1, sizeof(*s->devs));
	if (s->devs && (!s->mnt || sb_devstack_for_dir(s->mnt, s->devs) < 0)) {
		free(s->devs);
		s->devs = NULL;
	}
	s->pre = sb_vrun_precondition(&s->vr, s->mnt, s->first, s->last, &s->fresh);
	return 0;
}

static const char *const queue_attr[][2] = {{"rotational", NULL},
					    {"scheduler", "queue.scheduler"},
					    {"wbt_lat_usec", NULL},
					    {"read_ahead_kb", "queue.read-ahead-kb"}};

/* /sys/class/block/DEV/queue/ATTR of slot j's device on stack s: false
 * when the stack has no such device. */
static bool queue_path(struct stack *st, size_t s, const char *slot, const char *attr, char *p,
		       size_t len)
{
	const char *dev = st[s].built ? sb_exec_var(&st[s].x, slot) : NULL;
	const char *b = dev ? strrchr(dev, '/') : NULL;
	if (!b)
		return false;
	snprintf(p, len, "/sys/class/block/%s/queue/%s", b + 1, attr);
	return true;
}

/* The loop devices come from a pool that earlier users may have tuned
 * (a read-ahead or a scheduler stays with the device after it is
 * detached): every stack's devices are set as the first stack's where
 * the variants do not choose otherwise, and run.log says so. The
 * rotational flag is the loop layer's own, per role. */
static void align_queues(struct sb_side *sd, struct stack *st, size_t k)
{
	const struct sb_vrun *vr = sd->proto;

	for (size_t j = 0; j < vr->n_slots; j++)
		for (size_t a = 1; a < ARRAY_SIZE(queue_attr); a++) {
			char ref[128], val[128], p[256], want[64];
			if (!queue_path(st, 0, vr->slot_names[j], queue_attr[a][0], p, sizeof(p)) ||
			    sb_sys_read(p, ref, sizeof(ref)) < 0)
				continue;
			/* "[none] mq-deadline": the one in brackets */
			const char *o = strchr(ref, '['), *e = o ? strchr(o, ']') : NULL;
			snprintf(want, sizeof(want), "%.*s",
				 o && e ? (int)(e - o - 1) : (int)strlen(ref),
				 o && e ? o + 1 : ref);
			for (size_t s = 1; s < k; s++) {
				if (!queue_path(st, s, vr->slot_names[j], queue_attr[a][0], p,
						sizeof(p)) ||
				    sb_sys_read(p, val, sizeof(val)) < 0 || strcmp(ref, val) == 0 ||
				    (queue_attr[a][1] &&
				     sb_config_differ(&st[0].vr.v->cfg, &st[s].vr.v->cfg,
						      queue_attr[a][1])))
					continue;
				int r = sb_sys_write(p, want);
				dprintf(vr->rs->log_fd,
					"== stack %zu: %s %s '%s' set to '%s' as on stack 0%s\n", s,
					vr->slot_names[j], queue_attr[a][0], val, want,
					r < 0 ? ": failed" : "");
			}
		}
}

/* The stacks' devices must queue alike where the variants do not ask
 * otherwise: a stack with another scheduler, write-back throttling or
 * read-ahead would be compared, not the variants. Checked after
 * align_queues and anything else (udev's rules) had their turn. 0, or
 * exit 3 after saying which device and setting differ. */
static int check_queues(struct sb_side *sd, struct stack *st, size_t k)
{
	const struct sb_vrun *vr = sd->proto;
	const char *skew = getenv("STACKBENCH_SKEW_QUEUE");
	char p[256];

	/* A test's hook (enter.c refuses it outside a test's state
	 * directory): the last stack's first device reads ahead otherwise. */
	if (skew && *skew && k > 1 && vr->n_slots &&
	    queue_path(st, k - 1, vr->slot_names[0], "read_ahead_kb", p, sizeof(p)) &&
	    sb_sys_write(p, skew) < 0)
		sb_warn("%s: not written", p);
	for (size_t j = 0; j < vr->n_slots; j++)
		for (size_t a = 0; a < ARRAY_SIZE(queue_attr); a++) {
			char ref[128] = "", val[128] = "";
			for (size_t s = 0; s < k; s++) {
				if (!queue_path(st, s, vr->slot_names[j], queue_attr[a][0], p,
						sizeof(p)) ||
				    sb_sys_read(p, s ? val : ref, sizeof(val)) < 0)
					break;
				if (!s || strcmp(ref, val) == 0 ||
				    (queue_attr[a][1] &&
				     sb_config_differ(&st[0].vr.v->cfg, &st[s].vr.v->cfg,
						      queue_attr[a][1])))
					continue;
				sb_error(
				    "refusing: the stacks' %s devices queue differently: %s "
				    "is '%s' on stack 0 (%s), '%s' on stack %zu (%s); side by "
				    "side compares the variants only on equal stacks (--rounds "
				    "runs one at a time)",
				    vr->slot_names[j], queue_attr[a][0], ref, st[0].vr.v->name, val,
				    s, st[s].vr.v->name);
				return SB_EXIT_REFUSED;
			}
		}
	return 0;
}

static void stack_release(struct stack *s)
{
	if (s->in)
		fclose(s->in);
	else if (s->from > 0)
		close(s->from);
	if (s->to > 0)
		close(s->to);
	if (s->pid > 0)
		while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
			;
	s->x.j = NULL;
	sb_exec_release(&s->x);
	free(s->mnt);
	free(s->devs);
	free(s->phase);
	json_object_put(s->pre);
	json_object_put(s->failed);
	json_object_put(s->integ);
	free(s->wl);
}

/* The round's end for each variant: its repeat with what its stack
 * measured (or its failure). */
static void add_repeats(struct sb_side *sd, struct stack *st, size_t k, int code)
{
	for (size_t s = 0; s < k; s++) {
		struct sb_variant *rv = &sd->set_vars[st[s].var];
		/* A stack that never ran (another's build failed first) has
		 * no repeat in this round. */
		if (!st[s].failed && code && !st[s].n_wl)
			continue;
		sb_variant_add_repeat(rv, sd->round, st[s].wl, st[s].n_wl);
		st[s].n_wl = 0;
		if (!rv->n_rep)
			continue;
		struct sb_repeat *rp = &rv->rep[rv->n_rep - 1];
		free(rp->started);
		rp->started = strdup(st[s].started);
		rp->precondition = TAKE_PTR(st[s].pre);
		rp->failed = TAKE_PTR(st[s].failed);
		rp->integrity = TAKE_PTR(st[s].integ);
	}
}

/* After the round's turns, each stack's integrity check (md's check,
 * btrfs scrub, its workloads' data read back), where its variant has it
 * on: every stack is its own variant's, so each check is that variant's
 * alone. One stack after another, the others idle. */
static void check_all(struct sb_side *sd, struct stack *st, size_t k)
{
	for (size_t s = 0; s < k && !*sd->proto->stop; s++)
		if (st[s].built && !st[s].code)
			st[s].integ = sb_integrity_after(
			    &st[s].vr.v->cfg, st[s].vr.v->name, st[s].vr.plan, &st[s].x, st[s].mnt,
			    st[s].wl, st[s].n_wl, st[s].vr.quick, sd->proto->stop);
}

/* Every stack of the round, built in turn into the one journal. A stack
 * whose build failed is left out (its failure noted, counted in *failed)
 * and the others go on, unless --fail-fast; a refusal, a signal or a
 * failure of the journal ends the round (the exit code). */
static int build_all(struct sb_side *sd, struct stack *st, struct sb_journal *j, size_t *made,
		     int *failed)
{
	size_t k = sd->n_active;
	unsigned base = 0;
	int code = 0;

	for (size_t s = 0; s < k && !code; s++) {
		size_t v = sd->active[sb_design_variant(k, sd->seed, sd->round, s)];
		_cleanup_free_ char *now = sb_utc_stamp(2);
		st[s].var = v;
		st[s].vr = *sd->proto;
		st[s].vr.v = &sd->variants[v];
		st[s].vr.plan = &sd->plans[v];
		st[s].vr.index = v;
		snprintf(st[s].started, sizeof(st[s].started), "%s", now ? now : "");
		if (s)
			st[s].vr.before_first_write = NULL;
		*made = s + 1;
		code = build_stack(sd, &st[s], s, j, base);
		base += (unsigned)sd->plans[v].n;
		json_object *a = json_object_new_object();
		json_object_object_add(a, "stack", json_object_new_int((int)s));
		json_object_object_add(a, "variant", json_object_new_int((int)v));
		json_object_array_add(sd->assignment, a);
		if (code == SB_EXIT_FAILED && !sd->fail_fast && !*sd->proto->stop) {
			*failed += 1;
			code = 0;
		}
	}
	return code;
}

int sb_side_round(struct sb_side *sd, int *failed)
{
	size_t k = sd->n_active;
	struct stack *st = calloc(k, sizeof(*st));
	struct sb_journal *j = NULL;
	size_t made = 0; /* stacks begun (built or failed) */
	uint64_t t_round = sb_mono_ns();
	int code = 0, r;

	if (!st)
		return SB_EXIT_FAILED;
	/* The round before kept its images: their records are in the journal,
	 * and this round's steps follow them. */
	if (sd->proto->images_kept)
		r = sb_journal_reopen(sd->proto->rs->journal, &j);
	else
		r = sb_journal_open(sd->proto->rs->journal, sd->proto->rs->run_id, &j);
	if (r < 0) {
		sb_error_errno(r, "%s: cannot create the journal", sd->proto->rs->journal);
		free(st);
		return SB_EXIT_FAILED;
	}
	code = build_all(sd, st, j, &made, failed);
	if (!code) {
		align_queues(sd, st, made);
		code = check_queues(sd, st, made);
	}
	for (size_t s = 0; s < made && !code; s++) {
		if (!st[s].built)
			continue;
		sb_progress_variant_begin(st[s].var, sd->round, st[s].vr.v->name);
		r = fork_child(&st[s]);
		if (r < 0) {
			sb_error_errno(r, "cannot start the workloads of stack %zu", s);
			code = SB_EXIT_FAILED;
		}
	}
	if (!code)
		run_turns(sd, st, k);
	for (size_t s = 0; s < made; s++) {
		if (st[s].pid > 0 && st[s].waiting)
			kill(st[s].pid, SIGKILL);
		if (st[s].code && !code)
			*failed += 1;
	}
	for (size_t s = 0; s < made; s++) {
		if (st[s].pid > 0)
			while (waitpid(st[s].pid, NULL, 0) < 0 && errno == EINTR)
				;
		st[s].pid = 0;
	}
	if (!code)
		check_all(sd, st, made);
	sb_journal_close(j);
	if (*sd->proto->stop && !code)
		code = SB_EXIT_INTERRUPTED;
	struct sb_vrun td = *sd->proto;
	td.v = &sd->variants[st[0].var];
	/* the images stay for the next round unless the run ends here */
	td.keep_images = sd->proto->keep_images && !code;
	code = sb_vrun_teardown(&td, code, &st[0].failed);
	sd->proto->left_behind = td.left_behind;
	sd->proto->images_kept = td.images_kept;
	size_t ran[k], n_ran = 0;
	for (size_t s = 0; s < made; s++)
		if (st[s].built)
			ran[n_ran++] = st[s].var;
	sb_progress_variants_end(ran, n_ran, (double)(sb_mono_ns() - t_round) / 1e9);
	for (size_t s = 0; s < made; s++)
		if (!td.left_behind)
			rmdir(st[s].dir);
	add_repeats(sd, st, made, code);
	for (size_t s = 0; s < made; s++)
		stack_release(&st[s]);
	free(st);
	return code;
}

int sb_side_release(struct sb_vrun *vr, const struct sb_pvariant *v, int code)
{
	struct sb_vrun fin = *vr;
	json_object *failed = NULL;

	if (!vr->images_kept)
		return code;
	fin.v = v;
	fin.keep_images = false;
	code = sb_vrun_teardown(&fin, code, &failed);
	json_object_put(failed);
	vr->left_behind = fin.left_behind;
	vr->images_kept = false;
	/* the stacks' directories, which held the links to the images */
	for (size_t s = 0; !fin.left_behind && s < SB_DESIGN_MAX_K; s++) {
		char d[PATH_MAX];
		snprintf(d, sizeof(d), "%s/s%zu", vr->rs->run_dir, s);
		(void)rmdir(d);
	}
	return code;
}
