/* mixed:RrWw: the FsOpBench-style test of readers against writers. R read
 * trees shaped like home directories are built first (untimed); then three
 * phases, each time= long: 1 reader, R readers, R readers + W writers.
 * Readers walk their own tree (read dir, lstat, open, read first byte, read
 * the rest); writers create similar trees (mkdir, create, write first byte,
 * write the rest, close). Per op type and phase: count, min, max, mean,
 * stdev, percentiles; read and write rates per phase:
 *   *_rate_data_mbs: bytes / (time in the data ops / threads)
 *   *_rate_all_mbs:  bytes / (time in all of the thread's ops / threads),
 *                    i.e. including readdir, lstat, open and the first byte. */
#include "workload/tree.h"
#include "workload/wl.h"
#include "util/macro.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The typed options mixed_opts fills (mixed.c). */
struct mixed_opts {
	struct sb_wl_common com;
	uint64_t files;
	uint64_t maxfile;
	uint64_t time;
	bool drop;
};

static inline const struct mixed_opts *mixed_o(const struct sb_wl_spec *s)
{
	return s->o;
}

static const struct sb_wl_opt mixed_opts[] = {
    SB_WO(struct mixed_opts, files, "files", SB_WO_UINT, "100000", "2000", 1, 100000000,
	  "files in the read trees, all readers together"),
    SB_WO(struct mixed_opts, maxfile, "maxfile", SB_WO_SIZE, "16M", "256k", 1, 1ull << 32,
	  "largest file in a tree"),
    SB_WO(struct mixed_opts, time, "time", SB_WO_DURATION, "30s", "2s", 1, 0,
	  "length of each phase"),
    SB_WL_SEED_ROW(struct mixed_opts, "seed of the trees"),
    SB_WO(struct mixed_opts, drop, "drop", SB_WO_BOOL, "1", NULL, 0, 1,
	  "drop the page cache before each phase"),
    SB_WL_TIMEOUT_ROW(struct mixed_opts, "1h", "10m", "time limit for building the trees"),
    SB_WL_DATA_ROWS(struct mixed_opts),
    {0},
};

enum op {
	OP_READDIR,
	OP_LSTAT,
	OP_OPEN,
	OP_RFIRST,
	OP_RREST,
	OP_CREATE,
	OP_WFIRST,
	OP_WREST,
	OP_CLOSE,
	OP_MKDIR,
	OP_N
};
static const char *const op_names[OP_N] = {
    "read dir",	  "lstat", "open", "read first byte", "read rest", "create", "write first byte",
    "write rest", "close", "mkdir"};

#define IOBUF (256u << 10)

static int parse_rw(const char *arg, struct sb_wl_spec *s, char **why)
{
	unsigned long r = 0, w = 0;
	char *e = NULL;
	if (isdigit((unsigned char)*arg))
		r = strtoul(arg, &e, 10);
	if (e && *e == 'r' && isdigit((unsigned char)e[1]))
		w = strtoul(e + 1, &e, 10);
	else
		e = NULL;
	if (!e || strcmp(e, "w") != 0 || r < 1 || r > 64 || w > 64) {
		if (asprintf(why,
			     "bad readers/writers '%s': expected RrWw with 1-64 readers and "
			     "0-64 writers, e.g. 3r3w",
			     arg) < 0)
			*why = NULL;
		return -EINVAL;
	}
	s->a[0] = r;
	s->a[1] = w;
	return 0;
}

struct mixed;

struct worker {
	struct mixed *m;
	unsigned id;
	bool writer;
	uint64_t end; /* phase end */
	uint64_t bytes, data_ns, all_ns, rounds, bad, files;
	int err;
	int *running; /* the phase's count of working threads */
	char *buf;
	char *names; /* readdir names, reused */
	size_t names_cap;
	struct sb_hist h[OP_N];
	/* writer state */
	int root_fd;
	int dir_fd[SB_TREE_MAX_DEPTH + 1];
};

struct mixed {
	struct sb_wl_ctx *c;
	unsigned R, W;
	uint32_t files_per_tree;
	uint64_t maxfile, seed;
	volatile sig_atomic_t *stop;
	int failed; /* a worker hit an error (ENOSPC...): the phase ends now */
};

