/* Reading result.json (result.h): every member checked for its type and
 * range through the typed getters (util/json-get.h), NaN and Infinity
 * refused wherever they are, two variants of one name refused, and the file
 * read by a bounded read of a regular file only. An error names the file
 * and the member's path: "r.json: variants[0].repeats[1].workloads[0]
 * .metrics[2].value: expected a finite number, got NaN". */
#include "result/result.h"
#include "util/escape.h"
#include "util/json-get.h"
#include "util/macro.h"
#include "util/safefile.h"
#include "util/strutil.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>

/* Sane magnitudes: a metric (KB/s, IOPS, seconds...) beyond 1e18 or a
 * latency beyond a year is a broken or hostile file, not a measurement. */
#define METRIC_MAX 1e18
#define LAT_MAX_MS (365.0 * 86400 * 1000)
#define REPEAT_MAX 1000000

static int fail(char **err, const char *file, const char *fmt, ...) _printf_(3, 4);
static int fail(char **err, const char *file, const char *fmt, ...)
{
	va_list ap;
	_cleanup_free_ char *msg = NULL;
	va_start(ap, fmt);
	msg = sb_vasprintf(fmt, ap);
	va_end(ap);
	if (err) {
		free(*err);
		*err = file ? sb_asprintf("%s: %s", file, msg ? msg : "bad result") : TAKE_PTR(msg);
	}
	return -EINVAL;
}

/* The getter's message under the file's name. */
static int in_file(char **err, const char *file, int r)
{
	if (r == -EINVAL && err && *err && file) {
		char *m = sb_asprintf("%s: %s", file, *err);
		if (m) {
			free(*err);
			*err = m;
		}
	}
	return r;
}

static int hist_parse(json_object *o, const char *path, struct sb_hist *h, char **err)
{
	json_object *b;
	int64_t sub;
	uint64_t total = 0;
	char p[256], q[300];

	sb_hist_init(h);
	if (sb_jv_object(o, path, SB_J_REQ, &o, err) < 0 ||
	    sb_jm_int(o, path, "sub_bits", SB_J_REQ, 0, 64, &sub, err) < 0 ||
	    sb_jm_u64(o, path, "count", SB_J_REQ, &h->count, err) < 0 ||
	    sb_jm_u64(o, path, "min_ns", SB_J_REQ, &h->min, err) < 0 ||
	    sb_jm_u64(o, path, "max_ns", SB_J_REQ, &h->max, err) < 0 ||
	    sb_jm_num(o, path, "sum_ns", SB_J_REQ, 0, DBL_MAX, &h->sum, err) < 0 ||
	    sb_jm_num(o, path, "sumsq_ns2", SB_J_REQ, 0, DBL_MAX, &h->sumsq, err) < 0 ||
	    sb_jm_array(o, path, "buckets", SB_J_REQ, &b, err) < 0)
		return -EINVAL;
	if (sub != SB_HIST_SUB_BITS)
		return fail(err, NULL, "%s.sub_bits: expected %d, got %lld", path, SB_HIST_SUB_BITS,
			    (long long)sub);
	for (size_t i = 0; i < json_object_array_length(b); i++) {
		json_object *pair;
		int64_t idx;
		uint64_t cnt;
		sb_jpath(p, sizeof(p), "%s.buckets[%zu]", path, i);
		if (sb_jv_array(json_object_array_get_idx(b, i), p, SB_J_REQ, &pair, err) < 0)
			return -EINVAL;
		if (json_object_array_length(pair) != 2)
			return fail(err, NULL, "%s: expected [index, count]", p);
		sb_jpath(q, sizeof(q), "%s[0]", p);
		if (sb_jv_int(json_object_array_get_idx(pair, 0), q, SB_J_REQ, 0,
			      SB_HIST_BUCKETS - 1, &idx, err) < 0)
			return -EINVAL;
		sb_jpath(q, sizeof(q), "%s[1]", p);
		if (sb_jv_u64(json_object_array_get_idx(pair, 1), q, SB_J_REQ, &cnt, err) < 0)
			return -EINVAL;
		if (total + cnt < total)
			return fail(err, NULL, "%s: the counts overflow", p);
		h->b[idx] += cnt;
		total += cnt;
	}
	if (total != h->count)
		return fail(err, NULL, "%s: the bucket counts do not add up to \"count\"", path);
	if (!h->count)
		h->min = UINT64_MAX, h->max = 0;
	else if (h->min > h->max)
		return fail(err, NULL, "%s: min_ns above max_ns", path);
	return 0;
}

