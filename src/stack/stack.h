/* The stack engine: a plan is a list of steps; the executor runs them (or,
 * in dry-run mode, prints them through the same code), journals each one,
 * and undoes them in reverse from the journal alone. One layer file per step
 * kind fills one struct sb_layer: a typed argument struct described by one
 * field table, which is also the step's journal record. */
#pragma once

#include "profile/profile.h"
#include "util/argv.h"

#include <json-c/json.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The registry order (exec.c's table): adding a layer is one file, one
 * value here and one row there. */
enum sb_step_kind {
	SB_STEP_LOOP,
	SB_STEP_QUEUE,
	SB_STEP_PRECOND,
	SB_STEP_PART,
	SB_STEP_MD,
	SB_STEP_BCACHE,
	SB_STEP_PV,
	SB_STEP_VG,
	SB_STEP_LV,
	SB_STEP_LVC_VGEXTEND, /* lvmcache.c: the cache PV joins the VG */
	SB_STEP_LVC_LV,	      /* lvmcache.c: the cachevol */
	SB_STEP_LVC_CONVERT,  /* lvmcache.c: lvconvert --type cache|writecache */
	SB_STEP_MKFS,
	SB_STEP_MOUNT,
	SB_STEP_MEMCG,
	SB_STEP_SCEN, /* scenario.c: degrade, rebuild */
	SB_STEP_KIND_N,
};

/* ---- field tables (field.c) ---- */

/* A growable list of strings (devices, mkfs words). */
struct sb_list {
	char **v;
	size_t n;
};
void sb_list_add(struct sb_list *s, const char *str);
void sb_list_free(struct sb_list *s);

enum sb_ftype {
	SB_FT_STR,  /* char * */
	SB_FT_PATH, /* char *: a file or directory that must lie inside the run directory */
	SB_FT_DEV,  /* char *: a block device the step acts on */
	SB_FT_U64,  /* uint64_t */
	SB_FT_BOOL, /* bool */
	SB_FT_STRV, /* struct sb_list */
	SB_FT_DEVV, /* struct sb_list of block devices */
};

enum {
	SB_FF_REQUIRED = 1 << 0, /* undo cannot work without it: a record lacking it is damaged */
	SB_FF_WRITES = 1 << 1,	 /* DEV/DEVV: the step writes it (exclusive-open proof first) */
	SB_FF_IDENT = 1 << 2,	 /* DEV/DEVV: its identity is journaled and re-checked by undo */
	SB_FF_OPTIONAL = 1 << 3, /* STR: NULL is left out of the record */
};

struct sb_field {
	const char *name; /* key in the journal record */
	enum sb_ftype type;
	size_t off; /* offsetof in the layer's argument struct */
	unsigned flags;
};

#define SB_FIELD(st, member, type, flags)                                                          \
	{                                                                                          \
#member, type, offsetof(st, member), flags                                         \
	}

/* The record of args (never NULL). */
json_object *sb_fields_to_json(const struct sb_field *f, size_t n, const void *args);
/* Fills args (zeroed by the caller) from a record: every type checked, every
 * required field present. On error -EINVAL and *err names the field. */
int sb_fields_from_json(const struct sb_field *f, size_t n, void *args, json_object *o, char **err);
void sb_fields_free(const struct sb_field *f, size_t n, void *args);
/* Replaces "${name}" in every string field with vars' value (unknown names
 * stay as written, for dry-run listings). */
int sb_fields_subst(const struct sb_field *f, size_t n, void *args, json_object *vars);
/* Every PATH field lies inside dir (no "..", no "." or empty components).
 * On error -EPERM and *err says which path. */
int sb_fields_check_paths(const struct sb_field *f, size_t n, const void *args, const char *dir,
			  char **err);
/* Calls fn for every DEV/DEVV string with any of the flags given. */
void sb_fields_each_dev(const struct sb_field *f, size_t n, const void *args, unsigned flags,
			void (*fn)(const char *dev, void *ud), void *ud);
/* Every DEV/DEVV string (whatever its flags) that map() gives another name
 * for (non-NULL, different) is replaced by that name. 0 or -ENOMEM. */
int sb_fields_map_dev(const struct sb_field *f, size_t n, void *args,
		      const char *(*map)(const char *dev, void *ud), void *ud);
/* "${name}" filled in from vars (malloc'ed). */
char *sb_subst(const char *s, json_object *vars);
/* Is path lexically inside dir? */
bool sb_path_inside(const char *path, const char *dir);

/* ---- layers ---- */

