/* The workload engine's core: the helpers shared by the workloads (failures,
 * extra, patterns, cleanup), running one workload in a private directory,
 * and `list workloads`. */
#include "workload/wl.h"
#include "workload/workload-int.h"
#include "engine/engine.h"
#include "workload/cpulist.h"
#include "probe/devstat.h"
#include "workload/effconf.h"
#include "util/exitcode.h"
#include "util/log.h"
#include "util/strutil.h"

#include <dirent.h>
#include <fcntl.h>
#include <libsmartcols.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- shared helpers ---- */

int sb_wl_fail(struct sb_wl_ctx *c, int err, const char *fmt, ...)
{
	va_list ap;
	char *m;
	va_start(ap, fmt);
	m = sb_vasprintf(fmt, ap);
	va_end(ap);
	if (!c->err) {
		if (err && m) {
			if (asprintf(&c->err, "%s: %s", m, strerror(err < 0 ? -err : err)) < 0)
				c->err = NULL;
			free(m);
		} else {
			c->err = m;
		}
	} else {
		free(m);
	}
	return err ? (err < 0 ? err : -err) : -EIO;
}

static json_object *extra(struct sb_wl_ctx *c)
{
	if (!c->res->extra)
		c->res->extra = json_object_new_object();
	return c->res->extra;
}

json_object *sb_wl_extra_obj(struct sb_wl_ctx *c, const char *key)
{
	json_object *e = extra(c), *o;
	if (!json_object_object_get_ex(e, key, &o)) {
		o = json_object_new_object();
		json_object_object_add(e, key, o);
	}
	return o;
}

void sb_wl_extra_int(struct sb_wl_ctx *c, const char *key, int64_t v)
{
	json_object_object_add(extra(c), key, json_object_new_int64(v));
}

void sb_wl_extra_double(struct sb_wl_ctx *c, const char *key, double v)
{
	json_object_object_add(extra(c), key, json_object_new_double(v));
}

void sb_wl_extra_str(struct sb_wl_ctx *c, const char *key, const char *v)
{
	json_object_object_add(extra(c), key, json_object_new_string(v));
}

void sb_wl_extra_bool(struct sb_wl_ctx *c, const char *key, bool v)
{
	json_object_object_add(extra(c), key, json_object_new_boolean(v));
}

void sb_wl_extra_list_add(struct sb_wl_ctx *c, const char *key, const char *v)
{
	json_object *a;
	if (!json_object_object_get_ex(extra(c), key, &a) ||
	    !json_object_is_type(a, json_type_array)) {
		a = json_object_new_array();
		json_object_object_add(extra(c), key, a);
	}
	for (size_t i = 0; i < json_object_array_length(a); i++)
		if (strcmp(json_object_get_string(json_object_array_get_idx(a, i)), v) == 0)
			return;
	json_object_array_add(a, json_object_new_string(v));
}

int sb_wl_engine_check(const struct sb_wl_spec *s, const struct sb_engine_opts *o, bool direct,
		       char **why)
{
	int rc = sb_engine_opts_check(o, direct, why);
	if (rc < 0 || sb_engine_opts_uring(o))
		return rc;
	for (const char *const *k = sb_engine_uring_keys; *k; k++)
		if (sb_wl_given(s, *k) && sb_wl_opt_u64(s, *k, 0)) {
			*why = sb_asprintf("%s= is for engine=io_uring", *k);
			return -EINVAL;
		}
	return 0;
}

void sb_wl_engine_extra(struct sb_wl_ctx *c, const struct sb_engine_opts *o)
{
	sb_wl_extra_str(c, "engine", o->engine ? o->engine : "psync");
	sb_wl_extra_int(c, "qd", (int64_t)o->qd);
	if (!sb_engine_opts_uring(o))
		return;
	sb_wl_extra_bool(c, "fixed", o->fixed);
	sb_wl_extra_bool(c, "hipri", o->hipri);
	sb_wl_extra_bool(c, "sqpoll", o->sqpoll);
	sb_wl_extra_int(c, "batch_submit", (int64_t)o->batch_submit);
	sb_wl_extra_int(c, "batch_complete", (int64_t)o->batch_complete);
}

