/* Recording a result set in the history, one transaction per run, and
 * writing it back out; the --db/--no-db/--label options of run and bench. */
#include "history/store.h"
#include "result/result.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/opt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int sb_hist_bind(sqlite3_stmt *st, int i, const char *s)
{
	return s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

char *sb_hist_errmsg(sqlite3 *db)
{
	char *m = NULL;
	if (asprintf(&m, "sqlite: %s", sqlite3_errmsg(db)) < 0)
		m = NULL;
	return m;
}

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;
	return o && json_object_object_get_ex(o, key, &v) &&
		       json_object_is_type(v, json_type_string)
		   ? json_object_get_string(v)
		   : NULL;
}

/* Every repeat's metrics and latency rows of one variant. */
static int put_variant(sqlite3 *db, sqlite3_stmt *ms, sqlite3_stmt *ls, int64_t id,
		       json_object *var)
{
	json_object *reps = json_object_object_get(var, "repeats");
	const char *name = jstr(var, "name");

	for (size_t k = 0;
	     json_object_is_type(reps, json_type_array) && k < json_object_array_length(reps);
	     k++) {
		json_object *wls =
		    json_object_object_get(json_object_array_get_idx(reps, k), "workloads");
		for (size_t w = 0;
		     json_object_is_type(wls, json_type_array) && w < json_object_array_length(wls);
		     w++) {
			json_object *wo = json_object_array_get_idx(wls, w),
				    *lat = json_object_object_get(wo, "latency");
			struct sb_wl_result *r = NULL;
			char *why = NULL;
			if (sb_wl_result_from_json(wo, &r, &why) < 0) {
				free(why);
				return -EINVAL;
			}
			for (size_t m = 0; m < r->n_metrics; m++) {
				const struct sb_metric *mt = &r->metrics[m];
				sqlite3_reset(ms);
				sqlite3_bind_int64(ms, 1, id);
				sb_hist_bind(ms, 2, name);
				sqlite3_bind_int64(ms, 3, (int64_t)k);
				sb_hist_bind(ms, 4, r->spec);
				sb_hist_bind(ms, 5, r->workload);
				sb_hist_bind(ms, 6, mt->name);
				sb_hist_bind(ms, 7, mt->label);
				sb_hist_bind(ms, 8, mt->unit);
				sb_hist_bind(ms, 9, sb_better_name(mt->better));
				sqlite3_bind_int(ms, 10, sb_metric_is_headline(r, mt));
				sqlite3_bind_double(ms, 11, mt->value);
				if (sqlite3_step(ms) != SQLITE_DONE)
					goto fail;
			}
			for (size_t l = 0; l < r->n_lat; l++) {
				const struct sb_latency *lt = &r->lat[l];
				sqlite3_reset(ls);
				sqlite3_bind_int64(ls, 1, id);
				sb_hist_bind(ls, 2, name);
				sqlite3_bind_int64(ls, 3, (int64_t)k);
				sb_hist_bind(ls, 4, r->spec);
				sb_hist_bind(ls, 5, lt->op);
				sqlite3_bind_int64(ls, 6, (int64_t)lt->count);
				sqlite3_bind_double(ls, 7, lt->p50_ms);
				sqlite3_bind_double(ls, 8, lt->p99_ms);
				sqlite3_bind_double(ls, 9, lt->max_ms);
				sb_hist_bind(
				    ls, 10,
				    json_object_to_json_string_ext(
					json_object_array_get_idx(lat, l), JSON_C_TO_STRING_PLAIN));
				if (sqlite3_step(ls) != SQLITE_DONE)
					goto fail;
			}
			sb_wl_result_free(r);
			continue;
		fail:
			sb_wl_result_free(r);
			return -EIO;
		}
	}
	(void)db;
	return 0;
}