struct sb_exec;
struct sb_pctx;
struct sb_capture;
struct sb_layer_counters;

struct sb_prog {
	const char *prog, *package; /* "mdadm", "mdadm" */
};

/* A layer's typed answer about the array it makes in a variant (md, btrfs
 * RAID; LVM's volume group too, which has no redundancy), for the
 * scenario: the lowest layer that answers is the array a member is taken
 * out of (stack/scenario_check.c). */
struct sb_redundancy {
	unsigned may_fail;	 /* members that may go with the data intact */
	const char *why;	 /* may_fail 0: why none may (static text) */
	const char *kind;	 /* the scenario step's kind: "md" or "btrfs" */
	unsigned max_units;	 /* of the units it takes, the first this many (0: all) */
	enum sb_step_kind after; /* the step after which a member can go */
};

/* What undo hooks return besides 0 and -errno. */
#define SB_GONE 1 /* the object is not there any more: nothing to undo */

struct sb_layer {
	const char *kind; /* journal and plan name: "loop", "mdadm-create" ... */
	size_t args_size;
	const struct sb_field *fields;
	size_t n_fields;
	/* Every external program the layer may run, with its Debian package,
	 * terminated by {NULL} ("not found" messages, result.json versions). */
	const struct sb_prog *progs;
	/* The ones this step runs, when that depends on its arguments
	 * (mkfs.TYPE); NULL: all of progs. */
	const struct sb_prog *(*programs)(const void *args);
	/* Kernel support (md driver, device-mapper, an I/O scheduler): NULL
	 * when fine, else a message that lives until the next call. Reads
	 * /proc and /sys only, so it runs before anything is touched. */
	const char *(*preflight)(const void *args);
	/* Real runs only, before the begin record: choose names, remember old
	 * values (scheduler). May change args and set variables. */
	int (*prepare)(void *args, struct sb_exec *x);
	/* The command(s) a user would type for the step and for its undo. */
	int (*describe)(const void *args, char **what, char **undo);
	/* Dry-run: set the variables the step would set when they can be known
	 * without running it (partition names of a known disk). */
	void (*predict)(const void *args, struct sb_exec *x);
	/* Does the work; fills result (its "vars" object sets variables) with
	 * the identity of what it made (UUIDs, device numbers). */
	int (*run)(void *args, json_object *result, struct sb_exec *x);
	/* Before undo: is what the journal says this step made still the very
	 * object (its UUID)? 0 yes, SB_GONE, or -ESTALE with x->errmsg saying
	 * what differs. result is NULL when the step began but never finished. */
	int (*check)(const void *args, json_object *result, struct sb_exec *x);
	/* Idempotent undo; result is NULL when the step began but never finished. */
	int (*undo)(const void *args, json_object *result, struct sb_exec *x);
	unsigned flags; /* SB_LF_* */

	/* ---- the layer's profile facts (NULL for a step with none) ---- */
	/* Its section, key table (offsetof into its typed config) and
	 * validate(): registered with the profile through this row. */
	const struct sb_keytab *keytab;
	/* Is the layer in this variant? The devices' units it selects when it
	 * takes them from the devices (md.members), or NULL when it is off.
	 * The lowest layer that is on decides which devices the plan uses. */
	const struct sb_sel *(*takes)(const void *cfg);
	/* The role whose one device the layer takes whole for itself, kept
	 * out of the units (fs.log), or -1. */
	int (*aside)(const void *cfg);
	/* Its steps, in stack order: b's units in (those of the layers below),
	 * the units it makes out. cfg is its typed config (NULL for a layer
	 * without keys). 0 or -errno (b->errmsg says why). */
	int (*plan)(const void *cfg, struct sb_pctx *b);
	/* A layer that splits devices: how many units a whole device of role r
	 * becomes (0: it stays whole), and the size such a device needs for
	 * each of its units to hold need bytes (--loop images). */
	unsigned (*splits)(const void *cfg, enum sb_role r);
	/* A step on each whole device as soon as it is there, before anything
	 * is built on it (precondition). */
	void (*device)(const void *cfg, struct sb_pctx *b, enum sb_role r, const char *var);
	uint64_t (*fit)(const void *cfg, enum sb_role r, uint64_t need);
	/* The array it makes in this variant (*out filled, 0), or -1 when it
	 * makes none (off, or a file system without RAID). */
	int (*redundancy)(const void *cfg, struct sb_redundancy *out);
	/* Steps of its own right after another layer's (done: that layer's
	 * kind), called after each layer's plan: the scenario's degrade
	 * after the array, its rebuild after the mount. */
	void (*follow)(const void *cfg, struct sb_pctx *b, enum sb_step_kind done);
	/* Its reading of the effective state of its devices, for result.json
	 * (stack/capture.h). */
	const struct sb_capture *capture;
	/* Its own counters per phase (cache hits, promotions), read from its
	 * devices around each workload phase (stack/counters.h). */
	const struct sb_layer_counters *counters;
};

