/* Profiles: the INI-style description of a stack and its variants. The key
 * tables drive parsing, validation, `-o` overrides, the matrix, "did you
 * mean" and doc/profile-format.md: the core keys of profile_keys.c, and the
 * tables the stack layers register (struct sb_keytab, each in its layer's
 * file). Pure: no device I/O. */
#pragma once

#include "util/value.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sb_sec {
	SB_SEC_DEVICES,
	SB_SEC_WORKLOADS,
	SB_SEC_MATRIX,
	SB_SEC_CORE_N, /* the registered tables' sections follow (sb_sec_n) */
};
#define SB_SEC_MAX 24

/* Device roles, in the order used when none is given. */
enum sb_role { SB_ROLE_SSD, SB_ROLE_HDD, SB_ROLE_NVME, SB_ROLE_ANY, SB_ROLE_N };

/* A key's type: one of the value types keys share with workload options
 * (util/value.h: parsed and worded there), or one of the profile's own. */
enum sb_ktype {
	SB_KT_UINT = SB_VT_UINT,	 /* with min/max */
	SB_KT_SIZE = SB_VT_SIZE,	 /* "2G" */
	SB_KT_DURATION = SB_VT_DURATION, /* "30s", "10m" */
	SB_KT_BOOL = SB_VT_BOOL,	 /* yes/no/true/false/1/0/on/off */
	SB_KT_SIZEPCT = SB_VT_SIZEPCT,	 /* "2G" or "50%" */
	SB_KT_SIZES = SB_VT_SIZES,	 /* "50%,50%" or "1G,rest" */
	SB_KT_CHOICE = SB_VT_CHOICE,	 /* one of choices ("a|b|c") */
	SB_KT_COUNT = SB_VT_N,		 /* a SB_KT_UINT of 0..64 */
	SB_KT_ROLE,			 /* one role name */
	SB_KT_ROLES,			 /* "ssd,hdd" or "all" */
	SB_KT_NAME,			 /* [A-Za-z0-9_+.-], for VG and LV names */
	SB_KT_WORDS,			 /* extra options, split on blanks */
	SB_KT_STRING,			 /* anything without a newline */
	SB_KT_WORKLOAD, /* a workload spec, checked by the hook workload/ registers */
	SB_KT_MEMBERS	/* "all" or roles and partitions: "ssd.p2, hdd.p2" */
};

enum sb_key_id {
	K_DEV_SSD,
	K_DEV_HDD,
	K_DEV_NVME,
	K_DEV_ANY,
	K_WL_RUN,
	K_WL_TIME_LIMIT,
	K_WL_ANSWER,
	SB_KEY_CORE_N, /* the registered tables' keys follow (sb_key_n) */
};
#define SB_KEY_MAX 128

struct sb_key {
	int sec; /* enum sb_sec, or a registered section's id (set at start) */
	const char *name;
	enum sb_ktype type;
	const char *choices; /* SB_KT_CHOICE: "a|b|c" */
	uint64_t min, max;   /* SB_KT_UINT / SB_KT_COUNT */
	const char *def;     /* default, as text; NULL: unset */
	unsigned flags;	     /* SB_KF_* */
	const char *help;
	size_t off; /* registered tables: offsetof in the layer's typed config */
};

enum {
	SB_KF_REPEAT = 1 << 0,	  /* may be given several times (a list) */
	SB_KF_NOMATRIX = 1 << 1,  /* not allowed in [matrix] */
	SB_KF_ROLE_PART = 1 << 2, /* SB_KT_ROLE: 'hdd.p2' is taken as its role */
	SB_KF_ONEOF = 1 << 3,	  /* one of the section's ONEOF keys: -o one unsets the others */
};

#define SB_PRESENT(st, member) (offsetof(st, member) + 1)

/* A row of a registered key table: its section is the table's. */
#define SB_KEY(st, member, name, type, choices, min, max, def, flags, help)                        \
	{                                                                                          \
		0, name, type, choices, min, max, def, flags, help, offsetof(st, member)           \
	}

/* Every key, core ones first (indexed by enum sb_key_id), then those of
 * the tables placed as core (sb_keytab.placed_as_core), then the others of
 * sb_keytabs[] in registry order; sb_key_n of them. */
extern struct sb_key sb_keys[SB_KEY_MAX];
extern size_t sb_key_n;
extern const char *sb_sec_names[SB_SEC_MAX];
extern size_t sb_sec_n;
extern const char *const sb_role_names[SB_ROLE_N];

/* The key's row in doc/profile-format.md ("| `md.level` | ... |"). */
char *sb_key_doc_row(enum sb_key_id id);

