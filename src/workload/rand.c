/* rand:BS: the iozone-style random test. Random reads, then random writes, of
 * BS records over a data set, buffered or O_DIRECT, from threads=N threads;
 * MB/s (2^20 bytes), IOPS and the latency of every operation. The psync hot
 * path is pread/pwrite into a preallocated aligned buffer, one clock read per
 * operation (the end of one is the start of the next) and a histogram add;
 * engine=io_uring keeps qd=N records in flight per thread (src/engine/),
 * each timed from submission to completion. */
#include "workload/wl.h"
#include "engine/engine.h"
#include "workload/rand-int.h"
#include "util/macro.h"
#include "util/size.h"
#include "util/strutil.h"

#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

static const struct sb_wl_opt rand_opts[] = {
    SB_WO(struct rand_opts, size, "size", SB_WO_SIZE, NULL, "64M", 4096, 0,
	  "data set; default twice the RAM, smaller is flagged cache-affected unless direct=1"),
    SB_WO(struct rand_opts, ops, "ops", SB_WO_UINT, NULL, NULL, 1, 0,
	  "operations per test (all threads); default size/BS, unlimited with time="),
    SB_WO(struct rand_opts, time, "time", SB_WO_DURATION, "0", NULL, 0, 0,
	  "run each test this long (0: by ops)"),
    SB_WO(struct rand_opts, threads, "threads", SB_WO_UINT, "1", NULL, 1, 256,
	  "threads, each with its own file descriptor"),
    SB_WO(struct rand_opts, direct, "direct", SB_WO_BOOL, "0", NULL, 0, 1, "O_DIRECT"),
    SB_WO(struct rand_opts, read, "read", SB_WO_BOOL, "1", NULL, 0, 1, "run the random read test"),
    SB_WO(struct rand_opts, write, "write", SB_WO_BOOL, "1", NULL, 0, 1,
	  "run the random write test"),
    SB_WO(struct rand_opts, fsync, "fsync", SB_WO_BOOL, "1", NULL, 0, 1,
	  "count a final fsync in the write test's time"),
    SB_WO(struct rand_opts, verify, "verify", SB_WO_BOOL, "1", NULL, 0, 1,
	  "check every record read, and read the file back after the writes (untimed)"),
    SB_WO(struct rand_opts, drop, "drop", SB_WO_BOOL, "1", NULL, 0, 1,
	  "drop the page cache before the tests"),
    SB_WL_SEED_ROW(struct rand_opts, "seed of the offsets"),
    SB_WL_TEST_TIMEOUT_ROW(struct rand_opts),
    SB_WL_DATA_ROWS(struct rand_opts),
    SB_WL_RAMP_ROW(struct rand_opts, "warm-up at the start of each test left out of its rates"),
    SB_ENGINE_OPT_ROWS(struct rand_opts, eng),
    SB_WO(struct rand_opts, rate, "rate", SB_WO_UINT, "0", NULL, 0, 10000000,
	  "open loop: issue this many records per second (all threads) on a schedule, "
	  "each timed from when it was due (0: as fast as possible)"),
    SB_WO(struct rand_opts, burst, "burst", SB_WO_UINT, "0", NULL, 0, 0,
	  "with rate=: records per burst, then idle= without I/O (0: no bursts)"),
    SB_WO(struct rand_opts, idle, "idle", SB_WO_DURATION, "1s", NULL, 0, 0,
	  "with burst=: the pause between bursts"),
    {0},
};

static bool use_uring(const struct sb_wl_spec *s)
{
	return sb_engine_opts_uring(&rand_o(s)->eng);
}

/* The engine exists here and the keys fit it: at spec check time, so that a
 * kernel without io_uring is an error before anything is built. */
