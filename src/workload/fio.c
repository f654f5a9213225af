/* fio:JOBFILE: runs fio with JSON output in the work directory and imports
 * each job's bandwidth, IOPS and completion-latency percentiles. fio's own
 * JSON is kept in the result's extra ("fio_output") for reference. */
#include "workload/wl.h"
#include "profile/freetext.h"
#include "util/macro.h"
#include "util/strutil.h"
#include "util/parse.h"
#include "util/spawn.h"
#include "util/json-get.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

enum { K_TIMEOUT };

static const struct sb_wl_opt fio_opts[] = {
    [K_TIMEOUT] = {"timeout", SB_WO_DURATION, "24h", "30m", 1, 0,
		   "time limit; fio is stopped past it and the result flagged incomplete"},
    {0},
};

/* fio's JSON is outside input (an imported file, or what a job file made fio
 * print): every value read is checked for its type and range, and an error
 * names its path ("jobs[3].read.iops: expected a number, got null"). */
#define FIO_MAX 1e18 /* beyond any bandwidth, IOPS, count or nanoseconds */

/* A member that may be absent (0 then), else a finite number in range. */
static int num_at(json_object *o, const char *path, const char *key, double *v, char **err)
{
	*v = 0;
	return sb_jm_num(o, path, key, SB_J_OPT, 0, FIO_MAX, v, err) < 0 ? -EINVAL : 0;
}

/* fio's json+ latency bins ("clat_ns": {"bins": {"VALUE_NS": COUNT}}) in
 * our histogram, so that fio's repeats pool like ours. fio's own buckets
 * are log-linear too; each bin's value lands in our bucket for it. The
 * exact count, min, max, mean and stdev are fio's. 1 when there are no
 * bins (plain json output) or they do not add up; 0 with h filled; -EINVAL
 * for a wrong type. */
static int import_bins(json_object *clat, const char *path, struct sb_hist *h, char **err)
{
	json_object *bins = NULL;
	uint64_t n = 0;
	double N, mean, sd, mn, mx;
	char p[300];

	sb_hist_init(h);
	if (sb_jm_object(clat, path, "bins", SB_J_OPT, &bins, err) < 0)
		return -EINVAL;
	if (num_at(clat, path, "N", &N, err) < 0 || num_at(clat, path, "mean", &mean, err) < 0 ||
	    num_at(clat, path, "stddev", &sd, err) < 0 || num_at(clat, path, "min", &mn, err) < 0 ||
	    num_at(clat, path, "max", &mx, err) < 0)
		return -EINVAL;
	if (!bins)
		return 1;
	json_object_object_foreach(bins, key, val)
	{
		char *end;
		uint64_t cnt;
		sb_jpath(p, sizeof(p), "%s.bins.%s", path, key);
		if (sb_jv_u64(val, p, SB_J_REQ, &cnt, err) < 0)
			return -EINVAL;
		errno = 0;
		unsigned long long v = strtoull(key, &end, 10);
		if (end == key || *end || errno || n + cnt < n)
			return 1;
		h->b[sb_hist_index(v)] += cnt;
		n += cnt;
	}
	if (n == 0 || (N > 0 && sb_u64_of_double(N) != n))
		return 1;
	h->count = n;
	h->min = sb_u64_of_double(mn);
	h->max = sb_u64_of_double(mx);
	if (h->min > h->max)
		return 1;
	h->sum = mean * (double)n;
	h->sumsq = (sd * sd + mean * mean) * (double)n;
	return 0;
}

