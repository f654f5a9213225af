/* rand's engine=io_uring path: each thread keeps qd= records in flight, in a
 * closed loop, or in an open loop paced by rate=. */
#include "workload/rand-int.h"

#include <string.h>

/* A block for the next write that no write in flight (of any thread) has:
 * two writes of one block at once would race, whatever they carry. */
static uint64_t pick_free(struct rand_thread *t, uint64_t nb)
{
	const struct rand_job *j = t->j;
	for (;;) {
		uint64_t b = pick(&t->rng, nb), bit = 1ull << (b % 64);
		if (!j->write ||
		    !(__atomic_fetch_or(&j->busy[b / 64], bit, __ATOMIC_ACQ_REL) & bit))
			return b;
	}
}

/* One completed record of the io_uring loops: timed and verified (a read)
 * or marked written (a write), its block free again for the other
 * threads. false: it failed (t->err set, the job marked failed). */
static bool complete_io(struct rand_thread *t, const struct sb_io *io, uint64_t now)
{
	const struct rand_job *j = t->j;
	const uint64_t bs = j->bs, b = io->off / bs;
	bool ok = io->res == (int)bs;

	if (__builtin_expect(!ok, 0)) {
		if (!t->err)
			t->err = io->res < 0 ? io->res : -EIO;
		__atomic_store_n(j->failed, 1, __ATOMIC_RELAXED);
	} else {
		sb_hist_add(&t->h, now - io->t_start);
		if (j->verify) {
			if (j->write)
				__atomic_fetch_or(&j->bitmap[b / 64], 1ull << (b % 64),
						  __ATOMIC_RELAXED);
			else
				t->bad += sb_data_check(j->data, io->buf, io->off, bs, 1);
		}
	}
	if (j->write)
		__atomic_fetch_and(&j->busy[b / 64], ~(1ull << (b % 64)), __ATOMIC_RELEASE);
	return ok;
}

/* Whether a ring thread stops issuing: past the time limit, another thread
 * failed, or the phase is over (the first thread decides by its own count,
 * the others by the deadline or the stop flag, noting that it expired). */
static bool uring_stop_due(struct rand_thread *t, uint64_t now, uint64_t i)
{
	const struct rand_job *j = t->j;

	if (now >= j->end_at || __atomic_load_n(j->failed, __ATOMIC_RELAXED) ||
	    (t->id == 0 ? sb_phase_over(j->p, now, i) : (now >= j->p->deadline || *j->stop))) {
		if (t->id != 0 && now >= j->p->deadline && !*j->stop)
			__atomic_store_n(&j->p->expired, true, __ATOMIC_RELAXED);
		return true;
	}
	return false;
}

/* engine=io_uring with rate=: the open loop. Record k is due at start + k
 * slots; every record that is due goes out as soon as a slot of the qd is
 * free, timed from when it was due, and counted late when it goes out more
 * than a slot (at least 1 ms) after that: a device that stalls fills the
 * queue, and what comes due meanwhile shows as late I/Os with their whole
 * wait in the latency, instead of a closed loop quietly issuing fewer.
 * Between due times the thread sleeps in the ring (a completion or the next
 * due time, whichever is first). Returns the records completed. */
static uint64_t uring_open_loop(struct rand_thread *t, struct sb_engine *e, struct sb_io *ios,
				struct sb_io **done, unsigned qd, unsigned *freel)
{
	const struct rand_job *j = t->j;
	const uint64_t bs = j->bs, nb = j->nblocks;
	const uint64_t late_after = j->interval_ns > 1000000 ? j->interval_ns : 1000000;
	uint64_t queued = 0, i = 0, due = sb_mono_ns();
	unsigned nfree = qd;
	bool stopping = false;
	int r;

