/* Millisecond turns (--turn MS): a phase that every stack of the round
 * can run in turns runs on all of them at once, each taking turns of a
 * few milliseconds while the others wait between two of their calls, so
 * that the two sides of a comparison are milliseconds apart instead of a
 * phase: the host's noise moves over seconds and cancels out. Each side
 * keeps its own files, offsets and counters (its own process); its
 * phase's clock stops while it waits (workload/wl.h, sb_phase_turn). */
#include "session/side-int.h"
#include "util/clock.h"
#include "util/log.h"

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

/* A phase stays in turns only while its cost is paid in them: on every
 * stack, no cache flush outside its own turns (a flush costs the device
 * far more than its count says: a journal's commit), at most this share
 * of its I/O there, and at most this share of its turns spent draining
 * what it had in flight. Else it runs whole from the next round on. */
#define LEAK_MAX_PCT 1.0
#define DRAIN_MAX_PCT 1.0

/* Step of the round runs whole (an earlier round's turns did not hold
 * its cost)? */
static bool runs_whole(const struct sb_side *sd, unsigned step)
{
	for (size_t i = 0; sd->whole && i < json_object_array_length(sd->whole); i++) {
		json_object *w = json_object_array_get_idx(sd->whole, i), *v;
		if (json_object_object_get_ex(w, "step", &v) &&
		    json_object_get_int64(v) == (int64_t)step)
			return true;
	}
	return false;
}

bool sb_side_turned_step(const struct sb_side *sd, const struct stack *st, size_t k, unsigned step)
{
	const char *phase = NULL;
	size_t n = 0;

	if (!sd->turn_ns || runs_whole(sd, step))
		return false;
	for (size_t s = 0; s < k; s++) {
		if (!st[s].waiting)
			continue;
		if (!st[s].turnable || !st[s].phase || (phase && strcmp(phase, st[s].phase) != 0))
			return false;
		phase = st[s].phase;
		n++;
	}
	return n >= 2;
}

/* I/O requests of a stack's loop devices: all of them, and the cache
 * flushes among them (the costly ones: a journal's commit). */
struct cnt {
	uint64_t ios, flushes;
};

static void cnt_add(struct cnt *to, struct cnt a, struct cnt b)
{
	to->ios += a.ios - b.ios;
	to->flushes += a.flushes - b.flushes;
}

/* What the stack's loop devices completed so far (its bottom devices;
 * all of them where it has no loop device). */
static struct cnt stack_ios(const struct stack *s)
{
	struct sb_devsnap snap;
	struct cnt n = {0, 0};
	bool loop = false;

	if (!s->devs || sb_devstack_snap(s->devs, &snap) < 0)
		return n;
	for (size_t i = 0; i < s->devs->n; i++)
		loop |= strcmp(s->devs->dev[i].type, "loop") == 0;
	for (size_t i = 0; i < s->devs->n && i < snap.n; i++)
		if (!loop || strcmp(s->devs->dev[i].type, "loop") == 0) {
			n.ios += snap.v[i][SB_ST_READ_IOS] + snap.v[i][SB_ST_WRITE_IOS] +
				 snap.v[i][SB_ST_DISCARD_IOS] + snap.v[i][SB_ST_FLUSH_IOS];
			n.flushes += snap.v[i][SB_ST_FLUSH_IOS];
		}
	return n;
}

/* A turn's length: turn_ns times 0.5 to 1.5, drawn from the run's seed,
 * so that the turns cannot lock onto a periodic noise of the host. */
