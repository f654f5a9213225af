/* The workload registry, spec parsing (NAME[:ARG][,key=value...]) from the
 * workloads' option tables, running one workload in a private directory, and
 * the helpers shared by the workloads (phases, patterns, cleanup). */
#include "workload/wl.h"
#include "engine/engine.h"
#include "workload/cpulist.h"
#include "probe/devstat.h"
#include "profile/profile.h"
#include "workload/effconf.h"
#include "util/memcap.h"
#include "workload/progress.h"
#include "util/exitcode.h"
#include "util/parse.h"
#include "util/log.h"
#include "util/strutil.h"
#include "util/size.h"
#include "util/suggest.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <libsmartcols.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

/* The order `list workloads` shows: built-ins first, then the adapters. */
const struct sb_wl_ops *const sb_workloads[] = {
    &sb_wl_seq,	   &sb_wl_meta, &sb_wl_rand,   &sb_wl_mixed,  &sb_wl_command,
    &sb_wl_kbuild, &sb_wl_fio,	&sb_wl_bonnie, &sb_wl_iozone,
};
const size_t sb_n_workloads = ARRAY_SIZE(sb_workloads);

const struct sb_wl_ops *sb_wl_find(const char *name)
{
	for (size_t i = 0; i < sb_n_workloads; i++)
		if (strcmp(sb_workloads[i]->name, name) == 0)
			return sb_workloads[i];
	return NULL;
}

int sb_wl_opt_index(const struct sb_wl_ops *ops, const char *name)
{
	for (int i = 0; ops->opts && ops->opts[i].name; i++)
		if (strcmp(ops->opts[i].name, name) == 0)
			return i;
	return -1;
}

bool sb_wl_given(const struct sb_wl_spec *s, const char *name)
{
	int i = sb_wl_opt_index(s->ops, name);
	return i >= 0 && s->set[i];
}

uint64_t sb_wl_opt_u64(const struct sb_wl_spec *s, const char *name, uint64_t def)
{
	int i = sb_wl_opt_index(s->ops, name);
	if (i < 0 || !s->o)
		return def;
	const struct sb_wl_opt *o = &s->ops->opts[i];
	const char *p = (const char *)s->o + o->off;
	switch (o->type) {
	case SB_WO_BOOL:
		return *(const bool *)p;
	case SB_WO_STRING:
		return def;
	default:
		return *(const uint64_t *)p;
	}
}

/* "rand:BS[,key=value...]" */
static void expected_form(const struct sb_wl_ops *ops, char *buf, size_t len)
{
	const char *l = ops->arg_optional ? "[" : "", *r = ops->arg_optional ? "]" : "";
	if (ops->arg)
		snprintf(buf, len, "%s%s:%s%s[,key=value...], e.g. %s", ops->name, l, ops->arg, r,
			 ops->example);
	else
		snprintf(buf, len, "%s[,key=value...], e.g. %s", ops->name, ops->example);
}

static int spec_error(char **err, const char *text, const struct sb_wl_ops *ops, const char *fmt,
		      ...) __attribute__((format(printf, 4, 5)));