static int rand_check(const struct sb_wl_spec *s, char **why)
{
	if (rand_o(s)->burst && !rand_o(s)->rate) {
		*why = strdup("burst= needs rate= (the pace inside a burst)");
		return -EINVAL;
	}
	if (rand_o(s)->burst && use_uring(s)) {
		*why = strdup("burst= is done for engine=psync only so far (rate= alone works with "
			      "io_uring)");
		return -EINVAL;
	}
	return sb_wl_engine_check(s, &rand_o(s)->eng, rand_o(s)->direct, why);
}

static int parse_bs(const char *arg, struct sb_wl_spec *s, char **why)
{
	uint64_t bs;
	if (sb_parse_size(arg, &bs, false, NULL) < 0 || bs < SB_SECTOR || bs % SB_SECTOR ||
	    bs > (64u << 20)) {
		if (asprintf(why, "bad record size '%s': a multiple of 512 from 512 to 64M", arg) <
		    0)
			*why = NULL;
		return -EINVAL;
	}
	s->a[0] = bs;
	return 0;
}

/* verify=: a record written is marked in the bitmap, one read checked. */
static inline void verify_one(struct rand_thread *t, const char *buf, uint64_t b, uint64_t off)
{
	const struct rand_job *j = t->j;
	if (j->write)
		__atomic_fetch_or(&j->bitmap[b / 64], 1ull << (b % 64), __ATOMIC_RELAXED);
	else
		t->bad += sb_data_check(j->data, buf, off, j->bs, 1);
}

static void *rand_main(void *arg)
{
	struct rand_thread *t = arg;
	const struct rand_job *j = t->j;
	const uint64_t bs = j->bs, nb = j->nblocks, end = j->end_at;
	char *buf = sb_wl_alloc_aligned(bs);
	uint64_t t0, t1, i;

	if (!buf) {
		t->err = -ENOMEM;
		return NULL;
	}
	/* Millisecond turns: the phase's clock stops between this stack's
	 * turns (the one thread of a turnable phase). */
	uint64_t paused = j->p->paused, turn_end = j->p->turn_end;
	t0 = sb_mono_ns() - paused;
	/* Open loop: record k is due at start + k slots (plus the idle time of
	 * the bursts before it); its latency counts from then, so a device that
	 * stalls shows as late records, not as a queue that hides it. */
	uint64_t due = t0, in_burst = 0,
		 late_after = j->interval_ns > 1000000 ? j->interval_ns : 1000000;
	struct sb_hist bh;
	sb_hist_init(&bh);
	for (i = 0; i < t->n; i++) {
		uint64_t b = pick(&t->rng, nb), off = b * bs;
		if (j->interval_ns) {
			uint64_t now = sb_mono_ns();
			if (now < due) {
				struct timespec ts = {(time_t)(due / 1000000000u),
						      (long)(due % 1000000000u)};
				while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
				       EINTR)
					;
			} else if (now - due > late_after) {
				t->late++;
			}
			t0 = due;
			due += j->interval_ns;
			if (j->burst && ++in_burst == j->burst) {
				in_burst = 0;
				due += j->idle_ns;
			}
		}
		ssize_t r;
		if (j->write) {
			/* Fresh data per record, in the record's time (as fio's
			 * refill_buffers). */
			sb_data_fill(j->data, buf, off, bs, 2);
			r = pwrite(j->fd, buf, bs, (off_t)off);
		} else {
			r = pread(j->fd, buf, bs, (off_t)off);
		}
		t1 = sb_mono_ns() - paused;
		if (__builtin_expect(j->delay_pct != 0, 0))
			t1 = sb_rand_delay(t0, t1, j->delay_pct, paused);
		if (__builtin_expect(r != (ssize_t)bs, 0)) {
			t->err = r < 0 ? -errno : -EIO;
			__atomic_store_n(j->failed, 1, __ATOMIC_RELAXED);
			break;
		}
		sb_hist_add(&t->h, t1 - t0);
		if (j->burst) {
			sb_hist_add(&bh, t1 - t0);
			if (in_burst == 0) { /* that was a burst's last record */
				if (t->n_bursts < t->max_bursts)
					t->burst_p99[t->n_bursts++] =
					    sb_hist_percentile(&bh, 0.99) / 1e6;
				sb_hist_init(&bh);
			}
		}
		if (j->verify)
			verify_one(t, buf, b, off);
		__atomic_store_n(&t->live, i + 1, __ATOMIC_RELAXED);
		if (__builtin_expect(t1 >= end || __atomic_load_n(j->failed, __ATOMIC_RELAXED),
				     0)) {
			i++;
			break;
		}
		if (t->id == 0) {
			if (__builtin_expect(sb_phase_over(j->p, t1, i * (t->n ? 1 : 0)), 0)) {
				i++;
				break;
			}
		} else if (__builtin_expect(t1 >= j->p->deadline || *j->stop, 0)) {
			if (!*j->stop)
				__atomic_store_n(&j->p->expired, true, __ATOMIC_RELAXED);
			i++;
			break;
		}
		if (__builtin_expect(t1 >= turn_end, 0))
			sb_phase_turn_at(j->p, t1, &paused, &turn_end);
		t0 = t1;
	}
	t->done = i;
	free(buf);
	return NULL;
}

