/* The phase runner: a timed phase's quiescence, time limit, progress line,
 * per-second series, warm-up and device counters (sb_phase_*). */
#include "workload/wl.h"
#include "workload/workload-int.h"
#include "probe/devstat.h"
#include "util/macro.h"
#include "workload/progress.h"
#include "util/size.h"
#include "util/strutil.h"

#include <math.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* ---- phases ---- */

static double ru_secs(const struct rusage *r)
{
	return r->ru_utime.tv_sec + r->ru_utime.tv_usec / 1e6 + r->ru_stime.tv_sec +
	       r->ru_stime.tv_usec / 1e6;
}

#define PROGRESS_NS 500000000ull
#define SAMPLE_NS 1000000000ull
#define SERIES_MAX 7200 /* points: two hours of seconds */

struct sb_series {
	size_t n, cap;
	uint64_t last_t, last_done;
	struct sb_hist *prev, *delta; /* for p99 per interval; allocated at the first sample */
	double *t, *iops, *mbps, *p99;
};

static void series_free(struct sb_series *s)
{
	if (!s)
		return;
	free(s->prev);
	free(s->delta);
	free(s->t);
	free(s->iops);
	free(s->mbps);
	free(s->p99);
	free(s);
}

/* Preallocated for the phase's time limit, so the samples never allocate. */
static struct sb_series *series_new(uint64_t timeout_ns)
{
	struct sb_series *s = calloc(1, sizeof(*s));
	uint64_t cap = timeout_ns / SAMPLE_NS + 2;
	if (!s)
		return NULL;
	s->cap = cap > SERIES_MAX ? SERIES_MAX : cap;
	s->t = calloc(s->cap, sizeof(double));
	s->iops = calloc(s->cap, sizeof(double));
	s->mbps = calloc(s->cap, sizeof(double));
	s->p99 = calloc(s->cap, sizeof(double));
	if (!s->t || !s->iops || !s->mbps || !s->p99) {
		series_free(s);
		return NULL;
	}
	return s;
}

/* p99 of what h gained since prev, then prev = h. */
static double interval_p99(struct sb_series *s, const struct sb_hist *h)
{
	struct sb_hist *d = s->delta;
	if (!s->prev) {
		s->prev = malloc(sizeof(*s->prev));
		s->delta = d = malloc(sizeof(*s->delta));
		if (!s->prev || !d)
			return 0;
		sb_hist_init(s->prev);
	}
	sb_hist_init(d);
	for (unsigned i = 0; i < SB_HIST_BUCKETS; i++)
		d->b[i] = h->b[i] - s->prev->b[i];
	d->count = h->count - s->prev->count;
	d->min = 0;
	d->max = UINT64_MAX;
	*s->prev = *h;
	return d->count ? sb_hist_percentile(d, 0.99) / 1e6 : 0;
}

static void sample(struct sb_phase *p, uint64_t now, uint64_t done)
{
	struct sb_series *s = p->series;
	if (!s || s->n >= s->cap || now <= s->last_t)
		return;
	double dt = (now - s->last_t) / 1e9, units = (double)(done - s->last_done);
	double ops = p->bytes ? (p->op_bytes ? units / p->op_bytes : 0) : units;
	double bytes = p->bytes ? units : units * p->op_bytes;
	s->t[s->n] = (now - p->t0) / 1e9;
	s->iops[s->n] = ops / dt;
	s->mbps[s->n] = bytes / dt / 1048576.0;
	s->p99[s->n] = p->hist ? interval_p99(s, p->hist) : NAN; /* null: no histogram */
	s->n++;
	s->last_t = now;
	s->last_done = done;
}

static void next_check(struct sb_phase *p)
{
	uint64_t n = p->deadline < p->next_progress ? p->deadline : p->next_progress;
	p->next_check = p->next_sample < n ? p->next_sample : n;
}

static json_object *darray(const double *v, size_t n)
{
	json_object *a = json_object_new_array();
	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, isnan(v[i]) ? NULL : json_object_new_double(v[i]));
	return a;
}

