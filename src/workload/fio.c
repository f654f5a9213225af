/* fio:JOBFILE: runs fio with JSON output in the work directory and imports
 * each job's bandwidth, IOPS and completion-latency percentiles. fio's own
 * JSON is kept in the result's extra ("fio_output") for reference. */
#include "workload/wl.h"
#include "result/fio_json.h"
#include "util/freetext.h"
#include "util/macro.h"
#include "util/strutil.h"
#include "util/spawn.h"

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

/* The typed options fio_opts fills (fio.c). */
struct fio_opts {
	struct sb_wl_common com;
};

static inline const struct fio_opts *fio_o(const struct sb_wl_spec *s)
{
	return s->o;
}

static const struct sb_wl_opt fio_opts[] = {
    SB_WL_TIMEOUT_ROW(struct fio_opts, "24h", "30m",
		      "time limit; fio is stopped past it and the result flagged incomplete"),
    {0},
};

/* The parser is result/fio_json.c's: report's import reads the same JSON. */
int sb_fio_import_json(struct sb_wl_ctx *c, const char *text, char **err)
{
	return sb_fio_json_parse(c->res, text, err);
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
    .opts_size = sizeof(struct fio_opts),
    .metrics = fio_metrics,
    .check = fio_check,
    .run = fio_run,
};