int sb_hist_from_json(json_object *o, struct sb_hist *h, char **why)
{
	return hist_parse(o, "hist", h, why);
}

static int better_parse(const char *s, const char *path, enum sb_better *b, char **err)
{
	for (enum sb_better k = SB_BETTER_NONE; k <= SB_BETTER_LOWER; k++)
		if (!s || strcmp(s, sb_better_name(k)) == 0)
			return *b = s ? k : SB_BETTER_NONE, 0;
	_cleanup_free_ char *e = sb_escape(s);
	return fail(err, NULL, "%s.better: expected \"higher\", \"lower\" or \"none\", got \"%s\"",
		    path, e ? e : "?");
}

static int metric_parse(struct sb_wl_result *r, json_object *m, const char *path, char **err)
{
	const char *name, *unit, *better = NULL, *label = NULL, *phase = NULL;
	double value = NAN;
	bool headline = false, cost = false;
	enum sb_better b = SB_BETTER_NONE;

	/* value null: what we write for a figure that was not measured */
	if (sb_jv_object(m, path, SB_J_REQ, &m, err) < 0 ||
	    sb_jm_str(m, path, "name", SB_J_REQ, &name, err) < 0 ||
	    sb_jm_str(m, path, "unit", SB_J_REQ, &unit, err) < 0 ||
	    sb_jm_str(m, path, "better", SB_J_OPT, &better, err) < 0 ||
	    sb_jm_num(m, path, "value", SB_J_OPT | SB_J_NULL, -METRIC_MAX, METRIC_MAX, &value,
		      err) < 0 ||
	    sb_jm_str(m, path, "label", SB_J_OPT | SB_J_NULL, &label, err) < 0 ||
	    sb_jm_bool(m, path, "headline", SB_J_OPT, &headline, err) < 0 ||
	    sb_jm_bool(m, path, "cost", SB_J_OPT, &cost, err) < 0 ||
	    sb_jm_str(m, path, "phase", SB_J_OPT | SB_J_NULL, &phase, err) < 0 ||
	    better_parse(better, path, &b, err) < 0)
		return -EINVAL;
	if (sb_wl_add_metric(r, name, unit, b, value) < 0)
		return -ENOMEM;
	if (label && sb_metric_describe(&r->metrics[r->n_metrics - 1], label, headline, phase) < 0)
		return -ENOMEM;
	r->metrics[r->n_metrics - 1].cost = cost;
	return 0;
}