struct live_sum {
	struct rand_thread *t;
	unsigned n;
};

static uint64_t live_total(void *arg)
{
	const struct live_sum *l = arg;
	uint64_t sum = 0;
	for (unsigned i = 0; i < l->n; i++)
		sum += __atomic_load_n(&l->t[i].live, __ATOMIC_RELAXED);
	return sum;
}

/* Opens the file once per thread (each thread its own file description). */
static int rand_open_fds(struct sb_wl_ctx *c, const struct rand_job *j, const char *path, int *fds,
			 unsigned n)
{
	const struct sb_wl_spec *sp = c->spec;

	for (unsigned i = 0; i < n; i++) {
		fds[i] = open(path, (j->write ? O_RDWR : O_RDONLY) | O_CLOEXEC |
					(rand_o(sp)->direct ? O_DIRECT : 0));
		if (fds[i] < 0) {
			int rc = sb_wl_fail(c, -errno, "%s", path);
			for (unsigned k = 0; k < i; k++)
				close(fds[k]);
			return rc;
		}
	}
	return 0;
}

/* Thread i of n: its share of the ops, its own seed, and its burst p99
 * slots. */
static void rand_thread_init(const struct sb_wl_ctx *c, struct rand_thread *t,
			     const struct rand_job *ji, unsigned i, unsigned n, uint64_t ops)
{
	const struct sb_wl_spec *sp = c->spec;

	*t = (struct rand_thread){.j = ji,
				  .sp = sp,
				  .id = i,
				  .n = ops == UINT64_MAX ? UINT64_MAX : ops / n + (i < ops % n),
				  .rng = (rand_o(sp)->com.seed + 1) * 0x9E3779B97F4A7C15ull ^
					 (i + 1) * 0xBF58476D1CE4E5B9ull ^ (ji->write ? 0x55 : 0)};
	sb_hist_init(&t->h);
	if (ji->burst) {
		/* One p99 per burst, preallocated: nothing allocated while timing. */
		uint64_t per = ops == UINT64_MAX ? 0 : t->n / ji->burst + 1;
		uint64_t by_time = (rand_o(sp)->time ? rand_o(sp)->time : c->timeout_ns / 1000000) *
				       1000000ull / (ji->idle_ns + 1) +
				   1;
		t->max_bursts = (size_t)(per && per < by_time ? per : by_time);
		if (t->max_bursts > 1000000)
			t->max_bursts = 1000000;
		t->burst_p99 = calloc(t->max_bursts, sizeof(double));
		if (!t->burst_p99)
			t->max_bursts = 0;
	}
}

/* A paced phase (rate=): its rate is the schedule's as long as the stack
 * keeps up, so the metric just added is no headline figure, and the
 * phase's p99 latency is (extra.paced lists the phase; the report reads
 * it). Without this a comparison of two stacks called their bursts
 * "equal within 5%" because both kept the pace. */
