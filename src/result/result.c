/* See result.h: building results in memory and their JSON form. */
#include "result/result.h"
#include "util/safefile.h"
#include "util/strutil.h"
#include "result/stats.h"
#include "util/macro.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <limits.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>

static char *xstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void *grow(void *arr, size_t n, size_t elem)
{
	return realloc(arr, (n + 1) * elem);
}

static char *iso_now(void)
{
	char buf[32];
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return strdup(buf);
}

const char *sb_better_name(enum sb_better b)
{
	switch (b) {
	case SB_BETTER_HIGHER:
		return "higher";
	case SB_BETTER_LOWER:
		return "lower";
	default:
		return "none";
	}
}

struct sb_wl_result *sb_wl_result_new(const char *workload, const char *spec)
{
	struct sb_wl_result *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->workload = xstrdup(workload);
	r->spec = xstrdup(spec ? spec : workload);
	if (!r->workload || !r->spec) {
		sb_wl_result_free(r);
		return NULL;
	}
	return r;
}

int sb_wl_add_metric(struct sb_wl_result *r, const char *name, const char *unit,
		     enum sb_better better, double value)
{
	struct sb_metric *m = grow(r->metrics, r->n_metrics, sizeof(*m));
	if (!m)
		return -ENOMEM;
	r->metrics = m;
	m = &r->metrics[r->n_metrics];
	*m = (struct sb_metric){
	    .name = xstrdup(name), .unit = xstrdup(unit), .better = better, .value = value};
	if (!m->name || !m->unit) {
		free(m->name);
		free(m->unit);
		return -ENOMEM;
	}
	r->n_metrics++;
	return 0;
}

int sb_metric_describe(struct sb_metric *m, const char *label, bool headline, const char *phase)
{
	free(m->label);
	free(m->phase);
	m->label = xstrdup(label);
	m->phase = xstrdup(phase);
	m->headline = headline;
	return (label && !m->label) || (phase && !m->phase) ? -ENOMEM : 0;
}

void sb_latency_from_hist(struct sb_latency *l, const struct sb_hist *h)
{
	l->count = h->count;
	l->min_ms = h->count ? (double)h->min / 1e6 : 0;
	l->mean_ms = sb_hist_mean(h) / 1e6;
	l->stdev_ms = sb_hist_stdev(h) / 1e6;
	l->p50_ms = sb_hist_percentile(h, 0.50) / 1e6;
	l->p90_ms = sb_hist_percentile(h, 0.90) / 1e6;
	l->p99_ms = sb_hist_percentile(h, 0.99) / 1e6;
	l->p999_ms = sb_hist_percentile(h, 0.999) / 1e6;
	l->max_ms = (double)h->max / 1e6;
}

int sb_wl_add_latency(struct sb_wl_result *r, const struct sb_latency *l)
{
	struct sb_latency *p = grow(r->lat, r->n_lat, sizeof(*p));
	if (!p)
		return -ENOMEM;
	r->lat = p;
	p = &r->lat[r->n_lat];
	*p = *l;
	p->op = xstrdup(l->op);
	p->hist = NULL;
	if (!p->op)
		return -ENOMEM;
	if (l->hist) {
		p->hist = malloc(sizeof(*p->hist));
		if (!p->hist) {
			free(p->op);
			return -ENOMEM;
		}
		*p->hist = *l->hist;
	}
	r->n_lat++;
	return 0;
}

const struct sb_metric *sb_wl_find_metric(const struct sb_wl_result *r, const char *name)
{
	for (size_t i = 0; i < r->n_metrics; i++)
		if (strcmp(r->metrics[i].name, name) == 0)
			return &r->metrics[i];
	return NULL;
}

void sb_wl_result_free(struct sb_wl_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_metrics; i++) {
		free(r->metrics[i].name);
		free(r->metrics[i].unit);
		free(r->metrics[i].label);
		free(r->metrics[i].phase);
	}
	for (size_t i = 0; i < r->n_lat; i++) {
		free(r->lat[i].op);
		free(r->lat[i].hist);
	}
	free(r->metrics);
	free(r->lat);
	free(r->workload);
	free(r->spec);
	free(r->error);
	json_object_put(r->extra);
	free(r);
}

