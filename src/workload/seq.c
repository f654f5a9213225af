/* seq: the bonnie++-style sequential test. Per-char write (putc), block
 * write, rewrite (read a block, change it, seek back, write it), per-char
 * read (getc), block read, then random seeks from several threads (lseek +
 * read, one in ten written back). KB/s and %CPU per test, like bonnie++.
 * engine=io_uring,qd=N keeps N blocks of the block tests in flight
 * (src/engine/), each timed from submission to completion. */
#include "workload/wl.h"
#include "engine/engine.h"
#include "util/macro.h"
#include "util/strutil.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum {
	K_SIZE,
	K_CHUNK,
	K_PERCHAR,
	K_SEEKS,
	K_SEEKERS,
	K_DIRECT,
	K_FSYNC,
	K_VERIFY,
	K_DROP,
	K_TIMEOUT,
	K_COMPRESS,
	K_DEDUPE,
	K_RAMP,
	K_ENGINE,
	K_QD,
	K_FIXED,
	K_HIPRI,
	K_SQPOLL,
	K_BATCH_SUBMIT,
	K_BATCH_COMPLETE,
};
_Static_assert(K_BATCH_COMPLETE - K_ENGINE == SB_EK_BATCH_COMPLETE, "the engine keys in a row");

static const struct sb_wl_opt seq_opts[] = {
    [K_SIZE] =
	{"size", SB_WO_SIZE, NULL, "64M", 4096, 0,
	 "file size; default twice the RAM (valid figures), smaller is flagged cache-affected"},
    [K_CHUNK] = {"chunk", SB_WO_SIZE, "8k", NULL, 512, 64ull << 20,
		 "block size of the block tests (a multiple of 512)"},
    [K_PERCHAR] = {"perchar", SB_WO_BOOL, "1", NULL, 0, 1, "run the per-char (putc/getc) tests"},
    [K_SEEKS] = {"seeks", SB_WO_UINT, "8192", "2000", 1, 0, "random seeks in total"},
    [K_SEEKERS] = {"seekers", SB_WO_UINT, "5", NULL, 1, 64, "threads doing the seeks"},
    [K_DIRECT] = {"direct", SB_WO_BOOL, "0", NULL, 0, 1, "O_DIRECT for the block tests"},
    [K_FSYNC] = {"fsync", SB_WO_BOOL, "1", NULL, 0, 1,
		 "count an fsync at the end of each write test in its time"},
    [K_VERIFY] = {"verify", SB_WO_BOOL, "1", NULL, 0, 1,
		  "read the per-char output back (untimed) and check it"},
    [K_DROP] = {"drop", SB_WO_BOOL, "1", NULL, 0, 1,
		"drop the page cache before each read test (when permitted)"},
    [K_TIMEOUT] = {"timeout", SB_WO_DURATION, "1h", "5m", 1, 0,
		   "time limit of each test; past it the test stops and is flagged incomplete"},
    [K_COMPRESS] = {"compress", SB_WO_UINT, "0", NULL, 0, 100,
		    "percent of the data that compresses (0: none, as random data)"},
    [K_DEDUPE] = {"dedupe", SB_WO_UINT, "0", NULL, 0, 100,
		  "percent of 4 KiB blocks that are duplicates (0: none)"},
    [K_RAMP] = {"ramp", SB_WO_DURATION, "0", NULL, 0, 0,
		"warm-up at the start of each test left out of its rate"},
    [K_ENGINE] = SB_WL_ENGINE_OPTS,
    {0},
};

static bool use_uring(const struct sb_wl_spec *s)
{
	return sb_wl_uses_uring(s, K_ENGINE);
}

/* At spec check time, so that a bad combination or a kernel without
 * io_uring is an error before anything is built. */
static int seq_check(const struct sb_wl_spec *s, char **why)
{
	return sb_wl_engine_check(s, K_ENGINE, K_DIRECT, why);
}

struct seq_run {
	struct sb_wl_ctx *c;
	const char *path;
	uint64_t size, chunk, nblocks;
	bool direct;
	char *buf;
	uint64_t bad; /* sectors that failed verification */
	uint64_t verified;
};

