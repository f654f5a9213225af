/* seq: the bonnie++-style sequential test. Per-char write (putc), block
 * write, rewrite (read a block, change it, seek back, write it), per-char
 * read (getc), block read, then random seeks from several threads (lseek +
 * read, one in ten written back). KB/s and %CPU per test, like bonnie++.
 * engine=io_uring,qd=N keeps N blocks of the block tests in flight
 * (src/engine/), each timed from submission to completion. */
#include "workload/wl.h"
#include "engine/engine.h"
#include "workload/seq-int.h"
#include "util/macro.h"
#include "util/strutil.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const struct sb_wl_opt seq_opts[] = {
    SB_WO(struct seq_opts, size, "size", SB_WO_SIZE, NULL, "64M", 4096, 0,
	  "file size; default twice the RAM (valid figures), smaller is flagged cache-affected"),
    SB_WO(struct seq_opts, chunk, "chunk", SB_WO_SIZE, "8k", NULL, 512, 64ull << 20,
	  "block size of the block tests (a multiple of 512)"),
    SB_WO(struct seq_opts, perchar, "perchar", SB_WO_BOOL, "1", NULL, 0, 1,
	  "run the per-char (putc/getc) tests"),
    SB_WO(struct seq_opts, seeks, "seeks", SB_WO_UINT, "8192", "2000", 1, 0,
	  "random seeks in total"),
    SB_WO(struct seq_opts, seekers, "seekers", SB_WO_UINT, "5", NULL, 1, 64,
	  "threads doing the seeks"),
    SB_WO(struct seq_opts, direct, "direct", SB_WO_BOOL, "0", NULL, 0, 1,
	  "O_DIRECT for the block tests"),
    SB_WO(struct seq_opts, fsync, "fsync", SB_WO_BOOL, "1", NULL, 0, 1,
	  "count an fsync at the end of each write test in its time"),
    SB_WO(struct seq_opts, verify, "verify", SB_WO_BOOL, "1", NULL, 0, 1,
	  "read the per-char output back (untimed) and check it"),
    SB_WO(struct seq_opts, drop, "drop", SB_WO_BOOL, "1", NULL, 0, 1,
	  "drop the page cache before each read test (when permitted)"),
    SB_WL_TEST_TIMEOUT_ROW(struct seq_opts),
    SB_WL_DATA_ROWS(struct seq_opts),
    SB_WL_RAMP_ROW(struct seq_opts, "warm-up at the start of each test left out of its rate"),
    /* --quick: a 64M file's block tests took 0.03-0.6 s, too short for a
     * rate (smallest detectable change 75% between repeats). 0.5 s: on
     * ext4 over a /dev/shm loop at load 6 the rounds' CV was no lower
     * with 1 s (6 rounds each: 29/22/29% against 10/21/40% for write,
     * rewrite, read), at twice the time (+2.8 s a seq run, not +1.2 s). */
    SB_WO(struct seq_opts, min_time, "min-time", SB_WO_DURATION, "0", "500ms", 0, 0,
	  "block tests repeat whole passes over the file until they have lasted this "
	  "long (0: one pass); the passes are recorded"),
    SB_ENGINE_OPT_ROWS(struct seq_opts, eng),
    {0},
};

static bool use_uring(const struct sb_wl_spec *s)
{
	return sb_engine_opts_uring(&seq_o(s)->eng);
}

/* At spec check time, so that a bad combination or a kernel without
 * io_uring is an error before anything is built. */
static int seq_check(const struct sb_wl_spec *s, char **why)
{
	/* The passes would run into the time limit and flag every test cut
	 * short. */
	if (seq_o(s)->min_time && seq_o(s)->min_time >= seq_o(s)->com.timeout) {
		*why = sb_asprintf("min-time=%llums must be shorter than timeout=%llums",
				   (unsigned long long)seq_o(s)->min_time,
				   (unsigned long long)seq_o(s)->com.timeout);
		return -EINVAL;
	}
	return sb_wl_engine_check(s, &seq_o(s)->eng, seq_o(s)->direct, why);
}

