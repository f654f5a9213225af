/* The history's pure parts (src/history/fingerprint.c, schema.c): which
 * fields of a result set make its fingerprint and hashes, and what they
 * ignore (table-driven); the migrations from every older version. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "history/history.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const char base[] =
    "{\"format\":\"stackbench-result\",\"version\":2,\"command\":\"run\","
    "\"created\":\"2026-11-01T00:00:00Z\","
    "\"host\":{\"hostname\":\"h\",\"kernel\":\"6.1\",\"cpu\":\"C\",\"ram_bytes\":4096},"
    "\"devices\":[{\"path\":\"/dev/loop3\",\"model\":\"M\",\"serial\":\"S1\",\"size\":100}],"
    "\"profile\":{\"name\":\"p\",\"path\":\"a.conf\",\"values\":{\"fs.type\":\"ext4\","
    "\"workloads.run\":[\"seq\"]},\"variants\":[{\"name\":\"v\",\"values\":{\"fs.type\":\"ext4\","
    "\"workloads.run\":[\"seq\"]}}],\"schedule\":{\"seed\":1}},"
    "\"variants\":[{\"name\":\"v\",\"repeats\":[{\"workloads\":[{\"spec\":\"seq\"}]}]}]}";

/* jq-like edits: path of objects then key, and the new JSON value. */
static json_object *edited(const char *p1, const char *p2, const char *key, const char *val)
{
	json_object *o = json_tokener_parse(base), *at = o;
	if (p1)
		at = json_object_object_get(at, p1);
	if (p2)
		at = strcmp(p2, "0") == 0 ? json_object_array_get_idx(at, 0)
					  : json_object_object_get(at, p2);
	json_object_object_add(at, key, json_tokener_parse(val));
	return o;
}

static void test_hashes(void **state)
{
	static const struct {
		const char *what, *p1, *p2, *key, *val;
		bool fp, stack, wl; /* which of the three change */
		const char *diff;
	} cases[] = {
	    {"kernel", "host", NULL, "kernel", "\"6.9\"", true, false, false, "host.kernel"},
	    {"device serial", "devices", "0", "serial", "\"S2\"", true, false, false,
	     "devices[0].serial"},
	    {"firmware added", "devices", "0", "firmware", "\"F1\"", true, false, false,
	     "devices[0].firmware"},
	    {"device node only", "devices", "0", "path", "\"/dev/loop7\"", false, false, false,
	     NULL},
	    {"created", NULL, NULL, "created", "\"2026-12-01T00:00:00Z\"", false, false, false,
	     NULL},
	    {"profile file", "profile", NULL, "path", "\"b.conf\"", false, false, false, NULL},
	    {"seed", "profile", NULL, "schedule", "{\"seed\":2}", false, false, false, NULL},
	    {"mkfs type", "profile", NULL, "variants",
	     "[{\"name\":\"v\",\"values\":{\"fs.type\":\"xfs\",\"workloads.run\":[\"seq\"]}}]",
	     false, true, false, NULL},
	    {"workload keys", "profile", NULL, "values",
	     "{\"fs.type\":\"ext4\",\"workloads.run\":[\"meta\"]}", false, false, true, NULL},
	    {"specs run", NULL, NULL, "variants",
	     "[{\"name\":\"v\",\"repeats\":[{\"workloads\":[{\"spec\":\"meta\"}]}]}]", false, false,
	     true, NULL},
	};
	json_object *b = json_tokener_parse(base), *bfp = sb_fingerprint_of(b, NULL);
	char h0[3][65], h1[3][65];

	sb_json_hash(bfp, h0[0]);
	sb_stack_hash(b, h0[1]);
	sb_workload_hash(b, h0[2]);
	for (size_t c = 0; c < N_OF(cases); c++) {
		json_object *o = edited(cases[c].p1, cases[c].p2, cases[c].key, cases[c].val);
		json_object *fp = sb_fingerprint_of(o, NULL);
		char *d = sb_fingerprint_diff(bfp, fp);
		sb_json_hash(fp, h1[0]);
		sb_stack_hash(o, h1[1]);
		sb_workload_hash(o, h1[2]);
		bool ch[3] = {cases[c].fp, cases[c].stack, cases[c].wl};
		for (int k = 0; k < 3; k++)
			if ((strcmp(h0[k], h1[k]) != 0) != ch[k])
				fail_msg("%s: hash %d %s", cases[c].what, k,
					 ch[k] ? "unchanged" : "changed");
		if ((d == NULL) != (cases[c].diff == NULL) || (d && strcmp(d, cases[c].diff) != 0))
			fail_msg("%s: diff '%s', want '%s'", cases[c].what, d ? d : "(none)",
				 cases[c].diff ? cases[c].diff : "(none)");
		free(d);
		json_object_put(fp);
		json_object_put(o);
	}
	/* A fleet host's name is its identity. */
	json_object *named = sb_fingerprint_of(b, "h1");
	char *d = sb_fingerprint_diff(bfp, named);
	assert_string_equal(d, "host.name");
	free(d);
	json_object_put(named);
	json_object_put(bfp);
	json_object_put(b);
}

static int one_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int v = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* A new database gets every migration; a version 1 database (made by
 * undoing migration 2 by hand, as stackbench 1 left it) gets migration 2. */
static void test_migrations(void **state)
{
	sqlite3 *db;
	char *err = NULL;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sb_history_migrate(db, 0, &err), 0);
	assert_int_equal(one_int(db, "PRAGMA user_version"), SB_HISTORY_SCHEMA);
	assert_int_equal(one_int(db, "PRAGMA application_id"), SB_HISTORY_APP_ID);
	assert_int_equal(one_int(db, "SELECT count(*) FROM schema_version"), SB_HISTORY_SCHEMA);
	assert_int_equal(sqlite3_exec(db,
				      "DROP INDEX runs_match; DROP INDEX metrics_run;"
				      "DELETE FROM schema_version WHERE version = 2;"
				      "PRAGMA user_version = 1",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(sb_history_migrate(db, 1, &err), 0);
	assert_int_equal(one_int(db, "PRAGMA user_version"), 2);
	assert_int_equal(
	    one_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'runs_match'"), 1);
	assert_int_equal(one_int(db, "SELECT max(version) FROM schema_version"), 2);
	/* Current already: nothing to do. */
	assert_int_equal(sb_history_migrate(db, SB_HISTORY_SCHEMA, &err), 0);
	sqlite3_close(db);

	/* A database claiming an unknown older state is refused, not patched. */
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 1", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sb_history_migrate(db, 0, &err), -EPROTO);
	assert_non_null(err);
	free(err);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hashes),
	    cmocka_unit_test(test_migrations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