static inline bool over(struct worker *w, uint64_t now)
{
	return now >= w->end || *w->m->stop || __atomic_load_n(&w->m->failed, __ATOMIC_RELAXED);
}

static inline void rec(struct worker *w, enum op op, uint64_t t0, uint64_t t1)
{
	sb_hist_add(&w->h[op], t1 - t0);
	w->all_ns += t1 - t0;
}

static uint64_t tree_gen_seed(const struct mixed *m, unsigned tree)
{
	return m->seed * 1000003u + tree;
}

/* Reads one file: open, first byte, the rest; checks the content. */
static int read_file(struct worker *w, int dfd, const char *name, uint64_t size, uint64_t gen)
{
	uint64_t t0 = sb_mono_ns(), t1, off = 0;
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n;

	t1 = sb_mono_ns();
	if (fd < 0)
		return -errno;
	rec(w, OP_OPEN, t0, t1);
	if (size) {
		t0 = t1;
		n = read(fd, w->buf, 1);
		t1 = sb_mono_ns();
		if (n != 1) {
			close(fd);
			return n < 0 ? -errno : -EIO;
		}
		rec(w, OP_RFIRST, t0, t1);
		w->data_ns += t1 - t0;
		{
			uint64_t first = sb_data_tag(&w->m->c->data, 0, gen);
			w->bad += (unsigned char)w->buf[0] != (unsigned char)(first & 0xff);
		}
		off = 1;
		if (size > 1) {
			t0 = t1;
			/* The rest: a first read up to the sector boundary keeps the
			 * later reads aligned for the content check. */
			while (off < size) {
				size_t want = off < SB_SECTOR ? SB_SECTOR - off : IOBUF;
				n = read(fd, w->buf, want);
				if (n <= 0)
					break;
				if (off % SB_SECTOR == 0)
					w->bad += sb_data_check(
					    &w->m->c->data, w->buf, off,
					    (size_t)n & ~(size_t)(SB_SECTOR - 1), gen);
				off += (uint64_t)n;
			}
			t1 = sb_mono_ns();
			if (n < 0) {
				close(fd);
				return -errno;
			}
			rec(w, OP_RREST, t0, t1);
			w->data_ns += t1 - t0;
		}
		__atomic_fetch_add(&w->bytes, off, __ATOMIC_RELAXED);
	}
	close(fd);
	w->files++;
	return 0;
}

/* Walks the directory dfd: read dir (all of it, as one op), then lstat each
 * entry, read files, descend into directories. Returns 1 when time is up. */
static int walk(struct worker *w, int dfd, uint64_t gen, unsigned depth)
{
	uint64_t t0 = sb_mono_ns(), t1;
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	size_t used = 0;
	char *names;
	int rc = 0;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name) + 1;
		if (de->d_name[0] == '.' &&
		    (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		if (used + l + 1 > w->names_cap) {
			size_t cap = w->names_cap ? 2 * w->names_cap : 4096;
			while (cap < used + l + 1)
				cap *= 2;
			char *nb = realloc(w->names, cap);
			if (!nb) {
				closedir(d);
				return -ENOMEM;
			}
			w->names = nb;
			w->names_cap = cap;
		}
		memcpy(w->names + used, de->d_name, l);
		used += l;
	}
	closedir(d);
	t1 = sb_mono_ns();
	rec(w, OP_READDIR, t0, t1);
	if (over(w, t1))
		return 1;
	/* Deeper levels reuse the buffer: keep our own copy of this level's names. */
	names = malloc(used + 1);
	if (!names)
		return -ENOMEM;
	memcpy(names, w->names, used);
	names[used] = '\0';
	for (size_t p = 0; p < used && rc == 0; p += strlen(names + p) + 1) {
		const char *name = names + p;
		struct stat st;
		t0 = sb_mono_ns();
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			rc = -errno;
			break;
		}
		t1 = sb_mono_ns();
		rec(w, OP_LSTAT, t0, t1);
		if (S_ISDIR(st.st_mode)) {
			int sub =
			    openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
			if (sub < 0) {
				rc = -errno;
				break;
			}
			rc = walk(w, sub, gen, depth + 1);
			close(sub);
		} else if (S_ISREG(st.st_mode)) {
			uint32_t idx = sb_tree_file_index(name);
			rc = read_file(w, dfd, name, (uint64_t)st.st_size, gen ^ idx);
		}
		if (rc == 0 && over(w, sb_mono_ns()))
			rc = 1;
	}
	free(names);
	return rc;
}