/* JSON has no NaN or infinity: such a value is written as null. */
static json_object *num(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static const struct {
	unsigned flag;
	const char *name;
} flag_names[] = {
    {SB_RES_QUICK, "quick"},	       {SB_RES_CACHE_AFFECTED, "cache-affected"},
    {SB_RES_INCOMPLETE, "incomplete"}, {SB_RES_FAILED, "failed"},
    {SB_RES_FRESH, "fresh"},
};

unsigned sb_result_flag_from_name(const char *name)
{
	for (size_t k = 0; k < ARRAY_SIZE(flag_names); k++)
		if (strcmp(name, flag_names[k].name) == 0)
			return flag_names[k].flag;
	return 0;
}

/* json-c writes a NaN or infinite double as NaN or Infinity, which is not
 * JSON and which the reader refuses: the workloads' extras get null there,
 * as the metrics do, so that we never write what we would not read. */
static void null_nonfinite(json_object *o)
{
	if (json_object_is_type(o, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(o); i++) {
			json_object *v = json_object_array_get_idx(o, i);
			if (json_object_is_type(v, json_type_double) &&
			    !isfinite(json_object_get_double(v)))
				json_object_array_put_idx(o, i, NULL);
			else
				null_nonfinite(v);
		}
	} else if (json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, key, v)
		{
			if (json_object_is_type(v, json_type_double) &&
			    !isfinite(json_object_get_double(v)))
				json_object_object_add(o, key, NULL);
			else
				null_nonfinite(v);
		}
	}
}

/* The bucket pairs on one line even in a pretty-printed file: one number per
 * line made a mixed run's result.json ten times the size. */
static int pairs_compact(json_object *arr, struct printbuf *pb, int level, int flags)
{
	printbuf_strappend(pb, "[");
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *p = json_object_array_get_idx(arr, i);
		char buf[64];
		int n = snprintf(buf, sizeof(buf), "%s[%d,%" PRIu64 "]", i ? "," : "",
				 json_object_get_int(json_object_array_get_idx(p, 0)),
				 json_object_get_uint64(json_object_array_get_idx(p, 1)));
		printbuf_memappend(pb, buf, n);
	}
	printbuf_strappend(pb, "]");
	return 0;
}

/* Sparse: only the buckets that hold values, as [index, count] pairs; the
 * exact count, min, max, sum and sum of squares beside them. */
json_object *sb_hist_to_json(const struct sb_hist *h)
{
	json_object *o = json_object_new_object(), *b = json_object_new_array();
	json_object_object_add(o, "sub_bits", json_object_new_int(SB_HIST_SUB_BITS));
	json_object_object_add(o, "count", json_object_new_uint64(h->count));
	json_object_object_add(o, "min_ns", json_object_new_uint64(h->count ? h->min : 0));
	json_object_object_add(o, "max_ns", json_object_new_uint64(h->max));
	json_object_object_add(o, "sum_ns", json_object_new_double(h->sum));
	json_object_object_add(o, "sumsq_ns2", json_object_new_double(h->sumsq));
	for (unsigned i = 0; i < SB_HIST_BUCKETS; i++) {
		if (!h->b[i])
			continue;
		json_object *pair = json_object_new_array();
		json_object_array_add(pair, json_object_new_int((int)i));
		json_object_array_add(pair, json_object_new_uint64(h->b[i]));
		json_object_array_add(b, pair);
	}
	json_object_set_serializer(b, pairs_compact, NULL, NULL);
	json_object_object_add(o, "buckets", b);
	return o;
}

