/* `report --history N`: the baseline set pooled from the last N runs in the
 * history that measured the same stack with the same workloads on the same
 * host fingerprint; report compares with it as with --baseline-set. */
#include "history/series.h"
#include "util/escape.h"
#include "util/exitcode.h"
#include "history/store.h"
#include "result/result.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/opt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int sb_history_report_opt(struct sb_history_report *o, int key, const char *arg, int *ret)
{
	char *end;
	unsigned long n;

	*ret = 0;
	switch (key) {
	case SB_HISTORY_OPT_HISTORY:
		n = strtoul(arg, &end, 10);
		if (*end || n < 1 || n > 1000 || arg[0] == '-')
			*ret = sb_usage_error("report",
					      "--history '%s': expected a number of runs, "
					      "1 to 1000",
					      arg);
		o->n = (unsigned)n;
		return 1;
	case SB_HISTORY_OPT_ANY_HOST:
		o->any_host = true;
		return 1;
	case SB_HISTORY_OPT_DB:
		o->db = arg;
		return 1;
	case SB_HISTORY_OPT_PROFILE:
		o->profile = arg;
		return 1;
	}
	return 0;
}

void sb_hist_runs_free(struct sb_hist_run *r, size_t n)
{
	for (size_t i = 0; r && i < n; i++) {
		free(r[i].created);
		free(r[i].uuid);
		free(r[i].fp_hash);
		free(r[i].text);
		json_object_put(r[i].fingerprint);
	}
	free(r);
}

int sb_hist_find(struct sb_history *h, const char *stack, const char *wl, const char *fp,
		 const char *except, size_t max, struct sb_hist_run **out)
{
	static const char sql[] =
	    "SELECT id, created, uuid, fingerprint_hash, fingerprint, result_json FROM runs"
	    " WHERE stack_hash = ?1 AND workload_hash = ?2 AND (?3 IS NULL OR fingerprint_hash = "
	    "?3)"
	    " AND uuid != ?4 ORDER BY created DESC, id DESC LIMIT ?5";
	struct sb_hist_run *r = calloc(max ? max : 1, sizeof(*r));
	sqlite3_stmt *st;
	size_t n = 0;

	*out = NULL;
	if (!r || sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK) {
		free(r);
		return -EIO;
	}
	sb_hist_bind(st, 1, stack);
	sb_hist_bind(st, 2, wl);
	sb_hist_bind(st, 3, fp);
	sb_hist_bind(st, 4, except);
	sqlite3_bind_int64(st, 5, (int64_t)max);
	while (n < max && sqlite3_step(st) == SQLITE_ROW) {
		r[n].id = sqlite3_column_int64(st, 0);
		r[n].created = strdup((const char *)sqlite3_column_text(st, 1));
		r[n].uuid = strdup((const char *)sqlite3_column_text(st, 2));
		r[n].fp_hash = strdup((const char *)sqlite3_column_text(st, 3));
		r[n].fingerprint = json_tokener_parse((const char *)sqlite3_column_text(st, 4));
		r[n].text = strdup((const char *)sqlite3_column_text(st, 5));
		n++;
	}
	sqlite3_finalize(st);
	*out = r;
	return (int)n;
}