static uint64_t turn_len(uint64_t *rng, uint64_t turn_ns)
{
	uint64_t z = (*rng += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z ^= z >> 31;
	return turn_ns / 2 + z % (turn_ns ? turn_ns : 1) + 1;
}

struct tally {
	json_object *rec;
	bool in;		   /* still in its phase's turns */
	struct cnt last, own, out; /* its devices' I/O: last count, in its turns, in the others' */
	uint64_t ns, turns;
};

/* Each stack at the step's phase: its record, and "T" (run in turns);
 * the child begins the phase and answers "y" when it is ready. */
static size_t start_all(struct sb_side *sd, struct stack *st, size_t k, unsigned step,
			const size_t *order, struct tally *ty)
{
	size_t live = 0;

	for (size_t pos = 0; pos < k; pos++) {
		size_t s = order[pos];
		struct stack *x = &st[s];
		if (!x->waiting)
			continue;
		json_object *t = ty[s].rec = json_object_new_object();
		json_object_object_add(t, "round", json_object_new_int((int)sd->round));
		json_object_object_add(t, "step", json_object_new_int((int)step));
		json_object_object_add(t, "position", json_object_new_int((int)pos));
		json_object_object_add(t, "stack", json_object_new_int((int)s));
		json_object_object_add(t, "variant", json_object_new_int((int)x->var));
		json_object_object_add(t, "phase", json_object_new_string(x->phase));
		x->waiting = false;
		ty[s].in = write(x->to, "T", 1) == 1;
		live += ty[s].in;
	}
	for (size_t s = 0; s < k; s++) {
		if (!ty[s].in)
			continue;
		int r = sb_side_next_message(&st[s]);
		if (r != 2) {
			ty[s].in = false;
			live--;
			sb_side_turn_over(&st[s], r);
		}
		ty[s].last = stack_ios(&st[s]);
	}
	return live;
}

/* One turn of stack s: "t NS" and its answer; then every stack still in
 * turns has its devices' I/O since the last count charged to this turn,
 * its own or another's. False when s left the turns (its phase ended). */
static bool one_turn(struct sb_side *sd, struct stack *st, size_t k, size_t s, uint64_t len,
		     struct tally *ty)
{
	uint64_t t0 = sb_mono_ns();
	int r;

	if (*sd->proto->stop)
		kill(st[s].pid, SIGINT);
	r = dprintf(st[s].to, "t %llu\n", (unsigned long long)len) < 0
		? -1
		: sb_side_next_message(&st[s]);
	ty[s].ns += sb_mono_ns() - t0;
	ty[s].turns++;
	for (size_t o = 0; o < k; o++) {
		if (!ty[o].in)
			continue;
		struct cnt now = stack_ios(&st[o]);
		cnt_add(o == s ? &ty[o].own : &ty[o].out, now, ty[o].last);
		ty[o].last = now;
	}
	if (r == 2)
		return true;
	ty[s].in = false;
	sb_side_turn_over(&st[s], r);
	return false;
}

/* The rule above for stack s's turns in the step: why the phase must run
 * whole (into why), or false. */
static bool leaked(const struct stack *x, size_t s, const struct tally *ty, char *why, size_t len)
{
	double leak = ty->own.ios ? 100.0 * (double)ty->out.ios / (double)ty->own.ios : 0,
	       drain = ty->ns ? 100.0 * (double)x->drained_ns / (double)ty->ns : 0;

	if (ty->out.flushes)
		snprintf(why, len, "stack %zu: %llu cache flushes outside its turns", s,
			 (unsigned long long)ty->out.flushes);
	else if (leak > LEAK_MAX_PCT)
		snprintf(why, len,
			 "stack %zu: %.1f%% of its I/O outside its turns (more than %g%%)", s, leak,
			 LEAK_MAX_PCT);
	else if (drain > DRAIN_MAX_PCT)
		snprintf(why, len,
			 "stack %zu: %.1f%% of its turns spent draining its I/O in flight (more "
			 "than %g%%)",
			 s, drain, DRAIN_MAX_PCT);
	else
		return false;
	return true;
}

/* After the step: a phase whose cost did not stay in its turns on some
 * stack runs whole from the next round on; the schedule and run.log say
 * why. */
static void judge(struct sb_side *sd, const struct stack *st, size_t k, unsigned step,
		  const struct tally *ty)
{
	char why[160];

	for (size_t s = 0; s < k; s++) {
		if (!ty[s].rec || !leaked(&st[s], s, &ty[s], why, sizeof(why)) || !sd->whole)
			continue;
		json_object *w = json_object_new_object(), *ph = NULL;
		json_object_object_get_ex(ty[s].rec, "phase", &ph);
		json_object_object_add(w, "step", json_object_new_int((int)step));
		json_object_object_add(w, "phase", json_object_get(ph));
		json_object_object_add(w, "from_round", json_object_new_int((int)sd->round + 1));
		json_object_object_add(w, "why", json_object_new_string(why));
		json_object_array_add(sd->whole, w);
		dprintf(sd->proto->rs->log_fd,
			"== turns: step %u (%s) runs whole from round %u: %s\n", step + 1,
			json_object_get_string(ph), sd->round + 2, why);
		return;
	}
}

void sb_side_take_turns(struct sb_side *sd, struct stack *st, size_t k, unsigned step,
			const size_t *order)
{
	struct tally ty[k];
	struct host h0, h1;
	json_object *q = json_object_new_object();
	uint64_t rng = sd->seed ^ ((uint64_t)sd->round << 32) ^ step, t_step;
	size_t live;

	memset(ty, 0, sizeof(ty));
	for (size_t s = 0; s < k; s++)
		st[s].drained_ns = 0;
	sb_side_quiet_all(sd, st, k, SIZE_MAX, q);
	sb_side_host_read(&h0);
	t_step = sb_mono_ns();
	for (size_t s = 0; s < k; s++)
		if (st[s].waiting) {
			dprintf(sd->proto->rs->log_fd,
				"== turns: round %u, step %u, %s, every stack in turns of about "
				"%.0f ms\n",
				sd->round + 1, step + 1, st[s].phase, (double)sd->turn_ns / 1e6);
			break;
		}
	live = start_all(sd, st, k, step, order, ty);
	while (live)
		for (size_t pos = 0; pos < k && live; pos++) {
			size_t s = order[pos];
			if (ty[s].in &&
			    !one_turn(sd, st, k, s, live > 1 ? turn_len(&rng, sd->turn_ns) : 0, ty))
				live--;
		}
	sb_side_host_read(&h1);
	judge(sd, st, k, step, ty);
	double secs = (double)(sb_mono_ns() - t_step) / 1e9;
	json_object *wait = NULL;
	json_object_object_get_ex(q, "idle_wait_ms", &wait);
	for (size_t pos = 0; pos < k; pos++) {
		size_t s = order[pos];
		json_object *t = ty[s].rec, *tu = json_object_new_object();
		if (!t) {
			json_object_put(tu);
			continue;
		}
		json_object_object_add(
		    t, "start_s", json_object_new_double((double)(t_step - sd->t_origin) / 1e9));
		json_object_object_add(t, "secs", json_object_new_double((double)ty[s].ns / 1e9));
		if (wait)
			json_object_object_add(t, "idle_wait_ms", json_object_get(wait));
		sb_side_host_record(t, &h0, &h1, secs);
		json_object_object_add(tu, "turns", json_object_new_int64((int64_t)ty[s].turns));
		json_object_object_add(tu, "turn_ms",
				       json_object_new_double((double)sd->turn_ns / 1e6));
		json_object_object_add(tu, "ios", json_object_new_int64((int64_t)ty[s].own.ios));
		json_object_object_add(tu, "flushes",
				       json_object_new_int64((int64_t)ty[s].own.flushes));
		json_object_object_add(tu, "ios_outside",
				       json_object_new_int64((int64_t)ty[s].out.ios));
		json_object_object_add(tu, "flushes_outside",
				       json_object_new_int64((int64_t)ty[s].out.flushes));
		json_object_object_add(t, "turned", tu);
		dprintf(sd->proto->rs->log_fd,
			"== turns: stack %zu (%s): %llu turns, %.2f s, I/O %llu in its turns (%llu "
			"flushes), %llu in the others' (%llu flushes)\n",
			s, st[s].vr.v->name, (unsigned long long)ty[s].turns,
			(double)ty[s].ns / 1e9, (unsigned long long)ty[s].own.ios,
			(unsigned long long)ty[s].own.flushes, (unsigned long long)ty[s].out.ios,
			(unsigned long long)ty[s].out.flushes);
		json_object_array_add(sd->turns, t);
	}
	json_object_put(q);
}