json_object *sb_wl_result_to_json(const struct sb_wl_result *r)
{
	json_object *o = json_object_new_object(), *flags = json_object_new_array();
	json_object *metrics = json_object_new_array(), *lat = json_object_new_array();

	json_object_object_add(o, "workload", json_object_new_string(r->workload));
	json_object_object_add(o, "spec", json_object_new_string(r->spec));
	for (size_t i = 0; i < ARRAY_SIZE(flag_names); i++)
		if (r->flags & flag_names[i].flag)
			json_object_array_add(flags, json_object_new_string(flag_names[i].name));
	json_object_object_add(o, "flags", flags);
	if (r->error)
		json_object_object_add(o, "error", json_object_new_string(r->error));
	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct sb_metric *m = &r->metrics[i];
		json_object *mo = json_object_new_object();
		json_object_object_add(mo, "name", json_object_new_string(m->name));
		json_object_object_add(mo, "unit", json_object_new_string(m->unit));
		json_object_object_add(mo, "better",
				       json_object_new_string(sb_better_name(m->better)));
		json_object_object_add(mo, "value", num(m->value));
		if (m->label) {
			json_object_object_add(mo, "label", json_object_new_string(m->label));
			json_object_object_add(mo, "headline",
					       json_object_new_boolean(m->headline));
		}
		if (m->phase)
			json_object_object_add(mo, "phase", json_object_new_string(m->phase));
		if (m->cost)
			json_object_object_add(mo, "cost", json_object_new_boolean(true));
		json_object_array_add(metrics, mo);
	}
	json_object_object_add(o, "metrics", metrics);
	for (size_t i = 0; i < r->n_lat; i++) {
		const struct sb_latency *l = &r->lat[i];
		json_object *lo = json_object_new_object();
		json_object_object_add(lo, "op", json_object_new_string(l->op));
		json_object_object_add(lo, "count", json_object_new_uint64(l->count));
		json_object_object_add(lo, "min_ms", num(l->min_ms));
		json_object_object_add(lo, "mean_ms", num(l->mean_ms));
		json_object_object_add(lo, "stdev_ms", num(l->stdev_ms));
		json_object_object_add(lo, "p50_ms", num(l->p50_ms));
		json_object_object_add(lo, "p90_ms", num(l->p90_ms));
		json_object_object_add(lo, "p99_ms", num(l->p99_ms));
		json_object_object_add(lo, "p999_ms", num(l->p999_ms));
		json_object_object_add(lo, "max_ms", num(l->max_ms));
		if (l->hist)
			json_object_object_add(lo, "hist", sb_hist_to_json(l->hist));
		json_object_array_add(lat, lo);
	}
	json_object_object_add(o, "latency", lat);
	if (r->extra) {
		null_nonfinite(r->extra);
		json_object_object_add(o, "extra", json_object_get(r->extra));
	}
	return o;
}

json_object *sb_host_facts(void)
{
	json_object *h = json_object_new_object();
	struct utsname u;
	char host[256] = "", line[512];
	FILE *f;

	if (uname(&u) == 0) {
		json_object_object_add(h, "kernel", json_object_new_string(u.release));
		json_object_object_add(h, "arch", json_object_new_string(u.machine));
	}
	if (gethostname(host, sizeof(host) - 1) == 0)
		json_object_object_add(h, "hostname", json_object_new_string(host));
	json_object_object_add(h, "ncpu", json_object_new_int((int)sysconf(_SC_NPROCESSORS_ONLN)));
	json_object_object_add(h, "ram_bytes",
			       json_object_new_uint64((uint64_t)sysconf(_SC_PHYS_PAGES) *
						      (uint64_t)sysconf(_SC_PAGESIZE)));
	f = fopen("/proc/cpuinfo", "re");
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10) == 0) {
			char *p = strchr(line, ':');
			if (p) {
				p += 1 + strspn(p + 1, " \t");
				p[strcspn(p, "\n")] = '\0';
				json_object_object_add(h, "cpu", json_object_new_string(p));
			}
			break;
		}
	}
	if (f)
		fclose(f);
	/* Figures from a virtual machine measure its emulated disks; from the
	 * VM runner (its guests boot with sbvm.* on the command line) they are
	 * files behind qemu's software emulation and throttling. */
	bool hv = false, runner = false;
	/* The first CPU's block only: producing another CPU's entry makes the
	 * kernel ask that CPU for its frequency (an IPI), which a starved TCG
	 * guest was seen not to answer for minutes. */
	f = fopen("/proc/cpuinfo", "re");
	{
		char big[8192]; /* a flags line is long */
		while (f && !hv && fgets(big, sizeof(big), f) && big[0] != '\n')
			hv = strncmp(big, "flags", 5) == 0 && strstr(big, " hypervisor");
	}
	if (f)
		fclose(f);
	f = fopen("/proc/cmdline", "re");
	if (f && fgets(line, sizeof(line), f))
		runner = strstr(line, "sbvm.") != NULL;
	if (f)
		fclose(f);
	json_object_object_add(h, "virtualized", json_object_new_boolean(hv || runner));
	json_object_object_add(h, "emulated", json_object_new_boolean(runner));
	return h;
}