static int lat_parse(struct sb_wl_result *r, json_object *l, const char *path, char **err)
{
	static const struct {
		const char *key;
		size_t off;
	} ms[] = {
	    {"min_ms", offsetof(struct sb_latency, min_ms)},
	    {"mean_ms", offsetof(struct sb_latency, mean_ms)},
	    {"stdev_ms", offsetof(struct sb_latency, stdev_ms)},
	    {"p50_ms", offsetof(struct sb_latency, p50_ms)},
	    {"p90_ms", offsetof(struct sb_latency, p90_ms)},
	    {"p99_ms", offsetof(struct sb_latency, p99_ms)},
	    {"p999_ms", offsetof(struct sb_latency, p999_ms)},
	    {"max_ms", offsetof(struct sb_latency, max_ms)},
	};
	struct sb_latency lat = {0};
	const char *op;
	json_object *ho = NULL;
	char p[300];
	int r2;

	if (sb_jv_object(l, path, SB_J_REQ, &l, err) < 0 ||
	    sb_jm_str(l, path, "op", SB_J_REQ, &op, err) < 0 ||
	    sb_jm_u64(l, path, "count", SB_J_OPT, &lat.count, err) < 0 ||
	    sb_jm_object(l, path, "hist", SB_J_OPT | SB_J_NULL, &ho, err) < 0)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(ms); i++) {
		double d = NAN;
		if (sb_jm_num(l, path, ms[i].key, SB_J_OPT | SB_J_NULL, 0, LAT_MAX_MS, &d, err) < 0)
			return -EINVAL;
		memcpy((char *)&lat + ms[i].off, &d, sizeof(d));
	}
	lat.op = (char *)op;
	if (ho) {
		lat.hist = malloc(sizeof(*lat.hist));
		if (!lat.hist)
			return -ENOMEM;
		sb_jpath(p, sizeof(p), "%s.hist", path);
		if (hist_parse(ho, p, lat.hist, err) < 0) {
			free(lat.hist);
			return -EINVAL;
		}
	}
	r2 = sb_wl_add_latency(r, &lat);
	free(lat.hist);
	return r2;
}

enum jt { JT_STR, JT_INT, JT_BOOL, JT_NUM };
struct member_type {
	const char *key;
	enum jt type;
};

/* Members the report reads from the free-form objects: each optional, but
 * of its type when there. */
static const struct member_type host_members[] = {
    {"hostname", JT_STR}, {"kernel", JT_STR},	 {"arch", JT_STR},	   {"cpu", JT_STR},
    {"ncpu", JT_INT},	  {"ram_bytes", JT_INT}, {"virtualized", JT_BOOL}, {"emulated", JT_BOOL},
};
static const struct member_type profile_members[] = {{"path", JT_STR}, {"sha256", JT_STR}};
static const struct member_type target_members[] = {
    {"dir", JT_STR}, {"fstype", JT_STR}, {"options", JT_STR}, {"source", JT_STR}};
/* bonnie_csv.c's and import.c's keys of a workload's extra */
static const struct member_type extra_members[] = {
    {"chunk", JT_INT},	  {"data_bytes", JT_INT}, {"seeks", JT_INT},
    {"seekers", JT_INT},  {"files", JT_INT},	  {"max_size", JT_INT},
    {"min_size", JT_INT}, {"dirs", JT_INT},	  {"fio_version", JT_STR},
};

static int check_members(json_object *o, const char *path, const struct member_type *t, size_t n,
			 char **err)
{
	for (size_t i = 0; o && i < n; i++) {
		const char *s;
		int64_t x;
		bool b;
		double d;
		int r = t[i].type == JT_STR
			    ? sb_jm_str(o, path, t[i].key, SB_J_OPT | SB_J_NULL, &s, err)
			: t[i].type == JT_INT ? sb_jm_int(o, path, t[i].key, SB_J_OPT | SB_J_NULL,
							  0, INT64_MAX, &x, err)
			: t[i].type == JT_BOOL
			    ? sb_jm_bool(o, path, t[i].key, SB_J_OPT | SB_J_NULL, &b, err)
			    : sb_jm_num(o, path, t[i].key, SB_J_OPT | SB_J_NULL, -DBL_MAX, DBL_MAX,
					&d, err);
		if (r < 0)
			return r;
	}
	return 0;
}

/* extra.series: {"NAME": {"t": [s...], "iops": [...], ...}}: each array of
 * numbers or null (no value that second), the rest numbers (fmt_html.c). */
