/* The run history: an SQLite database of every result set recorded by run,
 * bench and `history import` (doc/history.md). A file that is not ours, or
 * is damaged, is refused and never written to. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SB_HISTORY_DB_DEFAULT "/var/lib/stackbench/history.db"
/* PRAGMA application_id of our files: "SBH1". */
#define SB_HISTORY_APP_ID 0x53424831
/* How long a writer waits for another one's transaction (ms). */
#define SB_HISTORY_BUSY_MS 30000

struct sb_history;
struct sqlite3;

/* The database named by STACKBENCH_DB, else the default. */
const char *sb_history_default_path(void);

/* Opens PATH, read-only unless write (then it is created when missing,
 * and migrated to the current schema). Before anything is written the
 * file's header, application_id, schema version and integrity (PRAGMA
 * quick_check, on a read-only connection) are checked. Returns 0, -ENOENT
 * (read-only and missing), -EPROTO (foreign, damaged or too new: *err
 * says which), or -errno; *err names the file. */
int sb_history_open(const char *path, bool write, struct sb_history **out, char **err);
void sb_history_close(struct sb_history *h);
struct sqlite3 *sb_history_db(struct sb_history *h);
const char *sb_history_path(const struct sb_history *h);

/* Schema (schema.c): brings db to SB_HISTORY_SCHEMA, one transaction per
 * migration. 0 or -EPROTO with *err set. */
#define SB_HISTORY_SCHEMA 2
int sb_history_migrate(struct sqlite3 *db, int from, char **err);

/* What a recorded run carries besides its result set. */
struct sb_history_meta {
	const char *host;	   /* identity (a fleet's results/HOST/); NULL: the hostname */
	const char *const *labels; /* "KEY=VALUE" */
	size_t n_labels;
	const char *source; /* the directory it was imported from, or NULL */
};

/* Records one result set (its result.json text) in one transaction.
 * Returns the run id, and *dup when the same result set was already there
 * (nothing written); or -errno / -EINVAL with *err set. */
int64_t sb_history_record(struct sb_history *h, const char *text, const struct sb_history_meta *m,
			  bool *dup, char **err);
/* The result.json text of run id, allocated; -ENOENT when there is none. */
int sb_history_export(struct sb_history *h, int64_t id, char **text);

/* Fingerprints and hashes (fingerprint.c), all from a result set's JSON so
 * that an imported directory and a live run agree. */
/* The host fingerprint as a flat object of fields: host.cpu, host.ram_bytes,
 * host.kernel, devices[N].model, .serial, .firmware ... */
json_object *sb_fingerprint_of(json_object *result, const char *host);
/* SHA-256 of canonical JSON (keys sorted, no spaces). */
void sb_json_hash(json_object *o, char out[65]);
/* The stack hash: the profile's canonical plan (profile, each variant's
 * effective values but the workloads, loop/quick), or bench's target. */
void sb_stack_hash(json_object *result, char out[65]);
/* The workload hash: the specs run by each variant and the workload keys. */
void sb_workload_hash(json_object *result, char out[65]);
/* The fields in which two fingerprints differ, "host.kernel, devices[0].model",
 * allocated; NULL when none. */
char *sb_fingerprint_diff(json_object *a, json_object *b);

/* `report --history N` (baseline.c): the options it adds to report, and
 * the baseline result set built from the last N runs that match CURRENT
 * (same stack hash, workload hash and, unless any_host, fingerprint). */
struct sb_history_report {
	unsigned n;
	bool any_host;
	const char *db;
	const char *profile; /* --fleet from the database: this profile's runs */
	char *html;	     /* out: the trend charts of the current run and its history (an HTML
				fragment), set by sb_history_baseline; the caller frees it */
};
enum {
	SB_HISTORY_OPT_HISTORY = 0x4800,
	SB_HISTORY_OPT_ANY_HOST,
	SB_HISTORY_OPT_DB,
	SB_HISTORY_OPT_PROFILE
};
#define SB_HISTORY_REPORT_OPTS                                                                     \
	{"history", SB_HISTORY_OPT_HISTORY, "N",                                                   \
	 "compare with the last N runs in the history database of the same stack, workloads "      \
	 "and host fingerprint, pooled as the baseline set"},                                      \
	    {"any-host", SB_HISTORY_OPT_ANY_HOST, NULL,                                            \
	     "with --history: also runs with another host fingerprint (the fields that differ "    \
	     "are named)"},                                                                        \
	    {"db", SB_HISTORY_OPT_DB, "FILE",                                                      \
	     "history database (default " SB_HISTORY_DB_DEFAULT "): --history's runs, and with "   \
	     "--fleet and no RESULTS the latest run of each host"},                                \
	{                                                                                          \
		"profile", SB_HISTORY_OPT_PROFILE, "P",                                            \
		    "with --fleet and no RESULTS: each host's latest run of profile P (default: "  \
		    "the newest run's profile)"                                                    \
	}
/* 1 when key is one of those options (then *ret is the option's result). */
int sb_history_report_opt(struct sb_history_report *o, int key, const char *arg, int *ret);
struct sb_resultset;
/* Reads CURRENT, finds its history, builds the baseline. Reports once on
 * stderr; returns 0 or an exit code (2: no matching history, 3: only other
 * fingerprints, 1: the database). */
int sb_history_baseline(struct sb_history_report *o, const char *current,
			struct sb_resultset **out);
/* `report --fleet` without RESULTS (fleet.c): the latest run of each host
 * in the database (imported from a fleet's results/HOST/ under HOST), of
 * o->profile or else of the newest run's profile, one set per host named
 * after it, replacing *sets (allocated, NULL-terminated). Reports once on
 * stderr; returns 0 or an exit code (2: no such runs, 3: refused file). */
int sb_history_fleet(const struct sb_history_report *o, struct sb_resultset ***sets, size_t *n);

/* run and bench (record.c): --db FILE, --no-db, --label KEY=VALUE. */
struct sb_history_rec {
	const char *db;
	bool no_db;
	const char **labels;
	size_t n_labels;
};
enum { SB_HISTORY_OPT_REC_DB = 0x4810, SB_HISTORY_OPT_NO_DB, SB_HISTORY_OPT_LABEL };
#define SB_HISTORY_REC_OPTS                                                                        \
	{"db", SB_HISTORY_OPT_REC_DB, "FILE",                                                      \
	 "record the run in this history database (default " SB_HISTORY_DB_DEFAULT ")"},           \
	    {"no-db", SB_HISTORY_OPT_NO_DB, NULL,                                                  \
	     "do not record the run in the history database"},                                     \
	{                                                                                          \
		"label", SB_HISTORY_OPT_LABEL, "KEY=VALUE",                                        \
		    "a label recorded with the run in the history (repeatable), e.g. "             \
		    "commit=abc123"                                                                \
	}
/* 1 when key is one of those options (then *ret is its result: 0 or 2). */
int sb_history_rec_opt(struct sb_history_rec *o, const char *cmd, int key, const char *arg,
		       int *ret);
/* Records set in the database the options name, reporting on stderr.
 * Returns the exit code to combine with the command's: 0, or 1 when the
 * database was named (--db, STACKBENCH_DB) and the run could not be
 * recorded; the default one only warns. Frees the labels. */
int sb_history_record_set(struct sb_history_rec *o, const struct sb_resultset *set);