/* done in the phase's units, scale to the metric's (bytes -> KB). */
static void add_rate(struct sb_wl_ctx *c, const char *name, struct sb_phase *p, double done,
		     double scale, const char *unit)
{
	char cpu[64];
	snprintf(cpu, sizeof(cpu), "%s_cpu", name);
	sb_wl_add_metric(c->res, name, unit, SB_BETTER_HIGHER, sb_phase_rate(p, done) * scale);
	sb_wl_add_metric(c->res, cpu, "%CPU", SB_BETTER_LOWER, p->cpu_pct);
	sb_phase_cost(p, name);
}

static int putc_write(struct seq_run *s)
{
	struct sb_wl_ctx *c = s->c;
	struct sb_phase p;
	uint64_t done = 0;
	FILE *f = fopen(s->path, "we");
	int rc = 0;

	if (!f)
		return sb_wl_fail(c, -errno, "%s", s->path);
	sb_phase_begin(c, &p, "putc write", s->size);
	p.bytes = true;
	p.op_bytes = 1;
	for (uint64_t b = 0; b < s->nblocks; b++) {
		sb_data_fill(&c->data, s->buf, b * s->chunk, s->chunk, 0);
		for (uint64_t i = 0; i < s->chunk; i++)
			putc_unlocked(s->buf[i], f);
		/* A write error (ENOSPC, EIO) ends the test now: putc goes on
		 * failing cheaply, and the loop would spin to the end of the size. */
		if (ferror_unlocked(f)) {
			rc = sb_wl_fail(c, errno ? -errno : -EIO, "%s: putc write", s->path);
			break;
		}
		done += s->chunk;
		if (sb_phase_over(&p, sb_now_ns(), done))
			break;
	}
	if (fflush(f) != 0 || (c->spec->v[K_FSYNC] && fsync(fileno(f)) < 0))
		if (rc == 0)
			rc = sb_wl_fail(c, -errno, "%s: write", s->path);
	if (fclose(f) != 0 && rc == 0)
		rc = sb_wl_fail(c, -errno, "%s: close", s->path);
	p.wbytes = p.done = done;
	sb_phase_end(&p);
	add_rate(c, "putc_write", &p, done, 1 / 1024.0, "KB/s");
	sb_wl_extra_int(c, "putc_bytes", (int64_t)done);
	if (rc == 0 && c->spec->v[K_VERIFY] && !p.expired && !p.stopped) {
		int fd = open(s->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return sb_wl_fail(c, -errno, "%s", s->path);
		for (uint64_t b = 0; b < s->nblocks; b++) {
			if (pread(fd, s->buf, s->chunk, b * s->chunk) != (ssize_t)s->chunk) {
				rc = sb_wl_fail(c, errno ? -errno : -EIO, "%s: read back", s->path);
				break;
			}
			s->bad += sb_data_check(&c->data, s->buf, b * s->chunk, s->chunk, 0);
			s->verified += s->chunk;
		}
		close(fd);
	}
	return rc;
}

static int open_block(struct seq_run *s, int flags)
{
	int fd = open(s->path, flags | O_CLOEXEC | (s->direct ? O_DIRECT : 0), 0600);
	if (fd < 0)
		return sb_wl_fail(s->c, -errno, "%s", s->path);
	return fd;
}

static int block_write(struct seq_run *s, struct sb_hist *h)
{
	struct sb_wl_ctx *c = s->c;
	_cleanup_close_ int fd = open_block(s, O_WRONLY | O_CREAT | O_TRUNC);
	struct sb_phase p;
	uint64_t b, t0, t1;
	int rc = 0;

	if (fd < 0)
		return fd;
	sb_phase_begin(c, &p, "block write", s->size);
	if (s->direct)
		sb_phase_direct(&p, fd);
	p.bytes = true;
	p.op_bytes = s->chunk;
	p.hist = h;
	t0 = sb_now_ns();
	for (b = 0; b < s->nblocks; b++) {
		/* Fresh data per block (counted in the block's time, as fio's
		 * refill_buffers would be): a compressing or deduplicating layer
		 * must not see the same block twice. */
		sb_data_fill(&c->data, s->buf, b * s->chunk, s->chunk, 1);
		ssize_t n = write(fd, s->buf, s->chunk);
		t1 = sb_now_ns();
		if (n != (ssize_t)s->chunk) {
			rc = sb_wl_fail(c, n < 0 ? -errno : -ENOSPC, "%s: write", s->path);
			break;
		}
		sb_hist_add(h, t1 - t0);
		t0 = t1;
		if (sb_phase_over(&p, t1, (b + 1) * s->chunk)) {
			b++;
			break;
		}
	}
	if (rc == 0 && c->spec->v[K_FSYNC] && fsync(fd) < 0)
		rc = sb_wl_fail(c, -errno, "%s: fsync", s->path);
	p.wbytes = p.done = b * s->chunk;
	sb_phase_end(&p);
	add_rate(c, "block_write", &p, (double)(b * s->chunk), 1 / 1024.0, "KB/s");
	/* The later tests work on what was written. */
	if (b < s->nblocks)
		s->nblocks = b;
	return rc;
}

static int rewrite(struct seq_run *s, struct sb_hist *h)
{
	struct sb_wl_ctx *c = s->c;
	_cleanup_close_ int fd = open_block(s, O_RDWR);
	struct sb_phase p;
	uint64_t b, t0, t1;
	int rc = 0;

	if (fd < 0)
		return fd;
	sb_phase_begin(c, &p, "rewrite", s->size);
	if (s->direct)
		sb_phase_direct(&p, fd);
	p.bytes = true;
	p.op_bytes = s->chunk;
	p.hist = h;
	for (b = 0; b < s->nblocks; b++) {
		t0 = sb_now_ns();
		ssize_t n = read(fd, s->buf, s->chunk);
		if (n != (ssize_t)s->chunk) {
			rc = sb_wl_fail(c, n < 0 ? -errno : -EIO, "%s: read", s->path);
			break;
		}
		s->bad += sb_data_check(&c->data, s->buf, b * s->chunk, s->chunk, 1);
		s->verified += s->chunk;
		/* Change every word, as a new generation. */
		sb_data_fill(&c->data, s->buf, b * s->chunk, s->chunk, 2);
		if (lseek(fd, -(off_t)s->chunk, SEEK_CUR) < 0 ||
		    write(fd, s->buf, s->chunk) != (ssize_t)s->chunk) {
			rc = sb_wl_fail(c, -errno, "%s: rewrite", s->path);
			break;
		}
		t1 = sb_now_ns();
		sb_hist_add(h, t1 - t0);
		if (sb_phase_over(&p, t1, (b + 1) * s->chunk)) {
			b++;
			break;
		}
	}
	if (rc == 0 && c->spec->v[K_FSYNC] && fsync(fd) < 0)
		rc = sb_wl_fail(c, -errno, "%s: fsync", s->path);
	p.rbytes = p.wbytes = p.done = b * s->chunk;
	sb_phase_end(&p);
	add_rate(c, "rewrite", &p, (double)(b * s->chunk), 1 / 1024.0, "KB/s");
	sb_wl_extra_int(c, "rewritten_blocks", (int64_t)b);
	return rc;
}

static int getc_read(struct seq_run *s)
{
	struct sb_wl_ctx *c = s->c;
	struct sb_phase p;
	uint64_t done = 0, bad = 0;
	FILE *f = fopen(s->path, "re");
	int rc = 0;

	if (!f)
		return sb_wl_fail(c, -errno, "%s", s->path);
	sb_phase_begin(c, &p, "getc read", s->size);
	p.bytes = true;
	p.op_bytes = 1;
	for (uint64_t b = 0; b < s->nblocks && rc == 0; b++) {
		const unsigned char *exp = (const unsigned char *)s->buf;
		sb_data_fill(&c->data, s->buf, b * s->chunk, s->chunk, 2);
		for (uint64_t i = 0; i < s->chunk; i++) {
			int ch = getc_unlocked(f);
			if (ch == EOF) {
				rc = sb_wl_fail(c, ferror(f) ? -errno : -EIO, "%s: getc", s->path);
				break;
			}
			bad += ch != exp[i];
		}
		done += s->chunk;
		if (sb_phase_over(&p, sb_now_ns(), done))
			break;
	}
	fclose(f);
	p.rbytes = p.done = done;
	sb_phase_end(&p);
	add_rate(c, "getc_read", &p, done, 1 / 1024.0, "KB/s");
	/* Count whole sectors, like the block tests. */
	s->bad += (bad + SB_SECTOR - 1) / SB_SECTOR;
	s->verified += done;
	return rc;
}

static int block_read(struct seq_run *s, struct sb_hist *h)
{
	struct sb_wl_ctx *c = s->c;
	_cleanup_close_ int fd = open_block(s, O_RDONLY);
	struct sb_phase p;
	uint64_t b, t0, t1;
	int rc = 0;

	if (fd < 0)
		return fd;
	sb_phase_begin(c, &p, "block read", s->size);
	if (s->direct)
		sb_phase_direct(&p, fd);
	p.bytes = true;
	p.op_bytes = s->chunk;
	p.hist = h;
	t0 = sb_now_ns();
	for (b = 0; b < s->nblocks; b++) {
		ssize_t n = read(fd, s->buf, s->chunk);
		t1 = sb_now_ns();
		if (n != (ssize_t)s->chunk) {
			rc = sb_wl_fail(c, n < 0 ? -errno : -EIO, "%s: read", s->path);
			break;
		}
		sb_hist_add(h, t1 - t0);
		s->bad += sb_data_check(&c->data, s->buf, b * s->chunk, s->chunk, 2);
		s->verified += s->chunk;
		t0 = sb_now_ns();
		if (sb_phase_over(&p, t0, (b + 1) * s->chunk)) {
			b++;
			break;
		}
	}
	p.rbytes = p.done = b * s->chunk;
	sb_phase_end(&p);
	add_rate(c, "block_read", &p, (double)(b * s->chunk), 1 / 1024.0, "KB/s");
	return rc;
}

enum blk_test { BLK_WRITE, BLK_REWRITE, BLK_READ };

static int blk_issue(struct sb_engine *e, struct seq_run *s, struct sb_io *io, uint64_t b,
		     enum blk_test t)
{
	io->off = b * s->chunk;
	io->op = t == BLK_WRITE ? SB_IO_WRITE : SB_IO_READ;
	if (t == BLK_WRITE) /* fresh data per block, as the psync test */
		sb_data_fill(&s->c->data, io->buf, io->off, s->chunk, 1);
	io->t_start = sb_now_ns();
	return sb_engine_queue(e, io);
}

/* engine=io_uring: one block test with qd blocks in flight, issued in file
 * order. Each is timed from its submission to the reap that saw it complete
 * (a rewrite from its read's submission to its write's completion). The
 * blocks in flight are distinct, so a rewrite's write never meets another
 * I/O of its block. After a cut-short write or rewrite the later tests work
 * on the blocks it finished (all those issued: in-flight ones complete). */
static int block_uring(struct seq_run *s, enum blk_test t, struct sb_hist *h)
{
	static const char *const phase[] = {"block write", "rewrite", "block read"};
	static const char *const metric[] = {"block_write", "rewrite", "block_read"};
	static const int flags[] = {O_WRONLY | O_CREAT | O_TRUNC, O_RDWR, O_RDONLY};
	struct sb_wl_ctx *c = s->c;
	const struct sb_wl_spec *sp = c->spec;
	unsigned qd = (unsigned)(sp->v[K_QD] < s->nblocks ? sp->v[K_QD] : s->nblocks);
	_cleanup_close_ int fd = open_block(s, flags[t]);
	struct sb_io *ios = calloc(qd, sizeof(*ios)), **done = calloc(qd, sizeof(*done));
	void **bufs = calloc(qd, sizeof(*bufs));
	struct sb_engine e = {0};
	struct sb_phase p;
	char *why = NULL;
	uint64_t next = 0, completed = 0;
	bool stopping = false, begun = false;
	int rc = 0, r;

	if (fd < 0) {
		rc = fd;
		goto out;
	}
	if (qd == 0) /* the write before was cut short at once: nothing to do */
		goto out;
	if (!ios || !done || !bufs) {
		rc = -ENOMEM;
		goto out;
	}
	for (unsigned k = 0; k < qd; k++) {
		if (!(bufs[k] = sb_wl_alloc_aligned(s->chunk))) {
			rc = -ENOMEM;
			goto out;
		}
		ios[k] = (struct sb_io){.buf = bufs[k], .len = (uint32_t)s->chunk,
					.buf_index = (uint16_t)k};
	}
	struct sb_engine_cfg cfg = {.fd = fd,
				    .qd = qd,
				    .bufs = bufs,
				    .n_bufs = qd,
				    .buf_len = s->chunk};
	sb_wl_engine_cfg(sp, K_ENGINE, &cfg);
	r = sb_engine_init(&e, &sb_engine_io_uring, &cfg, &why);
	if (r < 0) {
		rc = sb_wl_fail(c, r, "%s: %s", s->path, why ? why : "io_uring setup failed");
		goto out;
	}
	sb_phase_begin(c, &p, phase[t], s->size);
	if (s->direct)
		sb_phase_direct(&p, fd);
	begun = true;
	p.bytes = true;
	p.op_bytes = s->chunk;
	p.hist = h;
	for (unsigned k = 0; k < qd && next < s->nblocks && rc == 0; k++)
		if ((r = blk_issue(&e, s, &ios[k], next++, t)) < 0)
			rc = sb_wl_fail(c, r, "%s: io_uring", s->path);
	if (rc == 0 && (r = sb_engine_submit(&e)) < 0)
		rc = sb_wl_fail(c, r, "%s: io_uring submit", s->path);
	if (rc)
		stopping = true;
	while (e.inflight) {
		int n = sb_engine_reap(&e, 1, done, qd);
		uint64_t now = sb_now_ns();
		if (n < 0) {
			/* The ring goes with what is in it (cleanup waits for nothing). */
			if (!rc)
				rc = sb_wl_fail(c, n, "%s: io_uring reap", s->path);
			break;
		}
		for (int k = 0; k < n; k++) {
			struct sb_io *io = done[k];
			if (__builtin_expect(io->res != (int)s->chunk, 0)) {
				if (!rc)
					rc = sb_wl_fail(c, io->res < 0 ? io->res : -EIO, "%s: %s",
							s->path,
							io->op == SB_IO_WRITE ? "write" : "read");
				stopping = true;
				continue;
			}
			if (t == BLK_REWRITE && io->op == SB_IO_READ) {
				/* The read half: check it, change every word (a new
				 * generation), write it back, still in its time. */
				s->bad += sb_data_check(&c->data, io->buf, io->off, s->chunk, 1);
				s->verified += s->chunk;
				if (rc)
					continue;
				sb_data_fill(&c->data, io->buf, io->off, s->chunk, 2);
				io->op = SB_IO_WRITE;
				uint64_t t0 = io->t_start;
				if ((r = sb_engine_queue(&e, io)) < 0) {
					rc = sb_wl_fail(c, r, "%s: io_uring", s->path);
					stopping = true;
				}
				io->t_start = t0;
				continue;
			}
			sb_hist_add(h, now - io->t_start);
			completed++;
			if (t == BLK_READ) {
				s->bad += sb_data_check(&c->data, io->buf, io->off, s->chunk, 2);
				s->verified += s->chunk;
			}
			if (stopping || next >= s->nblocks)
				continue;
			if ((r = blk_issue(&e, s, io, next++, t)) < 0) {
				rc = sb_wl_fail(c, r, "%s: io_uring", s->path);
				stopping = true;
			}
		}
		if (!stopping && sb_phase_over(&p, now, completed * s->chunk))
			stopping = true; /* let what is in flight complete */
		/* No submit here: the next reap submits and waits in one call. */
	}
	if (rc == 0 && t != BLK_READ && sp->v[K_FSYNC] && fsync(fd) < 0)
		rc = sb_wl_fail(c, -errno, "%s: fsync", s->path);
	if (t != BLK_READ)
		p.wbytes = completed * s->chunk;
	if (t != BLK_WRITE)
		p.rbytes = completed * s->chunk;
	p.done = completed * s->chunk;
out:
	sb_engine_cleanup(&e);
	if (begun) {
		sb_phase_end(&p);
		add_rate(c, metric[t], &p, (double)(completed * s->chunk), 1 / 1024.0, "KB/s");
		if (t == BLK_REWRITE)
			sb_wl_extra_int(c, "rewritten_blocks", (int64_t)completed);
		if (rc == 0 && t != BLK_READ && next < s->nblocks)
			s->nblocks = next;
	}
	for (unsigned k = 0; bufs && k < qd; k++)
		free(bufs[k]);
	free(bufs);
	free(ios);
	free(done);
	free(why);
	return rc;
}

struct seeker {
	struct seq_run *s;
	struct sb_phase *p;
	uint64_t n, done, written, bad;
	uint64_t live; /* seeks so far, for the series */
	uint64_t rng;
	struct sb_hist h;
	int rc;
};

static void *seeker_main(void *arg)
{
	struct seeker *k = arg;
	struct seq_run *s = k->s;
	char *buf = sb_wl_alloc_aligned(s->chunk);
	int fd = open(s->path, O_RDWR | O_CLOEXEC | (s->direct ? O_DIRECT : 0));
	volatile sig_atomic_t *stop = s->c->env->stop;

	if (!buf || fd < 0) {
		k->rc = buf ? -errno : -ENOMEM;
		goto out;
	}
	for (; k->done < k->n; k->done++) {
		uint64_t b = sb_rng_next(&k->rng) % s->nblocks, off = b * s->chunk;
		bool wr = sb_rng_next(&k->rng) % 10 == 0;
		uint64_t t0 = sb_now_ns(), t1;
		if (lseek(fd, (off_t)off, SEEK_SET) < 0 ||
		    read(fd, buf, s->chunk) != (ssize_t)s->chunk) {
			k->rc = -EIO;
			break;
		}
		/* Either what rewrite left or what a seeker wrote back. */
		if (sb_data_check(&s->c->data, buf, off, SB_SECTOR, 2) &&
		    sb_data_check(&s->c->data, buf, off, SB_SECTOR, 3))
			k->bad++;
		if (wr) {
			sb_data_fill(&s->c->data, buf, off, s->chunk, 3);
			if (lseek(fd, (off_t)off, SEEK_SET) < 0 ||
			    write(fd, buf, s->chunk) != (ssize_t)s->chunk) {
				k->rc = -EIO;
				break;
			}
			k->written++;
		}
		t1 = sb_now_ns();
		sb_hist_add(&k->h, t1 - t0);
		__atomic_store_n(&k->live, k->done + 1, __ATOMIC_RELAXED);
		if (t1 >= k->p->deadline || *stop) {
			k->done++;
			if (!*stop)
				__atomic_store_n(&k->p->expired, true, __ATOMIC_RELAXED);
			break;
		}
	}
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	__atomic_fetch_sub(&k->p->running, 1, __ATOMIC_RELEASE);
	return NULL;
}

struct seek_live {
	struct seeker *k;
	unsigned n;
};

static uint64_t seek_live(void *arg)
{
	const struct seek_live *l = arg;
	uint64_t sum = 0;
	for (unsigned i = 0; i < l->n; i++)
		sum += __atomic_load_n(&l->k[i].live, __ATOMIC_RELAXED);
	return sum;
}

static int seeks(struct seq_run *s, struct sb_hist *h)
{
	struct sb_wl_ctx *c = s->c;
	unsigned n = (unsigned)c->spec->v[K_SEEKERS];
	uint64_t total = c->spec->v[K_SEEKS], done = 0, written = 0;
	struct seeker *k = calloc(n, sizeof(*k));
	pthread_t *th = calloc(n, sizeof(*th));
	struct sb_phase p;
	int rc = 0;

	if (!k || !th) {
		free(k);
		free(th);
		return -ENOMEM;
	}
	sb_phase_begin(c, &p, "seeks", total);
	struct seek_live live = {.k = k, .n = n};
	p.progress = seek_live;
	p.progress_arg = &live;
	p.op_bytes = s->chunk;
	for (unsigned i = 0; i < n; i++) {
		k[i] = (struct seeker){.s = s,
				       .p = &p,
				       .n = total / n + (i < total % n),
				       .rng = 0x2545F4914F6CDD1Dull * (i + 1)};
		sb_hist_init(&k[i].h);
		__atomic_fetch_add(&p.running, 1, __ATOMIC_RELAXED);
		if (pthread_create(&th[i], NULL, seeker_main, &k[i]) != 0) {
			__atomic_fetch_sub(&p.running, 1, __ATOMIC_RELAXED);
			n = i;
			live.n = i;
			rc = sb_wl_fail(c, -EAGAIN, "cannot start seeker threads");
			break;
		}
	}
	sb_phase_sample_threads(&p);
	for (unsigned i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		sb_hist_merge(h, &k[i].h);
		done += k[i].done;
		written += k[i].written;
		s->bad += k[i].bad;
		if (k[i].rc && !rc)
			rc = sb_wl_fail(c, k[i].rc, "%s: seeks", s->path);
	}
	p.rbytes = done * s->chunk;
	p.wbytes = written * s->chunk;
	p.done = done;
	sb_phase_end(&p);
	add_rate(c, "seeks", &p, (double)done, 1, "seeks/s");
	sb_wl_extra_int(c, "seeks_written", (int64_t)written);
	free(k);
	free(th);
	return rc;
}

static int seq_run(struct sb_wl_ctx *c)
{
	const struct sb_wl_spec *sp = c->spec;
	struct seq_run s = {.c = c, .chunk = sp->v[K_CHUNK], .direct = sp->v[K_DIRECT]};
	struct sb_hist *h = malloc(4 * sizeof(*h));
	_cleanup_free_ char *path = NULL;
	static const char *const ops[] = {"block write", "rewrite", "block read", "seek"};
	const bool uring = use_uring(sp);
	int rc;

	if (!h)
		return -ENOMEM;
	for (int i = 0; i < 4; i++)
		sb_hist_init(&h[i]);
	if (s.chunk % SB_SECTOR) {
		free(h);
		return sb_wl_fail(c, 0, "chunk=%llu is not a multiple of %u",
				  (unsigned long long)s.chunk, SB_SECTOR);
	}
	s.size = sp->set[K_SIZE] || sp->v[K_SIZE] ? sp->v[K_SIZE] : 2 * c->ram;
	s.nblocks = s.size / s.chunk;
	if (s.nblocks == 0) {
		free(h);
		return sb_wl_fail(c, 0, "size is smaller than one chunk");
	}
	s.size = s.nblocks * s.chunk;
	if (asprintf(&path, "%s/seq.dat", c->work) < 0) {
		free(h);
		return -ENOMEM;
	}
	s.path = path;
	s.buf = sb_wl_alloc_aligned(s.chunk);
	if (!s.buf) {
		free(h);
		return -ENOMEM;
	}
	sb_wl_validity(c, s.size, s.direct);
	sb_wl_extra_int(c, "chunk", (int64_t)s.chunk);
	sb_wl_extra_int(c, "seeks", (int64_t)sp->v[K_SEEKS]);
	sb_wl_extra_int(c, "seekers", (int64_t)sp->v[K_SEEKERS]);
	sb_wl_engine_extra(c, sp, K_ENGINE);
	rc = sb_wl_check_space(c, s.size);
	if (rc < 0) {
		free(s.buf);
		free(h);
		return rc;
	}

	rc = sp->v[K_PERCHAR] ? putc_write(&s) : 0;
	if (rc == 0 && !*c->env->stop)
		rc = uring ? block_uring(&s, BLK_WRITE, &h[0]) : block_write(&s, &h[0]);
	if (rc == 0 && !*c->env->stop) {
		if (sp->v[K_DROP])
			sb_wl_drop_caches(c);
		rc = uring ? block_uring(&s, BLK_REWRITE, &h[1]) : rewrite(&s, &h[1]);
	}
	if (rc == 0 && !*c->env->stop && sp->v[K_PERCHAR]) {
		if (sp->v[K_DROP])
			sb_wl_drop_caches(c);
		rc = getc_read(&s);
	}
	if (rc == 0 && !*c->env->stop) {
		if (sp->v[K_DROP])
			sb_wl_drop_caches(c);
		rc = uring ? block_uring(&s, BLK_READ, &h[2]) : block_read(&s, &h[2]);
	}
	if (rc == 0 && !*c->env->stop && s.nblocks)
		rc = seeks(&s, &h[3]);
	for (int i = 0; i < 4; i++)
		if (h[i].count)
			sb_wl_add_hist(c, ops[i], &h[i]);
	sb_wl_extra_int(c, "verified_bytes", (int64_t)s.verified);
	sb_wl_extra_int(c, "verify_errors", (int64_t)s.bad);
	if (rc == 0 && s.bad)
		rc = sb_wl_fail(c, -EIO, "%s: %llu sectors read back wrong", s.path,
				(unsigned long long)s.bad);
	free(s.buf);
	free(h);
	return rc;
}

/* The figures, labelled as bonnie++ heads them (also the bonnie++ adapter's). */
static const struct sb_wl_metric seq_metrics[] = {
    {"putc_write", "Sequential Output Per Chr", "KB/s", SB_BETTER_HIGHER, true, "putc write", false},
    {"putc_write_cpu", "Sequential Output Per Chr %CP", "%CPU", SB_BETTER_LOWER, false,
     "putc write", false},
    {"block_write", "Sequential Output Block", "KB/s", SB_BETTER_HIGHER, true, "block write", false},
    {"block_write_cpu", "Sequential Output Block %CP", "%CPU", SB_BETTER_LOWER, false,
     "block write", false},
    {"rewrite", "Sequential Output Rewrite", "KB/s", SB_BETTER_HIGHER, true, "rewrite", false},
    {"rewrite_cpu", "Sequential Output Rewrite %CP", "%CPU", SB_BETTER_LOWER, false, "rewrite", false},
    {"getc_read", "Sequential Input Per Chr", "KB/s", SB_BETTER_HIGHER, true, "getc read", false},
    {"getc_read_cpu", "Sequential Input Per Chr %CP", "%CPU", SB_BETTER_LOWER, false, "getc read", false},
    {"block_read", "Sequential Input Block", "KB/s", SB_BETTER_HIGHER, true, "block read", false},
    {"block_read_cpu", "Sequential Input Block %CP", "%CPU", SB_BETTER_LOWER, false, "block read", false},
    {"seeks", "Random Seeks", "seeks/s", SB_BETTER_HIGHER, true, "seeks", false},
    {"seeks_cpu", "Random Seeks %CP", "%CPU", SB_BETTER_LOWER, false, "seeks", false},
    SB_WL_COST_ROWS("putc_write", "Sequential Output Per Chr", "putc write"),
    SB_WL_COST_ROWS("block_write", "Sequential Output Block", "block write"),
    SB_WL_COST_ROWS("rewrite", "Sequential Output Rewrite", "rewrite"),
    SB_WL_COST_ROWS("getc_read", "Sequential Input Per Chr", "getc read"),
    SB_WL_COST_ROWS("block_read", "Sequential Input Block", "block read"),
    SB_WL_COST_ROWS("seeks", "Random Seeks", "seeks"),
    {0},
};

const struct sb_wl_ops sb_wl_seq = {
    .name = "seq",
    .example = "seq,size=4G",
    .summary = "bonnie++-style sequential test: putc write, block write, rewrite, getc read, "
	       "block read, random seeks; KB/s and %CPU",
    .opts = seq_opts,
    .metrics = seq_metrics,
    .check = seq_check,
    .run = seq_run,
};