enum {
	SB_LF_CREATES_DEV = 1 << 0, /* udev handled its devices after it runs */
};

extern const struct sb_layer sb_layer_loop, sb_layer_queue, sb_layer_part, sb_layer_md, sb_layer_pv,
    sb_layer_vg, sb_layer_lv, sb_layer_lvc_vgextend, sb_layer_lvc_lv, sb_layer_lvc_convert,
    sb_layer_mkfs, sb_layer_mount, sb_layer_precond, sb_layer_memcg, sb_layer_bcache;
const struct sb_layer *sb_layer_get(enum sb_step_kind k);
const struct sb_layer *sb_layer_by_name(const char *kind);
/* Arguments of a layer: a zeroed struct of args_size, and its release. */
void *sb_layer_args_new(const struct sb_layer *l);
void sb_layer_args_free(const struct sb_layer *l, void *args);

/* A step: its layer and its typed arguments (strings may hold "${var}"). */
struct sb_step {
	enum sb_step_kind kind;
	void *args;
};

struct sb_plan {
	struct sb_step *steps;
	size_t n;
	char *mountpoint; /* "${run}/mnt" */
};

struct sb_journal;

struct sb_exec {
	bool dry_run;
	FILE *out;  /* dry-run listing */
	int log_fd; /* run.log, or -1 */
	struct sb_journal *j;
	volatile sig_atomic_t *stop;
	unsigned fail_step;  /* STACKBENCH_FAIL_STEP */
	unsigned kill_step;  /* STACKBENCH_KILL_STEP: SIGKILL once step N has run, before its
				"done" record (a power cut's journal) */
	json_object *vars;   /* name -> string */
	char *errmsg;	     /* why the last step or undo failed */
	unsigned steps_done; /* began, for the report */
	/* Added to the step numbers in the journal: stacks built side by side
	 * share one journal, each its own numbers (0: the only stack). */
	unsigned step_base;
	unsigned undo_failed;
	/* Undo: objects left alone because their identity differs from the
	 * journal's (each said in run.log and in errmsg). */
	unsigned undo_mismatch;
	/* Undo: steps undone, and steps whose objects were already gone
	 * (skipped: they count as undone), for teardown's report. */
	unsigned undo_done, undo_gone;
	/* The step failed because a safety check refused (a device held open
	 * exclusively by another program, a loop directory on tmpfs): exit 3. */
	bool refused;
	bool udev;	     /* udevd runs: let it create nodes */
	const char *run_dir; /* undo: the journal's directory (set by sb_exec_undo_journal) */
	/* Side by side under --loop, from round to round: a loop step attaches
	 * the image an earlier round kept (else it makes one, allocated in
	 * full), and an undo detaches the image but keeps it, the journal then
	 * holding only the kept images' records (so that teardown still removes
	 * them after a kill between rounds). */
	bool keep_images;
};

/* ---- exec.c, exec_run.c, exec_undo.c ---- */
void sb_exec_init(struct sb_exec *x);
void sb_exec_release(struct sb_exec *x);
/* "${run}/mnt" with the variables filled in (malloc'ed). */
char *sb_exec_expand(struct sb_exec *x, const char *s);
void sb_exec_set_var(struct sb_exec *x, const char *name, const char *value);
const char *sb_exec_var(struct sb_exec *x, const char *name);
/* Runs (or lists) every step. Returns 0 or -errno with x->errmsg set
 * (x->refused when a safety check said no). */
int sb_exec_plan(struct sb_exec *x, const struct sb_plan *p);
/* Undoes every step that began according to the journal at path, newest
 * first; removes the journal when every undo succeeded. A journal with a
 * damaged record, or a path outside its directory, is refused before
 * anything is touched (-EBADMSG / -EPERM). An object whose identity differs
 * from the journal's is left alone and the undo goes on; the journal is
 * then kept and -ESTALE returned. Returns 0 or the first error (x->errmsg
 * says which step and what). */
