/* The table of profile keys: the core rows here, then the rows the layers
 * register (sb_keytabs[]) at start, those placed as core first. Parsing,
 * validation, overrides, the matrix, suggestions and doc/profile-format.md
 * (checked by test_profile) follow it. */
#include "profile/profile-int.h"
#include "util/value.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *sb_sec_names[SB_SEC_MAX] = {
    [SB_SEC_DEVICES] = "devices",
    [SB_SEC_WORKLOADS] = "workloads",
    [SB_SEC_MATRIX] = "matrix",
};

const char *const sb_role_names[SB_ROLE_N] = {"ssd", "hdd", "nvme", "any"};

struct sb_key sb_keys[SB_KEY_MAX] = {
    [K_DEV_SSD] = {SB_SEC_DEVICES, "ssd", SB_KT_COUNT, NULL, 0, 64, NULL, SB_KF_NOMATRIX,
		   "number of non-rotational SATA/SAS devices the stack needs"},
    [K_DEV_HDD] = {SB_SEC_DEVICES, "hdd", SB_KT_COUNT, NULL, 0, 64, NULL, SB_KF_NOMATRIX,
		   "number of rotational devices"},
    [K_DEV_NVME] = {SB_SEC_DEVICES, "nvme", SB_KT_COUNT, NULL, 0, 64, NULL, SB_KF_NOMATRIX,
		    "number of NVMe devices"},
    [K_DEV_ANY] = {SB_SEC_DEVICES, "any", SB_KT_COUNT, NULL, 0, 64, NULL, SB_KF_NOMATRIX,
		   "number of devices of any kind (a hardware RAID volume, say)"},
    [K_WL_RUN] = {SB_SEC_WORKLOADS, "run", SB_KT_WORKLOAD, NULL, 0, 0, NULL,
		  SB_KF_REPEAT | SB_KF_NOMATRIX,
		  "a workload to run in the mounted file system, in order; repeat the key "
		  "for more"},
    [K_WL_TIME_LIMIT] = {SB_SEC_WORKLOADS, "time-limit", SB_KT_DURATION, NULL, 0, 0, NULL, 0,
			 "stop each workload after this long ('10m'); teardown still runs"},
    [K_WL_ANSWER] = {SB_SEC_WORKLOADS, "answer", SB_KT_STRING, NULL, 0, 0, NULL, SB_KF_NOMATRIX,
		     "the headline rows the profile's question turns on, as 'WORKLOAD: LABEL' "
		     "separated by ';' ('rand: Random Read; mixed: 4 readers: read rate "
		     "(data)'); the verdict's first line gives each one's change, or the repeats "
		     "it needs"},
};

size_t sb_key_n = SB_KEY_CORE_N, sb_sec_n = SB_SEC_CORE_N, sb_keytab_n;
const struct sb_keytab *sb_keytabs[SB_SEC_MAX];
static int keytab_base[SB_SEC_MAX];

/* The registered tables' sections and keys after the core ones, in
 * registry order, but the keys of a table placed as core go in right after
 * the core keys (and those of the tables placed so before it): the keys
 * registered earlier move up, their tables' bases with them. Before main:
 * every lookup needs them, and a table too large for the arrays is a build
 * mistake, not a user's. */
void sb_keytab_register(const struct sb_keytab *kt)
{
	static size_t placed_n; /* keys of the tables placed as core */
	size_t t = sb_keytab_n, at = sb_key_n;
	if (t == SB_SEC_MAX - SB_SEC_CORE_N || sb_sec_n == SB_SEC_MAX ||
	    sb_key_n + kt->n > SB_KEY_MAX)
		abort();
	sb_keytabs[sb_keytab_n++] = kt;
	/* Two layers may share a section ([devices]: loop, precond). */
	int sec = sb_sec_lookup(kt->section);
	if (sec < 0) {
		sec = (int)sb_sec_n++;
		sb_sec_names[sec] = kt->section;
	}
	if (kt->placed_as_core) {
		at = SB_KEY_CORE_N + placed_n;
		placed_n += kt->n;
		memmove(&sb_keys[at + kt->n], &sb_keys[at], (sb_key_n - at) * sizeof(sb_keys[0]));
		for (size_t i = 0; i < t; i++)
			if (keytab_base[i] >= (int)at)
				keytab_base[i] += (int)kt->n;
	}
	keytab_base[t] = (int)at;
	for (size_t i = 0; i < kt->n; i++) {
		sb_keys[at + i] = kt->keys[i];
		sb_keys[at + i].sec = sec;
	}
	sb_key_n += kt->n;
}

int sb_keytab_base(const struct sb_keytab *t)
{
	for (size_t i = 0; i < sb_keytab_n; i++)
		if (sb_keytabs[i] == t)
			return keytab_base[i];
	return -1;
}

int sb_key_find(const char *dotted)
{
	const char *dot = strchr(dotted, '.');
	char sec[32];
	int s;
	if (!dot || (size_t)(dot - dotted) >= sizeof(sec))
		return -1;
	snprintf(sec, sizeof(sec), "%.*s", (int)(dot - dotted), dotted);
	s = sb_sec_lookup(sec);
	return s < 0 ? -1 : sb_key_lookup(s, dot + 1);
}

