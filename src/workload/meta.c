/* meta: the bonnie++-style file test (-n): N*1024 files created, stat'ed and
 * deleted in sequential order, then in random order; optional sizes (the data
 * is written on create and read back and verified on stat) and directories.
 * ops/s and %CPU per test, and every operation's latency. */
#include "workload/wl.h"
#include "util/macro.h"

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The typed options meta_opts fills (meta.c). */
struct meta_opts {
	struct sb_wl_common com;
	uint64_t files;
	uint64_t size;
	uint64_t minsize;
	uint64_t dirs;
};

static inline const struct meta_opts *meta_o(const struct sb_wl_spec *s)
{
	return s->o;
}

static const struct sb_wl_opt meta_opts[] = {
    /* --quick: 4096 files. With 1024 a create or delete phase took 16-37 ms
     * on tmpfs-backed loops, a few scheduler slices, and its rate varied by
     * 10-20% from round to round on a loaded host. */
    SB_WO(struct meta_opts, files, "files", SB_WO_UINT, "16", "4", 1, 1u << 20,
	  "number of files in multiples of 1024 (bonnie++ -n)"),
    SB_WO(struct meta_opts, size, "size", SB_WO_SIZE, "0", NULL, 0, 1ull << 30,
	  "largest file size (0: empty files); sizes are random in [minsize, size]"),
    SB_WO(struct meta_opts, minsize, "minsize", SB_WO_SIZE, "0", NULL, 0, 1ull << 30,
	  "smallest file size"),
    SB_WO(struct meta_opts, dirs, "dirs", SB_WO_UINT, "0", NULL, 0, 1u << 20,
	  "spread the files over this many directories (0: one)"),
    SB_WL_SEED_ROW(struct meta_opts, "seed of the random order and sizes"),
    SB_WL_TEST_TIMEOUT_ROW(struct meta_opts),
    SB_WL_DATA_ROWS(struct meta_opts),
    {0},
};

struct meta_run {
	struct sb_wl_ctx *c;
	uint32_t n, ndirs;
	int *dfd;
	uint64_t minsz, maxsz, seed;
	char *buf, *exp;
	uint64_t bad;
	bool pending; /* data read by stat_one, to be checked */
	uint64_t counts[6];
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

/* Sequential files are named by their number (so readdir order often is
 * creation order); random ones get a hashed prefix, like bonnie++'s. */
static void file_name(char *b, size_t len, bool rnd, uint32_t i, uint64_t seed)
{
	if (rnd)
		snprintf(b, len, "%08x.r%07u", (unsigned)(mix(i ^ seed) & 0xffffffff), i);
	else
		snprintf(b, len, "%07u.s%08x", i, (unsigned)(mix(i ^ seed) & 0xffffffff));
}

/* The file's number from its name; UINT32_MAX when not one of ours. */
static uint32_t file_index(const char *name)
{
	const char *p = strchr(name, '.');
	char *end;
	unsigned long v;
	if (!p)
		return UINT32_MAX;
	if (p[1] == 'r')
		v = strtoul(p + 2, &end, 10);
	else
		v = strtoul(name, &end, 10);
	return (p[1] == 'r' ? *end == '\0' : end == p) ? (uint32_t)v : UINT32_MAX;
}

static uint32_t dir_of(const struct meta_run *m, bool rnd, uint32_t i)
{
	if (m->ndirs <= 1)
		return 0;
	return rnd ? (uint32_t)(mix(i ^ (m->seed << 1)) % m->ndirs)
		   : (uint32_t)((uint64_t)i * m->ndirs / m->n);
}

static uint64_t file_size(const struct meta_run *m, uint32_t i)
{
	if (!m->maxsz)
		return 0;
	return m->minsz + mix(i * 7919ull ^ m->seed) % (m->maxsz - m->minsz + 1);
}

static void shuffle(uint32_t *v, uint32_t n, uint64_t *rng)
{
	for (uint32_t i = 0; i < n; i++)
		v[i] = i;
	for (uint32_t i = n; i > 1; i--) {
		uint32_t k = (uint32_t)(sb_rng_next(rng) % i);
		uint32_t t = v[i - 1];
		v[i - 1] = v[k];
		v[k] = t;
	}
}

static void add_test(struct meta_run *m, const char *name, const char *op, struct sb_phase *p,
		     uint64_t done, const struct sb_hist *h)
{
	char cpu[64];
	snprintf(cpu, sizeof(cpu), "%s_cpu", name);
	sb_wl_add_metric(m->c->res, name, "ops/s", SB_BETTER_HIGHER,
			 p->secs > 0 ? (double)done / p->secs : 0);
	sb_wl_add_metric(m->c->res, cpu, "%CPU", SB_BETTER_LOWER, p->cpu_pct);
	sb_phase_cost(p, name);
	sb_wl_add_hist(m->c, op, h);
}

static int create_one(struct meta_run *m, int dfd, const char *name, uint64_t sz)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (sz) {
		if (write(fd, m->buf, sz) != (ssize_t)sz) {
			int e = errno ? -errno : -ENOSPC;
			close(fd);
			return e;
		}
	}
	return close(fd) < 0 ? -errno : 0;
}