void sb_seq_add_rate(struct sb_wl_ctx *c, const char *name, struct sb_phase *p, double done,
		     double scale, const char *unit)
{
	char cpu[64];
	snprintf(cpu, sizeof(cpu), "%s_cpu", name);
	sb_wl_add_metric(c->res, name, unit, SB_BETTER_HIGHER, sb_phase_rate(p, done) * scale);
	sb_wl_add_metric(c->res, cpu, "%CPU", SB_BETTER_LOWER, p->cpu_pct);
	sb_phase_cost(p, name);
}

enum blk_test { BLK_WRITE, BLK_REWRITE, BLK_READ };

/* min-time=: a block test repeats whole passes over the file, as fio's
 * time_based, until it has lasted min_ns not counting the cache drops
 * between passes (a global sync on a shared host can take seconds). Each
 * later pass starts from the state the first one did: the write truncates
 * the file and allocates it again, the rewrite and the read drop the cache
 * first when drop=1 (the first pass had it dropped before the phase), and
 * the write tests fsync in each pass when fsync=1. */
struct passes {
	uint64_t min_ns, paused_ns;
	uint64_t base; /* bytes of the passes before this one */
	unsigned n;
	bool cached; /* a later read pass without a cache drop */
};

static void passes_init(struct seq_run *s, struct passes *ps)
{
	*ps = (struct passes){.min_ns = seq_o(s->c->spec)->min_time * 1000000ull};
}

/* After a pass of pass_bytes ended with rc: true when another is due. */
static bool pass_again(struct seq_run *s, const struct sb_phase *p, struct passes *ps,
		       uint64_t pass_bytes, int rc)
{
	ps->n++;
	ps->base += pass_bytes;
	if (rc || p->expired || p->stopped || *s->c->env->stop || ps->min_ns == 0 ||
	    pass_bytes < s->size)
		return false;
	return sb_mono_ns() - p->t0 - ps->paused_ns < ps->min_ns;
}

/* Puts the file and the cache back where the first pass found them. */
static int pass_reset(struct seq_run *s, struct passes *ps, int fd, enum blk_test t)
{
	struct sb_wl_ctx *c = s->c;
	if (t == BLK_WRITE && ftruncate(fd, 0) < 0)
		return sb_wl_fail(c, -errno, "%s: truncate", s->path);
	if (lseek(fd, 0, SEEK_SET) < 0)
		return sb_wl_fail(c, -errno, "%s: seek", s->path);
	if (t == BLK_WRITE || s->direct)
		return 0;
	if (!seq_o(c->spec)->drop) {
		ps->cached = true;
		return 0;
	}
	uint64_t t0 = sb_mono_ns();
	bool cold = c->cold; /* the quiesce record of the next phase's own drop */
	if (sb_wl_drop_caches(c) < 0)
		ps->cached = true;
	c->cold = cold;
	ps->paused_ns += sb_mono_ns() - t0;
	return 0;
}

/* Ends a block test: its rate is the bytes of all its passes over their
 * time without the drops between them (%CPU keeps the whole phase). */