int sb_exec_undo_journal(struct sb_exec *x, const char *journal_path);
/* Sets x->errmsg (printf-style); returns r. */
int sb_exec_fail(struct sb_exec *x, int r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Runs an external program, its output appended to the run log; a non-zero
 * exit becomes -EIO with x->errmsg holding the last line of its stderr. */
int sb_exec_cmd(struct sb_exec *x, const char *const *argv);
/* Same, but failure is not an error (undo of what is already gone). */
int sb_exec_cmd_quiet(struct sb_exec *x, const char *const *argv, int *status);
/* Same as sb_exec_cmd_quiet, stdout returned (malloc'ed) in *out. */
int sb_exec_cmd_output(struct sb_exec *x, const char *const *argv, int *status, char **out);
/* The Debian package that provides an external program (from the layers'
 * program lists), or NULL. */
const char *sb_program_package(const char *prog);
void sb_exec_log(struct sb_exec *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_result_var(json_object *result, const char *name, const char *value);
const char *sb_json_str(json_object *o, const char *key);
int64_t sb_json_i64(json_object *o, const char *key, int64_t def);

/* ---- journal.c ---- */
struct sb_jrec {
	unsigned step;
	char *kind;
	json_object *args;
	json_object *ident;  /* path -> identity of the devices it acted on (or NULL) */
	json_object *result; /* NULL: began, not done */
};
struct sb_jread {
	char *run_id;
	long pid;
	struct sb_jrec *rec;
	size_t n;
	unsigned torn;	   /* a half-written or unreadable LAST line skipped (0 or 1) */
	unsigned bad_line; /* -EBADMSG: the line that is damaged (1-based) */
};
int sb_journal_open(const char *path, const char *run_id, struct sb_journal **out);
/* The journal an earlier round left with its kept images' records, opened
 * to append the next round's (no new header). */
int sb_journal_reopen(const char *path, struct sb_journal **out);
/* Replaces the journal at path (atomically: a new file renamed over it)
 * with a header for run_id and the records rec[0..n-1], begun and done,
 * numbered from SB_JOURNAL_KEPT_STEP up: what an undo kept. */
#define SB_JOURNAL_KEPT_STEP 1000000u
int sb_journal_rewrite(const char *path, const char *run_id, const struct sb_jrec *const *rec,
		       size_t n);
int sb_journal_begin(struct sb_journal *j, unsigned step, const char *kind, json_object *args,
		     json_object *ident);
int sb_journal_done(struct sb_journal *j, unsigned step, json_object *result);
void sb_journal_close(struct sb_journal *j);
/* Pure parser of a journal's bytes. A torn or unreadable line is tolerated
 * only as the last one (a crash while writing it); one in the middle is
 * -EBADMSG with out->bad_line set, and out holds nothing. */
int sb_journal_parse(const char *text, size_t len, struct sb_jread *out);
int sb_journal_read(const char *path, struct sb_jread *out);
void sb_jread_free(struct sb_jread *r);

/* fs.c: the file systems stackbench makes. */
enum sb_fs_type { SB_FS_EXT2, SB_FS_EXT3, SB_FS_EXT4, SB_FS_XFS, SB_FS_BTRFS, SB_FS_N };
extern const char *const sb_fs_names[SB_FS_N];

/* ---- plan.c (pure) ---- */
#define SB_LOOP_DIR_DEFAULT "/var/tmp/stackbench"
/* loop.c: the bytes p's loop images take when full (0: p makes none), and
 * the loop directory they go in (its per-run directory stripped) in dir. */
uint64_t sb_loop_plan_bytes(const struct sb_plan *p, char *dir, size_t len);
struct sb_plan_in {
	bool loop;
	bool quick;
	/* !loop: device paths in slot order (see sb_plan_slots). */
	const char *const *devs;
	size_t n_devs;
	/* --loop: where the backing files go (NULL: $STACKBENCH_LOOP_DIR or
	 * SB_LOOP_DIR_DEFAULT), in a directory per run. */
	const char *loop_dir;
	/* The user named loop_dir on purpose (--loop-dir): a tmpfs there is
	 * accepted with a warning instead of refused. */
	bool loop_dir_forced;
	/* --loop without --quick: the largest data set of the variant's
	 * workloads (sb_workload_data_bytes), 0 if none; an image whose size
	 * the profile does not give is made big enough for it. */
	uint64_t data_bytes;
	/* --cap-cache: the workloads' memory cgroup limit (0: none), made as
	 * the plan's last step (stack/cgroup.c). */
	uint64_t cap_bytes;
	/* --loop, variants side by side: each stack's images are kept from
	 * round to round (allocated in full once, so that their placement on
	 * the backing file system stays), and nothing above may discard them
	 * (mkfs without discard). */
	bool keep_images;
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
/* Everything the plan needs that is missing here (programs, with the
 * Debian package to install; kernel support), one message each
 * (malloc'ed, NULL-terminated in *msgs). Returns how many. */
int sb_plan_check(const struct sb_plan *p, char ***msgs);

/* ---- ident.c: who a device is ---- */
/* {"rdev": "7:3", "size": N, "wwid"/"serial": ..., "loop": {"file", "dev",
 * "ino"}, "part": {"disk", "start"}, "md_uuid", "dm_uuid"}; NULL when the
 * device does not exist. x may be NULL (no md UUID then). */
json_object *sb_ident_capture(const char *dev, struct sb_exec *x);
/* 0: the same device; SB_GONE: not there any more (or an unbacked loop);
 * -ESTALE: another device, *why says what differs ("backing file inode 1234
 * != journaled 987"). */
int sb_ident_check(const char *dev, json_object *want, struct sb_exec *x, char **why);
/* Where the device journaled at `was` (identity want) is now, after a
 * reboot or re-plug gave it another name: a whole disk by its WWID or
 * serial and size, never by size or name alone; a partition by the new name
 * of its disk (disk_now, a basename such as "sdd") and its start. NULL when
 * no device or more than one has it (*n: how many), or want names no disk
 * (a loop device, an md or dm device: those are found by their own keys). */
char *sb_ident_find(const char *was, json_object *want, const char *disk_now, struct sb_exec *x,
		    unsigned *n);
/* want as it reads under a device's new name: without the device number
 * (the one thing a new name changes) and, for a partition, with its disk's
 * new name (disk_now, or NULL to keep it). A new reference. */
json_object *sb_ident_moved(json_object *want, const char *disk_now);

/* ---- devnode.c ---- */
/* Waits until /sys/class/block/NAME exists and its /dev node is there,
 * creating the node from sysfs when no udevd does; with udevd, until udevd
 * handled the device (unless it defers the device's events). */
int sb_wait_node(const char *devpath, unsigned timeout_ms, bool udev);
bool sb_udev_running(void);
/* Like `udevadm settle`. */
void sb_udev_settle(unsigned timeout_ms);
/* Whether udevd defers devpath's events: this process holds its whole
 * disk's flock (the run's device lock). */
bool sb_udev_defers(const char *devpath);
/* sb_udev_settle, unless udevd defers dev's events (it would not drain
 * before the run ends). Returns whether it deferred. */
bool sb_udev_settle_for(const char *dev, unsigned timeout_ms);
/* Waits until udevd handled devpath (a node or a link to one), unless it
 * defers its events: that device's, not the whole queue. */
void sb_udev_wait_dev(const char *devpath, unsigned timeout_ms);
/* Name in /sys/class/block for a /dev path (resolving symlinks), or NULL. */
char *sb_sys_name(const char *devpath);
int sb_sys_read(const char *path, char *buf, size_t len);
int sb_sys_write(const char *path, const char *value);

/* ---- wipe.c (libblkid) ---- */
/* Erases every signature libblkid finds on dev (like wipefs -a). Returns the
 * number erased or -errno; a device that does not exist is 0. */
int sb_wipe_signatures(const char *dev);
/* Zeroes [off, off+len) through fd and syncs. */
int sb_wipe_range(int fd, uint64_t off, uint64_t len);
/* The value libblkid reports for tag ("UUID", "TYPE", "PTUUID") on dev:
 * 0 and buf filled, -ENOENT when there is none. */
int sb_blkid_value(const char *dev, const char *tag, char *buf, size_t len);

/* ---- md.c ---- */
/* MD_UUID and MD_NAME of a running array (`mdadm --detail --export`). */
int sb_md_detail(struct sb_exec *x, const char *dev, char *uuid, size_t ulen, char *name,
		 size_t nlen);

/* ---- dm.c (libdevmapper) ---- */
/* Removes device-mapper devices whose name starts with prefix (leftover LVs
 * of a run). Returns the number removed, 0 when dm is unavailable. */
int sb_dm_remove_prefix(const char *prefix, char ***names);
/* The first target of dm device name as `dmsetup status` (table: `dmsetup
 * table`) prints it ("0 2097152 cache 8 27/2048 ..."): 0, -ENODEV when
 * there is no such device, -ENOMEM. */
int sb_dm_first_target(const char *name, bool table, char *buf, size_t len);
