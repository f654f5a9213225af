/* Internal to src/history/: statement helpers and the queries behind
 * `history` and `report --history`. */
#pragma once

#include "history/history.h"

#include <sqlite3.h>

struct sb_history {
	sqlite3 *db;
	char *path;
};

/* Binds text (NULL: SQL NULL) at i. */
int sb_hist_bind(sqlite3_stmt *st, int i, const char *s);
/* "sqlite: MSG" of the last error, allocated. */
char *sb_hist_errmsg(sqlite3 *db);

/* One run of report --history's candidates. */
struct sb_hist_run {
	int64_t id;
	char *created, *uuid, *fp_hash;
	json_object *fingerprint;
	char *text;
};
/* Runs with these hashes (fp NULL: any fingerprint), newest first, at most
 * max, the run whose uuid is `except` left out. Returns the count or -errno. */
int sb_hist_find(struct sb_history *h, const char *stack, const char *wl, const char *fp,
		 const char *except, size_t max, struct sb_hist_run **out);
void sb_hist_runs_free(struct sb_hist_run *r, size_t n);

/* Opens db read-only for report's option opt, saying why not on stderr:
 * 0, or the exit code (3 refused, 2 missing, 1 otherwise). */
int sb_hist_open_report(const char *db, const char *opt, struct sb_history **h);