static void passes_end(struct seq_run *s, struct sb_phase *p, const struct passes *ps,
		       const char *metric)
{
	char key[64];
	sb_phase_end(p);
	p->secs -= (double)ps->paused_ns / 1e9;
	sb_seq_add_rate(s->c, metric, p, (double)ps->base, 1 / 1024.0, "KB/s");
	snprintf(key, sizeof(key), "%s_passes", metric);
	sb_wl_extra_int(s->c, key, ps->n);
	/* the time the rate is over, to hold against min-time */
	snprintf(key, sizeof(key), "%s_passes_s", metric);
	sb_wl_extra_double(s->c, key, p->secs);
	if (ps->cached && ps->n > 1) {
		snprintf(key, sizeof(key), "%s_passes_cached", metric);
		sb_wl_extra_bool(s->c, key, true);
	}
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
		if (sb_phase_over(&p, sb_mono_ns(), done))
			break;
	}
	if (fflush(f) != 0 || (seq_o(c->spec)->fsync && fsync(fileno(f)) < 0))
		if (rc == 0)
			rc = sb_wl_fail(c, -errno, "%s: write", s->path);
	if (fclose(f) != 0 && rc == 0)
		rc = sb_wl_fail(c, -errno, "%s: close", s->path);
	p.wbytes = p.done = done;
	sb_phase_end(&p);
	sb_seq_add_rate(c, "putc_write", &p, done, 1 / 1024.0, "KB/s");
	sb_wl_extra_int(c, "putc_bytes", (int64_t)done);
	if (rc == 0 && seq_o(c->spec)->verify && !p.expired && !p.stopped) {
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

/* One pass of the block write; *nb: the blocks it wrote. */
static int write_pass(struct seq_run *s, struct sb_phase *p, const struct passes *ps, int fd,
		      struct sb_hist *h, uint64_t *nb)
{
	struct sb_wl_ctx *c = s->c;
	uint64_t b, t0 = sb_mono_ns(), t1;
	int rc = 0;

	for (b = 0; b < s->nblocks; b++) {
		/* Fresh data per block (counted in the block's time, as fio's
		 * refill_buffers would be): a compressing or deduplicating layer
		 * must not see the same block twice. */
		sb_data_fill(&c->data, s->buf, b * s->chunk, s->chunk, 1);
		ssize_t n = write(fd, s->buf, s->chunk);
		t1 = sb_mono_ns();
		if (n != (ssize_t)s->chunk) {
			rc = sb_wl_fail(c, n < 0 ? -errno : -ENOSPC, "%s: write", s->path);
			break;
		}
		sb_hist_add(h, t1 - t0);
		t0 = t1;
		if (sb_phase_over(p, t1, ps->base + (b + 1) * s->chunk)) {
			b++;
			break;
		}
	}
	*nb = b;
	return rc;
}

/* One pass of the rewrite: the first reads what the write left
 * (generation 1), a later one what the pass before wrote (2). */
static int rewrite_pass(struct seq_run *s, struct sb_phase *p, const struct passes *ps, int fd,
			struct sb_hist *h, uint64_t *nb)
{
	struct sb_wl_ctx *c = s->c;
	const unsigned gen = ps->n ? 2 : 1;
	uint64_t b, t0, t1;
	int rc = 0;

	for (b = 0; b < s->nblocks; b++) {
		t0 = sb_mono_ns();
		ssize_t n = read(fd, s->buf, s->chunk);
		if (n != (ssize_t)s->chunk) {
			rc = sb_wl_fail(c, n < 0 ? -errno : -EIO, "%s: read", s->path);
			break;
		}
		s->bad += sb_data_check(&c->data, s->buf, b * s->chunk, s->chunk, gen);
		s->verified += s->chunk;
		/* Change every word, as a new generation. */
		sb_data_fill(&c->data, s->buf, b * s->chunk, s->chunk, 2);
		if (lseek(fd, -(off_t)s->chunk, SEEK_CUR) < 0 ||
		    write(fd, s->buf, s->chunk) != (ssize_t)s->chunk) {
			rc = sb_wl_fail(c, -errno, "%s: rewrite", s->path);
			break;
		}
		t1 = sb_mono_ns();
		sb_hist_add(h, t1 - t0);
		if (sb_phase_over(p, t1, ps->base + (b + 1) * s->chunk)) {
			b++;
			break;
		}
	}
	*nb = b;
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
		if (sb_phase_over(&p, sb_mono_ns(), done))
			break;
	}
	fclose(f);
	p.rbytes = p.done = done;
	sb_phase_end(&p);
	sb_seq_add_rate(c, "getc_read", &p, done, 1 / 1024.0, "KB/s");
	/* Count whole sectors, like the block tests. */
	s->bad += (bad + SB_SECTOR - 1) / SB_SECTOR;
	s->verified += done;
	return rc;
}