/* Dirty + Writeback of /proc/meminfo in KiB; -1 when unreadable. */
static long long dirty_kb(void)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/meminfo", "re");
	char line[128];
	long long sum = 0, v;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		const char *s = strncmp(line, "Dirty:", 6) == 0	       ? line + 6
				: strncmp(line, "Writeback:", 10) == 0 ? line + 10
								       : NULL;
		if (s && (v = strtoll(s, NULL, 10)) > 0)
			sum += v;
	}
	return sum;
}

/* The share of the last 10 s in which some runnable task waited for a CPU
 * (/proc/pressure/cpu "some avg10", percent); -1 without PSI. Other work
 * on the host is what no pairing of rounds cancels when it comes and goes
 * faster than a round: on the 2-core machine this was measured on, six
 * other jobs held it at 70-95% and the rounds' CV at 25-75%. */
static double cpu_pressure(void)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/pressure/cpu", "re");
	char line[160], *end;
	if (!f || !fgets(line, sizeof(line), f) || strncmp(line, "some avg10=", 11) != 0)
		return -1;
	double v = strtod(line + 11, &end);
	return end > line + 11 && v >= 0 ? v : -1;
}

/* The host's speed just before a phase: the time of a fixed loop of integer
 * additions (about 10 ms on a 2026 x86 core at full speed). A shared VM's
 * CPU changes speed under the guest (a neighbour on its sibling thread, the
 * host's clock): on the 2-core machine this was written on the same loop
 * took 5.6 or 10.4 ms, in stretches of 0.1-1 s, with the machine otherwise
 * idle. The report sets these probes' spread beside the rounds' (noise.c):
 * a change of the host faster than a round is what pairing cannot cancel. */
#define HOST_PROBE_ITERS 14000000ull

static double host_probe_ms(void)
{
	volatile uint64_t x = 0;
	uint64_t t0 = sb_mono_ns();
	for (uint64_t i = 0; i < HOST_PROBE_ITERS; i++)
		x += i;
	return (double)(sb_mono_ns() - t0) / 1e6;
}

/* Quiescence before a phase: writeback of what came before (Dirty +
 * Writeback under QUIET_DIRTY_KB; the count is the whole machine's, hence a
 * threshold rather than zero), no I/O in flight on the stack's devices, md
 * not syncing. The wait is bounded; a phase that starts with work still
 * going is flagged in extra.quiesce. */
#define QUIET_DIRTY_KB (16 * 1024)
#define QUIET_POLL_NS 20000000ull

static void quiesce(struct sb_wl_ctx *c, const char *name)
{
	uint64_t t0 = sb_mono_ns(), limit = (c->env->quick ? 2ull : 30ull) * 1000000000ull;
	char why[160] = "";
	long long dk;
	bool busy, synced;

	/* What the phases before left dirty in this file system goes first
	 * (its own, not the whole machine's: other users' writeback is not
	 * ours to wait for beyond the threshold below). */
	synced = c->work_fd >= 0 && syncfs(c->work_fd) == 0;
	for (;;) {
		dk = dirty_kb();
		busy = dk > QUIET_DIRTY_KB;
		if (busy)
			snprintf(why, sizeof(why), "%lld KiB dirty or under writeback", dk);
		else if (c->devs)
			busy = sb_devstack_busy(c->devs, why, sizeof(why));
		if (!busy || sb_mono_ns() - t0 >= limit || *c->env->stop)
			break;
		struct timespec ts = {0, (long)QUIET_POLL_NS};
		nanosleep(&ts, NULL);
	}
	json_object *q = json_object_new_object();
	int64_t waited_ms = (int64_t)((sb_mono_ns() - t0) / 1000000);
	json_object_object_add(q, "wait_ms", json_object_new_int64(waited_ms));
	json_object_object_add(q, "dirty_kb", json_object_new_int64(dk));
	json_object_object_add(q, "busy", json_object_new_boolean(busy));
	json_object_object_add(q, "synced", json_object_new_boolean(synced));
	double psi = cpu_pressure();
	if (psi >= 0)
		json_object_object_add(q, "cpu_pressure_pct", json_object_new_double(psi));
	json_object_object_add(q, "host_probe_ms", json_object_new_double(host_probe_ms()));
	/* The phase asked for a cold cache (drop=) and got it. */
	json_object_object_add(q, "cold_cache", json_object_new_boolean(c->cold));
	c->cold = false;
	if (c->cpus[0])
		json_object_object_add(q, "cpus", json_object_new_string(c->cpus));
	if (busy)
		json_object_object_add(q, "reason", json_object_new_string(why));
	json_object_object_add(sb_wl_extra_obj(c, "quiesce"), name, q);
	if (busy)
		sb_wl_extra_bool(c, "started_busy", true);
}

