/* `history`'s listing: each metric's sequence of runs (profile, variant,
 * workload spec, metric), every run's mean over its repeats with its own
 * interval, and the change points of the sequence. */
#include "history/changepoint.h"
#include "history/series.h"
#include "history/store.h"
#include "result/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char series_sql[] =
    "SELECT r.id, r.created, r.host, r.profile, m.variant, m.spec, m.metric, m.label, m.unit,"
    " m.better, m.value FROM metrics m JOIN runs r ON r.id = m.run_id"
    " WHERE (?1 IS NULL OR r.profile = ?1) AND (?2 IS NULL OR m.variant = ?2)"
    " AND ((?3 IS NULL AND m.headline) OR m.metric = ?3 OR m.workload || ':' || m.metric = ?3)"
    " AND (?4 IS NULL OR instr(?4, ',' || r.id || ',') > 0)"
    " ORDER BY r.profile, m.variant, m.spec, m.metric, r.created, r.id, m.rep";

static json_object *labels_of(sqlite3 *db, int64_t id)
{
	json_object *o = json_object_new_object();
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT key, value FROM labels WHERE run_id = ? ORDER BY key",
			       -1, &st, NULL) != SQLITE_OK)
		return o;
	sqlite3_bind_int64(st, 1, id);
	while (sqlite3_step(st) == SQLITE_ROW)
		json_object_object_add(
		    o, (const char *)sqlite3_column_text(st, 0),
		    json_object_new_string((const char *)sqlite3_column_text(st, 1)));
	sqlite3_finalize(st);
	return o;
}

static const char *col(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	return s ? s : "";
}

static json_object *num(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

/* Closes a run of the current series: its mean and interval. */
static void end_run(json_object *run, double *vals, size_t n, struct sb_cp_point *pt)
{
	struct sb_stats s;
	sb_stats_compute(vals, n, &s);
	json_object_object_add(run, "n", json_object_new_int64((int64_t)s.n));
	json_object_object_add(run, "mean", num(s.mean));
	json_object_object_add(run, "ci95", num(s.ci95));
	pt->mean = s.mean;
	/* The square of the mean's standard error; none with one repeat. */
	pt->var = s.n > 1 && isfinite(s.stdev) ? s.stdev * s.stdev / (double)s.n : 0;
}

/* Marks the change points of a finished series. */
static void end_series(json_object *ser, struct sb_cp_point *pts, size_t n)
{
	json_object *runs = json_object_object_get(ser, "runs"), *cps = json_object_new_array();
	struct sb_cp cp[64];
	int k = n ? sb_changepoints(pts, n, NULL, cp, 64) : 0;

	for (int i = 0; i < k && i < 64; i++) {
		json_object *c = json_object_new_object(),
			    *run = json_object_array_get_idx(runs, cp[i].index);
		json_object_object_add(c, "run_id",
				       json_object_get(json_object_object_get(run, "id")));
		json_object_object_add(c, "index", json_object_new_int64((int64_t)cp[i].index));
		json_object_object_add(c, "before", num(cp[i].before));
		json_object_object_add(c, "after", num(cp[i].after));
		json_object_object_add(c, "change_pct", num(cp[i].change_pct));
		json_object_object_add(c, "t", num(cp[i].t));
		json_object_object_add(c, "p", num(cp[i].p));
		json_object_object_add(run, "change_point", json_object_new_boolean(1));
		json_object_array_add(cps, c);
	}
	json_object_object_add(ser, "change_points", cps);
}

static json_object *new_series(sqlite3_stmt *st)
{
	json_object *s = json_object_new_object();
	static const char *const keys[] = {"profile", "variant", "spec",  "metric",
					   "label",   "unit",	 "better"};
	for (int i = 0; i < 7; i++)
		json_object_object_add(s, keys[i], json_object_new_string(col(st, 3 + i)));
	json_object_object_add(s, "runs", json_object_new_array());
	return s;
}

static bool same_series(json_object *s, sqlite3_stmt *st)
{
	static const char *const keys[] = {"profile", "variant", "spec", "metric"};
	for (int i = 0; s && i < 4; i++)
		if (strcmp(json_object_get_string(json_object_object_get(s, keys[i])),
			   col(st, 3 + i)) != 0)
			return false;
	return s != NULL;
}

/* Growing arrays of one series: the runs' points and one run's values. */
struct acc {
	struct sb_cp_point *pts;
	size_t n_pts, cap_pts;
	double *vals;
	size_t n_vals, cap_vals;
};

static int push(void **arr, size_t *cap, size_t n, size_t elem)
{
	if (n < *cap)
		return 0;
	void *p = realloc(*arr, (*cap = *cap * 2 + 16) * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	return 0;
}

int sb_history_series(struct sb_history *h, const struct sb_history_filter *f, json_object **out)
{
	json_object *all = json_object_new_array(), *ser = NULL, *run = NULL;
	struct acc a = {0};
	sqlite3_stmt *st;
	int64_t run_id = -1;
	int r = 0;

	if (sqlite3_prepare_v2(h->db, series_sql, -1, &st, NULL) != SQLITE_OK) {
		json_object_put(all);
		return -EIO;
	}
	sb_hist_bind(st, 1, f->profile);
	sb_hist_bind(st, 2, f->variant);
	sb_hist_bind(st, 3, f->metric);
	sb_hist_bind(st, 4, f->run_ids);
	for (;;) {
		int s = sqlite3_step(st);
		bool same = s == SQLITE_ROW && same_series(ser, st);
		int64_t id = s == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
		if (run && (!same || id != run_id)) {
			if (push((void **)&a.pts, &a.cap_pts, a.n_pts, sizeof(*a.pts)) < 0)
				break;
			end_run(run, a.vals, a.n_vals, &a.pts[a.n_pts++]);
			a.n_vals = 0;
			run = NULL;
		}
		if (ser && !same) {
			end_series(ser, a.pts, a.n_pts);
			json_object_array_add(all, ser);
			ser = NULL;
			a.n_pts = 0;
		}
		if (s != SQLITE_ROW) {
			r = s == SQLITE_DONE ? 0 : -EIO;
			break;
		}
		if (!ser)
			ser = new_series(st);
		if (!run) {
			run = json_object_new_object();
			run_id = id;
			json_object_object_add(run, "id", json_object_new_int64(id));
			json_object_object_add(run, "created", json_object_new_string(col(st, 1)));
			json_object_object_add(run, "host", json_object_new_string(col(st, 2)));
			json_object_object_add(run, "labels", labels_of(h->db, id));
			json_object_array_add(json_object_object_get(ser, "runs"), run);
		}
		if (push((void **)&a.vals, &a.cap_vals, a.n_vals, sizeof(*a.vals)) < 0)
			break;
		a.vals[a.n_vals++] = sqlite3_column_type(st, 10) == SQLITE_NULL
					 ? NAN
					 : sqlite3_column_double(st, 10);
	}
	sqlite3_finalize(st);
	free(a.pts);
	free(a.vals);
	json_object_put(ser);
	*out = json_object_new_object();
	json_object_object_add(*out, "database", json_object_new_string(h->path));
	json_object_object_add(*out, "series", all);
	return r;
}