static void paced(struct sb_wl_ctx *c, const char *phase)
{
	char note[96];
	snprintf(note, sizeof(note), "paced by rate=%llu/s: the schedule's, see its p99",
		 (unsigned long long)rand_o(c->spec)->rate);
	sb_wl_metric_paced(c->spec, &c->res->metrics[c->res->n_metrics - 1], note);
	sb_wl_extra_list_add(c, "paced", phase);
}

/* The phase's metrics and extras, named after its direction; the burst
 * array passes to the result. */
static void rand_phase_metrics(struct sb_wl_ctx *c, const struct rand_job *j, struct sb_phase *p,
			       uint64_t done, uint64_t late, json_object **bursts)
{
	const struct sb_wl_spec *sp = c->spec;
	const char *w = j->write ? "write" : "read";
	char name[32];
	snprintf(name, sizeof(name), "%s_mbs", w);
	sb_wl_add_metric(c->res, name, "MB/s", SB_BETTER_HIGHER,
			 sb_phase_rate(p, (double)done) * (double)j->bs / 1048576.0);
	if (rand_o(sp)->rate)
		paced(c, p->name);
	snprintf(name, sizeof(name), "%s_iops", w);
	sb_wl_add_metric(c->res, name, "IOPS", SB_BETTER_HIGHER, sb_phase_rate(p, (double)done));
	if (rand_o(sp)->rate)
		paced(c, p->name);
	snprintf(name, sizeof(name), "%s_cpu", w);
	sb_wl_add_metric(c->res, name, "%CPU", SB_BETTER_LOWER, p->cpu_pct);
	sb_phase_cost(p, w);
	snprintf(name, sizeof(name), "%s_ops", w);
	sb_wl_extra_int(c, name, (int64_t)done);
	if (rand_o(sp)->rate) {
		snprintf(name, sizeof(name), "%s_late", w);
		sb_wl_extra_int(c, name, (int64_t)late);
	}
	if (*bursts) {
		snprintf(name, sizeof(name), "%s_burst_p99_ms", w);
		json_object_object_add(c->res->extra, name, *bursts);
		*bursts = NULL;
	}
}

/* Starts the test's n threads, each with its own copy of the job on its own
 * file descriptor; *started counts those that ran. 0, or why one did not. */
static int rand_start(struct sb_wl_ctx *c, const struct rand_job *j, struct rand_thread *t,
		      pthread_t *th, const int *fds, unsigned n, uint64_t ops, unsigned *started)
{
	const struct sb_wl_spec *sp = c->spec;
	int rc = 0;

	for (unsigned i = 0; i < n; i++) {
		struct rand_job *ji = malloc(sizeof(*ji));
		if (!ji) {
			rc = -ENOMEM;
			break;
		}
		*ji = *j;
		ji->fd = fds[i];
		rand_thread_init(c, &t[i], ji, i, n, ops);
		void *(*body)(void *) = use_uring(sp) ? sb_rand_uring_main : rand_main;
		/* One thread runs here, not in a thread of its own: a process
		 * of one thread pays no atomic reference count on the file (or
		 * the ring) in every pread or io_uring_enter, as fio's job
		 * processes do not. */
		if (n == 1) {
			body(&t[i]);
		} else if (pthread_create(&th[i], NULL, body, &t[i]) != 0) {
			free(ji);
			rc = sb_wl_fail(c, -EAGAIN, "cannot start threads");
			break;
		}
		(*started)++;
	}
	return rc;
}

/* One test (read or write) with all threads. */
static int rand_phase(struct sb_wl_ctx *c, struct rand_job *j, const char *path, uint64_t ops,
		      struct sb_hist *h, uint64_t *bad)
{
	const struct sb_wl_spec *sp = c->spec;
	unsigned n = (unsigned)rand_o(sp)->threads;
	struct rand_thread *t = calloc(n, sizeof(*t));
	pthread_t *th = calloc(n, sizeof(*th));
	int *fds = calloc(n, sizeof(*fds));
	struct sb_phase p;
	uint64_t done = 0, late = 0;
	json_object *bursts = NULL; /* the first thread's p99 per burst */
	int rc = 0, failed = 0;
	unsigned started = 0;