void sb_wl_add_hist(struct sb_wl_ctx *c, const char *op, const struct sb_hist *h)
{
	/* the histogram itself is kept, so repeats pool exactly (compare) */
	struct sb_latency l = {.op = (char *)op, .hist = (struct sb_hist *)h};
	sb_latency_from_hist(&l, h);
	sb_wl_add_latency(c->res, &l);
}

int sb_wl_drop_caches(struct sb_wl_ctx *c)
{
	int fd, rc = 0;
	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "3", 1) != 1)
		rc = negerrno();
	if (fd >= 0)
		close(fd);
	sb_wl_extra_bool(c, "caches_dropped", rc == 0);
	c->cold = rc == 0;
	return rc;
}

void sb_wl_validity(struct sb_wl_ctx *c, uint64_t data_bytes, bool direct)
{
	sb_wl_extra_int(c, "data_bytes", (int64_t)data_bytes);
	sb_wl_extra_int(c, "ram_bytes", (int64_t)c->ram);
	sb_wl_extra_bool(c, "direct", direct);
	/* The first of two reasons; the other is measured per phase from the top
	 * device's counters (phase_devstat). */
	if (!direct && data_bytes < 2 * c->ram) {
		c->res->flags |= SB_RES_CACHE_AFFECTED;
		json_object_object_add(sb_wl_extra_obj(c, "cache_affected_by"), "size",
				       json_object_new_boolean(true));
	}
}

void *sb_wl_alloc_aligned(size_t len)
{
	void *p = NULL;
	if (posix_memalign(&p, 4096, len ? len : 4096))
		return NULL;
	memset(p, 0, len);
	return p;
}

void sb_pattern_fill(void *buf, uint64_t off, size_t len, uint64_t gen)
{
	static struct sb_data def;
	static bool init;
	if (!init) {
		sb_data_init(&def, 0, 0, 0);
		init = true;
	}
	sb_data_fill(&def, buf, off, len, gen);
}

int sb_wl_rmtree_at(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if (fd < 0) {
		if (errno == ENOTDIR || errno == ELOOP)
			return unlinkat(dirfd, name, 0) < 0 ? negerrno() : 0;
		return errno == ENOENT ? 0 : negerrno();
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return negerrno();
	}
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (de->d_type == DT_DIR || de->d_type == DT_UNKNOWN) {
			int r = sb_wl_rmtree_at(fd, de->d_name);
			if (r < 0 && rc == 0)
				rc = r;
		} else if (unlinkat(fd, de->d_name, 0) < 0 && rc == 0) {
			rc = negerrno();
		}
	}
	closedir(d);
	if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT && rc == 0)
		rc = negerrno();
	return rc;
}

/* ---- running ---- */

static uint64_t system_ram(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), sz = sysconf(_SC_PAGESIZE);
	return pages > 0 && sz > 0 ? (uint64_t)pages * (uint64_t)sz : 0;
}

uint64_t sb_workload_data_bytes(const char *spec, bool quick, uint64_t ram)
{
	struct sb_wl_spec s;
	char *err = NULL;
	uint64_t n = 0;
	int k;

	if (sb_wl_spec_parse(spec, quick, &s, &err) < 0) {
		free(err);
		return 0;
	}
	/* Only a size= whose default is computed is the data set sized from
	 * RAM (seq, rand); other workloads' sizes do not grow with the host. */
	k = sb_wl_opt_index(s.ops, "size");
	if (k >= 0 && !s.ops->opts[k].def) {
		n = sb_wl_opt_u64(&s, "size", 0);
		n = n ? n : 2 * (ram ? ram : system_ram());
	}
	sb_wl_spec_release(&s);
	return n;
}

#define DEFAULT_TIMEOUT_MS (3600ull * 1000)

/* --cpus: the calling thread (and so every thread the workload starts)
 * on the CPUs of list; the mask before it in *saved. */
