/* Degraded and rebuilding arrays (scenario.degrade / scenario.rebuild): the
 * journaled step that takes a member out or adds it back, the watch of the
 * rebuild while the workloads run, and the pure parsers of what md and
 * btrfs report. */
#pragma once

#include "profile/profile.h"
#include "stack/facts.h"
#include "stack/stack.h"

#include <json-c/json.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct sb_scen_args {
	char *action;	     /* "degrade" or "rebuild" */
	char *kind;	     /* "md" or "btrfs" */
	char *array;	     /* md: the array (${md}) */
	char *member;	     /* the unit taken out and added back (${hdd1}) */
	char *with;	     /* rebuild: "re-add", "add" or "replace" */
	char *dir;	     /* btrfs: the mount point */
	struct sb_list devs; /* btrfs: the file system's devices, in mkfs order */
	char *options;	     /* btrfs: the profile's mount options, or NULL */
	uint64_t devid;	     /* btrfs: the member's devid (its place in mkfs's list) */
	uint64_t limit_ms;   /* md degrade: the wait for the initial resync */
	uint64_t fill;	     /* bytes of pattern data written first (scenario.fill) */
	bool fill_pct;	     /* fill is a percentage of the free space then */
};

/* scen_fill.c: scenario.fill's file in the mounted file system, written
 * with O_DIRECT from a seeded generator and read back the same way. */
#define SB_SCEN_FILL_NAME ".stackbench-scenario-fill"
int sb_scen_fill_write(const char *dir, uint64_t bytes, volatile sig_atomic_t *stop);
/* 0 with *bad (4 KiB blocks that differ) and *checked (bytes read);
 * -ENOENT when there is no fill file. */
int sb_scen_fill_verify(const char *dir, uint64_t *bad, uint64_t *checked);

extern const struct sb_layer sb_layer_scen;

/* ---- the layer's rules (scenario_check.c), pure ---- */
/* [scenario]'s table: its keys (placed as core) and the rules as its
 * validate. */
extern const struct sb_keytab sb_keytab_scen;
/* Its typed config: each key's value or default. */
struct sb_scen_cfg {
	const char *degrade, *rebuild; /* "none" or a member (sb_scen_target) */
	const char *rebuild_with;      /* "auto", "re-add", "add" or "replace" */
	uint64_t rebuild_limit_ms;
	const char *integrity; /* "auto", "yes" or "no" */
	uint64_t integrity_quick;
	struct sb_size_pct fill; /* 0: none */
};
void sb_scen_cfg_read(const struct sb_config *c, struct sb_scen_cfg *s);
/* A member named by scenario.degrade / rebuild: a role, optionally its
 * device number (hdd2) and partition (ssd.p2); 0: any. */
struct sb_scen_target {
	enum sb_role role;
	unsigned slot, part;
};
int sb_scen_target_parse(const char *v, struct sb_scen_target *t, char **why);
/* A unit of the array (an md member, a btrfs device), named as the plan's
 * variable ("hdd1", "ssd.p2"). */
struct sb_scen_unit {
	enum sb_role role;
	unsigned slot, part;
	char var[40];
};
/* The units of the variant's array, in the plan's order: those of the
 * lowest layer that answers for an array (struct sb_redundancy) with
 * members that may go; none otherwise. */
int sb_scen_units(const struct sb_config *c, struct sb_scen_unit *u, size_t max, size_t *n);
enum sb_scen_kind { SB_SCEN_NONE, SB_SCEN_MD, SB_SCEN_BTRFS };
/* What the scenario acts on: md with redundancy, btrfs RAID, or nothing. */
enum sb_scen_kind sb_scen_kind(const struct sb_config *c);
/* The step after which the array's member can go (its layer's answer), or
 * SB_STEP_KIND_N when there is nothing to take out. */
enum sb_step_kind sb_scen_after(const struct sb_config *c);
/* The plan variable of the member the scenario takes out, in var: 0; 1 when
 * the variant has no scenario; -EINVAL with *why (malloc'ed). */