/* stat, and when the file has data, read it; check_data() compares it
 * after the clock stopped. */
static int stat_one(struct meta_run *m, int dfd, const char *name, uint32_t i)
{
	struct stat st;
	uint64_t sz = file_size(m, i);

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if ((uint64_t)st.st_size != sz) {
		m->bad++;
		return 0;
	}
	if (sz) {
		int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		ssize_t r = read(fd, m->buf, sz);
		close(fd);
		if (r != (ssize_t)sz)
			return r < 0 ? -errno : -EIO;
		m->pending = true;
	}
	return 0;
}

static void check_data(struct meta_run *m, uint32_t i)
{
	uint64_t sz = file_size(m, i);
	if (!m->pending)
		return;
	m->pending = false;
	sb_data_fill(&m->c->data, m->exp, 0, sz, i);
	m->bad += memcmp(m->buf, m->exp, sz) != 0;
}

/* One pass of a test over the files. order: NULL for readdir order (seq
 * stat/delete), else the file numbers in the order to visit them. */
struct meta_pass {
	struct sb_phase p;
	struct sb_hist *h;
	uint64_t done;
	bool over;
};

static int visit(struct meta_run *m, struct meta_pass *mp, int kind, int dfd, const char *name,
		 uint32_t i, uint64_t t0, const char *op)
{
	int rc;
	if (kind == 0)
		rc = create_one(m, dfd, name, file_size(m, i));
	else
		rc = kind == 1			  ? stat_one(m, dfd, name, i)
		     : unlinkat(dfd, name, 0) < 0 ? -errno
						  : 0;
	uint64_t t1 = sb_mono_ns();
	if (rc < 0)
		return sb_wl_fail(m->c, rc, "%s: %s", name, op);
	sb_hist_add(mp->h, t1 - t0);
	check_data(m, i);
	mp->done++;
	mp->over = sb_phase_over(&mp->p, t1, mp->done);
	return 0;
}

static int pass_ordered(struct meta_run *m, struct meta_pass *mp, int kind, bool rnd,
			const uint32_t *order, const char *op)
{
	char name[64];
	int rc = 0;
	/* create (sequential or random order), random stat, random delete */
	for (uint32_t k = 0; k < m->n && !mp->over && rc == 0; k++) {
		uint32_t i = order ? order[k] : k;
		int d = m->dfd[dir_of(m, rnd, i)];
		/* The name and the data are made before the clock starts. */
		file_name(name, sizeof(name), rnd, i, m->seed);
		if (kind == 0 && m->maxsz)
			sb_data_fill(&m->c->data, m->buf, 0, file_size(m, i), i);
		rc = visit(m, mp, kind, d, name, i, sb_mono_ns(), op);
	}
	return rc;
}

/* Directory dn of the tree opened anew for readdir (its own fd, so that
 * closedir leaves m->dfd open); NULL with errno set. */