struct sb_resultset *sb_resultset_new(const char *command)
{
	struct sb_resultset *rs = calloc(1, sizeof(*rs));
	if (!rs)
		return NULL;
	rs->version = SB_RESULT_VERSION;
	rs->tool_version = strdup(SB_VERSION);
	rs->created = iso_now();
	rs->command = strdup(command);
	rs->host = sb_host_facts();
	rs->devices = json_object_new_array();
	rs->tools = json_object_new_object();
	return rs;
}

struct sb_variant *sb_resultset_variant(struct sb_resultset *rs, const char *name,
					json_object *params)
{
	struct sb_variant *v;
	for (size_t i = 0; i < rs->n_var; i++)
		if (strcmp(rs->var[i].name, name) == 0) {
			json_object_put(params);
			return &rs->var[i];
		}
	v = grow(rs->var, rs->n_var, sizeof(*v));
	if (!v) {
		json_object_put(params);
		return NULL;
	}
	rs->var = v;
	v = &rs->var[rs->n_var++];
	*v = (struct sb_variant){.name = strdup(name),
				 .params = params ? params : json_object_new_object()};
	return v;
}

struct sb_variant *sb_resultset_append_variant(struct sb_resultset *rs, const char *name,
					       json_object *params)
{
	struct sb_variant *v = grow(rs->var, rs->n_var, sizeof(*v));
	char *n = strdup(name);
	if (!v || !n || !(params = params ? params : json_object_new_object())) {
		if (v)
			rs->var = v;
		free(n);
		json_object_put(params);
		return NULL;
	}
	rs->var = v;
	v = &rs->var[rs->n_var++];
	*v = (struct sb_variant){.name = n, .params = params};
	return v;
}

int sb_variant_add_repeat(struct sb_variant *v, unsigned index, struct sb_wl_result **wl, size_t n)
{
	struct sb_repeat *r = grow(v->rep, v->n_rep, sizeof(*r));
	if (!r)
		return -ENOMEM;
	v->rep = r;
	r = &v->rep[v->n_rep++];
	*r = (struct sb_repeat){.index = index, .started = iso_now()};
	r->wl = calloc(n ? n : 1, sizeof(*r->wl));
	if (!r->wl)
		return -ENOMEM;
	if (n) /* memcpy from NULL is undefined even for 0 bytes */
		memcpy(r->wl, wl, n * sizeof(*wl));
	r->n_wl = n;
	return 0;
}

static json_object *ref_or_null(json_object *o)
{
	return o ? json_object_get(o) : NULL;
}