static int spec_error(char **err, const char *text, const struct sb_wl_ops *ops, const char *fmt,
		      ...)
{
	char msg[512], form[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (ops)
		expected_form(ops, form, sizeof(form));
	else
		snprintf(form, sizeof(form),
			 "NAME[:ARG][,key=value...], see 'stackbench list workloads'");
	if (asprintf(err, "workload '%s': %s (expected %s)", text, msg, form) < 0)
		*err = NULL;
	return -EINVAL;
}

static int parse_bool(const char *v, uint64_t *out)
{
	bool b;
	int r = sb_parse_bool(v, &b);
	if (r == 0)
		*out = b;
	return r;
}

static const char *type_form(enum sb_wo_type t)
{
	switch (t) {
	case SB_WO_UINT:
		return "a number";
	case SB_WO_SIZE:
		return "a size such as 4k, 512M, 2G";
	case SB_WO_DURATION:
		return "a duration such as 30s, 5m, 250ms";
	case SB_WO_BOOL:
		return "0 or 1";
	default:
		return "text";
	}
}

static int parse_number(const struct sb_wl_opt *o, const char *v, uint64_t *out)
{
	switch (o->type) {
	case SB_WO_UINT:
		return sb_parse_uint(v, 0, UINT64_MAX, out);
	case SB_WO_SIZE:
		return sb_parse_size(v, out, false, NULL);
	case SB_WO_DURATION:
		return sb_parse_duration_ms(v, out);
	case SB_WO_BOOL:
		return parse_bool(v, out);
	default:
		*out = 0;
		return 0;
	}
}

/* Parses v into row o's place in s->o. want_range: the bounds are checked
 * (1 when out of range). 0, 1, -EINVAL (bad value) or -ENOMEM. */
static int store_value(struct sb_wl_spec *s, const struct sb_wl_opt *o, const char *v,
		       bool want_range)
{
	char *p = (char *)s->o + o->off;
	uint64_t n;

	if (o->type == SB_WO_STRING) {
		char *d = strdup(v);
		if (!d)
			return -ENOMEM;
		free(*(char **)p);
		*(char **)p = d;
		return 0;
	}
	if (parse_number(o, v, &n) < 0 || !*v)
		return -EINVAL;
	if (want_range && (n < o->min || (o->max && n > o->max)))
		return 1;
	if (o->type == SB_WO_BOOL)
		*(bool *)p = n;
	else
		*(uint64_t *)p = n;
	return 0;
}

static int set_key(struct sb_wl_spec *s, const char *text, const char *kv, char **err)
{
	const struct sb_wl_ops *ops = s->ops;
	const char *eq = strchr(kv, '=');
	char key[64];
	int i;

	if (!eq || eq == kv)
		return spec_error(err, text, ops, "'%s' is not key=value", kv);
	snprintf(key, sizeof(key), "%.*s", (int)(eq - kv), kv);
	i = sb_wl_opt_index(ops, key);
	if (i < 0) {
		const char *names[SB_WL_MAX_OPTS];
		size_t n = 0;
		for (; ops->opts && ops->opts[n].name; n++)
			names[n] = ops->opts[n].name;
		const char *sug = sb_suggest(key, names, n);
		if (sug)
			return spec_error(err, text, ops, "unknown key '%s' (did you mean '%s'?)",
					  key, sug);
		return spec_error(err, text, ops, "unknown key '%s' for %s", key, ops->name);
	}
	const struct sb_wl_opt *o = &ops->opts[i];
	if (s->set[i])
		return spec_error(err, text, ops, "key '%s' given twice", key);
	int r = store_value(s, o, eq + 1, true);
	if (r == -EINVAL)
		return spec_error(err, text, ops, "bad value '%s' for %s: expected %s", eq + 1, key,
				  type_form(o->type));
	if (r == 1)
		return spec_error(err, text, ops, "%s=%s out of range", key, eq + 1);
	if (r < 0)
		return r;
	s->set[i] = true;
	return 0;
}

/* For free-text ARGs: is ",word=" at p the start of one of the workload's keys? */
static bool is_key_at(const struct sb_wl_ops *ops, const char *p)
{
	const char *eq = strchr(p, '=');
	char key[64];
	if (!eq || eq - p >= (long)sizeof(key))
		return false;
	snprintf(key, sizeof(key), "%.*s", (int)(eq - p), p);
	return sb_wl_opt_index(ops, key) >= 0;
}

/* The error for a workload name not in the registry, with a suggestion. */
static int unknown_workload(const char *text, const char *name, char **err)
{
	const char *names[32];
	for (size_t i = 0; i < sb_n_workloads; i++)
		names[i] = sb_workloads[i]->name;
	const char *sug = sb_suggest(name, names, sb_n_workloads);
	if (sug)
		return spec_error(err, text, NULL, "unknown workload '%s' (did you mean '%s'?)",
				  name, sug);
	return spec_error(err, text, NULL, "unknown workload '%s'", name);
}

/* The ARG after ':': an empty one is none; does the workload take it, need
 * it, and does its parser accept it. */
static int check_arg(struct sb_wl_spec *s, const char *text, char **err)
{
	const struct sb_wl_ops *ops = s->ops;

	if (s->arg && !*s->arg) {
		free(s->arg);
		s->arg = NULL;
	}
	if (!ops->arg && s->arg)
		return spec_error(err, text, ops, "%s takes no argument", ops->name);
	if (ops->arg && !s->arg && !ops->arg_optional)
		return spec_error(err, text, ops, "%s needs %s", ops->name, ops->arg);
	if (s->arg && ops->parse_arg) {
		char *why = NULL;
		int rc = ops->parse_arg(s->arg, s, &why);
		if (rc < 0) {
			spec_error(err, text, ops, "%s", why ? why : "bad argument");
			free(why);
			return rc;
		}
	}
	return 0;
}

/* Defaults; a NULL default means the workload computes it (from RAM). */
static int set_defaults(struct sb_wl_spec *s, const char *text, bool quick, char **err)
{
	const struct sb_wl_ops *ops = s->ops;

	for (int i = 0; ops->opts && ops->opts[i].name; i++) {
		const struct sb_wl_opt *o = &ops->opts[i];
		const char *d = quick && o->quick_def ? o->quick_def : o->def;
		if (s->set[i] || !d)
			continue;
		int r = store_value(s, o, d, false);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			/* a bug in a table; the unit test catches it */
			spec_error(err, text, ops, "bad default '%s' for %s", d, o->name);
			return -EINVAL;
		}
	}
	return 0;
}

