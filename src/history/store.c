/* Opening the history database safely, and recording and exporting runs.
 * A file is written to only after it proved to be ours and whole: its
 * header read by hand, then PRAGMAs and quick_check on a read-only
 * connection. A new file is made complete under a temporary name and
 * linked into place, so no other writer ever sees a half-made one. */
#include "history/history.h"
#include "history/store.h"
#include "result/result.h"
#include "util/macro.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *sb_history_default_path(void)
{
	const char *e = getenv("STACKBENCH_DB");
	return e && *e ? e : SB_HISTORY_DB_DEFAULT;
}

sqlite3 *sb_history_db(struct sb_history *h)
{
	return h->db;
}

const char *sb_history_path(const struct sb_history *h)
{
	return h->path;
}

static int fail(char **err, int r, const char *path, const char *fmt, const char *detail)
{
	if (err && asprintf(err, "%s: %s%s", path, fmt, detail ? detail : "") < 0)
		*err = NULL;
	return r;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The 100-byte SQLite header: magic, application_id (offset 68) and
 * user_version (offset 60), read without SQLite touching the file. */
static int check_header(const char *path, char **err)
{
	unsigned char hdr[100];
	char detail[160];
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return fail(err, -errno, path, "", strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return fail(err, -EPROTO, path, "refusing: not a regular file", NULL);
	n = pread(fd, hdr, sizeof(hdr), 0);
	if (n < (ssize_t)sizeof(hdr))
		return fail(err, -EPROTO, path,
			    "refusing: not a stackbench history database (too short for an SQLite "
			    "file; left as it is)",
			    NULL);
	if (memcmp(hdr, "SQLite format 3", 16) != 0)
		return fail(err, -EPROTO, path,
			    "refusing: not a stackbench history database (no SQLite header; "
			    "damaged or another kind of file, left as it is)",
			    NULL);
	if (be32(hdr + 68) != SB_HISTORY_APP_ID) {
		snprintf(detail, sizeof(detail), "0x%08x, expected 0x%08x; left as it is)",
			 be32(hdr + 68), SB_HISTORY_APP_ID);
		return fail(err, -EPROTO, path,
			    "refusing: an SQLite database of another program (application_id ",
			    detail);
	}
	if (be32(hdr + 60) > SB_HISTORY_SCHEMA) {
		snprintf(detail, sizeof(detail), "%u; this one knows up to %d)", be32(hdr + 60),
			 SB_HISTORY_SCHEMA);
		return fail(err, -EPROTO, path,
			    "refusing: written by a newer stackbench (schema version ", detail);
	}
	return 0;
}

static int pragma_int(sqlite3 *db, const char *sql, int *out)
{
	sqlite3_stmt *st;
	int r = -EPROTO;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW) {
		*out = sqlite3_column_int(st, 0);
		r = 0;
	}
	sqlite3_finalize(st);
	return r;
}

/* The first findings of quick_check (its heading line left out), or the
 * error that stopped it. */
static void damage_text(sqlite3 *db, sqlite3_stmt *st, char *buf, size_t len)
{
	size_t used = 0;
	int rows = 0;

	buf[0] = '\0';
	for (int s = SQLITE_ROW; st && s == SQLITE_ROW && rows < 2; s = sqlite3_step(st)) {
		const char *t = (const char *)sqlite3_column_text(st, 0);
		if (!t || strncmp(t, "*** in database", 15) == 0)
			continue;
		int w = snprintf(buf + used, len - used, "%s%s", rows ? "; " : "", t);
		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
		rows++;
	}
	if (!rows)
		snprintf(buf, len, "%s", sqlite3_errmsg(db));
}

/* On a read-only connection: our application_id, a known schema, and a
 * quick_check that finds nothing. Returns the schema version or -EPROTO. */
static int check_readonly(const char *path, char **err)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int app = 0, ver = -1, r;

	r = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW, NULL);
	if (r != SQLITE_OK) {
		r = fail(err, -EPROTO, path, "refusing: cannot be opened: ", sqlite3_errstr(r));
		goto out;
	}
	sqlite3_busy_timeout(db, SB_HISTORY_BUSY_MS);
	if (sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW ||
	    strcmp((const char *)sqlite3_column_text(st, 0), "ok") != 0) {
		char why[512];
		damage_text(db, st, why, sizeof(why));
		r = fail(err, -EPROTO, path,
			 "refusing: the database is damaged (left as it is): ", why);
		goto out;
	}
	if (pragma_int(db, "PRAGMA application_id", &app) < 0 ||
	    pragma_int(db, "PRAGMA user_version", &ver) < 0 || (uint32_t)app != SB_HISTORY_APP_ID ||
	    ver < 1 || ver > SB_HISTORY_SCHEMA) {
		r = fail(err, -EPROTO, path,
			 "refusing: not a stackbench history database of a known schema "
			 "(left as it is)",
			 NULL);
		goto out;
	}
	r = ver;
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return r;
}

