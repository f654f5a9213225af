/* fio's JSON output (--output-format=json or json+) into one workload
 * result (see fio_json.h). Pure: no I/O, unit-tested and fuzzed. */
#include "result/fio_json.h"
#include "result/hist.h"
#include "util/json-get.h"
#include "util/macro.h"
#include "util/parse.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_object *extra_of(struct sb_wl_result *res)
{
	if (!res->extra)
		res->extra = json_object_new_object();
	return res->extra;
}

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

static int import_clat(struct sb_wl_result *res, const char *op, json_object *clat,
		       const char *path, char **err)
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
	return sb_wl_add_latency(res, &l);
}

/* One direction (read, write, trim) of one job. */
static int import_dir(struct sb_wl_result *res, const char *job, const char *dir, json_object *d,
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
	if ((r = sb_wl_add_metric(res, name, "MB/s", SB_BETTER_HIGHER, bw / 1048576.0)) < 0)
		return r;
	snprintf(name, sizeof(name), "%s_%s_iops", job, dir);
	if ((r = sb_wl_add_metric(res, name, "IOPS", SB_BETTER_HIGHER, iops)) < 0)
		return r;
	if (!clat)
		return 0;
	snprintf(name, sizeof(name), "%s %s", job, dir);
	sb_jpath(p, sizeof(p), "%s.clat_ns", path);
	return import_clat(res, name, clat, p, err);
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

static int import_jobs(struct sb_wl_result *res, json_object *jobs, char **err)
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
			if ((r = import_dir(res, job, dirs[k], d, dp, err)) < 0)
				return r;
		}
		if (error)
			res->flags |= SB_RES_FAILED;
	}
	return 0;
}

int sb_fio_json_parse(struct sb_wl_result *res, const char *text, char **err)
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
	r = import_jobs(res, jobs, err);
	if (r < 0)
		goto out;
	if (version)
		json_object_object_add(extra_of(res), "fio_version",
				       json_object_new_string(version));
	if (!res->extra)
		json_object_object_add(extra_of(res), "imported", json_object_new_boolean(true));
	json_object_object_add(res->extra, "fio_output", TAKE_PTR(o));
out:
	json_object_put(o);
	return r;
}