/* One pass of the block read, of what the rewrite left (generation 2). */
static int read_pass(struct seq_run *s, struct sb_phase *p, const struct passes *ps, int fd,
		     struct sb_hist *h, uint64_t *nb)
{
	struct sb_wl_ctx *c = s->c;
	uint64_t b, t0 = sb_mono_ns(), t1;
	int rc = 0;

	for (b = 0; b < s->nblocks; b++) {
		ssize_t n = read(fd, s->buf, s->chunk);
		t1 = sb_mono_ns();
		if (n != (ssize_t)s->chunk) {
			rc = sb_wl_fail(c, n < 0 ? -errno : -EIO, "%s: read", s->path);
			break;
		}
		sb_hist_add(h, t1 - t0);
		s->bad += sb_data_check(&c->data, s->buf, b * s->chunk, s->chunk, 2);
		s->verified += s->chunk;
		t0 = sb_mono_ns();
		if (sb_phase_over(p, t0, ps->base + (b + 1) * s->chunk)) {
			b++;
			break;
		}
	}
	*nb = b;
	return rc;
}

typedef int (*pass_fn)(struct seq_run *s, struct sb_phase *p, const struct passes *ps, int fd,
		       struct sb_hist *h, uint64_t *nb);

static const char *const blk_phase[] = {"block write", "rewrite", "block read"};
static const char *const blk_metric[] = {"block_write", "rewrite", "block_read"};
static const int blk_flags[] = {O_WRONLY | O_CREAT | O_TRUNC, O_RDWR, O_RDONLY};

/* engine=psync: one block test, one read or write at a time, in passes.
 * After a cut-short write the later tests work on what it wrote. */
static int block_psync(struct seq_run *s, enum blk_test t, struct sb_hist *h)
{
	static const pass_fn pass[] = {write_pass, rewrite_pass, read_pass};
	struct sb_wl_ctx *c = s->c;
	_cleanup_close_ int fd = open_block(s, blk_flags[t]);
	struct sb_phase p;
	struct passes ps;
	uint64_t b = 0;
	int rc;

	if (fd < 0)
		return fd;
	passes_init(s, &ps);
	/* the total is unknown when the passes go by time */
	sb_phase_begin(c, &p, blk_phase[t], ps.min_ns ? 0 : s->size);
	if (s->direct)
		sb_phase_direct(&p, fd);
	p.bytes = true;
	p.op_bytes = s->chunk;
	p.hist = h;
	for (;;) {
		rc = pass[t](s, &p, &ps, fd, h, &b);
		if (rc == 0 && t != BLK_READ && seq_o(c->spec)->fsync && fsync(fd) < 0)
			rc = sb_wl_fail(c, -errno, "%s: fsync", s->path);
		if (!pass_again(s, &p, &ps, b * s->chunk, rc))
			break;
		if ((rc = pass_reset(s, &ps, fd, t)) < 0)
			break;
	}
	if (t != BLK_READ)
		p.wbytes = ps.base;
	if (t != BLK_WRITE)
		p.rbytes = ps.base;
	p.done = ps.base;
	passes_end(s, &p, &ps, blk_metric[t]);
	if (t == BLK_REWRITE)
		sb_wl_extra_int(c, "rewritten_blocks", (int64_t)b);
	if (t == BLK_WRITE && b < s->nblocks)
		s->nblocks = b;
	return rc;
}

static int blk_issue(struct sb_engine *e, struct seq_run *s, struct sb_io *io, uint64_t b,
		     enum blk_test t)
{
	io->off = b * s->chunk;
	io->op = t == BLK_WRITE ? SB_IO_WRITE : SB_IO_READ;
	if (t == BLK_WRITE) /* fresh data per block, as the psync test */
		sb_data_fill(&s->c->data, io->buf, io->off, s->chunk, 1);
	io->t_start = sb_mono_ns();
	return sb_engine_queue(e, io);
}