static int put_labels(sqlite3 *db, int64_t id, const struct sb_history_meta *m)
{
	sqlite3_stmt *st;
	int r = 0;

	if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO labels VALUES (?, ?, ?)", -1, &st,
			       NULL) != SQLITE_OK)
		return -EIO;
	for (size_t i = 0; m && i < m->n_labels && !r; i++) {
		const char *eq = strchr(m->labels[i], '=');
		_cleanup_free_ char *k =
		    eq ? strndup(m->labels[i], (size_t)(eq - m->labels[i])) : NULL;
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, id);
		sb_hist_bind(st, 2, k);
		sb_hist_bind(st, 3, eq ? eq + 1 : NULL);
		r = k && sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
	}
	sqlite3_finalize(st);
	return r;
}

static const char run_sql[] =
    "INSERT INTO runs (uuid, created, recorded, command, profile, host, tool_version, "
    "stack_hash, workload_hash, fingerprint_hash, fingerprint, source, result_json) "
    "VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%SZ'), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

/* The rows of one run, inside the caller's transaction. */
static int64_t put_run(sqlite3 *db, json_object *o, const char *text, const char *uuid,
		       const struct sb_history_meta *m)
{
	char stack[65], wl[65], fph[65];
	json_object *fp = sb_fingerprint_of(o, m ? m->host : NULL), *prof, *vars;
	sqlite3_stmt *st = NULL, *ms = NULL, *ls = NULL;
	int64_t id = -EIO;

	sb_stack_hash(o, stack);
	sb_workload_hash(o, wl);
	sb_json_hash(fp, fph);
	prof = json_object_object_get(o, "profile");
	if (sqlite3_prepare_v2(db, run_sql, -1, &st, NULL) != SQLITE_OK)
		goto out;
	sb_hist_bind(st, 1, uuid);
	sb_hist_bind(st, 2, jstr(o, "created") ?: "");
	sb_hist_bind(st, 3, jstr(o, "command") ?: "run");
	sb_hist_bind(st, 4, jstr(prof, "name") ?: jstr(o, "command"));
	sb_hist_bind(st, 5, jstr(fp, "host.name"));
	sb_hist_bind(st, 6, jstr(o, "tool_version"));
	sb_hist_bind(st, 7, stack);
	sb_hist_bind(st, 8, wl);
	sb_hist_bind(st, 9, fph);
	sb_hist_bind(st, 10, json_object_to_json_string_ext(fp, JSON_C_TO_STRING_PLAIN));
	sb_hist_bind(st, 11, m ? m->source : NULL);
	sb_hist_bind(st, 12, text);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	id = sqlite3_last_insert_rowid(db);
	if (put_labels(db, id, m) < 0 ||
	    sqlite3_prepare_v2(db, "INSERT INTO metrics VALUES (?,?,?,?,?,?,?,?,?,?,?)", -1, &ms,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO latency VALUES (?,?,?,?,?,?,?,?,?,?)", -1, &ls,
			       NULL) != SQLITE_OK) {
		id = -EIO;
		goto out;
	}
	vars = json_object_object_get(o, "variants");
	for (size_t i = 0; i < json_object_array_length(vars) && id > 0; i++)
		if (put_variant(db, ms, ls, id, json_object_array_get_idx(vars, i)) < 0)
			id = -EIO;
out:
	sqlite3_finalize(st);
	sqlite3_finalize(ms);
	sqlite3_finalize(ls);
	json_object_put(fp);
	return id;
}