static int pin(struct sb_wl_ctx *c, const char *list, cpu_set_t *saved)
{
	cpu_set_t want;
	char *why = NULL;
	int rc = sb_cpulist_parse(list, &want, &why);
	if (rc < 0) {
		rc = sb_wl_fail(c, 0, "%s", why ? why : "--cpus: bad list");
		free(why);
		return rc;
	}
	if (sched_getaffinity(0, sizeof(*saved), saved) < 0)
		return sb_wl_fail(c, -errno, "--cpus %s: sched_getaffinity", list);
	if (sched_setaffinity(0, sizeof(want), &want) < 0)
		return sb_wl_fail(c, -errno, "--cpus %s: none of them can run this process", list);
	sb_cpulist_format(&want, c->cpus, sizeof(c->cpus));
	sb_wl_extra_str(c, "cpus", c->cpus);
	return 0;
}

/* The context's settings from the spec and the environment: RAM, time
 * limit, data pattern, ramp, the devices under the directory and what the
 * kernel applied to them. */
static void wl_ctx_setup(struct sb_wl_ctx *c)
{
	const struct sb_wl_env *env = c->env;
	const struct sb_wl_spec *s = c->spec;
	const struct sb_wl_common *com = sb_wl_com(s);

	c->ram = env->ram_bytes ? env->ram_bytes : system_ram();
	c->timeout_ns = (com->timeout ? com->timeout : DEFAULT_TIMEOUT_MS) * 1000000ull;
	c->tty = isatty(STDERR_FILENO) && sb_log_level >= SB_LOG_NORMAL;
	/* a workload without a row for one of them has 0 there */
	sb_data_init(&c->data, com->seed, (unsigned)com->compress, (unsigned)com->dedupe);
	c->ramp_ns = com->ramp * 1000000ull;
	if (sb_wl_opt_index(s->ops, "compress") >= 0)
		sb_wl_extra_int(c, "compress_pct", (int64_t)c->data.compress);
	if (sb_wl_opt_index(s->ops, "dedupe") >= 0)
		sb_wl_extra_int(c, "dedupe_pct", (int64_t)c->data.dedupe);
	/* The devices under the directory, for per-phase accounting; none for
	 * tmpfs and the like. */
	c->devs = malloc(sizeof(*c->devs));
	if (c->devs && sb_devstack_for_dir(env->dir, c->devs) < 0) {
		free(c->devs);
		c->devs = NULL;
	}
	/* What the kernel applied, once per run (a few ms; programs with a time
	 * limit). */
	json_object_object_add(extra(c), "config",
			       sb_effconf_capture(env->dir, c->devs, env->log_fd));
}