/* engine=io_uring: one block test with qd blocks in flight, issued in file
 * order. Each is timed from its submission to the reap that saw it complete
 * (a rewrite from its read's submission to its write's completion). The
 * blocks in flight are distinct, so a rewrite's write never meets another
 * I/O of its block. After a cut-short write or rewrite the later tests work
 * on the blocks it finished (all those issued: in-flight ones complete). */
struct uring_test {
	struct seq_run *s;
	enum blk_test t;
	struct sb_phase p;
	struct sb_hist *h;
	struct sb_engine e;
	struct sb_io *ios, **done;
	void **bufs;
	unsigned qd;
	uint64_t next, completed; /* blocks of the pass */
	unsigned gen;		  /* what a rewrite's read half finds */
	bool stopping;
};

static int uring_setup(struct uring_test *u, int fd)
{
	struct seq_run *s = u->s;
	const struct sb_wl_spec *sp = s->c->spec;
	char *why = NULL;
	int r;

	u->ios = calloc(u->qd, sizeof(*u->ios));
	u->done = calloc(u->qd, sizeof(*u->done));
	u->bufs = calloc(u->qd, sizeof(*u->bufs));
	if (!u->ios || !u->done || !u->bufs)
		return -ENOMEM;
	for (unsigned k = 0; k < u->qd; k++) {
		if (!(u->bufs[k] = sb_wl_alloc_aligned(s->chunk)))
			return -ENOMEM;
		u->ios[k] = (struct sb_io){
		    .buf = u->bufs[k], .len = (uint32_t)s->chunk, .buf_index = (uint16_t)k};
	}
	struct sb_engine_cfg cfg = {
	    .fd = fd, .qd = u->qd, .bufs = u->bufs, .n_bufs = u->qd, .buf_len = s->chunk};
	sb_engine_opts_cfg(&seq_o(sp)->eng, &cfg);
	r = sb_engine_init(&u->e, &sb_engine_io_uring, &cfg, &why);
	if (r < 0)
		r = sb_wl_fail(s->c, r, "%s: %s", s->path, why ? why : "io_uring setup failed");
	free(why);
	return r;
}

static void uring_free(struct uring_test *u)
{
	sb_engine_cleanup(&u->e);
	for (unsigned k = 0; u->bufs && k < u->qd; k++)
		free(u->bufs[k]);
	free(u->bufs);
	free(u->ios);
	free(u->done);
}

/* One completion; the next block goes out in its slot. */
static int uring_complete(struct uring_test *u, struct sb_io *io, uint64_t now, int rc)
{
	struct seq_run *s = u->s;
	struct sb_wl_ctx *c = s->c;
	int r;

	if (__builtin_expect(io->res != (int)s->chunk, 0)) {
		u->stopping = true;
		return rc ? rc
			  : sb_wl_fail(c, io->res < 0 ? io->res : -EIO, "%s: %s", s->path,
				       io->op == SB_IO_WRITE ? "write" : "read");
	}
	if (u->t == BLK_REWRITE && io->op == SB_IO_READ) {
		/* The read half: check it, change every word (a new
		 * generation), write it back, still in its time. */
		s->bad += sb_data_check(&c->data, io->buf, io->off, s->chunk, u->gen);
		s->verified += s->chunk;
		if (rc)
			return rc;
		sb_data_fill(&c->data, io->buf, io->off, s->chunk, 2);
		io->op = SB_IO_WRITE;
		uint64_t t0 = io->t_start;
		if ((r = sb_engine_queue(&u->e, io)) < 0) {
			u->stopping = true;
			rc = sb_wl_fail(c, r, "%s: io_uring", s->path);
		}
		io->t_start = t0;
		return rc;
	}
	sb_hist_add(u->h, now - io->t_start);
	u->completed++;
	if (u->t == BLK_READ) {
		s->bad += sb_data_check(&c->data, io->buf, io->off, s->chunk, 2);
		s->verified += s->chunk;
	}
	if (u->stopping || u->next >= s->nblocks)
		return rc;
	if ((r = blk_issue(&u->e, s, io, u->next++, u->t)) < 0) {
		u->stopping = true;
		rc = sb_wl_fail(c, r, "%s: io_uring", s->path);
	}
	return rc;
}