static int series_check(json_object *series, const char *path, char **err)
{
	char p[400], q[450];
	json_object *s = NULL;
	if (sb_jv_object(series, path, SB_J_NULL, &s, err) < 0)
		return -EINVAL;
	if (!s)
		return 0;
	json_object_object_foreach(s, name, ph)
	{
		sb_jpath(p, sizeof(p), "%s.%s", path, name);
		if (sb_jv_object(ph, p, SB_J_REQ, &ph, err) < 0)
			return -EINVAL;
		json_object_object_foreach(ph, key, v)
		{
			double d;
			sb_jpath(q, sizeof(q), "%s.%s", p, key);
			if (!json_object_is_type(v, json_type_array)) {
				if (sb_jv_num(v, q, SB_J_REQ, 0, DBL_MAX, &d, err) < 0)
					return -EINVAL;
				continue;
			}
			for (size_t i = 0; i < json_object_array_length(v); i++) {
				char e[480];
				sb_jpath(e, sizeof(e), "%s[%zu]", q, i);
				if (sb_jv_num(json_object_array_get_idx(v, i), e, SB_J_NULL,
					      -DBL_MAX, DBL_MAX, &d, err) < 0)
					return -EINVAL;
			}
		}
	}
	return 0;
}

/* extra.devstat ({"PHASE": {"workload_read_bytes": N, "devices": [{"name",
 * "parent", "read_bytes"...}]}}) and extra.quiesce ({"PHASE": {"busy",
 * "reason", "wait_ms"}}), as measure.c reads them. */
static const struct member_type devstat_phase[] = {{"workload_read_bytes", JT_INT},
						   {"workload_write_bytes", JT_INT}};
static const struct member_type devstat_dev[] = {{"name", JT_STR},	 {"parent", JT_STR},
						 {"read_bytes", JT_INT}, {"write_bytes", JT_INT},
						 {"read_ios", JT_INT},	 {"write_ios", JT_INT}};
static const struct member_type quiesce_phase[] = {
    {"busy", JT_BOOL}, {"reason", JT_STR}, {"wait_ms", JT_INT}};

static int phases_check(json_object *ex, const char *path, const char *key, char **err)
{
	json_object *o = NULL, *devs;
	char p[400], q[450], e[480];

	sb_jpath(p, sizeof(p), "%s.%s", path, key);
	if (sb_jm_object(ex, path, key, SB_J_OPT | SB_J_NULL, &o, err) < 0)
		return -EINVAL;
	if (!o)
		return 0;
	bool dev = strcmp(key, "devstat") == 0;
	json_object_object_foreach(o, phase, ph)
	{
		sb_jpath(q, sizeof(q), "%s.%s", p, phase);
		if (sb_jv_object(ph, q, SB_J_REQ, &ph, err) < 0)
			return -EINVAL;
		if (!dev) {
			if (check_members(ph, q, quiesce_phase, ARRAY_SIZE(quiesce_phase), err) < 0)
				return -EINVAL;
			continue;
		}
		devs = NULL;
		if (check_members(ph, q, devstat_phase, ARRAY_SIZE(devstat_phase), err) < 0 ||
		    sb_jm_array(ph, q, "devices", SB_J_OPT | SB_J_NULL, &devs, err) < 0)
			return -EINVAL;
		for (size_t i = 0; devs && i < json_object_array_length(devs); i++) {
			json_object *d;
			sb_jpath(e, sizeof(e), "%s.devices[%zu]", q, i);
			if (sb_jv_object(json_object_array_get_idx(devs, i), e, SB_J_REQ, &d, err) <
				0 ||
			    check_members(d, e, devstat_dev, ARRAY_SIZE(devstat_dev), err) < 0)
				return -EINVAL;
		}
	}
	return 0;
}