void sb_phase_begin(struct sb_wl_ctx *c, struct sb_phase *p, const char *name, uint64_t total)
{
	bool turned =
	    c->env->gate && c->env->gate(c->env->gate_ud, name, c->turnable && c->env->turn);
	uint64_t first = UINT64_MAX;

	c->turnable = false;
	memset(p, 0, sizeof(*p));
	p->c = c;
	p->name = name;
	p->total = total;
	quiesce(c, name);
	if (c->devs && (p->dev0 = malloc(sizeof(*p->dev0))))
		sb_devstack_snap(c->devs, p->dev0);
	sb_phase_cost_begin(p);
	p->series = series_new(c->timeout_ns);
	getrusage(RUSAGE_SELF, &p->ru0);
	/* In turns: ready, and the clock starts with the first turn. */
	if (turned)
		first = c->env->turn(c->env->gate_ud, 0);
	p->t0 = sb_mono_ns();
	p->turn_end = first == UINT64_MAX ? UINT64_MAX : p->t0 + first;
	if (p->series)
		p->series->last_t = p->t0;
	p->deadline = p->t0 + c->timeout_ns;
	p->next_progress = c->tty ? p->t0 + PROGRESS_NS : UINT64_MAX;
	p->next_sample = p->t0 + SAMPLE_NS;
	p->ramp_t = p->t0;
	next_check(p);
}

/* The line updated in place on a terminal: where the run is, how far the
 * phase is (of its total, or of its time limit when it has none), its rate. */
static void show_progress(struct sb_phase *p, uint64_t now, uint64_t done)
{
	const char *w = sb_progress_where();
	double secs = (now - p->t0) / 1e9;
	char pct[24] = "";
	if (p->total)
		snprintf(pct, sizeof(pct), " %3.0f%%", 100.0 * (double)done / (double)p->total);
	else
		snprintf(pct, sizeof(pct), " %.0fs", secs);
	double rate = secs > 0 ? (double)done / secs : 0.0;
	if (p->bytes)
		fprintf(stderr, "\r\033[K%s%s%s%s: %s%s %.1f MB/s", *w ? "[" : "", w,
			*w ? "] " : "", p->c->spec->ops->name, p->name, pct, rate / 1048576.0);
	else
		fprintf(stderr, "\r\033[K%s%s%s%s: %s%s %.0f/s", *w ? "[" : "", w, *w ? "] " : "",
			p->c->spec->ops->name, p->name, pct, rate);
	p->shown = true;
	p->next_progress = now + PROGRESS_NS;
}

bool sb_phase_check_slow(struct sb_phase *p, uint64_t now, uint64_t done)
{
	if (*p->c->env->stop) {
		p->stopped = true;
		return true;
	}
	if (now >= p->deadline) {
		p->expired = true;
		return true;
	}
	if (p->progress)
		done = p->progress(p->progress_arg);
	if (now >= p->next_sample) {
		sample(p, now, done);
		if (!p->ramped && p->c->ramp_ns && now - p->t0 >= p->c->ramp_ns) {
			p->ramped = true;
			p->ramp_t = now;
			p->ramp_done = done;
		}
		while (p->next_sample <= now)
			p->next_sample += SAMPLE_NS;
	}
	if (now >= p->next_progress)
		show_progress(p, now, done);
	next_check(p);
	return false;
}