	for (unsigned k = 0; k < qd; k++)
		freel[k] = qd - 1 - k;
	for (;;) {
		uint64_t now = sb_mono_ns();
		while (!stopping && nfree && queued < t->n && due <= now) {
			struct sb_io *io = &ios[freel[--nfree]];
			uint64_t b = pick_free(t, nb);
			io->off = b * bs;
			io->op = j->write ? SB_IO_WRITE : SB_IO_READ;
			if (j->write)
				sb_data_fill(j->data, io->buf, io->off, bs, 2);
			if (now - due > late_after)
				t->late++;
			io->t_start = due;
			due += j->interval_ns;
			if ((r = sb_engine_queue(e, io)) < 0) {
				t->err = r;
				stopping = true;
				break;
			}
			queued++;
		}
		if (!e->inflight && (stopping || queued >= t->n))
			break;
		/* Wait for a completion; with a free slot and more to issue, no
		 * longer than until the next one is due. */
		int n;
		if (!stopping && !e->inflight && due > now) {
			/* nothing to wait for but the clock */
			struct timespec ts = {(time_t)(due / 1000000000u),
					      (long)(due % 1000000000u)};
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
				;
			continue;
		}
		if (!stopping && nfree && queued < t->n)
			n = sb_engine_reap_wait(e, due > now ? due - now : 0, done, qd);
		else
			n = sb_engine_reap(e, 1, done, qd);
		now = sb_mono_ns();
		if (n < 0) {
			t->err = n;
			__atomic_store_n(j->failed, 1, __ATOMIC_RELAXED);
			break;
		}
		for (int k = 0; k < n; k++) {
			if (complete_io(t, done[k], now))
				i++;
			else
				stopping = true;
			freel[nfree++] = (unsigned)(done[k] - ios);
		}
		__atomic_store_n(&t->live, i, __ATOMIC_RELAXED);
		if (!stopping && uring_stop_due(t, now, i))
			stopping = true; /* let what is in flight complete */
		/* No submit here: the next reap submits and waits in one call. */
	}
	return i;
}

/* Fills the queue (every record free: at the start, and after a turn's
 * drain) up to the thread's count, and submits. 0 or -errno. */
static int uring_fill(struct rand_thread *t, struct sb_engine *e, struct sb_io *ios, void **bufs,
		      unsigned qd, uint64_t *queued, uint64_t paused)
{
	const struct rand_job *j = t->j;
	const uint64_t bs = j->bs, nb = j->nblocks;
	int r;

	for (unsigned k = 0; k < qd && *queued < t->n; k++, (*queued)++) {
		uint64_t b = pick_free(t, nb), off = b * bs;
		ios[k] = (struct sb_io){.buf = bufs[k],
					.off = off,
					.len = (uint32_t)bs,
					.buf_index = (uint16_t)k,
					.op = j->write ? SB_IO_WRITE : SB_IO_READ};
		if (j->write)
			sb_data_fill(j->data, bufs[k], off, bs, 2);
		ios[k].t_start = sb_mono_ns() - paused;
		if ((r = sb_engine_queue(e, &ios[k])) < 0)
			return r;
	}
	return sb_engine_submit(e);
}

/* The closed loop: fill the queue, then one record back for each that
 * completes. In millisecond turns (the phase's turn_end), at a turn's end
 * it issues no more, drains what is in flight (in its own turn, timed
 * in the phase's drain_ns), waits for the next turn and fills the queue again, so
 * that none of its I/O completes in another stack's turn. Returns the
 * records completed (errors in t->err). */