/* Lookups; -1 when unknown. */
int sb_sec_lookup(const char *name);
int sb_key_lookup(enum sb_sec sec, const char *name);
int sb_role_lookup(const char *name);

/* Resolved values of one variant (or the base profile). Strings are owned by
 * the profile they come from. */
struct sb_config {
	const char *val[SB_KEY_MAX];	/* NULL: unset (getters return the default) */
	unsigned line[SB_KEY_MAX];	/* where it was set: 0 default, else the file's line */
	const char *origin[SB_KEY_MAX]; /* "profile", "matrix", "-o" */
	bool has_sec[SB_SEC_MAX];	/* the section header appeared */
	unsigned sec_line[SB_SEC_MAX];
	enum sb_role role_order[SB_ROLE_N]; /* roles in the order [devices] lists them */
	size_t n_roles;
	const char **workloads; /* [workloads] run = ..., in order */
	unsigned *wl_lines;
	size_t n_workloads;
};

#define SB_DIM_KEYS 16

/* One [matrix] line: one key, or several varied together
 * ("fs.type; fs.mkfs = btrfs; -n 4k | xfs"). vals holds n tuples of n_keys
 * values each; NULL leaves that key as the profile has it. */
struct sb_dim {
	enum sb_key_id keys[SB_DIM_KEYS];
	size_t n_keys;
	const char **vals;
	size_t n;
	unsigned line;
};

struct sb_profile {
	char *path;
	char *name; /* file name without directory and .conf */
	struct sb_config base;
	struct sb_dim *dims;
	size_t n_dims;
	char **pool; /* every string the configs point to */
	size_t n_pool;
	/* Matrix combinations left out because they cannot be built, each
	 * with the reason (set by sb_profile_variants). */
	char **dropped;
	size_t n_dropped;
	/* The first -o workloads.run replaces the profile's list, later ones add to it. */
	bool workloads_overridden;
};

struct sb_pvariant {
	char *name;	     /* "fs.type=xfs,mount.options=noatime" or "default" */
	json_object *params; /* {"fs.type": "xfs", ...} */
	struct sb_config cfg;
};

/* Parses text (path names it in messages). On error returns -EINVAL (or
 * -ENOMEM) and *err is "PATH:LINE: message". */
int sb_profile_parse(const char *path, const char *text, struct sb_profile **out, char **err);
/* Reads and parses a file. */
int sb_profile_load(const char *path, struct sb_profile **out, char **err);
/* "-o section.key=value" (or "-o matrix.section.key=a|b"): a value given here
 * replaces the profile's and takes the key out of the matrix. */
int sb_profile_override(struct sb_profile *p, const char *assignment, char **err);
/* Expands the matrix into variants (the cartesian product, last key fastest)
 * and checks each one as a whole (roles exist, levels fit...). */
int sb_profile_variants(struct sb_profile *p, struct sb_pvariant **out, size_t *n, char **err);
void sb_pvariants_free(struct sb_pvariant *v, size_t n);
void sb_profile_free(struct sb_profile *p);
/* The resolved values as JSON (for result.json). */
json_object *sb_config_to_json(const struct sb_config *c);
/* Do a and b hold different values of key ("mount.options"), one of them
 * none? */
bool sb_config_differ(const struct sb_config *a, const struct sb_config *b, const char *key);

/* Getters: the value, or the key's default. */
const char *sb_cfg_str(const struct sb_config *c, enum sb_key_id k);
uint64_t sb_cfg_u64(const struct sb_config *c, enum sb_key_id k);
bool sb_cfg_bool(const struct sb_config *c, enum sb_key_id k);
unsigned sb_cfg_role_count(const struct sb_config *c, enum sb_role r);
/* Is role r (or "all") in a SB_KT_ROLES value? */
bool sb_roles_has(const char *roles, enum sb_role r);
/* A member selector ("all", or "ssd.p2, hdd" : a role, all its devices or
 * their partition N). Pure. */
#define SB_SEL_MAX 16
struct sb_sel {
	bool all;
	size_t n;
	struct {
		enum sb_role role;
		unsigned part; /* 0: the whole device, or every partition of it */
	} item[SB_SEL_MAX];
};
/* 0, or -EINVAL with *why (static text or NULL) set. */
int sb_sel_parse(const char *v, struct sb_sel *out, char **why);
/* Does a unit of role r (partition part, 0 for a whole device) match? */
bool sb_sel_match(const struct sb_sel *s, enum sb_role r, unsigned part);
/* Parses one value of key k; NULL or a message ("expected a size such as 2G"). */
char *sb_key_check_value(int k, const char *v);
/* "md.level" -> the key's id, or -1. */
int sb_key_find(const char *dotted);