void sb_phase_sample_threads(struct sb_phase *p)
{
	while (__atomic_load_n(&p->running, __ATOMIC_ACQUIRE) > 0 && !*p->c->env->stop) {
		uint64_t now = sb_mono_ns(), wait = 100000000ull;
		if (now >= p->next_sample) {
			uint64_t done = p->progress ? p->progress(p->progress_arg) : 0;
			sample(p, now, done);
			if (!p->ramped && p->c->ramp_ns && now - p->t0 >= p->c->ramp_ns) {
				p->ramped = true;
				p->ramp_t = now;
				p->ramp_done = done;
			}
			while (p->next_sample <= now)
				p->next_sample += SAMPLE_NS;
		}
		if (now >= p->next_progress)
			show_progress(p, now, p->progress ? p->progress(p->progress_arg) : 0);
		if (p->next_sample - now < wait)
			wait = p->next_sample - now;
		struct timespec ts = {0, (long)wait};
		nanosleep(&ts, NULL);
	}
}

/* ramp=: the warm-up left out of the phase's rate, recorded apart (a
 * cache filling up is its own figure): extra.warmup.PHASE. */
static void phase_warmup(struct sb_phase *p)
{
	double secs = p->ramped ? (double)(p->ramp_t - p->t0) / 1e9 : 0;
	json_object *o;
	if (!p->ramped || secs <= 0)
		return;
	o = json_object_new_object();
	json_object_object_add(o, "secs", json_object_new_double(secs));
	json_object_object_add(o, "done", json_object_new_uint64(p->ramp_done));
	json_object_object_add(o, "unit", json_object_new_string(p->bytes ? "bytes" : "ops"));
	json_object_object_add(o, "per_s", json_object_new_double((double)p->ramp_done / secs));
	json_object_object_add(sb_wl_extra_obj(p->c, "warmup"), p->name, o);
}

double sb_phase_rate(const struct sb_phase *p, double done)
{
	double secs = p->secs;
	if (p->ramped) {
		secs -= (p->ramp_t - p->t0) / 1e9;
		done -= (double)p->ramp_done;
	}
	return secs > 0 ? done / secs : 0;
}

/* The top device read less than this share of what the workload read: the
 * rest came from a cache (page cache, or a cache below the file system). */
#define CACHE_READ_SHARE 0.5
/* Too little read to judge (metadata, read-ahead noise). */
#define CACHE_MIN_READ (1u << 20)

static void phase_devstat(struct sb_phase *p, const struct sb_devsnap *now)
{
	struct sb_wl_ctx *c = p->c;

	if (!c->devs || !p->dev0 || !now)
		return;
	json_object_object_add(sb_wl_extra_obj(c, "devstat"), p->name,
			       sb_devstat_json(c->devs, p->dev0, now, p->rbytes, p->wbytes));
	if (p->rbytes >= CACHE_MIN_READ) {
		uint64_t top = sb_devstat_top_bytes(c->devs, p->dev0, now, false);
		if ((double)top < CACHE_READ_SHARE * (double)p->rbytes) {
			c->res->flags |= SB_RES_CACHE_AFFECTED;
			json_object *by = sb_wl_extra_obj(c, "cache_affected_by"), *ph;
			if (!json_object_object_get_ex(by, "device", &ph)) {
				ph = json_object_new_array();
				json_object_object_add(by, "device", ph);
			}
			json_object_array_add(ph, json_object_new_string(p->name));
		}
	}
}

static void phase_series(struct sb_phase *p, uint64_t now)
{
	struct sb_series *s = p->series;
	struct sb_wl_ctx *c = p->c;
	if (!s)
		return;
	/* The last, partial interval, when it is long enough to mean something. */
	if (p->done && now - s->last_t >= SAMPLE_NS / 4)
		sample(p, now, p->done);
	if (s->n) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "interval_s", json_object_new_int(1));
		json_object_object_add(
		    o, "ramp_s", json_object_new_double(p->ramped ? (p->ramp_t - p->t0) / 1e9 : 0));
		json_object_object_add(o, "t", darray(s->t, s->n));
		json_object_object_add(o, "iops", darray(s->iops, s->n));
		json_object_object_add(o, "mbps", darray(s->mbps, s->n));
		json_object_object_add(o, "p99_ms", darray(s->p99, s->n));
		json_object_object_add(sb_wl_extra_obj(c, "series"), p->name, o);
	}
	series_free(s);
	p->series = NULL;
}