	if (!t || !th || !fds) {
		rc = -ENOMEM;
		goto out;
	}
	if ((rc = rand_open_fds(c, j, path, fds, n)) < 0)
		goto out;
	/* Turns of a few ms hold its own I/O only where it is done within the
	 * turn: O_DIRECT, one thread, not paced; io_uring drains at each
	 * turn's end, and without SQPOLL (its kernel thread would go on). */
	c->turnable = rand_o(sp)->direct && n == 1 && !rand_o(sp)->rate && !rand_o(sp)->eng.sqpoll;
	sb_phase_begin(c, &p, j->write ? "random write" : "random read",
		       ops == UINT64_MAX ? 0 : ops / n);
	if (rand_o(sp)->direct)
		sb_phase_direct(&p, fds[0]);
	j->p = &p;
	j->failed = &failed;
	struct live_sum ls = {.t = t, .n = n};
	p.progress = live_total;
	p.progress_arg = &ls;
	p.op_bytes = j->bs;
	p.hist = &t[0].h; /* p99 per second from the first thread (the sampler) */
	j->end_at = rand_o(sp)->time ? p.t0 + rand_o(sp)->time * 1000000ull : UINT64_MAX;
	j->interval_ns = rand_o(sp)->rate ? 1000000000ull * n / rand_o(sp)->rate : 0;
	if (j->interval_ns == 0 && rand_o(sp)->rate)
		j->interval_ns = 1;
	j->burst = rand_o(sp)->burst;
	j->delay_pct = c->env->delay_pct;
	j->idle_ns = rand_o(sp)->idle * 1000000ull;
	rc = rand_start(c, j, t, th, fds, n, ops, &started);
	for (unsigned i = 0; i < started; i++) {
		if (n > 1)
			pthread_join(th[i], NULL);
		sb_hist_merge(h, &t[i].h);
		done += t[i].done;
		*bad += t[i].bad;
		if (t[i].err && !rc && t[i].why)
			rc = sb_wl_fail(c, t[i].err, "%s", t[i].why);
		else if (t[i].err && !rc)
			rc = sb_wl_fail(c, t[i].err, "%s: %s", path,
					use_uring(sp)
					    ? (j->write ? "io_uring write" : "io_uring read")
					: j->write ? "pwrite"
						   : "pread");
		free(t[i].why);
		late += t[i].late;
		if (t[i].n_bursts && !bursts) {
			bursts = json_object_new_array();
			for (size_t k = 0; k < t[i].n_bursts; k++)
				json_object_array_add(bursts,
						      json_object_new_double(t[i].burst_p99[k]));
		}
		free(t[i].burst_p99);
		free((void *)t[i].j);
	}
	if (rc == 0 && j->write && rand_o(sp)->fsync && fsync(fds[0]) < 0)
		rc = sb_wl_fail(c, -errno, "%s: fsync", path);
	p.done = done;
	*(j->write ? &p.wbytes : &p.rbytes) = done * j->bs;
	sb_phase_end(&p);
	for (unsigned i = 0; i < n; i++)
		close(fds[i]);
	rand_phase_metrics(c, j, &p, done, late, &bursts);
out:
	json_object_put(bursts);
	j->p = NULL; /* p and failed die with this call */
	j->failed = NULL;
	free(t);
	free(th);
	free(fds);
	return rc;
}

/* Lays the data set out sequentially (generation 1), untimed but under the
 * time limit: past it the data set is what was written so far (*size shrinks)
 * and the result is flagged incomplete. */