/* One pass over the file: qd blocks out, then one in for each one done. */
static int uring_pass(struct uring_test *u, const struct passes *ps)
{
	struct seq_run *s = u->s;
	int rc = 0, r;

	u->next = u->completed = 0;
	u->stopping = false;
	u->gen = u->t == BLK_REWRITE && ps->n ? 2 : 1;
	for (unsigned k = 0; k < u->qd && u->next < s->nblocks && rc == 0; k++)
		if ((r = blk_issue(&u->e, s, &u->ios[k], u->next++, u->t)) < 0)
			rc = sb_wl_fail(s->c, r, "%s: io_uring", s->path);
	if (rc == 0 && (r = sb_engine_submit(&u->e)) < 0)
		rc = sb_wl_fail(s->c, r, "%s: io_uring submit", s->path);
	if (rc)
		u->stopping = true;
	while (u->e.inflight) {
		int n = sb_engine_reap(&u->e, 1, u->done, u->qd);
		uint64_t now = sb_mono_ns();
		if (n < 0) {
			/* The ring goes with what is in it (cleanup waits for nothing). */
			return rc ? rc : sb_wl_fail(s->c, n, "%s: io_uring reap", s->path);
		}
		for (int k = 0; k < n; k++)
			rc = uring_complete(u, u->done[k], now, rc);
		if (!u->stopping && sb_phase_over(&u->p, now, ps->base + u->completed * s->chunk))
			u->stopping = true; /* let what is in flight complete */
		/* No submit here: the next reap submits and waits in one call. */
	}
	return rc;
}

static int block_uring(struct seq_run *s, enum blk_test t, struct sb_hist *h)
{
	struct sb_wl_ctx *c = s->c;
	const struct sb_wl_spec *sp = c->spec;
	_cleanup_close_ int fd = open_block(s, blk_flags[t]);
	struct uring_test u = {.s = s, .t = t, .h = h};
	struct passes ps;
	int rc;

	u.qd = (unsigned)(seq_o(sp)->eng.qd < s->nblocks ? seq_o(sp)->eng.qd : s->nblocks);
	if (fd < 0 || u.qd == 0) /* qd 0: the write before was cut short at once */
		return fd < 0 ? fd : 0;
	if ((rc = uring_setup(&u, fd)) < 0) {
		uring_free(&u);
		return rc;
	}
	passes_init(s, &ps);
	sb_phase_begin(c, &u.p, blk_phase[t], ps.min_ns ? 0 : s->size);
	if (s->direct)
		sb_phase_direct(&u.p, fd);
	u.p.bytes = true;
	u.p.op_bytes = s->chunk;
	u.p.hist = h;
	for (;;) {
		rc = uring_pass(&u, &ps);
		if (rc == 0 && t != BLK_READ && seq_o(sp)->fsync && fsync(fd) < 0)
			rc = sb_wl_fail(c, -errno, "%s: fsync", s->path);
		if (!pass_again(s, &u.p, &ps, u.completed * s->chunk, rc))
			break;
		if ((rc = pass_reset(s, &ps, fd, t)) < 0)
			break;
	}
	uring_free(&u);
	if (t != BLK_READ)
		u.p.wbytes = ps.base;
	if (t != BLK_WRITE)
		u.p.rbytes = ps.base;
	u.p.done = ps.base;
	passes_end(s, &u.p, &ps, blk_metric[t]);
	if (t == BLK_REWRITE)
		sb_wl_extra_int(c, "rewritten_blocks", (int64_t)u.completed);
	if (rc == 0 && t != BLK_READ && u.next < s->nblocks)
		s->nblocks = u.next;
	return rc;
}