void sb_phase_turn(struct sb_phase *p, uint64_t now)
{
	uint64_t w0 = sb_mono_ns(), len = p->c->env->turn(p->c->env->gate_ud, p->drain_ns);

	p->paused += sb_mono_ns() - w0;
	p->turns++;
	p->turn_end = len == UINT64_MAX ? UINT64_MAX : now + len;
}

/* A phase that ran in turns says so (extra.turned.PHASE): how many turns
 * it waited for, and how long. */
static void phase_turned(struct sb_phase *p)
{
	json_object *o;
	if (!p->turns)
		return;
	o = json_object_new_object();
	json_object_object_add(o, "turns", json_object_new_int64((int64_t)p->turns));
	json_object_object_add(o, "waited_s", json_object_new_double((double)p->paused / 1e9));
	/* io_uring: the drain at the turns' ends, in the phase's own time */
	if (p->drain_ns)
		json_object_object_add(
		    o, "drain_pct",
		    json_object_new_double(
			p->secs > 0 ? 100.0 * (double)p->drain_ns / (p->secs * 1e9) : 0));
	json_object_object_add(sb_wl_extra_obj(p->c, "turned"), p->name, o);
}

void sb_phase_end(struct sb_phase *p)
{
	struct rusage ru;
	uint64_t now = sb_phase_now(p);

	getrusage(RUSAGE_SELF, &ru);
	p->secs = (now - p->t0) / 1e9;
	p->cpu_pct = p->secs > 0 ? 100.0 * (ru_secs(&ru) - ru_secs(&p->ru0)) / p->secs : 0;
	if (*p->c->env->stop)
		p->stopped = true;
	if (p->shown)
		fputs("\r\033[K", stderr);
	sb_progress_phase(p->c->spec->ops->name, p->name, p->secs,
			  p->secs > 0 ? (double)p->done / p->secs : 0, p->bytes, p->c->tty);
	if (p->expired || p->stopped) {
		struct sb_wl_result *r = p->c->res;
		r->flags |= SB_RES_INCOMPLETE;
		if (!r->error && asprintf(&r->error, "phase '%s' %s", p->name,
					  p->stopped ? "interrupted" : "hit its time limit") < 0)
			r->error = NULL;
	}
	phase_series(p, now);
	phase_warmup(p);
	phase_turned(p);
	/* The counters after the file system wrote back what the phase left
	 * dirty: its writes are charged to it, not lost between phases (the
	 * time above was taken before). */
	if (p->c->work_fd >= 0)
		syncfs(p->c->work_fd);
	struct sb_devsnap *snap = p->c->devs ? malloc(sizeof(*snap)) : NULL;
	if (snap)
		sb_devstack_snap(p->c->devs, snap);
	phase_devstat(p, snap);
	sb_phase_cost_end(p, &ru, snap);
	free(snap);
	free(p->dev0);
	p->dev0 = NULL;
}

int sb_wl_check_space(struct sb_wl_ctx *c, uint64_t bytes)
{
	struct statvfs sv;
	char need[32], avail[32], total[32];
	if (statvfs(c->env->dir, &sv) < 0)
		return sb_wl_fail(c, -errno, "%s: statvfs", c->env->dir);
	uint64_t free_b = (uint64_t)sv.f_bavail * sv.f_frsize,
		 all = (uint64_t)sv.f_blocks * sv.f_frsize;
	sb_wl_extra_int(c, "fs_free_bytes", (int64_t)free_b);
	if (bytes <= free_b)
		return 0;
	sb_format_size(bytes, need, sizeof(need));
	sb_format_size(free_b, avail, sizeof(avail));
	sb_format_size(all, total, sizeof(total));
	/* The advice names the workload's own size key (mixed has files= and
	 * maxfile=, no size=). */
	bool has_size = false;
	for (const struct sb_wl_opt *o = c->spec->ops->opts; o && o->name; o++)
		has_size |= strcmp(o->name, "size") == 0;
	sb_wl_fail(c, 0,
		   "the data set (%s) does not fit in %s (%s free of %s): give a smaller %s "
		   "(at most %s), size data sets by less RAM with --ram SIZE, or use a bigger "
		   "device",
		   need, c->env->dir, avail, total,
		   has_size ? "size=" : "data set (fewer files=, a smaller maxfile=)", avail);
	return -ENOSPC;
}