json_object *sb_resultset_to_json(const struct sb_resultset *rs)
{
	json_object *o = json_object_new_object(), *vars = json_object_new_array();

	json_object_object_add(o, "format", json_object_new_string(SB_RESULT_FORMAT));
	json_object_object_add(o, "version", json_object_new_int(rs->version));
	json_object_object_add(o, "tool_version", json_object_new_string(rs->tool_version));
	json_object_object_add(o, "created", json_object_new_string(rs->created));
	json_object_object_add(o, "command", json_object_new_string(rs->command));
	json_object_object_add(o, "host", ref_or_null(rs->host));
	json_object_object_add(o, "profile", ref_or_null(rs->profile));
	json_object_object_add(o, "target", ref_or_null(rs->target));
	json_object_object_add(o, "devices", ref_or_null(rs->devices));
	json_object_object_add(o, "tools", ref_or_null(rs->tools));
	for (size_t i = 0; i < rs->n_var; i++) {
		const struct sb_variant *v = &rs->var[i];
		json_object *vo = json_object_new_object(), *reps = json_object_new_array();
		json_object_object_add(vo, "name", json_object_new_string(v->name));
		json_object_object_add(vo, "params", ref_or_null(v->params));
		for (size_t k = 0; k < v->n_rep; k++) {
			json_object *ro = json_object_new_object(), *wls = json_object_new_array();
			json_object_object_add(ro, "index",
					       json_object_new_int((int)v->rep[k].index));
			json_object_object_add(ro, "started",
					       json_object_new_string(v->rep[k].started));
			if (v->rep[k].precondition)
				json_object_object_add(ro, "precondition",
						       json_object_get(v->rep[k].precondition));
			if (v->rep[k].failed)
				json_object_object_add(ro, "failed",
						       json_object_get(v->rep[k].failed));
			if (v->rep[k].scenario)
				json_object_object_add(ro, "scenario",
						       json_object_get(v->rep[k].scenario));
			if (v->rep[k].integrity)
				json_object_object_add(ro, "integrity",
						       json_object_get(v->rep[k].integrity));
			for (size_t w = 0; w < v->rep[k].n_wl; w++)
				json_object_array_add(wls, sb_wl_result_to_json(v->rep[k].wl[w]));
			json_object_object_add(ro, "workloads", wls);
			json_object_array_add(reps, ro);
		}
		json_object_object_add(vo, "repeats", reps);
		json_object_array_add(vars, vo);
	}
	json_object_object_add(o, "variants", vars);
	return o;
}

/* Through the directory's fd, never a path: a results directory that is a
 * symlink or someone else's is refused, and result.json is written as a
 * temporary file created O_EXCL|O_NOFOLLOW and renamed (util/safefile.h),
 * so a root run cannot be made to truncate a file it was pointed at. */
int sb_resultset_write(const struct sb_resultset *rs, const char *dir)
{
	json_object *o;
	const char *text;
	_cleanup_free_ char *buf = NULL;
	int dfd, r;

	dfd = sb_dir_open_trusted(dir, true, 0755);
	if (dfd < 0)
		return dfd;
	o = sb_resultset_to_json(rs);
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						     JSON_C_TO_STRING_NOSLASHESCAPE);
	buf = text ? sb_asprintf("%s\n", text) : NULL;
	r = buf ? sb_write_at(dfd, "result.json", buf, strlen(buf), 0644) : -ENOMEM;
	json_object_put(o);
	close(dfd);
	return r;
}

void sb_resultset_free(struct sb_resultset *rs)
{
	if (!rs)
		return;
	for (size_t i = 0; i < rs->n_var; i++) {
		struct sb_variant *v = &rs->var[i];
		for (size_t k = 0; k < v->n_rep; k++) {
			for (size_t w = 0; w < v->rep[k].n_wl; w++)
				sb_wl_result_free(v->rep[k].wl[w]);
			free(v->rep[k].wl);
			free(v->rep[k].started);
			json_object_put(v->rep[k].precondition);
			json_object_put(v->rep[k].failed);
			json_object_put(v->rep[k].scenario);
			json_object_put(v->rep[k].integrity);
		}
		free(v->rep);
		free(v->name);
		json_object_put(v->params);
	}
	free(rs->var);
	free(rs->tool_version);
	free(rs->created);
	free(rs->command);
	free(rs->path);
	json_object_put(rs->host);
	json_object_put(rs->profile);
	json_object_put(rs->target);
	json_object_put(rs->devices);
	json_object_put(rs->tools);
	free(rs);
}