int64_t sb_history_record(struct sb_history *h, const char *text, const struct sb_history_meta *m,
			  bool *dup, char **err)
{
	json_object *o = json_tokener_parse(text), *vars;
	sqlite3_stmt *st = NULL;
	char uuid[65];
	int64_t id = 0;

	*dup = false;
	if (!o || !jstr(o, "format") || strcmp(jstr(o, "format"), SB_RESULT_FORMAT) != 0 ||
	    !json_object_object_get_ex(o, "variants", &vars) ||
	    !json_object_is_type(vars, json_type_array)) {
		json_object_put(o);
		if (err)
			*err = strdup("not a stackbench result set");
		return -EINVAL;
	}
	sb_json_hash(o, uuid);
	/* Under the write lock from the start: two writers never both see
	 * "not there yet" for the same result set. */
	if (sqlite3_exec(h->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	if (sqlite3_prepare_v2(h->db, "SELECT id FROM runs WHERE uuid = ?", -1, &st, NULL) !=
	    SQLITE_OK)
		goto fail;
	sb_hist_bind(st, 1, uuid);
	if (sqlite3_step(st) == SQLITE_ROW) {
		id = sqlite3_column_int64(st, 0);
		*dup = true;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (!*dup && (id = put_run(h->db, o, text, uuid, m)) < 0)
		goto fail;
	if (sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	json_object_put(o);
	return id;
fail:
	if (err)
		*err = sb_hist_errmsg(h->db);
	sqlite3_finalize(st);
	sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
	json_object_put(o);
	return -EIO;
}

int sb_history_export(struct sb_history *h, int64_t id, char **text)
{
	sqlite3_stmt *st;
	int r = -ENOENT;

	if (sqlite3_prepare_v2(h->db, "SELECT result_json FROM runs WHERE id = ?", -1, &st, NULL) !=
	    SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*text = strdup((const char *)sqlite3_column_text(st, 0));
		r = *text ? 0 : -ENOMEM;
	}
	sqlite3_finalize(st);
	return r;
}

int sb_history_rec_opt(struct sb_history_rec *o, const char *cmd, int key, const char *arg,
		       int *ret)
{
	*ret = 0;
	switch (key) {
	case SB_HISTORY_OPT_REC_DB:
		o->db = arg;
		return 1;
	case SB_HISTORY_OPT_NO_DB:
		o->no_db = true;
		return 1;
	case SB_HISTORY_OPT_LABEL: {
		if (!strchr(arg, '=') || arg[0] == '=') {
			*ret = sb_usage_error(cmd, "--label '%s': expected KEY=VALUE", arg);
			return 1;
		}
		const char **n = realloc(o->labels, (o->n_labels + 1) * sizeof(*n));
		if (!n) {
			*ret = 1;
			return 1;
		}
		o->labels = n;
		o->labels[o->n_labels++] = arg;
		return 1;
	}
	}
	return 0;
}

int sb_history_record_set(struct sb_history_rec *o, const struct sb_resultset *set)
{
	const char *path = o->db ? o->db : sb_history_default_path();
	bool named = o->db != NULL;
	struct sb_history_meta m = {.labels = o->labels, .n_labels = o->n_labels};
	struct sb_history *h = NULL;
	json_object *j = NULL;
	char *err = NULL;
	int64_t id;
	bool dup;
	int code = 0, r;

	if (o->no_db || !set)
		goto out;
	r = sb_history_open(path, true, &h, &err);
	if (r < 0) {
		if (named || r == -EPROTO) {
			sb_error("%s (the run is not in the history; --no-db skips it)",
				 err ? err : path);
			code = 1;
		} else {
			sb_warn("%s: not recorded in the history (--db FILE or --no-db): %s", path,
				err ? err : strerror(-r));
		}
		goto out;
	}
	j = sb_resultset_to_json(set);
	id = j ? sb_history_record(h,
				   json_object_to_json_string_ext(
				       j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE),
				   &m, &dup, &err)
	       : -ENOMEM;
	if (id < 0) {
		sb_error("%s: cannot record the run: %s", path, err ? err : strerror((int)-id));
		code = 1;
	} else {
		sb_info("history: %s run %lld", path, (long long)id);
	}
out:
	json_object_put(j);
	sb_history_close(h);
	free(err);
	free(o->labels);
	o->labels = NULL;
	o->n_labels = 0;
	return code;
}