int sb_workload_run(const char *spec, const struct sb_wl_env *env_in, struct sb_wl_result **out,
		    char **err)
{
	static unsigned seq;
	static volatile sig_atomic_t never;
	struct sb_wl_env envc = *env_in, *env = &envc;
	struct sb_wl_spec s;
	struct sb_wl_ctx c = {.env = env, .work_fd = -1, .perf_fd = -1};
	char wname[64];
	int rc, dfd = -1;
	cpu_set_t saved_cpus;

	*out = NULL;
	*err = NULL;
	/* The workloads read *stop on their hot paths: give them one to read. */
	if (!envc.stop)
		envc.stop = &never;
	rc = sb_wl_spec_parse(spec, env->quick, &s, err);
	if (rc < 0)
		return rc;
	c.spec = &s;
	c.res = sb_wl_result_new(s.ops->name, spec);
	if (!c.res) {
		rc = -ENOMEM;
		goto out;
	}
	if (env->quick)
		c.res->flags |= SB_RES_QUICK;
	wl_ctx_setup(&c);

	dfd = open(env->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		rc = sb_wl_fail(&c, -errno, "%s", env->dir);
		goto out;
	}
	snprintf(wname, sizeof(wname), ".stackbench-%d-%u", (int)getpid(), seq++);
	if (mkdirat(dfd, wname, 0700) < 0) {
		rc = sb_wl_fail(&c, -errno, "%s: cannot create a work directory", env->dir);
		goto out;
	}
	if (asprintf(&c.work, "%s/%s", env->dir, wname) < 0) {
		c.work = NULL;
		rc = -ENOMEM;
		goto out_rm;
	}
	c.work_fd = openat(dfd, wname, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c.work_fd < 0) {
		rc = sb_wl_fail(&c, -errno, "%s", c.work);
		goto out_rm;
	}
	/* Pinned before any of its threads starts: they inherit the mask. */
	if (env->cpus && (rc = pin(&c, env->cpus, &saved_cpus)) < 0)
		goto out_rm;
	/* After the set-up above: the counter counts the workload's threads. */
	sb_wl_perf_begin(&c);
	if (env->cap_cache)
		rc = sb_wl_run_capped(&c, env);
	else
		rc = s.ops->run(&c);
	if (rc == 0 && *env->stop) {
		rc = -EINTR;
		sb_wl_fail(&c, 0, "interrupted");
	}
	if (c.res->flags & SB_RES_INCOMPLETE)
		sb_wl_extra_bool(&c, "incomplete", true);
out_rm:
	sb_wl_perf_end(&c);
	if (c.cpus[0])
		sched_setaffinity(0, sizeof(saved_cpus), &saved_cpus);
	if (c.work_fd >= 0)
		close(c.work_fd);
	{
		int r = sb_wl_rmtree_at(dfd, wname);
		if (r < 0 && rc == 0)
			rc = sb_wl_fail(&c, r, "%s: cannot remove what the workload created",
					c.work ? c.work : wname);
	}
out:
	if (dfd >= 0)
		close(dfd);
	if (rc < 0 && c.res) {
		if (rc == -EINTR)
			c.res->flags |= SB_RES_INCOMPLETE;
		else
			c.res->flags |= SB_RES_FAILED;
		if (!c.res->error && c.err)
			c.res->error = strdup(c.err);
	}
	if (rc < 0 && asprintf(err, "workload '%s': %s", spec, c.err ? c.err : strerror(-rc)) < 0)
		*err = NULL;
	free(c.err);
	free(c.work);
	free(c.devs);
	sb_wl_spec_release(&s);
	if (c.res && sb_wl_result_describe(c.res) < 0 && rc == 0)
		rc = -ENOMEM; /* labels from the metric table (metrics.c) */
	*out = c.res;
	return rc;
}

/* ---- `list workloads` ---- */

static const char *type_meta(enum sb_vtype t)
{
	switch (t) {
	case SB_WO_UINT:
		return "N";
	case SB_WO_SIZE:
		return "SIZE";
	case SB_WO_DURATION:
		return "TIME";
	case SB_WO_BOOL:
		return "0|1";
	default:
		return "TEXT";
	}
}

int sb_list_workloads(void)
{
	struct libscols_table *tb = scols_new_table();
	int rc = 0;

	if (!tb)
		return SB_EXIT_FAILED;
	scols_table_new_column(tb, "WORKLOAD", 0, SCOLS_FL_TREE);
	scols_table_new_column(tb, "DEFAULT", 0, 0);
	scols_table_new_column(tb, "QUICK", 0, 0);
	scols_table_new_column(tb, "DESCRIPTION", 0, SCOLS_FL_WRAP);
	for (size_t i = 0; i < sb_n_workloads; i++) {
		const struct sb_wl_ops *ops = sb_workloads[i];
		struct libscols_line *ln = scols_table_new_line(tb, NULL);
		char form[128];
		if (ops->arg)
			snprintf(form, sizeof(form), "%s%s:%s%s", ops->name,
				 ops->arg_optional ? "[" : "", ops->arg,
				 ops->arg_optional ? "]" : "");
		else
			snprintf(form, sizeof(form), "%s", ops->name);
		scols_line_set_data(ln, 0, form);
		scols_line_set_data(ln, 3, ops->summary);
		for (const struct sb_wl_opt *o = ops->opts; o && o->name; o++) {
			struct libscols_line *kl = scols_table_new_line(tb, ln);
			char k[64];
			snprintf(k, sizeof(k), "%s=%s", o->name, type_meta(o->type));
			scols_line_set_data(kl, 0, k);
			scols_line_set_data(kl, 1, o->def ? o->def : "(computed)");
			scols_line_set_data(kl, 2, o->quick_def ? o->quick_def : "");
			scols_line_set_data(kl, 3, o->help);
		}
	}
	if (scols_print_table(tb) != 0)
		rc = SB_EXIT_FAILED;
	scols_unref_table(tb);
	return rc;
}