static void *reader_main(void *arg)
{
	struct worker *w = arg;
	struct mixed *m = w->m;
	char name[32];
	int fd, rc = 0;

	snprintf(name, sizeof(name), "read%u", w->id);
	fd = openat(m->c->work_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		w->err = -errno;
		return NULL;
	}
	while (rc == 0 && !over(w, sb_mono_ns())) {
		rc = walk(w, fd, tree_gen_seed(m, w->id), 0);
		w->rounds += rc == 0;
	}
	if (rc < 0) {
		w->err = rc;
		__atomic_store_n(&m->failed, 1, __ATOMIC_RELAXED);
	}
	close(fd);
	__atomic_fetch_sub(w->running, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Writers: one tree at a time, built through the generator's callback. */
static int write_entry(void *ud, const struct sb_tree_entry *e)
{
	struct worker *w = ud;
	int pfd = w->dir_fd[e->depth - 1], fd;
	uint64_t t0 = sb_mono_ns(), t1;

	if (over(w, t0))
		return 1;
	if (!e->dir && e->size) {
		sb_data_fill(&w->m->c->data, w->buf, 0, e->size < IOBUF ? (size_t)e->size : IOBUF,
			     0x5A5A0000ull ^ ((uint64_t)w->id << 40) ^ w->files ^
				 (w->rounds << 20));
		t0 = sb_mono_ns();
	}
	if (e->dir) {
		if (mkdirat(pfd, e->name, 0755) < 0)
			return -errno;
		t1 = sb_mono_ns();
		rec(w, OP_MKDIR, t0, t1);
		fd = openat(pfd, e->name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (w->dir_fd[e->depth] >= 0)
			close(w->dir_fd[e->depth]);
		w->dir_fd[e->depth] = fd;
		return 0;
	}
	fd = openat(pfd, e->name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	t1 = sb_mono_ns();
	if (fd < 0)
		return -errno;
	rec(w, OP_CREATE, t0, t1);
	if (e->size) {
		uint64_t off = 0;
		t0 = t1;
		if (write(fd, w->buf, 1) != 1)
			goto werr;
		t1 = sb_mono_ns();
		rec(w, OP_WFIRST, t0, t1);
		w->data_ns += t1 - t0;
		off = 1;
		if (e->size > 1) {
			t0 = t1;
			while (off < e->size) {
				size_t n = e->size - off < IOBUF ? (size_t)(e->size - off) : IOBUF;
				if (write(fd, w->buf, n) != (ssize_t)n)
					goto werr;
				off += n;
			}
			t1 = sb_mono_ns();
			rec(w, OP_WREST, t0, t1);
			w->data_ns += t1 - t0;
		}
		__atomic_fetch_add(&w->bytes, off, __ATOMIC_RELAXED);
	}
	t0 = t1;
	if (close(fd) < 0)
		return -errno;
	t1 = sb_mono_ns();
	rec(w, OP_CLOSE, t0, t1);
	w->files++;
	return 0;
werr : {
	int e2 = errno ? -errno : -ENOSPC;
	close(fd);
	return e2;
}
}

static void *writer_main(void *arg)
{
	struct worker *w = arg;
	struct mixed *m = w->m;
	char name[48], prev[48] = "";
	int rc = 0;

	/* Writers' data is never read back; it is refilled for each file
	 * (before the file's clock runs; data.h), and a file larger than the
	 * buffer repeats it. */

	while (rc == 0 && !over(w, sb_mono_ns())) {
		struct sb_tree_params tp = {.seed =
						tree_gen_seed(m, 500 + w->id) + w->rounds * 7919,
					    .files = m->files_per_tree,
					    .maxfile = m->maxfile};
		/* Keep the space used bounded: the previous tree goes first. */
		if (prev[0])
			sb_wl_rmtree_at(m->c->work_fd, prev);
		snprintf(name, sizeof(name), "write%u.%llu", w->id, (unsigned long long)w->rounds);
		if (mkdirat(m->c->work_fd, name, 0755) < 0) {
			rc = -errno;
			break;
		}
		snprintf(prev, sizeof(prev), "%s", name);
		for (int i = 0; i <= SB_TREE_MAX_DEPTH; i++)
			w->dir_fd[i] = -1;
		w->dir_fd[0] = openat(m->c->work_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (w->dir_fd[0] < 0) {
			rc = -errno;
			break;
		}
		rc = sb_tree_generate(&tp, write_entry, w);
		for (int i = 0; i <= SB_TREE_MAX_DEPTH; i++)
			if (w->dir_fd[i] >= 0)
				close(w->dir_fd[i]);
		if (rc == 0)
			w->rounds++;
	}
	if (rc < 0) {
		w->err = rc;
		__atomic_store_n(&m->failed, 1, __ATOMIC_RELAXED);
	}
	__atomic_fetch_sub(w->running, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Builds the read trees (untimed). */
struct build {
	struct mixed *m;
	int dir_fd[SB_TREE_MAX_DEPTH + 1];
	char *buf;
	uint64_t gen, done, total, bytes;
	struct sb_phase *p;
};

static int build_entry(void *ud, const struct sb_tree_entry *e)
{
	struct build *b = ud;
	int pfd = b->dir_fd[e->depth - 1], fd;

	if (e->dir) {
		if (mkdirat(pfd, e->name, 0755) < 0)
			return -errno;
		fd = openat(pfd, e->name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (b->dir_fd[e->depth] >= 0)
			close(b->dir_fd[e->depth]);
		b->dir_fd[e->depth] = fd;
		return 0;
	}
	fd = openat(pfd, e->name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	for (uint64_t off = 0; off < e->size;) {
		size_t n = e->size - off < IOBUF ? (size_t)(e->size - off) : IOBUF;
		sb_data_fill(&b->m->c->data, b->buf, off, n, b->gen ^ e->index);
		if (write(fd, b->buf, n) != (ssize_t)n) {
			int err = errno ? -errno : -ENOSPC;
			close(fd);
			return err;
		}
		off += n;
	}
	b->bytes += e->size;
	if (close(fd) < 0)
		return -errno;
	b->done++;
	return sb_phase_over(b->p, sb_mono_ns(), b->done) ? -ETIMEDOUT : 0;
}

static int sum_entry(void *ud, const struct sb_tree_entry *e)
{
	uint64_t *b = ud;
	*b += e->dir ? 4096 : (e->size + 4095) / 4096 * 4096;
	return 0;
}

/* The space the data set takes, from the generator alone (nothing is
 * written): the readers' trees, and a tree for each writer (it removes its
 * previous one first); files in whole 4 KiB blocks, a block a directory. */
static uint64_t trees_bytes(const struct mixed *m)
{
	uint64_t total = 0;
	for (unsigned t = 0; t < m->R + m->W; t++) {
		struct sb_tree_params tp = {.seed =
						tree_gen_seed(m, t < m->R ? t : 500 + (t - m->R)),
					    .files = m->files_per_tree,
					    .maxfile = m->maxfile};
		sb_tree_generate(&tp, sum_entry, &total);
	}
	return total;
}

static int build_trees(struct mixed *m, uint64_t *bytes)
{
	struct sb_wl_ctx *c = m->c;
	struct build b = {.m = m, .buf = sb_wl_alloc_aligned(IOBUF)};
	struct sb_phase p;
	int rc = 0;

	if (!b.buf)
		return -ENOMEM;
	b.p = &p;
	sb_phase_begin(c, &p, "building trees", (uint64_t)m->files_per_tree * m->R);
	for (unsigned r = 0; r < m->R && rc == 0; r++) {
		char name[32];
		struct sb_tree_params tp = {
		    .seed = tree_gen_seed(m, r), .files = m->files_per_tree, .maxfile = m->maxfile};
		snprintf(name, sizeof(name), "read%u", r);
		if (mkdirat(c->work_fd, name, 0755) < 0)
			return free(b.buf), sb_wl_fail(c, -errno, "%s/%s", c->work, name);
		for (int i = 0; i <= SB_TREE_MAX_DEPTH; i++)
			b.dir_fd[i] = -1;
		b.dir_fd[0] = openat(c->work_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		b.gen = tree_gen_seed(m, r);
		rc = b.dir_fd[0] < 0 ? -errno : sb_tree_generate(&tp, build_entry, &b);
		for (int i = 0; i <= SB_TREE_MAX_DEPTH; i++)
			if (b.dir_fd[i] >= 0)
				close(b.dir_fd[i]);
	}
	p.wbytes = b.bytes;
	p.done = b.done; /* files */
	sb_phase_end(&p);
	free(b.buf);
	if (rc == -ETIMEDOUT || p.stopped)
		return sb_wl_fail(c, -ETIMEDOUT, "building the read trees did not finish");
	if (rc < 0)
		return sb_wl_fail(c, rc, "%s: building the read trees", c->work);
	*bytes = 0;
	return 0;
}

/* The cost of measuring one op (two clock reads and a histogram add): the
 * best of several batches, so that a busy machine does not inflate it. */
static double measure_overhead_ns(void)
{
	struct sb_hist *h = malloc(sizeof(*h));
	const int batches = 20, n = 10000;
	double best = 0;
	uint64_t t0, t1;

	if (!h)
		return 0;
	sb_hist_init(h);
	for (int b = 0; b < batches; b++) {
		uint64_t s = sb_mono_ns();
		for (int i = 0; i < n; i++) {
			t0 = sb_mono_ns();
			t1 = sb_mono_ns();
			sb_hist_add(h, t1 - t0);
		}
		double per = (double)(sb_mono_ns() - s) / n;
		if (b == 0 || per < best)
			best = per;
	}
	free(h);
	return best;
}

struct mixed_live {
	struct worker *w;
	unsigned n;
};

/* Bytes read and written by all workers so far (the series' units). */
static uint64_t mixed_live(void *arg)
{
	const struct mixed_live *l = arg;
	uint64_t sum = 0;
	for (unsigned i = 0; i < l->n; i++)
		sum += __atomic_load_n(&l->w[i].bytes, __ATOMIC_RELAXED);
	return sum;
}

/* What the threads of one phase did, summed. */
struct phase_sums {
	uint64_t rb, wb, rdata, rall, wdata, wall, bad, rounds;
};

/* The phase's rates (bytes over each side's mean time per thread, with and
 * without the metadata calls), its cost and its counts. */
static void phase_metrics(struct sb_wl_ctx *c, struct sb_phase *p, const char *prefix, unsigned nr,
			  unsigned nw, const struct phase_sums *t)
{
	char name[64];
	double mb = 1048576.0;
	snprintf(name, sizeof(name), "%s_read_rate_data_mbs", prefix);
	sb_wl_add_metric(c->res, name, "MB/s", SB_BETTER_HIGHER,
			 t->rdata ? t->rb / mb / (t->rdata / 1e9 / nr) : 0);
	snprintf(name, sizeof(name), "%s_read_rate_all_mbs", prefix);
	sb_wl_add_metric(c->res, name, "MB/s", SB_BETTER_HIGHER,
			 t->rall ? t->rb / mb / (t->rall / 1e9 / nr) : 0);
	if (nw) {
		snprintf(name, sizeof(name), "%s_write_rate_data_mbs", prefix);
		sb_wl_add_metric(c->res, name, "MB/s", SB_BETTER_HIGHER,
				 t->wdata ? t->wb / mb / (t->wdata / 1e9 / nw) : 0);
		snprintf(name, sizeof(name), "%s_write_rate_all_mbs", prefix);
		sb_wl_add_metric(c->res, name, "MB/s", SB_BETTER_HIGHER,
				 t->wall ? t->wb / mb / (t->wall / 1e9 / nw) : 0);
	}
	sb_phase_cost(p, prefix);
	snprintf(name, sizeof(name), "%s_verify_errors", prefix);
	sb_wl_extra_int(c, name, (int64_t)t->bad);
	snprintf(name, sizeof(name), "%s_read_bytes", prefix);
	sb_wl_extra_int(c, name, (int64_t)t->rb);
	snprintf(name, sizeof(name), "%s_write_bytes", prefix);
	sb_wl_extra_int(c, name, (int64_t)t->wb);
	snprintf(name, sizeof(name), "%s_read_rounds", prefix);
	sb_wl_extra_int(c, name, (int64_t)t->rounds);
}

static int run_phase(struct mixed *m, const char *label, const char *prefix, unsigned nr,
		     unsigned nw)
{
	struct sb_wl_ctx *c = m->c;
	const struct sb_wl_spec *sp = c->spec;
	unsigned n = nr + nw;
	struct worker *w = calloc(n, sizeof(*w));
	pthread_t *th = calloc(n, sizeof(*th));
	struct sb_phase p;
	unsigned started = 0;
	int rc = 0;

	if (!w || !th) {
		free(w);
		free(th);
		return -ENOMEM;
	}
	if (mixed_o(sp)->drop)
		sb_wl_drop_caches(c);
	sb_phase_begin(c, &p, label, 0);
	struct mixed_live live = {.w = w, .n = n};
	p.bytes = true;
	p.progress = mixed_live;
	p.progress_arg = &live;
	for (unsigned i = 0; i < n; i++) {
		w[i] = (struct worker){.m = m,
				       .id = i < nr ? i : i - nr,
				       .writer = i >= nr,
				       .end = p.t0 + mixed_o(sp)->time * 1000000ull,
				       .running = &p.running};
		for (int k = 0; k < OP_N; k++)
			sb_hist_init(&w[i].h[k]);
		w[i].buf = sb_wl_alloc_aligned(IOBUF + 8);
		__atomic_fetch_add(&p.running, 1, __ATOMIC_RELAXED);
		if (!w[i].buf ||
		    pthread_create(&th[i], NULL, w[i].writer ? writer_main : reader_main, &w[i])) {
			__atomic_fetch_sub(&p.running, 1, __ATOMIC_RELAXED);
			free(w[i].buf);
			rc = sb_wl_fail(c, -EAGAIN, "cannot start threads");
			break;
		}
		started++;
	}
	sb_phase_sample_threads(&p);
	struct sb_hist *h = malloc(OP_N * sizeof(*h));
	struct phase_sums t = {0};
	for (int k = 0; h && k < OP_N; k++)
		sb_hist_init(&h[k]);
	for (unsigned i = 0; i < started; i++) {
		pthread_join(th[i], NULL);
		for (int k = 0; h && k < OP_N; k++)
			sb_hist_merge(&h[k], &w[i].h[k]);
		if (w[i].writer) {
			t.wb += w[i].bytes, t.wdata += w[i].data_ns, t.wall += w[i].all_ns;
		} else {
			t.rb += w[i].bytes, t.rdata += w[i].data_ns, t.rall += w[i].all_ns;
			t.rounds += w[i].rounds;
		}
		t.bad += w[i].bad;
		if (w[i].err && !rc)
			rc = sb_wl_fail(c, w[i].err, "%s: %s", label,
					w[i].writer ? "writer" : "reader");
		free(w[i].buf);
		free(w[i].names);
	}
	p.rbytes = t.rb;
	p.wbytes = t.wb;
	p.done = t.rb + t.wb;
	/* An op: each call the histograms time (readdir, open, read...). */
	for (int k = 0; h && k < OP_N; k++)
		p.ops += h[k].count;
	sb_phase_end(&p);
	/* The writers' trees go, untimed. */
	for (unsigned i = 0; i < nw; i++)
		for (uint64_t r = 0; r <= w[nr + i].rounds; r++) {
			char name[48];
			snprintf(name, sizeof(name), "write%u.%llu", i, (unsigned long long)r);
			sb_wl_rmtree_at(c->work_fd, name);
		}
	if (h) {
		for (int k = 0; k < OP_N; k++) {
			char op[96];
			if (!h[k].count)
				continue;
			snprintf(op, sizeof(op), "%s: %s", label, op_names[k]);
			sb_wl_add_hist(c, op, &h[k]);
		}
	}
	phase_metrics(c, &p, prefix, nr, nw, &t);
	if (rc == 0 && t.bad)
		rc = sb_wl_fail(c, -EIO, "%s: %llu reads returned wrong data", label,
				(unsigned long long)t.bad);
	free(h);
	free(w);
	free(th);
	return rc;
}

static int mixed_run(struct sb_wl_ctx *c)
{
	const struct sb_wl_spec *sp = c->spec;
	struct mixed m = {.c = c,
			  .R = (unsigned)sp->a[0],
			  .W = (unsigned)sp->a[1],
			  .maxfile = mixed_o(sp)->maxfile,
			  .seed = mixed_o(sp)->com.seed,
			  .stop = c->env->stop};
	uint64_t bytes = 0;
	char label[64];
	int rc;

	m.files_per_tree = (uint32_t)((mixed_o(sp)->files + m.R - 1) / m.R);
	sb_wl_extra_int(c, "readers", m.R);
	sb_wl_extra_int(c, "writers", m.W);
	sb_wl_extra_int(c, "files_per_tree", m.files_per_tree);
	sb_wl_extra_double(c, "measure_overhead_ns", measure_overhead_ns());
	/* As seq's: a data set larger than the free space is refused before
	 * a byte is written, not found by ENOSPC halfway through. */
	rc = sb_wl_check_space(c, trees_bytes(&m));
	if (rc == 0)
		rc = build_trees(&m, &bytes);
	if (rc == 0 && !*c->env->stop)
		rc = run_phase(&m, "1 reader", "p1", 1, 0);
	if (rc == 0 && !*c->env->stop && m.R > 1) {
		snprintf(label, sizeof(label), "%u readers", m.R);
		rc = run_phase(&m, label, "pR", m.R, 0);
	}
	if (rc == 0 && !*c->env->stop && m.W) {
		snprintf(label, sizeof(label), "%u reader%s + %u writer%s", m.R, m.R > 1 ? "s" : "",
			 m.W, m.W > 1 ? "s" : "");
		rc = run_phase(&m, label, "pRW", m.R, m.W);
	}
	{
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		sb_wl_extra_int(c, "maxrss_kb", ru.ru_maxrss);
	}
	return rc;
}

/* Rates per phase, named as FsOpBench reports them. */
static const struct sb_wl_metric mixed_metrics[] = {
    {"p1_read_rate_data_mbs", "1 reader: read rate (data)", "MB/s", SB_BETTER_HIGHER, true,
     "1 reader", false},
    {"p1_read_rate_all_mbs", "1 reader: read rate (incl. readdir + open + first byte)", "MB/s",
     SB_BETTER_HIGHER, true, "1 reader", false},
    {"pR_read_rate_data_mbs", "{0:reader}: read rate (data)", "MB/s", SB_BETTER_HIGHER, true,
     "{0:reader}", false},
    {"pR_read_rate_all_mbs", "{0:reader}: read rate (incl. readdir + open + first byte)", "MB/s",
     SB_BETTER_HIGHER, true, "{0:reader}", false},
    {"pRW_read_rate_data_mbs", "{0:reader} + {1:writer}: read rate (data)", "MB/s",
     SB_BETTER_HIGHER, true, "{0:reader} + {1:writer}", false},
    {"pRW_read_rate_all_mbs",
     "{0:reader} + {1:writer}: read rate (incl. readdir + open + first byte)", "MB/s",
     SB_BETTER_HIGHER, true, "{0:reader} + {1:writer}", false},
    {"pRW_write_rate_data_mbs", "{0:reader} + {1:writer}: write rate (data)", "MB/s",
     SB_BETTER_HIGHER, true, "{0:reader} + {1:writer}", false},
    {"pRW_write_rate_all_mbs",
     "{0:reader} + {1:writer}: write rate (incl. open + first byte + mkdir)", "MB/s",
     SB_BETTER_HIGHER, true, "{0:reader} + {1:writer}", false},
    SB_WL_COST_ROWS("p1", "1 reader", "1 reader"),
    SB_WL_COST_ROWS("pR", "{0:reader}", "{0:reader}"),
    SB_WL_COST_ROWS("pRW", "{0:reader} + {1:writer}", "{0:reader} + {1:writer}"),
    {0},
};

/* --cap-cache's floor: a histogram per op per thread; the trees' names (64
 * bytes a file, each reader's tree and the writers'). */
static uint64_t mem_mixed(const struct sb_wl_spec *s, uint64_t data)
{
	uint64_t threads = s->a[0] + s->a[1];
	return threads * 12 * SB_WL_HIST_BYTES + sb_wl_opt_u64(s, "files", 0) * (threads + 1) * 64;
}

const struct sb_wl_ops sb_wl_mixed = {
    .name = "mixed",
    .arg = "RrWw",
    .example = "mixed:3r3w,time=30s",
    .summary = "FsOpBench-style readers against writers on home-directory-like trees; per-op "
	       "latency and read/write rates in three phases",
    .opts = mixed_opts,
    .opts_size = sizeof(struct mixed_opts),
    .metrics = mixed_metrics,
    .parse_arg = parse_rw,
    .run = mixed_run,
    .mem_bytes = mem_mixed,
};