int sb_wl_spec_parse(const char *text, bool quick, struct sb_wl_spec *s, char **err)
{
	const struct sb_wl_ops *ops;
	char name[64], *copy = NULL, *keys = NULL, *save = NULL;
	size_t nl = strcspn(text, ":,");
	int rc = 0;

	memset(s, 0, sizeof(*s));
	*err = NULL;
	if (nl == 0 || nl >= sizeof(name))
		return spec_error(err, text, NULL, "no workload name");
	snprintf(name, sizeof(name), "%.*s", (int)nl, text);
	ops = sb_wl_find(name);
	if (!ops)
		return unknown_workload(text, name, err);
	s->ops = ops;
	if (!(s->text = strdup(text)) || !(copy = strdup(text + nl)))
		goto nomem;
	/* the typed struct; at least the common part, which workload.c reads */
	if (!(s->o = calloc(1, ops->opts_size > sizeof(struct sb_wl_common)
				   ? ops->opts_size
				   : sizeof(struct sb_wl_common))))
		goto nomem;

	if (copy[0] == ':') {
		char *a = copy + 1, *k = NULL;
		if (ops->arg_rest) {
			/* The command keeps its commas, except before one of our keys. */
			for (char *p = a; (p = strchr(p, ',')); p++)
				if (is_key_at(ops, p + 1)) {
					k = p;
					break;
				}
		} else {
			k = strchr(a, ',');
		}
		if (k) {
			*k = '\0';
			keys = k + 1;
		}
		if (!(s->arg = strdup(a)))
			goto nomem;
	} else if (copy[0] == ',') {
		keys = copy + 1;
	}

	if ((rc = check_arg(s, text, err)) < 0)
		goto out;
	for (char *kv = keys ? strtok_r(keys, ",", &save) : NULL; kv;
	     kv = strtok_r(NULL, ",", &save)) {
		rc = set_key(s, text, kv, err);
		if (rc < 0)
			goto out;
	}
	if (keys && !*keys) {
		rc = spec_error(err, text, ops, "empty key list");
		goto out;
	}
	if ((rc = set_defaults(s, text, quick, err)) < 0)
		goto out;
	if (ops->check) {
		char *why = NULL;
		rc = ops->check(s, &why);
		if (rc < 0) {
			spec_error(err, text, ops, "%s", why ? why : "bad combination of keys");
			free(why);
			goto out;
		}
	}
out:
	free(copy);
	if (rc < 0)
		sb_wl_spec_release(s);
	return rc;
nomem:
	free(copy);
	sb_wl_spec_release(s);
	return -ENOMEM;
}

void sb_wl_spec_release(struct sb_wl_spec *s)
{
	free(s->text);
	free(s->arg);
	for (int i = 0; s->o && s->ops->opts && s->ops->opts[i].name; i++)
		if (s->ops->opts[i].type == SB_WO_STRING)
			free(*(char **)((char *)s->o + s->ops->opts[i].off));
	free(s->o);
	memset(s, 0, sizeof(*s));
}

int sb_workload_check(const char *spec, char **err)
{
	struct sb_wl_spec s;
	int rc = sb_wl_spec_parse(spec, false, &s, err);
	if (rc == 0)
		sb_wl_spec_release(&s);
	return rc;
}

/* Before main, as the layers' key tables are (stack/exec.c): a profile's
 * workloads.run values are checked without profile/ including workload/. */
__attribute__((constructor)) static void spec_check_register(void)
{
	sb_keytab_set_workload_check(sb_workload_check);
}

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