static int import_clat(struct sb_wl_ctx *c, const char *op, json_object *clat, const char *path,
		       char **err)
{
	static const struct {
		const char *key;
		size_t off;
	} pcts[] = {{"50.000000", offsetof(struct sb_latency, p50_ms)},
		    {"90.000000", offsetof(struct sb_latency, p90_ms)},
		    {"99.000000", offsetof(struct sb_latency, p99_ms)},
		    {"99.900000", offsetof(struct sb_latency, p999_ms)}};
	json_object *pc = NULL;
	double N, v;
	char p[300];
	struct sb_latency l = {.op = (char *)op};

	sb_jpath(p, sizeof(p), "%s.percentile", path);
	if (num_at(clat, path, "N", &N, err) < 0 || num_at(clat, path, "min", &v, err) < 0)
		return -EINVAL;
	l.count = sb_u64_of_double(N);
	l.min_ms = v / 1e6;
	if (num_at(clat, path, "max", &v, err) < 0)
		return -EINVAL;
	l.max_ms = v / 1e6;
	if (num_at(clat, path, "mean", &v, err) < 0)
		return -EINVAL;
	l.mean_ms = v / 1e6;
	if (num_at(clat, path, "stddev", &v, err) < 0)
		return -EINVAL;
	l.stdev_ms = v / 1e6;
	if (sb_jm_object(clat, path, "percentile", SB_J_OPT, &pc, err) < 0)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(pcts); i++) {
		if (pc && num_at(pc, p, pcts[i].key, &v, err) < 0)
			return -EINVAL;
		double ms = pc ? v / 1e6 : 0;
		memcpy((char *)&l + pcts[i].off, &ms, sizeof(ms));
	}
	_cleanup_free_ struct sb_hist *h = malloc(sizeof(*h));
	if (!h)
		return -ENOMEM;
	int r = import_bins(clat, path, h, err);
	if (r < 0)
		return r;
	if (r == 0)
		l.hist = h;
	return sb_wl_add_latency(c->res, &l);
}

/* One direction (read, write, trim) of one job. */
static int import_dir(struct sb_wl_ctx *c, const char *job, const char *dir, json_object *d,
		      const char *path, char **err)
{
	json_object *clat = NULL;
	char name[256], p[300];
	double ios, bw, iops;
	int r;

	if (sb_jv_object(d, path, SB_J_REQ, &d, err) < 0 ||
	    num_at(d, path, "total_ios", &ios, err) < 0 ||
	    num_at(d, path, "bw_bytes", &bw, err) < 0 || num_at(d, path, "iops", &iops, err) < 0 ||
	    sb_jm_object(d, path, "clat_ns", SB_J_OPT, &clat, err) < 0)
		return -EINVAL;
	if (ios <= 0)
		return 0;
	snprintf(name, sizeof(name), "%s_%s_mbs", job, dir);
	if ((r = sb_wl_add_metric(c->res, name, "MB/s", SB_BETTER_HIGHER, bw / 1048576.0)) < 0)
		return r;
	snprintf(name, sizeof(name), "%s_%s_iops", job, dir);
	if ((r = sb_wl_add_metric(c->res, name, "IOPS", SB_BETTER_HIGHER, iops)) < 0)
		return r;
	if (!clat)
		return 0;
	snprintf(name, sizeof(name), "%s %s", job, dir);
	sb_jpath(p, sizeof(p), "%s.clat_ns", path);
	return import_clat(c, name, clat, p, err);
}

/* Job i's name: numjobs= clones share one, the later ones get ".i". */
static int job_name(json_object *jobs, size_t i, char *job, size_t size, char **err)
{
	const char *jn = "job", *other;
	char p[64];

	sb_jpath(p, sizeof(p), "jobs[%zu]", i);
	if (sb_jm_str(json_object_array_get_idx(jobs, i), p, "jobname", SB_J_OPT, &jn, err) < 0)
		return -EINVAL;
	snprintf(job, size, "%s", jn);
	for (size_t k = 0; k < i; k++) {
		other = "job";
		/* checked as jobs[k] already */
		sb_jm_str(json_object_array_get_idx(jobs, k), "", "jobname", SB_J_OPT, &other,
			  NULL);
		if (strcmp(other, jn) == 0) {
			snprintf(job, size, "%s.%zu", jn, i);
			break;
		}
	}
	return 0;
}