static uint64_t uring_closed_loop(struct rand_thread *t, struct sb_engine *e, struct sb_io *ios,
				  void **bufs, struct sb_io **done, unsigned qd)
{
	const struct rand_job *j = t->j;
	const uint64_t bs = j->bs, nb = j->nblocks;
	uint64_t queued = 0, i = 0, paused = j->p->paused, turn_end = j->p->turn_end, drain0 = 0;
	bool stopping = false;
	int r;

	if ((r = uring_fill(t, e, ios, bufs, qd, &queued, paused)) < 0) {
		t->err = r;
		return 0;
	}
	for (;;) {
		uint64_t now = 0;
		while (e->inflight) {
			int n = sb_engine_reap(e, 1, done, qd);
			now = sb_mono_ns() - paused;
			if (n < 0) {
				t->err = n;
				__atomic_store_n(j->failed, 1, __ATOMIC_RELAXED);
				return i;
			}
			if (now >= turn_end && !drain0)
				drain0 = now;
			for (int k = 0; k < n; k++) {
				struct sb_io *io = done[k];
				if (complete_io(t, io, now))
					i++;
				else
					stopping = true;
				if (stopping || queued >= t->n || drain0)
					continue;
				uint64_t nbk = pick_free(t, nb), off = nbk * bs;
				io->off = off;
				if (j->write)
					sb_data_fill(j->data, io->buf, off, bs, 2);
				io->t_start = sb_mono_ns() - paused;
				if ((r = sb_engine_queue(e, io)) < 0) {
					t->err = r;
					stopping = true;
					continue;
				}
				queued++;
			}
			__atomic_store_n(&t->live, i, __ATOMIC_RELAXED);
			if (!stopping && uring_stop_due(t, now, i))
				stopping = true; /* let what is in flight complete */
			/* No submit here: the next reap submits and waits in one call. */
		}
		if (stopping || queued >= t->n || !drain0)
			return i;
		/* drained at the turn's end: the next turn */
		j->p->drain_ns += now - drain0;
		drain0 = 0;
		sb_phase_turn_at(j->p, now, &paused, &turn_end);
		if ((r = uring_fill(t, e, ios, bufs, qd, &queued, paused)) < 0) {
			t->err = r;
			return i;
		}
	}
}

void *sb_rand_uring_main(void *arg)
{
	struct rand_thread *t = arg;
	const struct rand_job *j = t->j;
	const struct sb_wl_spec *sp = t->sp;
	const uint64_t bs = j->bs, nb = j->nblocks;
	unsigned qd = (unsigned)rand_o(sp)->eng.qd;
	struct sb_io *ios = calloc(qd, sizeof(*ios)), **done = calloc(qd, sizeof(*done));
	void **bufs = calloc(qd, sizeof(*bufs));
	unsigned *freel = calloc(qd, sizeof(*freel));
	struct sb_engine e = {0};
	char *why = NULL;
	uint64_t i = 0;

	if (!ios || !done || !bufs || !freel) {
		t->err = -ENOMEM;
		goto out;
	}
	/* Writes in flight over all threads never outnumber the blocks: a
	 * thread looking for a free block then always finds one (it has just
	 * freed its own), so none can wait on another that is waiting too. */
	uint64_t nthreads = rand_o(sp)->threads ? rand_o(sp)->threads : 1;
	if (j->write && (uint64_t)qd * nthreads > nb)
		qd = (unsigned)(nb / nthreads ? nb / nthreads : 1);
	for (unsigned k = 0; k < qd; k++)
		if (!(bufs[k] = sb_wl_alloc_aligned(bs))) {
			t->err = -ENOMEM;
			goto out;
		}
	struct sb_engine_cfg cfg = {
	    .fd = j->fd, .qd = qd, .bufs = bufs, .n_bufs = qd, .buf_len = bs};
	sb_engine_opts_cfg(&rand_o(sp)->eng, &cfg);
	int r = sb_engine_init(&e, &sb_engine_io_uring, &cfg, &why);
	if (r < 0) {
		t->err = r;
		t->why = why;
		why = NULL;
		__atomic_store_n(j->failed, 1, __ATOMIC_RELAXED);
		goto out;
	}
	if (j->interval_ns) {
		for (unsigned k = 0; k < qd; k++)
			ios[k] = (struct sb_io){
			    .buf = bufs[k], .len = (uint32_t)bs, .buf_index = (uint16_t)k};
		i = uring_open_loop(t, &e, ios, done, qd, freel);
		goto out;
	}
	i = uring_closed_loop(t, &e, ios, bufs, done, qd);
out:
	t->done = i;
	sb_engine_cleanup(&e);
	for (unsigned k = 0; bufs && k < qd; k++)
		free(bufs[k]);
	free(bufs);
	free(ios);
	free(done);
	free(freel);
	free(why);
	return NULL;
}