/* Secondary figures that are often near zero, where a relative error says
 * nothing: a command's CPU times (its wall time is the headline). Only for
 * version 1 files, whose metrics do not say. */
static const struct {
	const char *workload, *metric;
} not_headline[] = {
    {"command", "user"},
    {"command", "sys"},
};

bool sb_metric_is_headline(const struct sb_wl_result *wl, const struct sb_metric *m)
{
	if (m->label)
		return m->headline;
	if (m->better == SB_BETTER_NONE || strcmp(m->unit, "%CPU") == 0)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(not_headline); i++)
		if (strcmp(wl->workload, not_headline[i].workload) == 0 &&
		    strcmp(m->name, not_headline[i].metric) == 0)
			return false;
	return true;
}

/* The per-metric figure --repeat auto looks at. */
typedef double (*spread_fn)(const struct sb_stats *st);

static double rse_of(const struct sb_stats *st)
{
	/* a metric that is 0 every time is as stable as can be */
	return st->n >= 2 && st->mean == 0 && st->stdev == 0 ? 0 : st->rse;
}

static double halfwidth_of(const struct sb_stats *st)
{
	if (st->n < 2)
		return NAN;
	if (st->stdev == 0)
		return 0;
	if (st->mean == 0)
		return INFINITY;
	double n = (double)st->n;
	return sb_t_quantile(0.975, 2 * n - 2) * st->stdev * sqrt(2 / n) / fabs(st->mean);
}

static double worst_headline(const struct sb_variant *v, spread_fn fn, const char **spec,
			     const char **metric)
{
	double worst = -1;
	double vals[v->n_rep ? v->n_rep : 1];

	for (size_t k = 0; k < v->n_rep; k++)
		for (size_t w = 0; w < v->rep[k].n_wl; w++) {
			const struct sb_wl_result *wl = v->rep[k].wl[w];
			for (size_t i = 0; i < wl->n_metrics; i++) {
				const struct sb_metric *m = &wl->metrics[i];
				bool seen = false;
				size_t n = 0;
				struct sb_stats st;
				if (!sb_metric_is_headline(wl, m))
					continue;
				/* each (spec, metric) once: at its first repeat */
				for (size_t j = 0; j < k && !seen; j++)
					for (size_t x = 0; x < v->rep[j].n_wl && !seen; x++)
						seen =
						    strcmp(v->rep[j].wl[x]->spec, wl->spec) == 0 &&
						    sb_wl_find_metric(v->rep[j].wl[x], m->name);
				if (seen)
					continue;
				for (size_t j = 0; j < v->n_rep; j++)
					for (size_t x = 0; x < v->rep[j].n_wl; x++) {
						const struct sb_metric *o;
						if (strcmp(v->rep[j].wl[x]->spec, wl->spec) != 0)
							continue;
						o = sb_wl_find_metric(v->rep[j].wl[x], m->name);
						if (o)
							vals[n++] = o->value;
						break;
					}
				sb_stats_compute(vals, n, &st);
				double x = fn(&st);
				if (isnan(x)) {
					if (spec)
						*spec = wl->spec;
					if (metric)
						*metric = m->name;
					return NAN;
				}
				if (x > worst) {
					worst = x;
					if (spec)
						*spec = wl->spec;
					if (metric)
						*metric = m->name;
				}
			}
		}
	return worst < 0 ? 0 : worst;
}

double sb_variant_max_rse(const struct sb_variant *v, const char **spec, const char **metric)
{
	return worst_headline(v, rse_of, spec, metric);
}

double sb_variant_max_diff_halfwidth(const struct sb_variant *v, const char **spec,
				     const char **metric)
{
	return worst_headline(v, halfwidth_of, spec, metric);
}

bool sb_variant_needs_repeat(const struct sb_variant *v, size_t cap)
{
	if (v->n_rep >= cap)
		return false;
	if (v->n_rep < SB_REPEAT_AUTO_MIN)
		return true;
	double hw = sb_variant_max_diff_halfwidth(v, NULL, NULL);
	return !(hw < SB_REPEAT_AUTO_HALFWIDTH);
}