static int layout(struct sb_wl_ctx *c, const char *path, uint64_t *size, uint64_t bs)
{
	const size_t bl = 1u << 20;
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	char *buf = sb_wl_alloc_aligned(bl);
	struct sb_phase p;
	uint64_t off = 0;
	int rc = 0;

	if (fd < 0 || !buf) {
		free(buf);
		return fd < 0 ? sb_wl_fail(c, -errno, "%s", path) : -ENOMEM;
	}
	sb_phase_begin(c, &p, "layout", *size);
	p.bytes = true;
	p.op_bytes = bl;
	while (off < *size) {
		size_t n = *size - off < bl ? *size - off : bl;
		sb_data_fill(&c->data, buf, off, n, 1);
		if (write(fd, buf, n) != (ssize_t)n) {
			rc = sb_wl_fail(c, errno ? -errno : -ENOSPC, "%s: write", path);
			break;
		}
		off += n;
		if (sb_phase_over(&p, sb_mono_ns(), off))
			break;
	}
	if (rc == 0 && fsync(fd) < 0)
		rc = sb_wl_fail(c, -errno, "%s: fsync", path);
	p.wbytes = p.done = off;
	sb_phase_end(&p);
	if (off < *size) {
		*size = off / bs * bs;
		if (rc == 0 && *size == 0)
			rc = p.stopped ? 0
				       : sb_wl_fail(c, -ETIMEDOUT,
						    "laying out the data set took too long");
	}
	free(buf);
	return rc;
}

/* After the writes: every block holds generation 2 when it was written, else 1. */
static int read_back(struct sb_wl_ctx *c, const char *path, uint64_t bs, uint64_t nb,
		     const uint64_t *bitmap, uint64_t *bad, uint64_t *written)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf = sb_wl_alloc_aligned(bs);
	int rc = 0;

	if (fd < 0 || !buf) {
		free(buf);
		return fd < 0 ? sb_wl_fail(c, -errno, "%s", path) : -ENOMEM;
	}
	for (uint64_t b = 0; b < nb && !*c->env->stop; b++) {
		bool w = bitmap[b / 64] >> (b % 64) & 1;
		if (pread(fd, buf, bs, (off_t)(b * bs)) != (ssize_t)bs) {
			rc = sb_wl_fail(c, errno ? -errno : -EIO, "%s: read back", path);
			break;
		}
		*bad += sb_data_check(&c->data, buf, b * bs, bs, w ? 2 : 1);
		*written += w;
	}
	free(buf);
	return rc;
}