static int import_jobs(struct sb_wl_ctx *c, json_object *jobs, char **err)
{
	static const char *const dirs[] = {"read", "write", "trim"};
	for (size_t i = 0; i < json_object_array_length(jobs); i++) {
		json_object *j = json_object_array_get_idx(jobs, i), *d;
		int64_t error = 0;
		char job[128], p[64], dp[80];
		int r;

		sb_jpath(p, sizeof(p), "jobs[%zu]", i);
		if (sb_jv_object(j, p, SB_J_REQ, &j, err) < 0 ||
		    sb_jm_int(j, p, "error", SB_J_OPT, INT32_MIN, INT32_MAX, &error, err) < 0 ||
		    job_name(jobs, i, job, sizeof(job), err) < 0)
			return -EINVAL;
		for (size_t k = 0; k < ARRAY_SIZE(dirs); k++) {
			if (!json_object_object_get_ex(j, dirs[k], &d))
				continue;
			sb_jpath(dp, sizeof(dp), "%s.%s", p, dirs[k]);
			if ((r = import_dir(c, job, dirs[k], d, dp, err)) < 0)
				return r;
		}
		if (error)
			c->res->flags |= SB_RES_FAILED;
	}
	return 0;
}

int sb_fio_import_json(struct sb_wl_ctx *c, const char *text, char **err)
{
	/* fio may print notes before the JSON. */
	const char *start = strchr(text, '{'), *version = NULL;
	json_object *o = start ? json_tokener_parse(start) : NULL, *jobs;
	int r = -EINVAL;

	if (!o) {
		if (err) {
			free(*err);
			*err = strdup("not valid JSON (expected fio --output-format=json output)");
		}
		return -EINVAL;
	}
	if (sb_jv_object(o, "", SB_J_REQ, &jobs, err) < 0 ||
	    sb_jm_array(o, "", "jobs", SB_J_REQ, &jobs, err) < 0 ||
	    sb_jm_str(o, "", "fio version", SB_J_OPT, &version, err) < 0 ||
	    sb_json_all_finite(o, "", err) < 0)
		goto out;
	r = import_jobs(c, jobs, err);
	if (r < 0)
		goto out;
	if (version)
		sb_wl_extra_str(c, "fio_version", version);
	if (!c->res->extra)
		sb_wl_extra_bool(c, "imported", true);
	json_object_object_add(c->res->extra, "fio_output", TAKE_PTR(o));
out:
	json_object_put(o);
	return r;
}

/* Imports fio's JSON text; 0 or -EINVAL. */
int sb_fio_import(struct sb_wl_ctx *c, const char *text)
{
	return sb_fio_import_json(c, text, NULL);
}

int sb_fio_log_parse(const char *text, size_t len, struct sb_fio_log_pt **out, size_t *n)
{
	struct sb_fio_log_pt *v = NULL;
	size_t k = 0, cap = 0;
	const char *p = text, *end = text + len;

	*out = NULL;
	*n = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		uint64_t f[3] = {0, 0, 0};
		const char *q = p;
		int nf = 0;

		while (q < le && (*q == ' ' || *q == '\r'))
			q++;
		if (q == le) { /* blank line */
			p = nl ? nl + 1 : end;
			continue;
		}
		for (; nf < 3; nf++) {
			const char *d = q;
			while (q < le && *q >= '0' && *q <= '9' && q - d < 19)
				f[nf] = f[nf] * 10 + (uint64_t)(*q++ - '0');
			if (q == d)
				break;
			while (q < le && *q == ' ')
				q++;
			if (q < le && *q == ',') {
				q++;
				while (q < le && *q == ' ')
					q++;
			} else if (nf < 2) {
				nf = -1;
				break;
			}
		}
		if (nf != 3 || f[2] > 2) {
			free(v);
			return -EINVAL;
		}
		if (k == cap) {
			cap = cap ? 2 * cap : 64;
			struct sb_fio_log_pt *nv = realloc(v, cap * sizeof(*nv));
			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
		}
		v[k++] = (struct sb_fio_log_pt){f[0], f[1], (unsigned)f[2]};
		p = nl ? nl + 1 : end;
	}
	*out = v;
	*n = k;
	return 0;
}