static int wl_parts(struct sb_wl_result *r, json_object *o, const char *path, char **err)
{
	json_object *arr = NULL, *ex = NULL;
	char p[300];
	const char *e = NULL;

	if (sb_jm_array(o, path, "flags", SB_J_OPT | SB_J_NULL, &arr, err) < 0)
		return -EINVAL;
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		const char *f;
		sb_jpath(p, sizeof(p), "%s.flags[%zu]", path, i);
		/* a flag this version does not know is a newer writer's, not an error */
		if (sb_jv_str(json_object_array_get_idx(arr, i), p, SB_J_REQ, &f, err) < 0)
			return -EINVAL;
		r->flags |= sb_result_flag_from_name(f);
	}
	if (sb_jm_str(o, path, "error", SB_J_OPT | SB_J_NULL, &e, err) < 0)
		return -EINVAL;
	if (e && !(r->error = strdup(e)))
		return -ENOMEM;
	arr = NULL;
	if (sb_jm_array(o, path, "metrics", SB_J_REQ, &arr, err) < 0)
		return -EINVAL;
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		sb_jpath(p, sizeof(p), "%s.metrics[%zu]", path, i);
		int k = metric_parse(r, json_object_array_get_idx(arr, i), p, err);
		if (k < 0)
			return k;
	}
	arr = NULL;
	if (sb_jm_array(o, path, "latency", SB_J_OPT | SB_J_NULL, &arr, err) < 0)
		return -EINVAL;
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		sb_jpath(p, sizeof(p), "%s.latency[%zu]", path, i);
		int k = lat_parse(r, json_object_array_get_idx(arr, i), p, err);
		if (k < 0)
			return k;
	}
	if (sb_jm_object(o, path, "extra", SB_J_OPT | SB_J_NULL, &ex, err) < 0)
		return -EINVAL;
	char sp[320];
	sb_jpath(p, sizeof(p), "%s.extra", path);
	sb_jpath(sp, sizeof(sp), "%s.extra.series", path);
	if (ex &&
	    (check_members(ex, p, extra_members, ARRAY_SIZE(extra_members), err) < 0 ||
	     series_check(json_object_object_get(ex, "series"), sp, err) < 0 ||
	     phases_check(ex, p, "devstat", err) < 0 || phases_check(ex, p, "quiesce", err) < 0))
		return -EINVAL;
	if (ex)
		r->extra = json_object_get(ex);
	return 0;
}

static int wl_parse(json_object *o, const char *path, struct sb_wl_result **out, char **err)
{
	const char *w, *spec = NULL;
	struct sb_wl_result *r;
	int k;

	*out = NULL;
	if (sb_jv_object(o, path, SB_J_REQ, &o, err) < 0 ||
	    sb_jm_str(o, path, "workload", SB_J_REQ, &w, err) < 0 ||
	    sb_jm_str(o, path, "spec", SB_J_OPT | SB_J_NULL, &spec, err) < 0)
		return -EINVAL;
	r = sb_wl_result_new(w, spec);
	if (!r)
		return -ENOMEM;
	k = wl_parts(r, o, path, err);
	if (k < 0) {
		sb_wl_result_free(r);
		return k;
	}
	*out = r;
	return 0;
}

int sb_wl_result_from_json(json_object *o, struct sb_wl_result **out, char **err)
{
	return wl_parse(o, "workload", out, err);
}

