/* `report --fleet` from the history database: the latest run of each host
 * (a fleet's results/HOST/ are imported under HOST), one result set per
 * host named after it, so that the fleet table is the one report builds
 * from the directories themselves. */
#include "util/exitcode.h"
#include "history/store.h"
#include "result/result.h"
#include "util/log.h"
#include "util/macro.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The newest run of each host of that profile, hosts in name order. */
static const char fleet_sql[] =
    "SELECT r.id, r.host, r.created, r.result_json FROM runs r WHERE r.profile = ?1 AND r.id ="
    " (SELECT r2.id FROM runs r2 WHERE r2.profile = ?1 AND r2.host IS r.host"
    " ORDER BY r2.created DESC, r2.id DESC LIMIT 1) ORDER BY r.host";

/* The profile of the newest run, allocated; NULL when there is none. */
static char *newest_profile(sqlite3 *db)
{
	sqlite3_stmt *st;
	char *p = NULL;

	if (sqlite3_prepare_v2(db,
			       "SELECT profile FROM runs ORDER BY created DESC, id DESC LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return NULL;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		p = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return p;
}

/* One row's result set, named after its host. 0, or an exit code. */
static int host_set(struct sb_history *h, sqlite3_stmt *st, struct sb_resultset **out)
{
	const char *host = (const char *)sqlite3_column_text(st, 1),
		   *text = (const char *)sqlite3_column_text(st, 3);
	long long id = sqlite3_column_int64(st, 0);
	_cleanup_free_ char *name = NULL;
	char *err = NULL;

	if (asprintf(&name, "%s: run %lld", h->path, id) < 0)
		return SB_EXIT_FAILED;
	if (!host || !text || sb_resultset_parse(text, strlen(text), name, out, &err) < 0) {
		sb_error("report: --fleet: %s", err ? err : name);
		free(err);
		return SB_EXIT_FAILED;
	}
	/* The set's name in the report is its host's. */
	free((*out)->path);
	(*out)->path = strdup(host);
	if (!(*out)->path)
		return SB_EXIT_FAILED;
	sb_info("report: fleet: %s: run %lld of %s", host, id,
		(const char *)sqlite3_column_text(st, 2));
	return 0;
}

static int collect(struct sb_history *h, const char *profile, struct sb_resultset ***sets,
		   size_t *n)
{
	struct sb_resultset **v = NULL;
	sqlite3_stmt *st;
	size_t k = 0;
	int code = 0, s = SQLITE_DONE;

	if (sqlite3_prepare_v2(h->db, fleet_sql, -1, &st, NULL) != SQLITE_OK) {
		sb_error("report: --fleet: %s: cannot read", h->path);
		return SB_EXIT_FAILED;
	}
	sb_hist_bind(st, 1, profile);
	while (!code && (s = sqlite3_step(st)) == SQLITE_ROW) {
		struct sb_resultset **nv = realloc(v, (k + 2) * sizeof(*v));
		if (!nv) {
			code = SB_EXIT_FAILED;
			break;
		}
		v = nv;
		v[k + 1] = NULL;
		code = host_set(h, st, &v[k]);
		k += code == 0;
	}
	if (!code && s != SQLITE_DONE) {
		sb_error("report: --fleet: %s: cannot read", h->path);
		code = SB_EXIT_FAILED;
	}
	sqlite3_finalize(st);
	if (!code && k == 0) {
		sb_error("report: --fleet: %s holds no run of profile '%s'", h->path, profile);
		code = SB_EXIT_USAGE;
	}
	if (code) {
		for (size_t i = 0; i < k; i++)
			sb_resultset_free(v[i]);
		free(v);
		return code;
	}
	free(*sets);
	*sets = v;
	*n = k;
	return 0;
}

int sb_history_fleet(const struct sb_history_report *o, struct sb_resultset ***sets, size_t *n)
{
	const char *db = o->db ? o->db : sb_history_default_path();
	_cleanup_free_ char *newest = NULL;
	struct sb_history *h = NULL;
	int code = sb_hist_open_report(db, "--fleet", &h);

	if (code)
		return code;
	const char *profile = o->profile;
	if (!profile) {
		newest = newest_profile(h->db);
		profile = newest;
	}
	if (!profile) {
		sb_error("report: --fleet: %s holds no run", db);
		code = SB_EXIT_USAGE;
	} else {
		code = collect(h, profile, sets, n);
	}
	if (!code)
		sb_info("report: fleet: the latest run of profile '%s' of each of %zu host%s in %s",
			profile, *n, *n == 1 ? "" : "s", db);
	sb_history_close(h);
	return code;
}