static json_object *extra_obj(struct sb_wl_ctx *c, const char *key);

static json_object *extra(struct sb_wl_ctx *c)
{
	if (!c->res->extra)
		c->res->extra = json_object_new_object();
	return c->res->extra;
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
		json_object_object_add(extra_obj(c, "cache_affected_by"), "size",
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

static json_object *extra_obj(struct sb_wl_ctx *c, const char *key)
{
	json_object *e = extra(c), *o;
	if (!json_object_object_get_ex(e, key, &o)) {
		o = json_object_new_object();
		json_object_object_add(e, key, o);
	}
	return o;
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
	uint64_t t0 = sb_now_ns();
	for (uint64_t i = 0; i < HOST_PROBE_ITERS; i++)
		x += i;
	return (double)(sb_now_ns() - t0) / 1e6;
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
	uint64_t t0 = sb_now_ns(), limit = (c->env->quick ? 2ull : 30ull) * 1000000000ull;
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
		if (!busy || sb_now_ns() - t0 >= limit || *c->env->stop)
			break;
		struct timespec ts = {0, (long)QUIET_POLL_NS};
		nanosleep(&ts, NULL);
	}
	json_object *q = json_object_new_object();
	int64_t waited_ms = (int64_t)((sb_now_ns() - t0) / 1000000);
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
	json_object_object_add(extra_obj(c, "quiesce"), name, q);
	if (busy)
		sb_wl_extra_bool(c, "started_busy", true);
}

void sb_phase_begin(struct sb_wl_ctx *c, struct sb_phase *p, const char *name, uint64_t total)
{
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
	p->t0 = sb_now_ns();
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
		uint64_t now = sb_now_ns(), wait = 100000000ull;
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
	json_object_object_add(extra_obj(p->c, "warmup"), p->name, o);
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
	json_object_object_add(extra_obj(c, "devstat"), p->name,
			       sb_devstat_json(c->devs, p->dev0, now, p->rbytes, p->wbytes));
	if (p->rbytes >= CACHE_MIN_READ) {
		uint64_t top = sb_devstat_top_bytes(c->devs, p->dev0, now, false);
		if ((double)top < CACHE_READ_SHARE * (double)p->rbytes) {
			c->res->flags |= SB_RES_CACHE_AFFECTED;
			json_object *by = extra_obj(c, "cache_affected_by"), *ph;
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
		json_object_object_add(extra_obj(c, "series"), p->name, o);
	}
	series_free(s);
	p->series = NULL;
}

void sb_phase_end(struct sb_phase *p)
{
	struct rusage ru;
	uint64_t now = sb_now_ns();

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

/* ---- the memory a workload needs of its own (--cap-cache's floor) ---- */

/* What the child adds besides its buffers: thread stacks, libc's arenas,
 * the result's JSON (the pages it shares with stackbench after the fork
 * stay charged to stackbench's cgroup). Measured with no floor: --quick
 * seq, meta and rand:4k run under a 2 MiB cap; mixed:2r1w is killed under
 * 2 MiB, rand:64k,threads=8 under 1 MiB. The floor keeps a margin. */
#define MEM_BASE (4ull << 20)
#define HIST_BYTES ((uint64_t)sizeof(struct sb_hist))

static uint64_t optv(const struct sb_wl_spec *s, const char *name, uint64_t def)
{
	return sb_wl_opt_u64(s, name, def);
}

/* seq: a block (chunk) per I/O in flight, one per seeker, four histograms. */
static uint64_t mem_seq(const struct sb_wl_spec *s, uint64_t data)
{
	uint64_t chunk = optv(s, "chunk", 8192), qd = optv(s, "qd", 1);
	return 4 * HIST_BYTES + chunk * qd + optv(s, "seekers", 1) * (chunk + HIST_BYTES);
}

/* rand: per thread qd records of BS and two histograms; the written and
 * busy bitmaps of the whole data set (one bit per record each). */
static uint64_t mem_rand(const struct sb_wl_spec *s, uint64_t data)
{
	uint64_t bs = s->a[0] ? s->a[0] : 4096;
	return optv(s, "threads", 1) * (optv(s, "qd", 1) * bs + 2 * HIST_BYTES) +
	       2 * (data / bs / 8);
}

/* mixed: a histogram per op per thread; the trees' names (64 bytes a
 * file, each reader's tree and the writers'). */
static uint64_t mem_mixed(const struct sb_wl_spec *s, uint64_t data)
{
	uint64_t threads = s->a[0] + s->a[1];
	return threads * 12 * HIST_BYTES + optv(s, "files", 0) * (threads + 1) * 64;
}

/* meta: files x 1024 entries of order (4 bytes) and name (64). */
static uint64_t mem_meta(const struct sb_wl_spec *s, uint64_t data)
{
	return HIST_BYTES + optv(s, "files", 0) * 1024 * 68;
}

static const struct {
	const char *workload;
	uint64_t (*bytes)(const struct sb_wl_spec *s, uint64_t data);
} mem_rules[] = {
    {"seq", mem_seq},
    {"rand", mem_rand},
    {"mixed", mem_mixed},
    {"meta", mem_meta},
};

uint64_t sb_workload_mem_bytes(const char *spec, bool quick, uint64_t ram)
{
	struct sb_wl_spec s;
	char *err = NULL;
	uint64_t n = MEM_BASE, data = sb_workload_data_bytes(spec, quick, ram);

	if (sb_wl_spec_parse(spec, quick, &s, &err) < 0) {
		free(err);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(mem_rules); i++)
		if (strcmp(mem_rules[i].workload, s.ops->name) == 0)
			n += mem_rules[i].bytes(&s, data);
	sb_wl_spec_release(&s);
	return n;
}

int sb_workload_check_cap(const char *const *specs, size_t n, bool quick, uint64_t cap, char **err)
{
	*err = NULL;
	for (size_t i = 0; i < n; i++) {
		uint64_t need = sb_workload_mem_bytes(specs[i], quick, cap);
		if (need > cap) {
			char a[32], b[32];
			sb_format_size(cap, a, sizeof(a));
			sb_format_size(need, b, sizeof(b));
			*err = sb_asprintf(
			    "--cap-cache: the cap of %s (%llu bytes) is smaller than "
			    "workload '%s' needs for its own buffers: %s (%llu bytes) "
			    "at least; give a larger --ram or smaller buffers",
			    a, (unsigned long long)cap, specs[i], b, (unsigned long long)need);
			return -EINVAL;
		}
	}
	return 0;
}

#define DEFAULT_TIMEOUT_MS (3600ull * 1000)

/* ---- --cap-cache: the workload in a child inside the memory cgroup ---- */

static volatile sig_atomic_t *child_stop;

static void on_forwarded_stop(int sig)
{
	(void)sig;
	if (child_stop)
		*child_stop = 1;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The child: into the cgroup, run, hand {rc, err, result} back as JSON.
 * Never returns. */
static void __attribute__((noreturn)) capped_child(struct sb_wl_ctx *c, const struct sb_memcap *m,
						   int fd, pid_t parent, const sigset_t *old)
{
	struct sigaction sa = {.sa_handler = on_forwarded_stop};
	int rc;

	/* The workload dies with stackbench (kill -9 of the run): what it
	 * leaves, the cgroup's undo kills. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(125);
	child_stop = c->env->stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigprocmask(SIG_SETMASK, old, NULL);
	rc = sb_memcap_join(m);
	if (rc < 0)
		rc = sb_wl_fail(c, rc, "--cap-cache: cannot move the workload into %s", m->dir);
	else
		rc = c->spec->ops->run(c);
	json_object *o = json_object_new_object();
	json_object_object_add(o, "rc", json_object_new_int(rc));
	if (c->err)
		json_object_object_add(o, "err", json_object_new_string(c->err));
	json_object_object_add(o, "result", sb_wl_result_to_json(c->res));
	const char *t = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	_exit(t && write_all(fd, t, strlen(t)) == 0 ? 0 : 124);
}

/* Reads the child's answer to EOF; a stop (signal, time limit) seen here
 * is passed on to it once. */
static char *read_child(int fd, pid_t pid, volatile sig_atomic_t *stop)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	bool told = false;

	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (*stop && !told) {
			kill(pid, SIGUSR1);
			told = true;
		}
		if (poll(&p, 1, 200) <= 0)
			continue;
		if (len + 65536 + 1 > cap) {
			char *nb = realloc(buf, cap = cap * 2 + 65536 + 1);
			if (!nb)
				break;
			buf = nb;
		}
		ssize_t n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (buf)
		buf[len] = '\0';
	return buf;
}

/* Takes the child's {rc, err, result} into c; rc, or -EIO when it is not
 * there. */
static int take_answer(struct sb_wl_ctx *c, const char *text)
{
	json_object *o = text && *text ? json_tokener_parse(text) : NULL, *v;
	struct sb_wl_result *r = NULL;
	char *why = NULL;
	int rc = -EIO;

	if (o && json_object_object_get_ex(o, "result", &v) &&
	    sb_wl_result_from_json(v, &r, &why) == 0) {
		sb_wl_result_free(c->res);
		c->res = r;
		rc = json_object_object_get_ex(o, "rc", &v) ? json_object_get_int(v) : -EIO;
		if (json_object_object_get_ex(o, "err", &v) &&
		    json_object_is_type(v, json_type_string)) {
			free(c->err);
			c->err = strdup(json_object_get_string(v));
		}
	} else {
		rc = sb_wl_fail(c, -EIO, "the workload's process gave no result%s%s",
				why ? ": " : "", why ? why : "");
	}
	free(why);
	json_object_put(o);
	return rc;
}

static int wait_child(pid_t pid, int *st)
{
	while (waitpid(pid, st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

/* stackbench stays outside the cgroup: an OOM kill under the cap ends the
 * child, and the run goes on to its teardown. */
static int run_in_cgroup(struct sb_wl_ctx *c, const struct sb_memcap *m)
{
	int pfd[2], st = 0, rc;
	sigset_t usr1, old;
	int64_t oom0 = sb_memcap_oom_kills(m);
	pid_t pid, self = getpid();

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return sb_wl_fail(c, -errno, "--cap-cache: pipe");
	/* SIGUSR1 held until the child has its handler. */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &old);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		capped_child(c, m, pfd[1], self, &old);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		return sb_wl_fail(c, -errno, "--cap-cache: fork");
	}
	_cleanup_free_ char *text = read_child(pfd[0], pid, c->env->stop);
	close(pfd[0]);
	if ((rc = wait_child(pid, &st)) < 0)
		return sb_wl_fail(c, rc, "--cap-cache: waiting for the workload");
	if (WIFSIGNALED(st)) {
		int64_t oom1 = sb_memcap_oom_kills(m);
		if (WTERMSIG(st) == SIGKILL && oom1 > oom0)
			return sb_wl_fail(c, -ENOMEM,
					  "workload killed by the memory cap (%llu bytes)",
					  (unsigned long long)m->bytes);
		return sb_wl_fail(c, -ECHILD, "the workload's process died of signal %d (%s)",
				  WTERMSIG(st), strsignal(WTERMSIG(st)));
	}
	rc = take_answer(c, text);
	/* A program the workload started (fio, a command) was the one the
	 * kernel killed: say so, the program's own failure is that kill. */
	int64_t oom1 = sb_memcap_oom_kills(m);
	if (oom1 > oom0) {
		sb_wl_extra_int(c, "memory_cap_oom_kills", oom1 - oom0);
		if (rc < 0) {
			char *was = c->err;
			c->err = sb_asprintf("workload killed by the memory cap (%llu bytes)%s%s",
					     (unsigned long long)m->bytes, was ? ": " : "",
					     was ? was : "");
			free(was);
			free(c->res->error);
			c->res->error = c->err ? strdup(c->err) : NULL;
		}
	}
	return rc;
}

static int run_capped(struct sb_wl_ctx *c, const struct sb_wl_env *env)
{
	struct sb_memcap cap;
	char *why = NULL;
	int rc;

	/* run: the plan's memory-cgroup step made it (journaled); bench: one of
	 * its own for this workload. */
	if (env->memcg)
		rc = sb_memcap_use(&cap, env->memcg, c->ram);
	else
		rc = sb_memcap_open(&cap, c->ram, &why);
	if (rc < 0) {
		rc = sb_wl_fail(c, rc == -EPERM ? -EPERM : -EOPNOTSUPP, "--cap-cache: %s",
				why ? why : strerror(-rc));
		free(why);
		return rc;
	}
	sb_wl_extra_int(c, "memory_cap_bytes", (int64_t)cap.bytes);
	sb_wl_extra_str(c, "memory_cap_cgroup", cap.v2 ? "v2" : "v1");
	rc = run_in_cgroup(c, &cap);
	sb_memcap_close(&cap);
	return rc;
}

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
		rc = run_capped(&c, env);
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

static const char *type_meta(enum sb_wo_type t)
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