int sb_scen_member(const struct sb_config *c, char *var, size_t len, char **why);
/* The scenario keys of one variant against its stack
 * (degrade only what has redundancy and holds that member). 0, or -EINVAL
 * with *key the key to blame and *why the reason (malloc'ed). */
int sb_scen_check_config(const struct sb_config *c, int *key, char **why);

/* The plan: does the variant take a degrade (or rebuild) step at this point
 * of the stack (after_mount false: right after the md array; true: after
 * the mount)? Fills a (zeroed, the layer's) when it does and returns 1. */
int sb_scen_plan_step(const struct sb_config *c, const char *action, bool after_mount,
		      const struct sb_list *fs_devs, const char *dir, const char *options,
		      struct sb_scen_args *a);

/* ---- pure parsers (unit-tested, fuzzed) ---- */
/* md's sync_completed: "123 / 456" (sectors) or "none". 0 with *done and
 * *total set, 1 for "none", -EINVAL otherwise. */
int sb_md_parse_sync_completed(const char *s, uint64_t *done, uint64_t *total);
/* `btrfs scrub start -B -R`: "name: number" lines, whatever their order.
 * Sums what counts as an error (read, csum, verify, super, uncorrectable)
 * into *errors, the uncorrectable ones into *uncorrectable; *bytes is
 * data_bytes_scrubbed + tree_bytes_scrubbed. 0, or -EINVAL when not one
 * counter was found. */
struct sb_scrub_counts {
	uint64_t errors, uncorrectable, corrected, bytes;
	unsigned seen; /* counters read */
};
int sb_btrfs_parse_scrub(const char *text, struct sb_scrub_counts *out);
/* /proc/mdstat's progress of array NAME ("md127"): "recovery = 12.5%
 * (1234/5678) finish=1.2min speed=1000K/sec". 0 with *permille and *kbps,
 * 1 when the array shows no progress line, -ENOENT when not there. */
int sb_mdstat_progress(const char *text, const char *name, unsigned *permille, uint64_t *kbps);

/* ---- the rebuild's watch (session side) ---- */
struct sb_scen_watch {
	char kind[8];
	char sys[128];	 /* md: /sys/block/mdX/md */
	char dir[512];	 /* btrfs: the mount point */
	double started;	 /* CLOCK_REALTIME when the rebuild began (the step's record) */
	double wl_begin; /* the workloads' start */
	double wl_end;	 /* and end */
	double finished; /* the rebuild's end, 0 while it runs */
	uint64_t done_begin, done_end, total; /* md: sectors; btrfs: per mille */
	uint64_t done_last;
	bool active;
	volatile bool quit;
	pthread_t th;
	bool th_on;
};
/* From the run's journal (the rebuild step's record) and x's variables:
 * starts the watch (a thread sampling every 200 ms). 0, 1 when the
 * variant rebuilds nothing, -errno. */
int sb_scen_watch_start(struct sb_scen_watch *w, const char *journal, struct sb_exec *x);
/* The workloads ended: waits (limit_ms at most, or until *stop) for the
 * rebuild, stops the thread, and returns what result.json keeps:
 * {"with", "member", "seconds", "finished", "under_load_seconds",
 * "rate_under_load" (MB/s), "outlasted_workloads"}. */
json_object *sb_scen_watch_end(struct sb_scen_watch *w, uint64_t limit_ms,
			       volatile sig_atomic_t *stop);

/* ---- integrity after the run (integrity.c) ---- */
/* md check (mismatch_cnt) of the array x's "md" variable names, btrfs
 * scrub of the mount point: {"md": {"mismatch_cnt", "seconds", "finished"}
 * and, when md_span (bytes, 0: all) stopped it short, "span_bytes" and
 * "walk_bytes"; "btrfs": {"errors", "uncorrectable", "corrected", "bytes"},
 * "errors": N} where N is the sum that makes the report loud. NULL when the
 * plan has neither; *msg says what could not be checked (malloc'ed) or NULL. */
json_object *sb_integrity_run(const struct sb_plan *p, struct sb_exec *x, const char *mnt,
			      uint64_t limit_ms, uint64_t md_span, volatile sig_atomic_t *stop,
			      char **msg);