static DIR *open_dir(struct meta_run *m, uint32_t dn)
{
	int fd = openat(m->dfd[dn], ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;

	if (!dir && fd >= 0) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return dir;
}

/* sequential stat and delete walk the directories in readdir order */
static int pass_readdir(struct meta_run *m, struct meta_pass *mp, int kind, const char *op)
{
	int rc = 0;
	for (uint32_t dn = 0; dn < (m->ndirs ? m->ndirs : 1) && !mp->over && rc == 0; dn++) {
		DIR *dir = open_dir(m, dn);
		struct dirent *de;
		if (!dir)
			return sb_wl_fail(m->c, -errno, "readdir");
		while (rc == 0 && !mp->over) {
			uint64_t t0 = sb_mono_ns();
			if (!(de = readdir(dir)))
				break;
			if (de->d_name[0] == '.')
				continue;
			uint32_t i = file_index(de->d_name);
			if (i == UINT32_MAX) {
				m->bad++;
				continue;
			}
			rc = visit(m, mp, kind, m->dfd[dn], de->d_name, i, t0, op);
		}
		closedir(dir);
	}
	return rc;
}

/* A stat pass over cached inodes takes 2 us a file: 1024 files (--quick)
 * were a 2 ms phase, one scheduler slice, whose rate a single preemption
 * halved (a CV of 10-40% between rounds on a loaded host). Stat passes
 * repeat until the phase has lasted this long; the passes are recorded. */
#define STAT_MIN_MS_QUICK 250
#define STAT_MIN_MS 1000

static int meta_test(struct meta_run *m, int kind, bool rnd, const uint32_t *order,
		     const char *metric, const char *op)
{
	struct sb_wl_ctx *c = m->c;
	struct meta_pass mp = {.h = malloc(sizeof(*mp.h))};
	uint64_t min_ns = (c->env->quick ? STAT_MIN_MS_QUICK : STAT_MIN_MS) * 1000000ull;
	uint64_t first = 0;
	unsigned passes = 0;
	int rc = 0;

	if (!mp.h)
		return -ENOMEM;
	sb_hist_init(mp.h);
	sb_phase_begin(c, &mp.p, op, kind == 1 ? 0 : m->n);
	do {
		rc = kind == 0 || order ? pass_ordered(m, &mp, kind, rnd, order, op)
					: pass_readdir(m, &mp, kind, op);
		if (passes++ == 0)
			first = mp.done;
	} while (rc == 0 && kind == 1 && !mp.over && first > 0 && sb_mono_ns() - mp.p.t0 < min_ns);
	mp.p.done = mp.done;
	sb_phase_end(&mp.p);
	add_test(m, metric, op, &mp.p, mp.done, mp.h);
	if (kind == 1) {
		char key[64];
		snprintf(key, sizeof(key), "%s_passes", metric);
		sb_wl_extra_int(c, key, passes);
	}
	/* the files one pass saw, for the final check */
	m->counts[kind + (rnd ? 3 : 0)] = first;
	free(mp.h);
	return rc;
}

/* Files still there (seen by readdir), for the final check. */
static uint64_t count_left(struct meta_run *m)
{
	uint64_t n = 0;
	for (uint32_t dn = 0; dn < (m->ndirs ? m->ndirs : 1); dn++) {
		DIR *dir = open_dir(m, dn);
		struct dirent *de;
		if (!dir)
			continue;
		while ((de = readdir(dir)))
			n += de->d_name[0] != '.';
		closedir(dir);
	}
	return n;
}

static int meta_run(struct sb_wl_ctx *c)
{
	const struct sb_wl_spec *sp = c->spec;
	struct meta_run m = {.c = c,
			     .n = (uint32_t)(meta_o(sp)->files * 1024),
			     .ndirs = (uint32_t)meta_o(sp)->dirs,
			     .minsz = meta_o(sp)->minsize,
			     .maxsz = meta_o(sp)->size,
			     .seed = meta_o(sp)->com.seed};
	_cleanup_free_ uint32_t *order = malloc(m.n * sizeof(*order));
	uint64_t rng = mix(m.seed + 1) | 1, left;
	uint32_t nd = m.ndirs ? m.ndirs : 1;
	int rc = 0;

	if (m.minsz > m.maxsz)
		return sb_wl_fail(c, 0, "minsize is larger than size");
	m.dfd = calloc(nd, sizeof(*m.dfd));
	m.buf = sb_wl_alloc_aligned(m.maxsz + 8);
	m.exp = sb_wl_alloc_aligned(m.maxsz + 8);
	if (!order || !m.dfd || !m.buf || !m.exp) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t d = 0; d < nd; d++)
		m.dfd[d] = -1;
	for (uint32_t d = 0; d < nd; d++) {
		char name[32];
		snprintf(name, sizeof(name), "d%05u", d);
		if (m.ndirs && mkdirat(c->work_fd, name, 0755) < 0) {
			rc = sb_wl_fail(c, -errno, "%s/%s", c->work, name);
			goto out;
		}
		m.dfd[d] =
		    openat(c->work_fd, m.ndirs ? name : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (m.dfd[d] < 0) {
			rc = sb_wl_fail(c, -errno, "%s/%s", c->work, name);
			goto out;
		}
	}
	sb_wl_extra_int(c, "files", m.n);
	sb_wl_extra_int(c, "max_size", (int64_t)m.maxsz);
	sb_wl_extra_int(c, "min_size", (int64_t)m.minsz);
	sb_wl_extra_int(c, "dirs", m.ndirs);
	/* The largest the files can take at once (all created, sizes at most size=). */
	rc = sb_wl_check_space(c, (uint64_t)m.n * (m.maxsz + m.minsz) / 2);
	if (rc < 0)
		goto out;

	rc = meta_test(&m, 0, false, NULL, "seq_create", "seq create");
	if (rc == 0 && !*c->env->stop)
		rc = meta_test(&m, 1, false, NULL, "seq_stat", "seq stat");
	if (rc == 0 && !*c->env->stop)
		rc = meta_test(&m, 2, false, NULL, "seq_delete", "seq delete");
	if (rc == 0 && !*c->env->stop) {
		shuffle(order, m.n, &rng);
		rc = meta_test(&m, 0, true, order, "rand_create", "rand create");
	}
	if (rc == 0 && !*c->env->stop) {
		shuffle(order, m.n, &rng);
		rc = meta_test(&m, 1, true, order, "rand_stat", "rand stat");
	}
	if (rc == 0 && !*c->env->stop) {
		shuffle(order, m.n, &rng);
		rc = meta_test(&m, 2, true, order, "rand_delete", "rand delete");
	}
	left = count_left(&m);
	sb_wl_extra_int(c, "files_left", (int64_t)left);
	sb_wl_extra_int(c, "verify_errors", (int64_t)m.bad);
	if (rc == 0 && !(c->res->flags & SB_RES_INCOMPLETE) && !*c->env->stop) {
		if (m.bad)
			rc = sb_wl_fail(c, -EIO, "%llu files read back wrong",
					(unsigned long long)m.bad);
		else if (left)
			rc = sb_wl_fail(c, -EIO, "%llu files left after the deletes",
					(unsigned long long)left);
		else if (m.counts[1] != m.n || m.counts[2] != m.n)
			rc = sb_wl_fail(c, -EIO, "readdir saw %llu files, %u were created",
					(unsigned long long)m.counts[1], m.n);
	}
out:
	for (uint32_t d = 0; m.dfd && d < nd; d++)
		if (m.dfd[d] >= 0)
			close(m.dfd[d]);
	free(m.dfd);
	free(m.buf);
	free(m.exp);
	return rc;
}

/* The figures, labelled as bonnie++ heads them (also the bonnie++ adapter's). */
static const struct sb_wl_metric meta_metrics[] = {
    {"seq_create", "Sequential Create Create", "ops/s", SB_BETTER_HIGHER, true, "seq create",
     false},
    {"seq_create_cpu", "Sequential Create Create %CP", "%CPU", SB_BETTER_LOWER, false, "seq create",
     false},
    {"seq_stat", "Sequential Create Read", "ops/s", SB_BETTER_HIGHER, true, "seq stat", false},
    {"seq_stat_cpu", "Sequential Create Read %CP", "%CPU", SB_BETTER_LOWER, false, "seq stat",
     false},
    {"seq_delete", "Sequential Create Delete", "ops/s", SB_BETTER_HIGHER, true, "seq delete",
     false},
    {"seq_delete_cpu", "Sequential Create Delete %CP", "%CPU", SB_BETTER_LOWER, false, "seq delete",
     false},
    {"rand_create", "Random Create Create", "ops/s", SB_BETTER_HIGHER, true, "rand create", false},
    {"rand_create_cpu", "Random Create Create %CP", "%CPU", SB_BETTER_LOWER, false, "rand create",
     false},
    {"rand_stat", "Random Create Read", "ops/s", SB_BETTER_HIGHER, true, "rand stat", false},
    {"rand_stat_cpu", "Random Create Read %CP", "%CPU", SB_BETTER_LOWER, false, "rand stat", false},
    {"rand_delete", "Random Create Delete", "ops/s", SB_BETTER_HIGHER, true, "rand delete", false},
    {"rand_delete_cpu", "Random Create Delete %CP", "%CPU", SB_BETTER_LOWER, false, "rand delete",
     false},
    SB_WL_COST_ROWS("seq_create", "Sequential Create Create", "seq create"),
    SB_WL_COST_ROWS("seq_stat", "Sequential Create Read", "seq stat"),
    SB_WL_COST_ROWS("seq_delete", "Sequential Create Delete", "seq delete"),
    SB_WL_COST_ROWS("rand_create", "Random Create Create", "rand create"),
    SB_WL_COST_ROWS("rand_stat", "Random Create Read", "rand stat"),
    SB_WL_COST_ROWS("rand_delete", "Random Create Delete", "rand delete"),
    {0},
};

/* --cap-cache's floor: files x 1024 entries of order (4 bytes) and name
 * (64). */
static uint64_t mem_meta(const struct sb_wl_spec *s, uint64_t data)
{
	return SB_WL_HIST_BYTES + sb_wl_opt_u64(s, "files", 0) * 1024 * 68;
}

const struct sb_wl_ops sb_wl_meta = {
    .name = "meta",
    .example = "meta,files=16,size=4k",
    .summary = "bonnie++-style file test: N*1024 files created, stat'ed, deleted in sequential "
	       "then random order; ops/s and %CPU",
    .opts = meta_opts,
    .opts_size = sizeof(struct meta_opts),
    .metrics = meta_metrics,
    .run = meta_run,
    .mem_bytes = mem_meta,
};