/* The file NAME of the work directory, whole (at most 16 MiB), or NULL. */
static char *read_at(int dfd, const char *name, size_t *len)
{
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	char *buf = NULL;
	size_t cap = 0, n = 0;
	if (fd < 0)
		return NULL;
	for (;;) {
		if (n == cap) {
			if (cap >= (16u << 20))
				break;
			cap = cap ? 2 * cap : 65536;
			char *nb = realloc(buf, cap + 1);
			if (!nb)
				break;
			buf = nb;
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (buf)
		buf[n] = '\0';
	*len = n;
	return buf;
}

/* fio's per-second logs of job i (1-based, fio's order) as series keyed
 * "JOB DIR", the shape the built-in workloads record (no per-second p99:
 * fio logs none at this granularity). */
static void import_logs(struct sb_wl_ctx *c, size_t i, const char *job)
{
	static const char *const dirs[] = {"read", "write", "trim"};
	char name[64];
	size_t li = 0, lb = 0, ni = 0, nb = 0;
	struct sb_fio_log_pt *pi = NULL, *pb = NULL;

	snprintf(name, sizeof(name), "sbfio_iops.%zu.log", i);
	_cleanup_free_ char *ti = read_at(c->work_fd, name, &li);
	snprintf(name, sizeof(name), "sbfio_bw.%zu.log", i);
	_cleanup_free_ char *tb = read_at(c->work_fd, name, &lb);
	if (!ti || sb_fio_log_parse(ti, li, &pi, &ni) < 0 || !ni)
		goto out;
	if (tb && sb_fio_log_parse(tb, lb, &pb, &nb) < 0)
		nb = 0;
	for (unsigned d = 0; d < ARRAY_SIZE(dirs); d++) {
		json_object *t = json_object_new_array(), *io = json_object_new_array(),
			    *mb = json_object_new_array(), *p99 = json_object_new_array();
		size_t bi = 0, pts = 0;
		for (size_t k = 0; k < ni; k++) {
			if (pi[k].ddir != d)
				continue;
			double bw = -1;
			for (; bi < nb; bi++)
				if (pb[bi].ddir == d && pb[bi].msec >= pi[k].msec) {
					if (pb[bi].msec == pi[k].msec)
						bw = (double)pb[bi].value / 1024.0; /* KiB/s */
					break;
				}
			json_object_array_add(t, json_object_new_double(pi[k].msec / 1000.0));
			json_object_array_add(io, json_object_new_double((double)pi[k].value));
			json_object_array_add(mb, bw >= 0 ? json_object_new_double(bw) : NULL);
			json_object_array_add(p99, NULL);
			pts++;
		}
		if (!pts) {
			json_object_put(t), json_object_put(io), json_object_put(mb),
			    json_object_put(p99);
			continue;
		}
		json_object *o = json_object_new_object(), *series;
		json_object_object_add(o, "interval_s", json_object_new_int(1));
		json_object_object_add(o, "ramp_s", json_object_new_int(0));
		json_object_object_add(o, "t", t);
		json_object_object_add(o, "iops", io);
		json_object_object_add(o, "mbps", mb);
		json_object_object_add(o, "p99_ms", p99);
		if (!c->res->extra)
			sb_wl_extra_bool(c, "imported", true);
		if (!json_object_object_get_ex(c->res->extra, "series", &series)) {
			series = json_object_new_object();
			json_object_object_add(c->res->extra, "series", series);
		}
		snprintf(name, sizeof(name), "%s %s", job, dirs[d]);
		json_object_object_add(series, name, o);
	}
out:
	free(pi);
	free(pb);
}

/* Each job of the imported JSON, its logs. */
static void import_all_logs(struct sb_wl_ctx *c)
{
	json_object *out, *jobs, *v;
	if (!c->res->extra || !json_object_object_get_ex(c->res->extra, "fio_output", &out) ||
	    !json_object_object_get_ex(out, "jobs", &jobs) ||
	    !json_object_is_type(jobs, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(jobs); i++) {
		json_object *j = json_object_array_get_idx(jobs, i);
		const char *jn =
		    json_object_object_get_ex(j, "jobname", &v) ? json_object_get_string(v) : "job";
		import_logs(c, i + 1, jn);
	}
}

/* ---- the job file: checked, includes inlined, run from a copy ---- */

#define JOB_MAX (1u << 20)
#define INCLUDE_DEPTH 4

static char *read_job(const char *path, char **why)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	char *text = NULL;

	if (fd < 0) {
		*why = sb_asprintf("%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > JOB_MAX)
		*why = sb_asprintf("%s: not a regular file of at most %u bytes", path, JOB_MAX);
	else if ((text = calloc(1, (size_t)st.st_size + 1)) &&
		 read(fd, text, (size_t)st.st_size) != st.st_size) {
		*why = sb_asprintf("%s: cannot read it", path);
		free(text);
		text = NULL;
	}
	close(fd);
	return text;
}

/* Checks path and what it includes (relative to its own directory, as fio
 * takes them), writing the jobs with every include inlined to out (NULL:
 * only check). 0 or -EINVAL with *why. */
static int job_load(const char *path, unsigned depth, FILE *out, struct sb_ft_paths *paths,
		    struct sb_ft_paths *dirs, char **why)
{
	_cleanup_free_ char *text = read_job(path, why), *dir = strdup(path);
	int r;

	if (!text || !dir)
		return text ? -ENOMEM : -EINVAL;
	r = sb_ft_fio_check(text, path, paths, dirs, why);
	if (r < 0)
		return r;
	unsigned line = 0;
	for (char *p = text, *nl; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		line++;
		if (nl)
			*nl = '\0';
		_cleanup_free_ char *inc = sb_ft_fio_include(p);
		if (!inc) {
			if (out)
				fprintf(out, "%s\n", p);
			continue;
		}
		if (depth >= INCLUDE_DEPTH) {
			*why = sb_asprintf("%s:%u: includes nested deeper than %u", path, line,
					   INCLUDE_DEPTH);
			return -EINVAL;
		}
		_cleanup_free_ char *ip =
		    inc[0] == '/' ? strdup(inc) : sb_asprintf("%s/%s", dirname(dir), inc);
		if (!ip)
			return -ENOMEM;
		r = job_load(ip, depth + 1, out, paths, dirs, why);
		if (r < 0)
			return r;
		free(dir);
		if (!(dir = strdup(path)))
			return -ENOMEM;
	}
	return 0;
}

/* The profile's (or bench's) check: the job file exists and asks nothing
 * refused in any spelling. */
static int fio_check(const struct sb_wl_spec *s, char **why)
{
	int r;

	*why = NULL;
	/* Not there yet (a profile checked on another host): said when it
	 * runs. */
	if (access(s->arg, F_OK) < 0 && errno == ENOENT)
		return 0;
	r = job_load(s->arg, 0, NULL, NULL, NULL, why);
	return r == -ENOMEM ? r : r < 0 ? -EINVAL : 0;
}

/* Every path the jobs name, right before fio starts: directory= against
 * the work directory, file names against each directory= and the work
 * directory, all inside the file system under test. */
static int job_paths_inside(struct sb_wl_ctx *c, const struct sb_ft_paths *paths,
			    const struct sb_ft_paths *dirs, char **why)
{
	const char *work[] = {c->work};
	const char **bases = calloc(dirs->n + 1, sizeof(*bases));
	char **owned = calloc(dirs->n + 1, sizeof(*owned));
	int r = -ENOMEM;

	if (!bases || !owned)
		goto out;
	r = sb_ft_paths_inside(dirs, work, 1, c->env->dir, why);
	for (size_t i = 0; r == 0 && i < dirs->n; i++) {
		owned[i] = dirs->v[i][0] == '/' ? strdup(dirs->v[i])
						: sb_asprintf("%s/%s", c->work, dirs->v[i]);
		bases[i] = owned[i];
		if (!owned[i])
			r = -ENOMEM;
	}
	bases[dirs->n] = c->work;
	if (r == 0)
		r = sb_ft_paths_inside(paths, bases, dirs->n + 1, c->env->dir, why);
out:
	for (size_t i = 0; owned && i < dirs->n; i++)
		free(owned[i]);
	free(owned);
	free(bases);
	return r;
}

/* The checked jobs, includes inlined, as a file in the work directory:
 * fio reads what was checked, not a file that may change after. */
static int job_prepare(struct sb_wl_ctx *c, char *job, size_t len)
{
	struct sb_ft_paths paths = {0}, dirs = {0};
	char *text = NULL, *why = NULL;
	size_t tl = 0;
	FILE *out = open_memstream(&text, &tl);
	int r = out ? job_load(c->spec->arg, 0, out, &paths, &dirs, &why) : -ENOMEM;

	if (out)
		fclose(out);
	if (r == 0 && (r = job_paths_inside(c, &paths, &dirs, &why)) == -EXDEV)
		sb_wl_fail(c, 0, "%s: refused: %s", c->spec->arg, why); /* stays -EXDEV: exit 3 */
	else if (r < 0)
		r = sb_wl_fail(c, r == -EINVAL ? 0 : r, "%s", why ? why : c->spec->arg);
	if (r == 0) {
		int fd = openat(c->work_fd, "stackbench-job.fio",
				O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 || write(fd, text, tl) != (ssize_t)tl)
			r = sb_wl_fail(c, -errno, "%s/stackbench-job.fio", c->work);
		if (fd >= 0)
			close(fd);
		snprintf(job, len, "%s/stackbench-job.fio", c->work);
	}
	free(text);
	free(why);
	sb_ft_paths_free(&paths);
	sb_ft_paths_free(&dirs);
	return r;
}

static int fio_run(struct sb_wl_ctx *c)
{
	char job[PATH_MAX];
	int rc;

	if (!sb_have_program("fio"))
		return sb_wl_fail(c, 0, "fio is not installed (Debian package fio)");
	rc = job_prepare(c, job, sizeof(job));
	if (rc < 0)
		return rc;
	/* json+: latency bins; the logs: one IOPS and one bandwidth figure a
	 * second per job, for the series. */
	const char *argv[] = {"fio",
			      "--output-format=json+",
			      "--write_iops_log=sbfio",
			      "--write_bw_log=sbfio",
			      "--log_avg_msec=1000",
			      job,
			      NULL};
	struct sb_child ch = {.argv = argv,
			      .cwd = c->work,
			      .capture = true,
			      .log_fd = c->env->log_fd,
			      .stop = c->env->stop,
			      .timeout_ms = (unsigned)(c->timeout_ns / 1000000)};
	rc = sb_spawn_run(&ch);
	if (rc < 0) {
		rc = sb_wl_fail(c, rc, "cannot start fio");
		goto out;
	}
	if (ch.timed_out || ch.stopped) {
		c->res->flags |= SB_RES_INCOMPLETE;
		if (!c->res->error)
			c->res->error = strdup(ch.timed_out ? "hit its time limit" : "interrupted");
	}
	if (ch.status != 0 && !ch.timed_out && !ch.stopped) {
		rc = sb_wl_fail(c, 0, "fio exited with status %d: %s", ch.status,
				ch.err ? ch.err : "");
		goto out;
	}
	if ((!ch.out || sb_fio_import(c, ch.out) < 0) && !ch.timed_out && !ch.stopped)
		rc = sb_wl_fail(c, 0, "fio printed no JSON result");
	else
		import_all_logs(c);
out:
	sb_child_release(&ch);
	return rc;
}

/* Per job (the '*') and direction, as fio reports them. */
static const struct sb_wl_metric fio_metrics[] = {
    {"*_read_mbs", "* read", "MB/s", SB_BETTER_HIGHER, true, "*", false},
    {"*_read_iops", "* read IOPS", "IOPS", SB_BETTER_HIGHER, false, "*", false},
    {"*_write_mbs", "* write", "MB/s", SB_BETTER_HIGHER, true, "*", false},
    {"*_write_iops", "* write IOPS", "IOPS", SB_BETTER_HIGHER, false, "*", false},
    {"*_trim_mbs", "* trim", "MB/s", SB_BETTER_HIGHER, true, "*", false},
    {"*_trim_iops", "* trim IOPS", "IOPS", SB_BETTER_HIGHER, false, "*", false},
    {0},
};

const struct sb_wl_ops sb_wl_fio = {
    .name = "fio",
    .arg = "JOBFILE",
    .arg_rest = true,
    .example = "fio:randread.fio",
    .summary = "run fio on JOBFILE in the directory under test; per-job MB/s, IOPS, latency "
	       "percentiles",
    .opts = fio_opts,
    .metrics = fio_metrics,
    .check = fio_check,
    .run = fio_run,
};