/* Appends the repeats of each variant of result JSON o to base's namesake. */
static int add_run(struct sb_resultset *base, json_object *o, char **err)
{
	json_object *vars = json_object_object_get(o, "variants");

	for (size_t i = 0; i < json_object_array_length(vars); i++) {
		json_object *vo = json_object_array_get_idx(vars, i), *params,
			    *reps = json_object_object_get(vo, "repeats");
		const char *name = json_object_get_string(json_object_object_get(vo, "name"));
		struct sb_variant *v = NULL;
		for (size_t k = 0; k < base->n_var; k++)
			if (name && strcmp(base->var[k].name, name) == 0)
				v = &base->var[k];
		params = json_object_object_get(vo, "params");
		if (!v &&
		    !(v = sb_resultset_variant(base, name ? name : "?", json_object_get(params))))
			return -ENOMEM;
		for (size_t k = 0; k < json_object_array_length(reps); k++) {
			json_object *wls =
			    json_object_object_get(json_object_array_get_idx(reps, k), "workloads");
			size_t n = json_object_array_length(wls);
			_cleanup_free_ struct sb_wl_result **wl = calloc(n ? n : 1, sizeof(*wl));
			if (!wl)
				return -ENOMEM;
			for (size_t w = 0; w < n; w++)
				if (sb_wl_result_from_json(json_object_array_get_idx(wls, w),
							   &wl[w], err) < 0) {
					for (size_t j = 0; j < w; j++)
						sb_wl_result_free(wl[j]);
					return -EINVAL;
				}
			if (sb_variant_add_repeat(v, (unsigned)v->n_rep, wl, n) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

/* The baseline set over runs[0..n) (newest first), described by the newest. */
static struct sb_resultset *pool(struct sb_hist_run *runs, size_t n, const char *db)
{
	struct sb_resultset *base = sb_resultset_new("run");
	char *err = NULL;

	if (!base)
		return NULL;
	for (size_t i = n; i-- > 0;) {
		json_object *o = json_tokener_parse(runs[i].text);
		int r = o ? add_run(base, o, &err) : -EINVAL;
		if (i == 0 && o) {
			json_object_put(base->host);
			json_object_put(base->devices);
			base->host = json_object_get(json_object_object_get(o, "host"));
			base->devices = json_object_get(json_object_object_get(o, "devices"));
			base->profile = json_object_get(json_object_object_get(o, "profile"));
		}
		json_object_put(o);
		if (r < 0) {
			sb_error("%s: run %lld: %s", db, (long long)runs[i].id,
				 err ? err : "not a result set");
			free(err);
			sb_resultset_free(base);
			return NULL;
		}
	}
	free(base->path);
	if (asprintf(&base->path, "history(%zu run%s)", n, n == 1 ? "" : "s") < 0)
		base->path = NULL;
	return base;
}

/* The runs to pool; 0, or the exit code after saying why not. */
static int pick(struct sb_history *h, const struct sb_history_report *o, json_object *cur,
		struct sb_hist_run **runs, int *n)
{
	char stack[65], wl[65], fph[65], uuid[65];
	json_object *fp = sb_fingerprint_of(cur, NULL);
	int code = 0;

	sb_stack_hash(cur, stack);
	sb_workload_hash(cur, wl);
	sb_json_hash(fp, fph);
	sb_json_hash(cur, uuid);
	*n = sb_hist_find(h, stack, wl, o->any_host ? NULL : fph, uuid, o->n, runs);
	if (*n == 0) {
		sb_hist_runs_free(*runs, 0);
		*runs = NULL;
		*n = sb_hist_find(h, stack, wl, NULL, uuid, o->n, runs);
		if (*n == 0) {
			sb_error("report: --history: %s holds no other run of this stack and these "
				 "workloads: nothing to compare with",
				 h->path);
			code = SB_EXIT_USAGE;
		} else if (*n > 0) {
			_cleanup_free_ char *d = sb_fingerprint_diff(fp, (*runs)[0].fingerprint);
			sb_error(
			    "report: --history: refusing to compare across hosts: the %d "
			    "earlier run%s of this stack and these workloads in %s ran on another "
			    "host fingerprint (run %lld differs in %s); --any-host compares anyway",
			    *n, *n == 1 ? "" : "s", h->path, (long long)(*runs)[0].id, d ? d : "?");
			code = SB_EXIT_REFUSED;
		}
	}
	for (int i = 0; !code && o->any_host && i < *n; i++) {
		_cleanup_free_ char *d = sb_fingerprint_diff(fp, (*runs)[i].fingerprint);
		if (d)
			sb_warn("report: --any-host: run %lld ran on another host fingerprint (%s)",
				(long long)(*runs)[i].id, d);
	}
	if (*n < 0) {
		sb_error("report: --history: %s: cannot read", h->path);
		code = SB_EXIT_FAILED;
	}
	json_object_put(fp);
	return code;
}

/* The id of the run recorded with that uuid, or 0. */
static int64_t run_of(struct sb_history *h, const char *uuid)
{
	sqlite3_stmt *st;
	int64_t id = 0;

	if (sqlite3_prepare_v2(h->db, "SELECT id FROM runs WHERE uuid = ?", -1, &st, NULL) !=
	    SQLITE_OK)
		return 0;
	sb_hist_bind(st, 1, uuid);
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return id;
}

/* The HTML report's trend of each headline metric over the pooled runs
 * and the current one (when recorded), with intervals and change points;
 * NULL when it cannot be made (the report goes on without it). */
static char *trend(struct sb_history *h, const struct sb_hist_run *runs, size_t n, json_object *cur)
{
	char uuid[65], *ids = NULL, *html = NULL;
	size_t len = 0, hlen = 0;
	json_object *doc = NULL;
	FILE *ids_f = open_memstream(&ids, &len), *f = NULL;
	int64_t self;

	if (!ids_f)
		return NULL;
	sb_json_hash(cur, uuid);
	self = run_of(h, uuid);
	fputc(',', ids_f);
	for (size_t i = 0; i < n; i++)
		fprintf(ids_f, "%lld,", (long long)runs[i].id);
	if (self)
		fprintf(ids_f, "%lld,", (long long)self);
	if (fclose(ids_f) != 0)
		goto out;
	struct sb_history_filter flt = {.run_ids = ids};
	if (sb_history_series(h, &flt, &doc) < 0 || !(f = open_memstream(&html, &hlen)))
		goto out;
	fprintf(f, "<p class=\"meta\">The last %zu run%s in ", n, n == 1 ? "" : "s");
	sb_escape_html(f, h->path);
	fprintf(f, " of this stack and these workloads on this host fingerprint, the baseline "
		   "above, ");
	if (self)
		fprintf(f, "and this result set (run %lld, the last point).</p>\n",
			(long long)self);
	else
		fprintf(f, "without this result set (it is not recorded there).</p>\n");
	sb_history_html_charts(doc, f, 3);
	if (fclose(f) != 0) {
		free(html);
		html = NULL;
	}
out:
	json_object_put(doc);
	free(ids);
	return html;
}

int sb_hist_open_report(const char *db, const char *opt, struct sb_history **h)
{
	char *err = NULL;
	int r = sb_history_open(db, false, h, &err);

	if (r >= 0)
		return 0;
	sb_error("report: %s: %s", opt, err ? err : db);
	free(err);
	return r == -EPROTO ? SB_EXIT_REFUSED : r == -ENOENT ? SB_EXIT_USAGE : SB_EXIT_FAILED;
}

int sb_history_baseline(struct sb_history_report *o, const char *current, struct sb_resultset **out)
{
	const char *db = o->db ? o->db : sb_history_default_path();
	_cleanup_free_ char *file = NULL;
	struct sb_history *h = NULL;
	struct sb_hist_run *runs = NULL;
	struct stat st;
	int n = 0, code;

	if (asprintf(&file, "%s%s", current,
		     stat(current, &st) == 0 && S_ISDIR(st.st_mode) ? "/result.json" : "") < 0)
		return SB_EXIT_FAILED;
	json_object *cur = json_object_from_file(file);
	if (!cur) {
		sb_error("%s: cannot read it as JSON (expected a stackbench result set)", file);
		return SB_EXIT_USAGE;
	}
	code = sb_hist_open_report(db, "--history", &h);
	if (code) {
		json_object_put(cur);
		return code;
	}
	code = pick(h, o, cur, &runs, &n);
	if (!code) {
		*out = pool(runs, (size_t)n, db);
		code = *out ? 0 : SB_EXIT_FAILED;
		if (*out)
			o->html = trend(h, runs, (size_t)n, cur);
		if (*out)
			sb_info("report: baseline: the last %d matching run%s in %s", n,
				n == 1 ? "" : "s", db);
	}
	sb_hist_runs_free(runs, n > 0 ? (size_t)n : 0);
	sb_history_close(h);
	json_object_put(cur);
	return code;
}