/* ---- registered key tables (a layer's section, keys and rules) ---- */

/* A whole variant being checked: the messages name the key's file and line
 * (or its -o) and the variant. */
struct sb_vctx;
const struct sb_config *sb_vctx_config(const struct sb_vctx *v);
/* Does key k vary in the profile's [matrix]? */
bool sb_vctx_varies(const struct sb_vctx *v, int k);
/* Sets the variant's error for key k (-1: none) and returns -EINVAL. */
int sb_verr(struct sb_vctx *v, int k, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* What the layers below hand up while a variant is checked bottom up. */
struct sb_vstate {
	unsigned nparts; /* partitions of each partitioned device, or 0 */
	unsigned parted; /* roles (bit per enum sb_role) whose devices are partitioned */
	unsigned units;	 /* the units (devices, partitions, arrays) the next layer sees */
	int taker;	 /* the selector key that took the devices (md.members), or -1 */
};

/* What the profile gave of a table (SB_PRESENT): the section header, and a
 * bit per key (in table order) that has a value of its own. */
struct sb_present {
	bool section;
	unsigned long keys;
};

/* SB_KT_SIZEPCT's typed field. */
struct sb_size_pct {
	uint64_t v; /* bytes, or a percentage when pct */
	bool pct;
};

struct sb_keytab {
	const char *section; /* "md" */
	const struct sb_key *keys;
	size_t n;
	size_t cfg_size; /* the typed config the keys fill through their offsetof */
	/* SB_PRESENT(st, member): a struct sb_present of the config, filled
	 * with what the profile gave ([lvm] alone builds LVM); 0: none. */
	size_t present;
	/* The rules between its keys and against the layers below (cfg
	 * filled); 0 or sb_verr()'s -EINVAL. May update st for the layers
	 * above. */
	int (*validate)(struct sb_vctx *v, const void *cfg, struct sb_vstate *st);
	/* Its keys and section stand where the core table had them, whatever
	 * its place in the registry (which stays the order of the rules):
	 * the keys right after the core ones, the section after the core
	 * ones but [matrix]. The scenario's, whose keys were core ones:
	 * result.json's profile config and the list of sections keep their
	 * order. */
	bool placed_as_core;
};

/* The layers' tables in stack order, each registered by the layer
 * registry (stack/exec.c) before main: sb_keytab_n of them. Their
 * sections and keys follow the core ones; a table too large for the
 * arrays aborts (a build mistake, not a user's). */
void sb_keytab_register(const struct sb_keytab *t);
/* The check of SB_KT_WORKLOAD values, registered by workload/ before main:
 * 0, or -errno with *err (malloc'ed) saying what is wrong with spec. */
typedef int (*sb_workload_check_fn)(const char *spec, char **err);
void sb_keytab_set_workload_check(sb_workload_check_fn check);
extern const struct sb_keytab *sb_keytabs[SB_SEC_MAX];
extern size_t sb_keytab_n;
/* The id of t's first key (its keys are consecutive). */
int sb_keytab_base(const struct sb_keytab *t);
/* Fills cfg (t->cfg_size bytes, zeroed by the caller) from c: each key's
 * value or default, typed by its key type (see profile_keys.c). */
void sb_keytab_fill(const struct sb_keytab *t, const struct sb_config *c, void *cfg);
/* How many units (devices, or partitions of partitioned ones) a selector
 * takes; -1 with *why (malloc'ed) when it names a role without devices or a
 * partition no device of the role has. */
int sb_cfg_sel_units(const struct sb_config *c, const char *sel, const struct sb_vstate *st,
		     char **why);
/* Key k (a selector: lvm.pvs) takes the units of the devices: st->units
 * becomes how many it selects and st->taker k; sb_verr's -EINVAL when it
 * selects none. */
int sb_vselect(struct sb_vctx *v, int k, struct sb_vstate *st);
/* Finds a profile by path or bare name (./profiles/NAME.conf, then
 * SB_DATADIR/profiles). Returns a malloc'ed path or NULL. */
/* Where profiles are looked for, in order: ./profiles, $STACKBENCH_PROFILES,
 * next to the executable (a build tree's profiles/, an installed
 * ../share/stackbench/profiles) and SB_DATADIR/profiles. Fills dirs (static
 * strings) and returns how many. */
size_t sb_profile_dirs(const char *dirs[], size_t max);
/* "./profiles, /usr/share/stackbench/profiles" for messages; static buffer. */
const char *sb_profile_dirs_text(void);
char *sb_profile_find(const char *name_or_path);

/* `list profiles`: the shipped profiles (exit code). */
int sb_list_profiles(void);