/* A new database, complete with its schema under a temporary name, then
 * linked to path: if another writer made one first, link fails with EEXIST
 * and theirs is used. */
static int create_new(const char *path, char **err)
{
	_cleanup_free_ char *dir = strdup(path), *tmp = NULL;
	sqlite3 *db = NULL;
	int r;

	if (!dir || asprintf(&tmp, "%s.new-%d", path, (int)getpid()) < 0)
		return -ENOMEM;
	if (mkdir(dirname(dir), 0755) < 0 && errno != EEXIST)
		return fail(err, -errno, path, "cannot create its directory: ", strerror(errno));
	unlink(tmp);
	r = sqlite3_open_v2(
	    tmp, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW, NULL);
	if (r == SQLITE_OK) {
		char *why = NULL;
		if (sqlite3_exec(db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL) != SQLITE_OK ||
		    sb_history_migrate(db, 0, &why) < 0) {
			fail(err, -EPROTO, path, "cannot create: ", why ? why : sqlite3_errmsg(db));
			r = -1;
		}
		free(why);
	} else {
		fail(err, -EIO, path, "cannot create: ", sqlite3_errstr(r));
	}
	sqlite3_close(db);
	if (r == SQLITE_OK && link(tmp, path) < 0 && errno != EEXIST) {
		fail(err, -errno, path, "cannot create: ", strerror(errno));
		r = -1;
	}
	unlink(tmp);
	return r == SQLITE_OK ? 0 : -EIO;
}

int sb_history_open(const char *path, bool write, struct sb_history **out, char **err)
{
	struct sb_history *h;
	int r, ver;

	*out = NULL;
	if (access(path, F_OK) < 0 && errno == ENOENT) {
		if (!write)
			return fail(err, -ENOENT, path, "no history database yet", NULL);
		r = create_new(path, err);
		if (r < 0)
			return r;
	}
	r = check_header(path, err);
	if (r < 0)
		return r;
	ver = check_readonly(path, err);
	if (ver < 0)
		return ver;
	h = calloc(1, sizeof(*h));
	if (!h || !(h->path = strdup(path))) {
		free(h);
		return -ENOMEM;
	}
	r = sqlite3_open_v2(
	    path, &h->db,
	    (write ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_NOFOLLOW, NULL);
	if (r != SQLITE_OK) {
		fail(err, -EIO, path, "cannot open: ", sqlite3_errstr(r));
		sb_history_close(h);
		return -EIO;
	}
	sqlite3_busy_timeout(h->db, SB_HISTORY_BUSY_MS);
	sqlite3_exec(h->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
	if (write && ver < SB_HISTORY_SCHEMA) {
		char *why = NULL;
		r = sb_history_migrate(h->db, ver, &why);
		if (r < 0) {
			fail(err, r, path, "cannot migrate the schema: ", why);
			free(why);
			sb_history_close(h);
			return r;
		}
	}
	*out = h;
	return 0;
}

void sb_history_close(struct sb_history *h)
{
	if (!h)
		return;
	sqlite3_close(h->db);
	free(h->path);
	free(h);
}