/* "hdd" or "hdd.p2" (SB_KF_ROLE_PART): the role, or -1 (none). */
static int role_of(const char *v)
{
	char role[16];
	if (!v)
		return -1;
	snprintf(role, sizeof(role), "%.*s", (int)strcspn(v, "."), v);
	return sb_role_lookup(role);
}

/* One value into its typed field, by key type: numbers, sizes (bytes) and
 * durations (ms) as uint64_t, yes/no as bool, a role as int (-1: none),
 * roles as a bit set (unsigned), members as struct sb_sel, a size or
 * percentage as struct sb_size_pct, the rest as the
 * text itself (const char *, owned by the profile). Values were checked on
 * the way in; a member list that still fails is left empty for validate. */
static void fill_one(const struct sb_key *k, const char *v, void *field)
{
	struct sb_vrule rule;
	struct sb_value val = {0};
	char *why = NULL;

	if (k->type != SB_KT_SIZES && k->type != SB_KT_CHOICE && sb_prof_key_vrule(k, &rule)) {
		if (v)
			sb_value_parse(&rule, v, &val);
		if (k->type == SB_KT_BOOL)
			*(bool *)field = val.u;
		else if (k->type == SB_KT_SIZEPCT)
			*(struct sb_size_pct *)field = (struct sb_size_pct){val.u, val.pct};
		else
			*(uint64_t *)field = val.u;
		return;
	}
	switch (k->type) {
	case SB_KT_ROLE:
		*(int *)field = role_of(v);
		return;
	case SB_KT_ROLES: {
		unsigned bits = 0;
		for (int r = 0; r < SB_ROLE_N; r++)
			if (sb_roles_has(v, (enum sb_role)r))
				bits |= 1u << r;
		*(unsigned *)field = bits;
		return;
	}
	case SB_KT_MEMBERS:
		if (sb_sel_parse(v, field, &why) < 0)
			*(struct sb_sel *)field = (struct sb_sel){0};
		free(why);
		return;
	default:
		*(const char **)field = v;
		return;
	}
}

void sb_keytab_fill(const struct sb_keytab *t, const struct sb_config *c, void *cfg)
{
	int base = sb_keytab_base(t);
	if (base < 0)
		return;
	for (size_t i = 0; i < t->n; i++)
		fill_one(&t->keys[i], sb_cfg_str(c, base + (int)i), (char *)cfg + t->keys[i].off);
	if (t->present) {
		struct sb_present *pr = (struct sb_present *)((char *)cfg + t->present - 1);
		pr->section = c->has_sec[sb_keys[base].sec];
		for (size_t i = 0; i < t->n && i < 8 * sizeof(pr->keys); i++)
			if (c->val[base + (int)i])
				pr->keys |= 1ul << i;
	}
}

int sb_sec_lookup(const char *name)
{
	for (int i = 0; i < (int)sb_sec_n; i++)
		if (strcmp(sb_sec_names[i], name) == 0)
			return i;
	return -1;
}

int sb_key_lookup(enum sb_sec sec, const char *name)
{
	for (int i = 0; i < (int)sb_key_n; i++)
		if (sb_keys[i].sec == (int)sec && strcmp(sb_keys[i].name, name) == 0)
			return i;
	return -1;
}

int sb_role_lookup(const char *name)
{
	for (int i = 0; i < SB_ROLE_N; i++)
		if (strcmp(sb_role_names[i], name) == 0)
			return i;
	return -1;
}

static const char *type_text(const struct sb_key *k, char *buf, size_t len)
{
	switch (k->type) {
	case SB_KT_COUNT:
		return "count";
	case SB_KT_UINT:
		snprintf(buf, len, "number %llu..%llu", (unsigned long long)k->min,
			 (unsigned long long)k->max);
		return buf;
	case SB_KT_SIZE:
		return "size";
	case SB_KT_SIZEPCT:
		return "size or percentage";
	case SB_KT_SIZES:
		return "list of sizes";
	case SB_KT_BOOL:
		return "yes/no";
	case SB_KT_CHOICE: {
		_cleanup_free_ char *c = sb_value_choices_text(k->choices);
		snprintf(buf, len, "%s", c ? c : k->choices);
		return buf;
	}
	case SB_KT_ROLE:
		return "role";
	case SB_KT_ROLES:
		return "roles";
	case SB_KT_MEMBERS:
		return "roles or partitions";
	case SB_KT_NAME:
		return "name";
	case SB_KT_WORDS:
		return "words";
	case SB_KT_STRING:
		return "text";
	case SB_KT_DURATION:
		return "duration";
	case SB_KT_WORKLOAD:
		return "workload spec";
	}
	return "?";
}

char *sb_key_doc_row(enum sb_key_id id)
{
	const struct sb_key *k = &sb_keys[id];
	char buf[128], *s = NULL;
	if (asprintf(&s, "| `%s.%s` | %s | %s | %s%s |", sb_sec_names[k->sec], k->name,
		     type_text(k, buf, sizeof(buf)), k->def ? k->def : "", k->help,
		     k->flags & SB_KF_NOMATRIX ? " (not in [matrix])" : "") < 0)
		return NULL;
	return s;
}