static int seq_run(struct sb_wl_ctx *c)
{
	const struct sb_wl_spec *sp = c->spec;
	struct seq_run s = {.c = c, .chunk = seq_o(sp)->chunk, .direct = seq_o(sp)->direct};
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
	s.size = sb_wl_given(sp, "size") || seq_o(sp)->size ? seq_o(sp)->size : 2 * c->ram;
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
	sb_wl_extra_int(c, "seeks", (int64_t)seq_o(sp)->seeks);
	sb_wl_extra_int(c, "seekers", (int64_t)seq_o(sp)->seekers);
	sb_wl_engine_extra(c, &seq_o(sp)->eng);
	rc = sb_wl_check_space(c, s.size);
	if (rc < 0) {
		free(s.buf);
		free(h);
		return rc;
	}

	rc = seq_o(sp)->perchar ? putc_write(&s) : 0;
	if (rc == 0 && !*c->env->stop)
		rc = uring ? block_uring(&s, BLK_WRITE, &h[0]) : block_psync(&s, BLK_WRITE, &h[0]);
	if (rc == 0 && !*c->env->stop) {
		if (seq_o(sp)->drop)
			sb_wl_drop_caches(c);
		rc = uring ? block_uring(&s, BLK_REWRITE, &h[1])
			   : block_psync(&s, BLK_REWRITE, &h[1]);
	}
	if (rc == 0 && !*c->env->stop && seq_o(sp)->perchar) {
		if (seq_o(sp)->drop)
			sb_wl_drop_caches(c);
		rc = getc_read(&s);
	}
	if (rc == 0 && !*c->env->stop) {
		if (seq_o(sp)->drop)
			sb_wl_drop_caches(c);
		rc = uring ? block_uring(&s, BLK_READ, &h[2]) : block_psync(&s, BLK_READ, &h[2]);
	}
	if (rc == 0 && !*c->env->stop && s.nblocks)
		rc = sb_seq_seeks(&s, &h[3]);
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
    {"putc_write", "Sequential Output Per Chr", "KB/s", SB_BETTER_HIGHER, true, "putc write",
     false},
    {"putc_write_cpu", "Sequential Output Per Chr %CP", "%CPU", SB_BETTER_LOWER, false,
     "putc write", false},
    {"block_write", "Sequential Output Block", "KB/s", SB_BETTER_HIGHER, true, "block write",
     false},
    {"block_write_cpu", "Sequential Output Block %CP", "%CPU", SB_BETTER_LOWER, false,
     "block write", false},
    {"rewrite", "Sequential Output Rewrite", "KB/s", SB_BETTER_HIGHER, true, "rewrite", false},
    {"rewrite_cpu", "Sequential Output Rewrite %CP", "%CPU", SB_BETTER_LOWER, false, "rewrite",
     false},
    {"getc_read", "Sequential Input Per Chr", "KB/s", SB_BETTER_HIGHER, true, "getc read", false},
    {"getc_read_cpu", "Sequential Input Per Chr %CP", "%CPU", SB_BETTER_LOWER, false, "getc read",
     false},
    {"block_read", "Sequential Input Block", "KB/s", SB_BETTER_HIGHER, true, "block read", false},
    {"block_read_cpu", "Sequential Input Block %CP", "%CPU", SB_BETTER_LOWER, false, "block read",
     false},
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

/* --cap-cache's floor: a block (chunk) per I/O in flight, one per seeker,
 * four histograms. */
static uint64_t mem_seq(const struct sb_wl_spec *s, uint64_t data)
{
	uint64_t chunk = sb_wl_opt_u64(s, "chunk", 8192), qd = sb_wl_opt_u64(s, "qd", 1);
	return 4 * SB_WL_HIST_BYTES + chunk * qd +
	       sb_wl_opt_u64(s, "seekers", 1) * (chunk + SB_WL_HIST_BYTES);
}

const struct sb_wl_ops sb_wl_seq = {
    .name = "seq",
    .example = "seq,size=4G",
    .summary = "bonnie++-style sequential test: putc write, block write, rewrite, getc read, "
	       "block read, random seeks; KB/s and %CPU",
    .opts = seq_opts,
    .opts_size = sizeof(struct seq_opts),
    .metrics = seq_metrics,
    .check = seq_check,
    .run = seq_run,
    .mem_bytes = mem_seq,
};