int sb_json_parse_text(const char *buf, size_t len, const char *file, json_object **out, char **err)
{
	size_t end, line = 1, col = 1;
	enum json_tokener_error jerr;
	json_tokener *tok;
	json_object *o;

	if (strlen(buf) != len)
		return fail(err, file, "not a text file (expected JSON)");
	if (buf[strspn(buf, " \t\r\n")] == '\0')
		return fail(err, file, "empty file (expected a JSON object)");
	if (len > INT32_MAX)
		return fail(err, file, "too large to be a result");
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

/* Variant names seen so far: an open-addressing hash set, so that a file
 * of many variants is checked in linear time. */
struct name_set {
	const char **names;
	size_t *index, cap;
};

static size_t name_hash(const char *s)
{
	size_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* -EEXIST with *other the index of the earlier variant of that name. */
static int name_add(struct name_set *ns, const char *name, size_t index, size_t *other)
{
	size_t i = name_hash(name) & (ns->cap - 1);
	for (; ns->names[i]; i = (i + 1) & (ns->cap - 1))
		if (strcmp(ns->names[i], name) == 0)
			return *other = ns->index[i], -EEXIST;
	ns->names[i] = name;
	ns->index[i] = index;
	return 0;
}

static int repeat_parse(struct sb_variant *var, json_object *ro, const char *path, size_t k,
			char **err)
{
	json_object *wls, *pre = NULL, *failed = NULL, *scen = NULL, *integ = NULL;
	const char *started = NULL, *fmsg = NULL;
	int64_t index = (int64_t)k;
	size_t n;
	int r;

	if (sb_jv_object(ro, path, SB_J_REQ, &ro, err) < 0 ||
	    sb_jm_array(ro, path, "workloads", SB_J_REQ, &wls, err) < 0 ||
	    sb_jm_int(ro, path, "index", SB_J_OPT, 0, REPEAT_MAX, &index, err) < 0 ||
	    sb_jm_str(ro, path, "started", SB_J_OPT | SB_J_NULL, &started, err) < 0 ||
	    sb_jm_object(ro, path, "precondition", SB_J_OPT | SB_J_NULL, &pre, err) < 0 ||
	    sb_jm_object(ro, path, "failed", SB_J_OPT | SB_J_NULL, &failed, err) < 0 ||
	    sb_jm_object(ro, path, "scenario", SB_J_OPT | SB_J_NULL, &scen, err) < 0 ||
	    sb_jm_object(ro, path, "integrity", SB_J_OPT | SB_J_NULL, &integ, err) < 0)
		return -EINVAL;
	/* the integrity count is what reports shout about: a number */
	if (integ) {
		char ip[300];
		int64_t ie = 0;
		sb_jpath(ip, sizeof(ip), "%s.integrity", path);
		if (sb_jm_int(integ, ip, "errors", SB_J_REQ, 0, INT64_MAX, &ie, err) < 0)
			return -EINVAL;
	}
	/* a failed variant (run went on with the others): its message is text */
	if (failed) {
		char fp[300];
		sb_jpath(fp, sizeof(fp), "%s.failed", path);
		if (sb_jm_str(failed, fp, "message", SB_J_REQ, &fmsg, err) < 0)
			return -EINVAL;
	}
	n = json_object_array_length(wls);
	/* On the heap: the file decides n (a stack array overflowed). */
	_cleanup_free_ struct sb_wl_result **wl = calloc(n ? n : 1, sizeof(*wl));
	if (!wl)
		return -ENOMEM;
	for (size_t w = 0; w < n; w++) {
		char p[300];
		sb_jpath(p, sizeof(p), "%s.workloads[%zu]", path, w);
		r = wl_parse(json_object_array_get_idx(wls, w), p, &wl[w], err);
		if (r < 0) {
			for (size_t j = 0; j < w; j++)
				sb_wl_result_free(wl[j]);
			return r;
		}
	}
	if (sb_variant_add_repeat(var, (unsigned)index, wl, n) < 0) {
		for (size_t j = 0; j < n; j++)
			sb_wl_result_free(wl[j]);
		return -ENOMEM;
	}
	struct sb_repeat *rep = &var->rep[var->n_rep - 1];
	if (started) {
		free(rep->started);
		if (!(rep->started = strdup(started)))
			return -ENOMEM;
	}
	if (pre)
		rep->precondition = json_object_get(pre);
	if (failed)
		rep->failed = json_object_get(failed);
	if (scen)
		rep->scenario = json_object_get(scen);
	if (integ)
		rep->integrity = json_object_get(integ);
	return 0;
}

static int variant_parse(struct sb_resultset *rs, json_object *vo, const char *path, char **err)
{
	json_object *reps, *params = NULL;
	const char *name;
	struct sb_variant *var;
	char p[300];

	if (sb_jv_object(vo, path, SB_J_REQ, &vo, err) < 0 ||
	    sb_jm_str(vo, path, "name", SB_J_REQ, &name, err) < 0 ||
	    sb_jm_object(vo, path, "params", SB_J_OPT | SB_J_NULL, &params, err) < 0 ||
	    sb_jm_array(vo, path, "repeats", SB_J_REQ, &reps, err) < 0)
		return -EINVAL;
	/* params: key=value words of the matrix; a value is a scalar */
	json_object_object_foreach(params ? params : vo, key, val)
	{
		if (!params)
			break;
		if (json_object_is_type(val, json_type_object) ||
		    json_object_is_type(val, json_type_array))
			return fail(err, NULL, "%s.params.%s: expected a string, got %s", path, key,
				    sb_json_what(val));
	}
	var = sb_resultset_append_variant(rs, name, params ? json_object_get(params) : NULL);
	if (!var)
		return -ENOMEM;
	for (size_t k = 0; k < json_object_array_length(reps); k++) {
		sb_jpath(p, sizeof(p), "%s.repeats[%zu]", path, k);
		int r = repeat_parse(var, json_object_array_get_idx(reps, k), p, k, err);
		if (r < 0)
			return r;
	}
	return 0;
}

static int variants_parse(struct sb_resultset *rs, json_object *vars, char **err)
{
	size_t n = json_object_array_length(vars), cap = 16;
	struct name_set ns = {0};
	int r = 0;

	while (cap < 2 * n)
		cap *= 2;
	ns.cap = cap;
	ns.names = calloc(cap, sizeof(*ns.names));
	ns.index = calloc(cap, sizeof(*ns.index));
	for (size_t i = 0; r == 0 && ns.names && ns.index && i < n; i++) {
		char p[64];
		size_t other;
		sb_jpath(p, sizeof(p), "variants[%zu]", i);
		r = variant_parse(rs, json_object_array_get_idx(vars, i), p, err);
		/* variant_parse added one on success: its name */
		const char *name =
		    r == 0 && rs->var && rs->n_var ? rs->var[rs->n_var - 1].name : NULL;
		if (name && name_add(&ns, name, i, &other) < 0) {
			_cleanup_free_ char *e = sb_escape(name);
			/* merged, they would pass for more repeats of one variant */
			r = fail(err, NULL,
				 "variants[%zu] and variants[%zu] are both named '%s' (refused: "
				 "a variant name must be unique in a result set)",
				 other, i, e ? e : "?");
		}
	}
	if (!ns.names || !ns.index)
		r = -ENOMEM;
	free(ns.names);
	free(ns.index);
	return r;
}

static int header_parse(struct sb_resultset *rs, json_object *o, char **err)
{
	const char *fmt = NULL, *tv = NULL, *created = NULL, *command = NULL;
	json_object *host = NULL, *profile = NULL, *target = NULL, *devices = NULL, *tools = NULL;
	int64_t version;

	if (sb_jv_object(o, "", SB_J_REQ, &o, err) < 0)
		return -EINVAL;
	if (sb_jm_str(o, "", "format", SB_J_OPT | SB_J_NULL, &fmt, err) < 0 || !fmt ||
	    strcmp(fmt, SB_RESULT_FORMAT) != 0)
		return fail(err, NULL, "not a stackbench result (expected \"format\": \"%s\")",
			    SB_RESULT_FORMAT);
	if (sb_jm_int(o, "", "version", SB_J_REQ, INT32_MIN, INT32_MAX, &version, err) < 0)
		return -EINVAL;
	if (version < SB_RESULT_VERSION_MIN || version > SB_RESULT_VERSION)
		return fail(err, NULL,
			    "result format version %lld is not supported (this reads versions %d "
			    "to %d)",
			    (long long)version, SB_RESULT_VERSION_MIN, SB_RESULT_VERSION);
	if (sb_jm_str(o, "", "tool_version", SB_J_OPT | SB_J_NULL, &tv, err) < 0 ||
	    sb_jm_str(o, "", "created", SB_J_OPT | SB_J_NULL, &created, err) < 0 ||
	    sb_jm_str(o, "", "command", SB_J_OPT | SB_J_NULL, &command, err) < 0 ||
	    sb_jm_object(o, "", "host", SB_J_OPT | SB_J_NULL, &host, err) < 0 ||
	    sb_jm_object(o, "", "profile", SB_J_OPT | SB_J_NULL, &profile, err) < 0 ||
	    sb_jm_object(o, "", "target", SB_J_OPT | SB_J_NULL, &target, err) < 0 ||
	    sb_jm_array(o, "", "devices", SB_J_OPT | SB_J_NULL, &devices, err) < 0 ||
	    sb_jm_object(o, "", "tools", SB_J_OPT | SB_J_NULL, &tools, err) < 0 ||
	    check_members(host, "host", host_members, ARRAY_SIZE(host_members), err) < 0 ||
	    check_members(profile, "profile", profile_members, ARRAY_SIZE(profile_members), err) <
		0 ||
	    check_members(target, "target", target_members, ARRAY_SIZE(target_members), err) < 0)
		return -EINVAL;
	rs->version = (int)version;
	rs->tool_version = strdup(tv ? tv : "unknown");
	rs->created = strdup(created ? created : "");
	rs->command = strdup(command ? command : "run");
	rs->host = host ? json_object_get(host) : NULL;
	rs->profile = profile ? json_object_get(profile) : NULL;
	rs->target = target ? json_object_get(target) : NULL;
	rs->devices = devices ? json_object_get(devices) : NULL;
	rs->tools = tools ? json_object_get(tools) : NULL;
	return rs->tool_version && rs->created && rs->command ? 0 : -ENOMEM;
}

int sb_resultset_parse(const char *buf, size_t len, const char *file, struct sb_resultset **out,
		       char **err)
{
	json_object *o = NULL, *vars;
	struct sb_resultset *rs = NULL;
	int r;

	*out = NULL;
	r = sb_json_parse_text(buf, len, file, &o, err);
	if (r < 0)
		return r;
	rs = calloc(1, sizeof(*rs));
	if (!rs) {
		r = -ENOMEM;
		goto out;
	}
	r = header_parse(rs, o, err);
	if (r < 0)
		goto out;
	/* NaN, Infinity or 1e999 anywhere (json-c takes them for numbers) */
	r = sb_json_all_finite(o, "", err);
	if (r < 0)
		goto out;
	r = sb_jm_array(o, "", "variants", SB_J_REQ, &vars, err);
	if (r < 0)
		goto out;
	if (!(rs->path = strdup(file))) {
		r = -ENOMEM;
		goto out;
	}
	r = variants_parse(rs, vars, err);
	if (r < 0)
		goto out;
	*out = TAKE_PTR(rs);
out:
	in_file(err, file, r);
	sb_resultset_free(rs);
	json_object_put(o);
	return r;
}

int sb_resultset_read(const char *path, struct sb_resultset **out, char **err)
{
	_cleanup_free_ char *file = NULL, *buf = NULL;
	struct stat st;
	mode_t mode = 0;
	size_t len;
	int r;

	*out = NULL;
	if (stat(path, &st) < 0)
		return fail(err, path, "%s", strerror(errno)), negerrno();
	file = S_ISDIR(st.st_mode) ? sb_asprintf("%s/result.json", path) : strdup(path);
	if (!file)
		return -ENOMEM;
	r = sb_read_regular(file, SB_RESULT_MAX_BYTES, &buf, &len, &mode);
	if (r == -ENOENT && S_ISDIR(st.st_mode))
		return fail(err, file, "no such file (not a result set directory)"), -ENOENT;
	if (r == -EINVAL)
		return fail(err, file, "%s, not a result file (refused)", sb_file_kind(mode));
	if (r == -EFBIG)
		return fail(err, file, "too large to be a result (over %u MiB)",
			    SB_RESULT_MAX_BYTES >> 20);
	if (r < 0)
		return fail(err, file, "%s", strerror(-r)), r;
	return sb_resultset_parse(buf, len, file, out, err);
}

size_t sb_variant_metric_finite(const struct sb_variant *v, const char *spec, const char *metric)
{
	size_t n = 0;
	for (size_t k = 0; k < v->n_rep; k++)
		for (size_t w = 0; w < v->rep[k].n_wl; w++) {
			const struct sb_wl_result *wl = v->rep[k].wl[w];
			const struct sb_metric *m;
			if (strcmp(wl->spec, spec) != 0)
				continue;
			m = sb_wl_find_metric(wl, metric);
			n += m && isfinite(m->value);
			break;
		}
	return n;
}
