/* The stack engine: a plan is a list of steps; the executor runs them (or,
 * in dry-run mode, prints them through the same code), journals each one,
 * and undoes them in reverse from the journal alone. One layer file per step
 * kind fills one struct sb_layer. */
#pragma once

#include "profile/profile.h"

#include <json-c/json.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

enum sb_step_kind {
	SB_STEP_LOOP,
	SB_STEP_QUEUE,
	SB_STEP_PART,
	SB_STEP_MD,
	SB_STEP_PV,
	SB_STEP_VG,
	SB_STEP_LV,
	SB_STEP_MKFS,
	SB_STEP_MOUNT,
	SB_STEP_KIND_N,
};

/* Arguments are a JSON object of strings and string arrays; "${name}" in a
 * string is replaced by a variable (a device created by an earlier step, the
 * run directory "run", the run id "id") before the step runs. */
struct sb_step {
	enum sb_step_kind kind;
	json_object *args;
};

struct sb_plan {
	struct sb_step *steps;
	size_t n;
	char *mountpoint; /* "${run}/mnt" */
};

struct sb_exec;

struct sb_layer {
	const char *kind; /* journal and plan name: "loop", "mdadm-create" ... */
	/* Real runs only, before the begin record: choose names (a free md
	 * minor), remember old values (scheduler). May add to args and vars. */
	int (*prepare)(json_object *args, struct sb_exec *x);
	/* The command(s) a user would type for the step and for its undo. */
	int (*describe)(json_object *args, char **what, char **undo);
	/* Dry-run: set the variables the step would set when they can be known
	 * without running it (partition names of a known disk). */
	void (*predict)(json_object *args, struct sb_exec *x);
	/* Does the work; fills result (its "vars" object sets variables). */
	int (*run)(json_object *args, json_object *result, struct sb_exec *x);
	/* Idempotent undo; result is NULL when the step began but never finished. */
	int (*undo)(json_object *args, json_object *result, struct sb_exec *x);
	/* String arguments undo relies on; a journal record without them (a
	 * damaged file) is refused before any layer code sees it. */
	const char *required[4];
};

extern const struct sb_layer sb_layer_loop, sb_layer_queue, sb_layer_part, sb_layer_md, sb_layer_pv,
    sb_layer_vg, sb_layer_lv, sb_layer_mkfs, sb_layer_mount;
const struct sb_layer *sb_layer_get(enum sb_step_kind k);
const struct sb_layer *sb_layer_by_name(const char *kind);

struct sb_journal;

struct sb_exec {
	bool dry_run;
	FILE *out;  /* dry-run listing */
	int log_fd; /* run.log, or -1 */
	struct sb_journal *j;
	volatile sig_atomic_t *stop;
	unsigned fail_step;  /* STACKBENCH_FAIL_STEP */
	json_object *vars;   /* name -> string */
	char *errmsg;	     /* why the last step or undo failed */
	unsigned steps_done; /* began, for the report */
	unsigned undo_failed;
	bool udev; /* udevd runs: let it create nodes */
};

/* ---- exec.c ---- */
void sb_exec_init(struct sb_exec *x);
void sb_exec_release(struct sb_exec *x);
/* "${run}/mnt" with the variables filled in (malloc'ed). */
char *sb_exec_expand(struct sb_exec *x, const char *s);
void sb_exec_set_var(struct sb_exec *x, const char *name, const char *value);
const char *sb_exec_var(struct sb_exec *x, const char *name);
/* Runs (or lists) every step. Returns 0 or -errno with x->errmsg set. */
int sb_exec_plan(struct sb_exec *x, const struct sb_plan *p);
/* Undoes every step that began according to the journal at path, newest
 * first; removes the journal when every undo succeeded. Returns 0 or the
 * first error (x->errmsg says which step). */