static int rand_run(struct sb_wl_ctx *c)
{
	const struct sb_wl_spec *sp = c->spec;
	uint64_t bs = sp->a[0], size, nb, ops, bad = 0, written = 0;
	_cleanup_free_ char *path = NULL;
	_cleanup_free_ uint64_t *bitmap = NULL, *busy = NULL;
	struct sb_hist *h = malloc(2 * sizeof(*h));
	struct rand_job j = {
	    .data = &c->data, .bs = bs, .stop = c->env->stop, .verify = rand_o(sp)->verify};
	int rc = 0;

	if (!h)
		return -ENOMEM;
	sb_hist_init(&h[0]);
	sb_hist_init(&h[1]);
	size = rand_o(sp)->size ? rand_o(sp)->size : 2 * c->ram;
	nb = size / bs;
	if (nb == 0) {
		free(h);
		return sb_wl_fail(c, 0, "size is smaller than one record");
	}
	size = nb * bs;
	ops = sb_wl_given(sp, "ops") ? rand_o(sp)->ops : rand_o(sp)->time ? UINT64_MAX : nb;
	if (asprintf(&path, "%s/rand.dat", c->work) < 0 ||
	    !(bitmap = calloc(nb / 64 + 1, sizeof(*bitmap))) ||
	    !(busy = calloc(nb / 64 + 1, sizeof(*busy)))) {
		free(h);
		return -ENOMEM;
	}
	j.nblocks = nb;
	j.bitmap = bitmap;
	j.busy = busy;
	sb_wl_validity(c, size, rand_o(sp)->direct);
	sb_wl_extra_int(c, "record_bytes", (int64_t)bs);
	sb_wl_extra_int(c, "threads", (int64_t)rand_o(sp)->threads);
	sb_wl_engine_extra(c, &rand_o(sp)->eng);
	rc = sb_wl_check_space(c, size);
	if (rc < 0) {
		free(h);
		return rc;
	}

	rc = layout(c, path, &size, bs);
	if (rc == 0 && size / bs < nb) {
		/* cut short: work on what is there */
		nb = j.nblocks = size / bs;
		if (!sb_wl_given(sp, "ops") && !rand_o(sp)->time)
			ops = nb;
	}
	if (rc == 0 && nb && rand_o(sp)->direct) {
		int fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
		if (fd < 0)
			rc = sb_wl_fail(c, -errno, "%s: O_DIRECT not supported here", c->env->dir);
		else
			close(fd);
	}
	if (rc == 0 && rand_o(sp)->drop)
		sb_wl_drop_caches(c);
	if (rc == 0 && rand_o(sp)->read && nb && !*c->env->stop) {
		j.write = false;
		rc = rand_phase(c, &j, path, ops, &h[0], &bad);
	}
	if (rc == 0 && rand_o(sp)->write && nb && !*c->env->stop) {
		j.write = true;
		rc = rand_phase(c, &j, path, ops, &h[1], &bad);
		if (rc == 0 && rand_o(sp)->verify && !*c->env->stop)
			rc = read_back(c, path, bs, nb, bitmap, &bad, &written);
		sb_wl_extra_int(c, "written_blocks", (int64_t)written);
	}
	if (h[0].count)
		sb_wl_add_hist(c, "random read", &h[0]);
	if (h[1].count)
		sb_wl_add_hist(c, "random write", &h[1]);
	sb_wl_extra_int(c, "verify_errors", (int64_t)bad);
	if (rc == 0 && bad)
		rc = sb_wl_fail(c, -EIO, "%s: %llu sectors read back wrong", path,
				(unsigned long long)bad);
	free(h);
	return rc;
}

/* MB/s is the headline; IOPS is the same measurement over the record size. */
static const struct sb_wl_metric rand_metrics[] = {
    {"read_mbs", "Random Read", "MB/s", SB_BETTER_HIGHER, true, "random read", false},
    {"read_iops", "Random Read IOPS", "IOPS", SB_BETTER_HIGHER, false, "random read", false},
    {"read_cpu", "Random Read %CPU", "%CPU", SB_BETTER_LOWER, false, "random read", false},
    {"write_mbs", "Random Write", "MB/s", SB_BETTER_HIGHER, true, "random write", false},
    {"write_iops", "Random Write IOPS", "IOPS", SB_BETTER_HIGHER, false, "random write", false},
    {"write_cpu", "Random Write %CPU", "%CPU", SB_BETTER_LOWER, false, "random write", false},
    SB_WL_COST_ROWS("read", "Random Read", "random read"),
    SB_WL_COST_ROWS("write", "Random Write", "random write"),
    {0},
};

/* --cap-cache's floor: per thread qd records of BS and two histograms; the
 * written and busy bitmaps of the whole data set (one bit per record each). */
static uint64_t mem_rand(const struct sb_wl_spec *s, uint64_t data)
{
	uint64_t bs = s->a[0] ? s->a[0] : 4096;
	return sb_wl_opt_u64(s, "threads", 1) *
		   (sb_wl_opt_u64(s, "qd", 1) * bs + 2 * SB_WL_HIST_BYTES) +
	       2 * (data / bs / 8);
}

const struct sb_wl_ops sb_wl_rand = {
    .name = "rand",
    .arg = "BS",
    .example = "rand:16k,direct=1",
    .summary = "iozone-style random read and random write of BS records; MB/s, IOPS, latency",
    .opts = rand_opts,
    .opts_size = sizeof(struct rand_opts),
    .metrics = rand_metrics,
    .parse_arg = parse_bs,
    .check = rand_check,
    .run = rand_run,
    .mem_bytes = mem_rand,
};
