/* The history's schema, as an ordered list of migrations: migration N
 * brings a database from version N - 1 to N. A new version appends one;
 * none is ever edited once released. PRAGMA user_version holds the
 * version; the schema_version table says when each one was applied. */
#include "history/history.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const migrations[SB_HISTORY_SCHEMA] = {
    /* 1: runs, their labels, every repeat's metrics and latency histograms. */
    "CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied TEXT NOT NULL);"
    "CREATE TABLE runs ("
    " id INTEGER PRIMARY KEY,"
    " uuid TEXT NOT NULL UNIQUE," /* SHA-256 of the result set's canonical JSON */
    " created TEXT NOT NULL,"	  /* the result set's own time */
    " recorded TEXT NOT NULL,"
    " command TEXT NOT NULL,"
    " profile TEXT,"
    " host TEXT,"
    " tool_version TEXT,"
    " stack_hash TEXT NOT NULL,"
    " workload_hash TEXT NOT NULL,"
    " fingerprint_hash TEXT NOT NULL,"
    " fingerprint TEXT NOT NULL," /* JSON object of the fields */
    " source TEXT,"
    " result_json TEXT NOT NULL);"
    "CREATE TABLE labels (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    " key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (run_id, key));"
    "CREATE TABLE metrics (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    " variant TEXT NOT NULL, rep INTEGER NOT NULL, spec TEXT NOT NULL, workload TEXT NOT NULL,"
    " metric TEXT NOT NULL, label TEXT, unit TEXT, better TEXT, headline INTEGER NOT NULL,"
    " value REAL);"
    "CREATE TABLE latency (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    " variant TEXT NOT NULL, rep INTEGER NOT NULL, spec TEXT NOT NULL, op TEXT NOT NULL,"
    " count INTEGER, p50_ms REAL, p99_ms REAL, max_ms REAL, json TEXT NOT NULL);",
    /* 2: the look-ups that history and report --history make. */
    "CREATE INDEX runs_match ON runs (stack_hash, workload_hash, fingerprint_hash, created);"
    "CREATE INDEX metrics_run ON metrics (run_id, variant, spec, metric);",
};

static int exec(sqlite3 *db, const char *sql, char **err)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	if (err && asprintf(err, "%s", msg ? msg : sqlite3_errmsg(db)) < 0)
		*err = NULL;
	sqlite3_free(msg);
	return -EPROTO;
}

int sb_history_migrate(sqlite3 *db, int from, char **err)
{
	char sql[160];

	if (from < 0)
		from = 0;
	if (from >= SB_HISTORY_SCHEMA)
		return 0;
	for (int v = from + 1; v <= SB_HISTORY_SCHEMA; v++) {
		/* The version is read again under the write lock: another writer
		 * may have migrated while this one waited. */
		if (exec(db, "BEGIN IMMEDIATE", err) < 0)
			return -EPROTO;
		sqlite3_stmt *st;
		int cur = -1;
		if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
		    sqlite3_step(st) == SQLITE_ROW)
			cur = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
		if (cur >= v) {
			exec(db, "COMMIT", NULL);
			continue;
		}
		snprintf(
		    sql, sizeof(sql),
		    "PRAGMA application_id = %d; PRAGMA user_version = %d;"
		    "INSERT INTO schema_version VALUES (%d, strftime('%%Y-%%m-%%dT%%H:%%M:%%SZ'));",
		    SB_HISTORY_APP_ID, v, v);
		if (cur != v - 1 || exec(db, migrations[v - 1], err) < 0 ||
		    exec(db, sql, err) < 0) {
			if (cur != v - 1 && err &&
			    asprintf(err, "schema version %d, expected %d", cur, v - 1) < 0)
				*err = NULL;
			exec(db, "ROLLBACK", NULL);
			return -EPROTO;
		}
		if (exec(db, "COMMIT", err) < 0)
			return -EPROTO;
	}
	return 0;
}