int sb_exec_undo_journal(struct sb_exec *x, const char *journal_path);
/* Sets x->errmsg (printf-style); returns r. */
int sb_exec_fail(struct sb_exec *x, int r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Runs an external program, its output appended to the run log; a non-zero
 * exit becomes -EIO with x->errmsg holding the last line of its stderr. */
int sb_exec_cmd(struct sb_exec *x, const char *const *argv);
/* Same, but failure is not an error (undo of what is already gone). */
int sb_exec_cmd_quiet(struct sb_exec *x, const char *const *argv, int *status);
/* The Debian package that provides an external program, or NULL. */
const char *sb_program_package(const char *prog);
void sb_exec_log(struct sb_exec *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* JSON helpers for layers. */
const char *sb_arg_str(json_object *args, const char *key);
size_t sb_arg_len(json_object *args, const char *key);
const char *sb_arg_idx(json_object *args, const char *key, size_t i);
void sb_arg_set(json_object *o, const char *key, const char *value);
void sb_result_var(json_object *result, const char *name, const char *value);
/* "--flag" plus argv building: a growable NULL-terminated vector. */
struct sb_vec {
	char **v;
	size_t n;
};
void sb_vec_add(struct sb_vec *s, const char *str);
void sb_vec_addf(struct sb_vec *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vec_free(struct sb_vec *s);
/* Renders argv for plans ("mdadm --create ..."). */
char *sb_vec_format(const struct sb_vec *s);

/* ---- journal.c ---- */
struct sb_jrec {
	unsigned step;
	char *kind;
	json_object *args;
	json_object *result; /* NULL: began, not done */
};
struct sb_jread {
	char *run_id;
	long pid;
	struct sb_jrec *rec;
	size_t n;
	unsigned torn; /* half-written or unreadable records skipped */
};
int sb_journal_open(const char *path, const char *run_id, struct sb_journal **out);
int sb_journal_begin(struct sb_journal *j, unsigned step, const char *kind, json_object *args);
int sb_journal_done(struct sb_journal *j, unsigned step, json_object *result);
void sb_journal_close(struct sb_journal *j);
/* Pure parser of a journal's bytes (a torn last line is tolerated). */
int sb_journal_parse(const char *text, size_t len, struct sb_jread *out);
int sb_journal_read(const char *path, struct sb_jread *out);
void sb_jread_free(struct sb_jread *r);

/* ---- plan.c (pure) ---- */
struct sb_plan_in {
	bool loop;
	bool quick;
	/* !loop: device paths in slot order (see sb_plan_slots). */
	const char *const *devs;
	size_t n_devs;
};
struct sb_slot {
	enum sb_role role;
	char name[16]; /* "ssd", "hdd1", "hdd2": also the variable's name */
};
/* The device slots a config needs, in role order. */
int sb_plan_slots(const struct sb_config *c, struct sb_slot **out, size_t *n);
int sb_plan_build(const struct sb_config *c, const struct sb_plan_in *in, struct sb_plan *out,
		  char **err);
void sb_plan_free(struct sb_plan *p);
/* Every external program the plan runs (for the check at start and the
 * versions in result.json), NULL-terminated, static strings. */
int sb_plan_programs(const struct sb_plan *p, const char **out, size_t max);

/* ---- devnode.c ---- */
/* Waits until /sys/class/block/NAME exists and its /dev node is there,
 * creating the node from sysfs when no udevd does. */
int sb_wait_node(const char *devpath, unsigned timeout_ms, bool udev);
bool sb_udev_running(void);
/* Name in /sys/class/block for a /dev path (resolving symlinks), or NULL. */
char *sb_sys_name(const char *devpath);
int sb_sys_read(const char *path, char *buf, size_t len);
int sb_sys_write(const char *path, const char *value);

/* ---- wipe.c (libblkid) ---- */
/* Erases every signature libblkid finds on dev (like wipefs -a). Returns the
 * number erased or -errno; a device that does not exist is 0. */
int sb_wipe_signatures(const char *dev);

/* ---- dm.c (libdevmapper) ---- */
/* Removes device-mapper devices whose name starts with prefix (leftover LVs
 * of a run). Returns the number removed, 0 when dm is unavailable. */
int sb_dm_remove_prefix(const char *prefix, char ***names);
