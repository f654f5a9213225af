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

static enum sb_better better_from_name(const char *s)
{
	if (s && strcmp(s, "higher") == 0)
		return SB_BETTER_HIGHER;
	if (s && strcmp(s, "lower") == 0)
		return SB_BETTER_LOWER;
	return SB_BETTER_NONE;
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
	*m = (struct sb_metric){.name = xstrdup(name), .unit = xstrdup(unit), .better = better,
				.value = value};
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
	{SB_RES_QUICK, "quick"},
	{SB_RES_CACHE_AFFECTED, "cache-affected"},
	{SB_RES_INCOMPLETE, "incomplete"},
	{SB_RES_FAILED, "failed"},
	{SB_RES_FRESH, "fresh"},
};

static double get_num(json_object *o, const char *key);

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

static bool get_u64(json_object *o, const char *key, uint64_t *v)
{
	json_object *x;
	if (!json_object_object_get_ex(o, key, &x) || !json_object_is_type(x, json_type_int))
		return false;
	*v = json_object_get_uint64(x);
	return json_object_get_int64(x) >= 0 || *v > INT64_MAX;
}

int sb_hist_from_json(json_object *o, struct sb_hist *h, char **why)
{
	json_object *b, *x;
	uint64_t total = 0;

	sb_hist_init(h);
	if (!json_object_is_type(o, json_type_object))
		return *why = strdup("\"hist\": expected an object"), -EINVAL;
	if (!json_object_object_get_ex(o, "sub_bits", &x) || json_object_get_int(x) != SB_HIST_SUB_BITS)
		return *why = strdup("\"hist\": expected \"sub_bits\": 5"), -EINVAL;
	if (!get_u64(o, "count", &h->count) || !get_u64(o, "min_ns", &h->min) ||
	    !get_u64(o, "max_ns", &h->max))
		return *why = strdup("\"hist\": expected integer count, min_ns and max_ns"),
		       -EINVAL;
	h->sum = get_num(o, "sum_ns");
	h->sumsq = get_num(o, "sumsq_ns2");
	if (!json_object_object_get_ex(o, "buckets", &b) || !json_object_is_type(b, json_type_array))
		return *why = strdup("\"hist\": expected a \"buckets\" array"), -EINVAL;
	for (size_t i = 0; i < json_object_array_length(b); i++) {
		json_object *p = json_object_array_get_idx(b, i), *ix, *cx;
		int64_t idx;
		if (!json_object_is_type(p, json_type_array) || json_object_array_length(p) != 2 ||
		    !json_object_is_type(ix = json_object_array_get_idx(p, 0), json_type_int) ||
		    !json_object_is_type(cx = json_object_array_get_idx(p, 1), json_type_int) ||
		    (idx = json_object_get_int64(ix)) < 0 || idx >= SB_HIST_BUCKETS ||
		    json_object_get_int64(cx) < 0)
			return *why = strdup("\"hist\": bucket: expected [index 0..1919, count]"),
			       -EINVAL;
		h->b[idx] += json_object_get_uint64(cx);
		total += json_object_get_uint64(cx);
	}
	if (total != h->count)
		return *why = strdup("\"hist\": the bucket counts do not add up to \"count\""),
		       -EINVAL;
	if (!h->count)
		h->min = UINT64_MAX, h->max = 0;
	else if (h->min > h->max || !isfinite(h->sum) || !isfinite(h->sumsq))
		return *why = strdup("\"hist\": min_ns above max_ns, or sums not numbers"),
		       -EINVAL;
	return 0;
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
		json_object_object_add(mo, "better", json_object_new_string(sb_better_name(m->better)));
		json_object_object_add(mo, "value", num(m->value));
		if (m->label) {
			json_object_object_add(mo, "label", json_object_new_string(m->label));
			json_object_object_add(mo, "headline", json_object_new_boolean(m->headline));
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
	if (r->extra)
		json_object_object_add(o, "extra", json_object_get(r->extra));
	return o;
}

static int fail(char **err, const char *what, const char *fmt, ...) _printf_(3, 4);
static int fail(char **err, const char *what, const char *fmt, ...)
{
	va_list ap;
	char msg[512];
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (err) {
		free(*err);
		if (asprintf(err, "%s: %s", what, msg) < 0)
			*err = NULL;
	}
	return -EINVAL;
}

static const char *get_str(json_object *o, const char *key)
{
	json_object *v;
	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static double get_num(json_object *o, const char *key)
{
	json_object *v;
	if (!json_object_object_get_ex(o, key, &v) ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return NAN;
	return json_object_get_double(v);
}

int sb_wl_result_from_json(json_object *o, struct sb_wl_result **out, char **err)
{
	json_object *arr, *v;
	struct sb_wl_result *r;
	const char *w = get_str(o, "workload"), *spec = get_str(o, "spec");

	if (!json_object_is_type(o, json_type_object) || !w)
		return fail(err, "workload", "expected an object with a \"workload\" string");
	r = sb_wl_result_new(w, spec);
	if (!r)
		return -ENOMEM;
	if (json_object_object_get_ex(o, "flags", &arr) && json_object_is_type(arr, json_type_array))
		for (size_t i = 0; i < json_object_array_length(arr); i++) {
			const char *f = json_object_get_string(json_object_array_get_idx(arr, i));
			for (size_t k = 0; f && k < ARRAY_SIZE(flag_names); k++)
				if (strcmp(f, flag_names[k].name) == 0)
					r->flags |= flag_names[k].flag;
		}
	if (get_str(o, "error"))
		r->error = strdup(get_str(o, "error"));
	if (!json_object_object_get_ex(o, "metrics", &arr) ||
	    !json_object_is_type(arr, json_type_array)) {
		sb_wl_result_free(r);
		return fail(err, w, "expected a \"metrics\" array");
	}
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *m = json_object_array_get_idx(arr, i);
		const char *name = get_str(m, "name"), *unit = get_str(m, "unit");
		if (!name || !unit) {
			sb_wl_result_free(r);
			return fail(err, w, "metric %zu: expected \"name\" and \"unit\" strings", i);
		}
		if (sb_wl_add_metric(r, name, unit, better_from_name(get_str(m, "better")),
				     get_num(m, "value")) < 0) {
			sb_wl_result_free(r);
			return -ENOMEM;
		}
		json_object *hl = json_object_object_get(m, "headline");
		if (get_str(m, "label") &&
		    sb_metric_describe(&r->metrics[r->n_metrics - 1], get_str(m, "label"),
				       hl && json_object_get_boolean(hl), get_str(m, "phase")) < 0) {
			sb_wl_result_free(r);
			return -ENOMEM;
		}
		json_object *co = json_object_object_get(m, "cost");
		r->metrics[r->n_metrics - 1].cost =
		    co && json_object_is_type(co, json_type_boolean) && json_object_get_boolean(co);
	}
	if (json_object_object_get_ex(o, "latency", &arr) && json_object_is_type(arr, json_type_array))
		for (size_t i = 0; i < json_object_array_length(arr); i++) {
			json_object *l = json_object_array_get_idx(arr, i);
			struct sb_latency lat = {
				.op = (char *)get_str(l, "op"),
				.count = (uint64_t)json_object_get_uint64(
					json_object_object_get(l, "count")),
				.min_ms = get_num(l, "min_ms"),
				.mean_ms = get_num(l, "mean_ms"),
				.stdev_ms = get_num(l, "stdev_ms"),
				.p50_ms = get_num(l, "p50_ms"),
				.p90_ms = get_num(l, "p90_ms"),
				.p99_ms = get_num(l, "p99_ms"),
				.p999_ms = get_num(l, "p999_ms"),
				.max_ms = get_num(l, "max_ms"),
			};
			if (!lat.op) {
				sb_wl_result_free(r);
				return fail(err, w, "latency %zu: expected an \"op\" string", i);
			}
			json_object *ho;
			struct sb_hist *h = NULL;
			if (json_object_object_get_ex(l, "hist", &ho) && ho) {
				char *why = NULL;
				h = malloc(sizeof(*h));
				if (!h) {
					sb_wl_result_free(r);
					return -ENOMEM;
				}
				if (sb_hist_from_json(ho, h, &why) < 0) {
					free(h);
					sb_wl_result_free(r);
					fail(err, w, "latency '%s': %s", lat.op, why ? why : "bad");
					free(why);
					return -EINVAL;
				}
				lat.hist = h;
			}
			int ar = sb_wl_add_latency(r, &lat);
			free(h);
			if (ar < 0) {
				sb_wl_result_free(r);
				return ar;
			}
		}
	if (json_object_object_get_ex(o, "extra", &v))
		r->extra = json_object_get(v);
	*out = r;
	return 0;
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
			json_object_object_add(ro, "index", json_object_new_int((int)v->rep[k].index));
			json_object_object_add(ro, "started",
					       json_object_new_string(v->rep[k].started));
			if (v->rep[k].precondition)
				json_object_object_add(ro, "precondition",
						       json_object_get(v->rep[k].precondition));
			if (v->rep[k].failed)
				json_object_object_add(ro, "failed",
						       json_object_get(v->rep[k].failed));
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

static json_object *get_ref(json_object *o, const char *key)
{
	json_object *v;
	return json_object_object_get_ex(o, key, &v) && v ? json_object_get(v) : NULL;
}

/* Parses FILE, with the line and column of a syntax error in the message
 * (json_object_from_file says neither). */
static int read_json(const char *file, bool in_dir, json_object **out, char **err)
{
	_cleanup_fclose_ FILE *f = fopen(file, "re");
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 0, end, line = 1, col = 1;
	enum json_tokener_error jerr;
	json_tokener *tok;
	json_object *o;

	if (!f) {
		if (errno == ENOENT && in_dir)
			return fail(err, file, "no such file (not a result set directory)"), -ENOENT;
		return fail(err, file, "%s", strerror(errno)), negerrno();
	}
	for (;;) {
		if (len + 4096 > cap) {
			char *p = realloc(buf, cap = cap * 2 + 8192);
			if (!p)
				return -ENOMEM;
			buf = p;
		}
		size_t n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f))
		return fail(err, file, "read error"), -EIO;
	buf[len] = '\0';
	if (strlen(buf) != len)
		return fail(err, file, "not a text file (expected JSON)");
	if (buf[strspn(buf, " \t\r\n")] == '\0')
		return fail(err, file, "empty file (expected a JSON object)");
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	o = json_tokener_parse_ex(tok, buf, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	for (size_t i = 0; i < end && i < len; i++, col++)
		if (buf[i] == '\n')
			line++, col = 0;
	if (jerr == json_tokener_continue || (!o && jerr == json_tokener_success))
		return fail(err, file, "line %zu: unexpected end of file (truncated?)", line);
	if (jerr != json_tokener_success)
		return fail(err, file, "line %zu, column %zu: not valid JSON (%s)", line, col,
			    json_tokener_error_desc(jerr));
	if (buf[end + strspn(buf + end, " \t\r\n")] != '\0') {
		json_object_put(o);
		return fail(err, file, "line %zu: unexpected data after the JSON object", line);
	}
	*out = o;
	return 0;
}

int sb_resultset_read(const char *path, struct sb_resultset **out, char **err)
{
	_cleanup_free_ char *file = NULL;
	struct stat st;
	json_object *o = NULL, *vars, *v;
	struct sb_resultset *rs = NULL;
	const char *fmt;
	int r;

	if (stat(path, &st) < 0)
		return fail(err, path, "%s", strerror(errno)), negerrno();
	if (S_ISDIR(st.st_mode)) {
		if (asprintf(&file, "%s/result.json", path) < 0)
			return -ENOMEM;
	} else {
		file = strdup(path);
	}

	r = read_json(file, S_ISDIR(st.st_mode), &o, err);
	if (r < 0)
		return r;
	fmt = get_str(o, "format");
	if (!fmt || strcmp(fmt, SB_RESULT_FORMAT) != 0) {
		r = fail(err, file, "not a stackbench result (expected \"format\": \"%s\")",
			 SB_RESULT_FORMAT);
		goto out;
	}
	if (!json_object_object_get_ex(o, "version", &v) || !json_object_is_type(v, json_type_int)) {
		r = fail(err, file, "expected an integer \"version\"");
		goto out;
	}
	if (json_object_get_int(v) < SB_RESULT_VERSION_MIN ||
	    json_object_get_int(v) > SB_RESULT_VERSION) {
		r = fail(err, file,
			 "result format version %d is not supported (this reads versions %d to %d)",
			 json_object_get_int(v), SB_RESULT_VERSION_MIN, SB_RESULT_VERSION);
		goto out;
	}
	rs = calloc(1, sizeof(*rs));
	if (!rs) {
		r = -ENOMEM;
		goto out;
	}
	rs->version = json_object_get_int(v);
	rs->tool_version = xstrdup(get_str(o, "tool_version") ?: "unknown");
	rs->created = xstrdup(get_str(o, "created") ?: "");
	rs->command = xstrdup(get_str(o, "command") ?: "run");
	rs->host = get_ref(o, "host");
	rs->profile = get_ref(o, "profile");
	rs->target = get_ref(o, "target");
	rs->devices = get_ref(o, "devices");
	rs->tools = get_ref(o, "tools");
	rs->path = strdup(file);

	if (!json_object_object_get_ex(o, "variants", &vars) ||
	    !json_object_is_type(vars, json_type_array)) {
		r = fail(err, file, "expected a \"variants\" array");
		goto out;
	}
	for (size_t i = 0; i < json_object_array_length(vars); i++) {
		json_object *vo = json_object_array_get_idx(vars, i), *reps;
		const char *name = get_str(vo, "name");
		struct sb_variant *var;
		if (!name) {
			r = fail(err, file, "variant %zu: expected a \"name\" string", i);
			goto out;
		}
		var = sb_resultset_variant(rs, name, get_ref(vo, "params"));
		if (!var) {
			r = -ENOMEM;
			goto out;
		}
		if (!json_object_object_get_ex(vo, "repeats", &reps) ||
		    !json_object_is_type(reps, json_type_array)) {
			r = fail(err, file, "variant '%s': expected a \"repeats\" array", name);
			goto out;
		}
		for (size_t k = 0; k < json_object_array_length(reps); k++) {
			json_object *ro = json_object_array_get_idx(reps, k), *wls;
			size_t n;
			if (!json_object_object_get_ex(ro, "workloads", &wls) ||
			    !json_object_is_type(wls, json_type_array)) {
				r = fail(err, file,
					 "variant '%s' repeat %zu: expected a \"workloads\" array",
					 name, k);
				goto out;
			}
			n = json_object_array_length(wls);
			/* On the heap: the file decides n (a stack array overflowed). */
			_cleanup_free_ struct sb_wl_result **wl = calloc(n ? n : 1, sizeof(*wl));
			if (!wl) {
				r = -ENOMEM;
				goto out;
			}
			for (size_t w = 0; w < n; w++) {
				char *sub = NULL;
				r = sb_wl_result_from_json(json_object_array_get_idx(wls, w), &wl[w],
							   &sub);
				if (r < 0) {
					for (size_t j = 0; j < w; j++)
						sb_wl_result_free(wl[j]);
					fail(err, file, "variant '%s' repeat %zu: %s", name, k,
					     sub ? sub : "bad workload");
					free(sub);
					goto out;
				}
			}
			if (sb_variant_add_repeat(var, (unsigned)k, wl, n) < 0) {
				for (size_t j = 0; j < n; j++)
					sb_wl_result_free(wl[j]);
				r = -ENOMEM;
				goto out;
			}
			json_object *idx = json_object_object_get(ro, "index");
			if (idx)
				var->rep[var->n_rep - 1].index = (unsigned)json_object_get_int(idx);
			const char *started = get_str(ro, "started");
			if (started) {
				free(var->rep[var->n_rep - 1].started);
				var->rep[var->n_rep - 1].started = strdup(started);
			}
			json_object *pre = json_object_object_get(ro, "precondition");
			if (pre && json_object_is_type(pre, json_type_object))
				var->rep[var->n_rep - 1].precondition = json_object_get(pre);
			json_object *fl = json_object_object_get(ro, "failed");
			if (fl && json_object_is_type(fl, json_type_object) &&
			    json_object_is_type(json_object_object_get(fl, "message"),
						json_type_string))
				var->rep[var->n_rep - 1].failed = json_object_get(fl);
		}
	}
	*out = TAKE_PTR(rs);
	r = 0;
out:
	sb_resultset_free(rs);
	json_object_put(o);
	return r;
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
						seen = strcmp(v->rep[j].wl[x]->spec, wl->spec) == 0 &&
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
