/* The scenario layer's rules (scenario.degrade, rebuild, integrity)
 * against the stack a variant builds: only a member of an array with
 * redundancy can be taken out, and the member must be in the array. The
 * array is the lowest layer of the registry that answers for one (its
 * struct sb_redundancy: md, btrfs RAID, LVM); its units are what that
 * layer takes, split by a layer that splits devices, less the device a
 * layer sets aside. Pure: the plan and the profile's whole-variant check
 * (the layer's validate, in registry order) both ask here, so they cannot
 * disagree. */
#include "stack/scenario.h"
#include "util/macro.h"
#include "util/strutil.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* [scenario]'s keys, in the order result.json's profile config lists them. */
enum {
	SCEN_DEGRADE,
	SCEN_REBUILD,
	SCEN_REBUILD_WITH,
	SCEN_REBUILD_LIMIT,
	SCEN_INTEGRITY,
	SCEN_INTEGRITY_QUICK,
	SCEN_FILL,
	SCEN_KEY_N
};

#define C struct sb_scen_cfg
static const struct sb_key keys[SCEN_KEY_N] = {
    [SCEN_DEGRADE] = SB_KEY(C, degrade, "degrade", SB_KT_STRING, NULL, 0, 0, "none", 0,
			    "before the workloads, take this member out of the md array (fail, "
			    "remove) or mount btrfs RAID degraded without it: 'none', a role "
			    "(its first unit in the array: hdd is hdd1), a slot (hdd2) or a "
			    "partition (ssd.p2)"),
    [SCEN_REBUILD] = SB_KEY(C, rebuild, "rebuild", SB_KT_STRING, NULL, 0, 0, "none", 0,
			    "degrade this member, then add it back right before the workloads, "
			    "which run during the resync; result.json records the rebuild's time "
			    "and rate"),
    [SCEN_REBUILD_WITH] = SB_KEY(
	C, rebuild_with, "rebuild-with", SB_KT_CHOICE, "auto|re-add|add|replace", 0, 0, "auto", 0,
	"md: 're-add' (with a bitmap: resyncs only what changed while "
	"degraded) or 'add' (superblock zeroed: full recovery); btrfs: "
	"'replace'; auto: re-add with a bitmap, else add; replace on btrfs"),
    [SCEN_REBUILD_LIMIT] =
	SB_KEY(C, rebuild_limit_ms, "rebuild-limit", SB_KT_DURATION, NULL, 0, 0, "10m", 0,
	       "after the workloads, wait this long at most for the rebuild to "
	       "end (result.json says whether it did)"),
    [SCEN_INTEGRITY] =
	SB_KEY(C, integrity, "integrity", SB_KT_CHOICE, "auto|yes|no", 0, 0, "auto", 0,
	       "after the workloads: md check (mismatch_cnt), btrfs scrub; auto: on "
	       "for md arrays with redundancy and btrfs RAID; 'no' turns it off"),
    [SCEN_INTEGRITY_QUICK] =
	SB_KEY(C, integrity_quick, "integrity-quick", SB_KT_SIZE, NULL, 0, 0, "128M", 0,
	       "under --quick, md's check covers the first this much of the "
	       "array (md's sync_max; the result says how much it checked); 0: "
	       "all of it"),
    [SCEN_FILL] = SB_KEY(C, fill, "fill", SB_KT_SIZEPCT, NULL, 0, 0, NULL, 0,
			 "write this much pattern data (or this share of the free space) before "
			 "the member goes (btrfs) or comes back (md), so that the rebuild has "
			 "data to copy; read back and checked after the run"),
};
#undef C

void sb_scen_cfg_read(const struct sb_config *c, struct sb_scen_cfg *s)
{
	*s = (struct sb_scen_cfg){0};
	sb_keytab_fill(&sb_keytab_scen, c, s);
}

uint64_t sb_scen_rebuild_limit_ms(const struct sb_config *c)
{
	struct sb_scen_cfg s;
	sb_scen_cfg_read(c, &s);
	return s.rebuild_limit_ms;
}

uint64_t sb_scen_integrity_quick(const struct sb_config *c)
{
	struct sb_scen_cfg s;
	sb_scen_cfg_read(c, &s);
	return s.integrity_quick;
}

/* Every layer's typed config of one variant, and the array among them. */
struct scen_stack {
	void *cfg[SB_STEP_KIND_N];
	int array; /* the layer that answered, or -1 */
	struct sb_redundancy red;
};

static void stack_free(struct scen_stack *s)
{
	for (int k = 0; k < SB_STEP_KIND_N; k++)
		free(s->cfg[k]);
}

static int stack_read(const struct sb_config *c, struct scen_stack *s)
{
	*s = (struct scen_stack){.array = -1};
	for (int k = 0; k < SB_STEP_KIND_N; k++) {
		const struct sb_layer *ly = sb_layer_get((enum sb_step_kind)k);
		if (!ly->keytab)
			continue;
		s->cfg[k] = calloc(1, ly->keytab->cfg_size ? ly->keytab->cfg_size : 1);
		if (!s->cfg[k]) {
			stack_free(s);
			return -ENOMEM;
		}
		sb_keytab_fill(ly->keytab, c, s->cfg[k]);
		if (s->array < 0 && ly->redundancy && ly->redundancy(s->cfg[k], &s->red) == 0)
			s->array = k;
	}
	return 0;
}

/* The first answer of the layers that have the hook, or none. */
static int stack_aside(const struct scen_stack *s)
{
	for (int k = 0; k < SB_STEP_KIND_N; k++) {
		const struct sb_layer *ly = sb_layer_get((enum sb_step_kind)k);
		int r = ly->aside && s->cfg[k] ? ly->aside(s->cfg[k]) : -1;
		if (r >= 0)
			return r;
	}
	return -1;
}

static unsigned stack_splits(const struct scen_stack *s, enum sb_role r)
{
	for (int k = 0; k < SB_STEP_KIND_N; k++) {
		const struct sb_layer *ly = sb_layer_get((enum sb_step_kind)k);
		unsigned n = ly->splits && s->cfg[k] ? ly->splits(s->cfg[k], r) : 0;
		if (n)
			return n;
	}
	return 0;
}

static bool is_none(const char *v)
{
	return !v || strcmp(v, "none") == 0;
}

int sb_scen_target_parse(const char *v, struct sb_scen_target *t, char **why)
{
	char role[16];
	size_t n = 0;
	const char *p = v;

	*t = (struct sb_scen_target){0};
	*why = NULL;
	while (isalpha((unsigned char)*p) && n + 1 < sizeof(role))
		role[n++] = *p++;
	role[n] = '\0';
	int r = sb_role_lookup(role);
	if (r < 0 || isalpha((unsigned char)*p))
		goto bad;
	t->role = (enum sb_role)r;
	if (isdigit((unsigned char)*p)) {
		unsigned long s = strtoul(p, (char **)&p, 10);
		if (s == 0 || s > 64)
			goto bad;
		t->slot = (unsigned)s;
	}
	if (*p == '.') {
		if (p[1] != 'p' || !isdigit((unsigned char)p[2]))
			goto bad;
		unsigned long k = strtoul(p + 2, (char **)&p, 10);
		if (k == 0 || k > 128)
			goto bad;
		t->part = (unsigned)k;
	}
	if (*p)
		goto bad;
	return 0;
bad:
	*why = sb_asprintf("'%s': expected 'none', a role (ssd, hdd, nvme, any), a device of "
			   "one (hdd2) or a partition (ssd.p2)",
			   v);
	return -EINVAL;
}

/* The array's units, in the plan's order: those its layer takes (of
 * them the first max_units), none when it has no redundancy. */
static int stack_units(const struct scen_stack *s, const struct sb_config *c,
		       struct sb_scen_unit *u, size_t max, size_t *n)
{
	const struct sb_layer *ly = s->array >= 0 ? sb_layer_get(s->array) : NULL;
	const struct sb_sel *sel = ly && ly->takes ? ly->takes(s->cfg[s->array]) : NULL;
	int aside = stack_aside(s);
	size_t k = 0;

	*n = 0;
	if (!sel || !s->red.may_fail)
		return 0;
	for (size_t i = 0; i < c->n_roles; i++) {
		enum sb_role r = c->role_order[i];
		unsigned cnt = sb_cfg_role_count(c, r), np = stack_splits(s, r);
		if ((int)r == aside)
			continue;
		for (unsigned sl = 1; sl <= cnt; sl++)
			for (unsigned p = np ? 1 : 0; p <= np; p++) {
				if (!sb_sel_match(sel, r, p) ||
				    (s->red.max_units && k >= s->red.max_units))
					continue;
				if (k == max)
					return -E2BIG;
				u[k] = (struct sb_scen_unit){.role = r, .slot = sl, .part = p};
				if (cnt == 1)
					snprintf(u[k].var, sizeof(u[k].var), "%s",
						 sb_role_names[r]);
				else
					snprintf(u[k].var, sizeof(u[k].var), "%s%u",
						 sb_role_names[r], sl);
				if (p) {
					size_t l = strlen(u[k].var);
					snprintf(u[k].var + l, sizeof(u[k].var) - l, ".p%u", p);
				}
				k++;
			}
	}
	*n = k;
	return 0;
}

int sb_scen_units(const struct sb_config *c, struct sb_scen_unit *u, size_t max, size_t *n)
{
	struct scen_stack s;
	int r = stack_read(c, &s);
	*n = 0;
	if (r < 0)
		return r;
	r = stack_units(&s, c, u, max, n);
	stack_free(&s);
	return r;
}

/* The unit the target names among units: the first of its role (of that
 * device, of that partition number). -1 when none. */
static int target_unit(const struct sb_scen_target *t, const struct sb_scen_unit *u, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (u[i].role == t->role && (!t->slot || u[i].slot == t->slot) &&
		    (!t->part || u[i].part == t->part))
			return (int)i;
	return -1;
}

/* The key that names the member (rebuild when given: it implies the
 * degrade, SCEN_*), or -1 when the variant has no scenario; *v its value. */
static int member_key(const struct sb_config *c, const char **v)
{
	struct sb_scen_cfg s;
	sb_scen_cfg_read(c, &s);
	if (!is_none(s.rebuild)) {
		*v = s.rebuild;
		return SCEN_REBUILD;
	}
	*v = s.degrade;
	return is_none(s.degrade) ? -1 : SCEN_DEGRADE;
}

static enum sb_scen_kind stack_kind(const struct scen_stack *s)
{
	if (s->array < 0 || !s->red.may_fail)
		return SB_SCEN_NONE;
	return strcmp(s->red.kind, "md") == 0 ? SB_SCEN_MD : SB_SCEN_BTRFS;
}

enum sb_scen_kind sb_scen_kind(const struct sb_config *c)
{
	struct scen_stack s;
	enum sb_scen_kind k;
	if (stack_read(c, &s) < 0)
		return SB_SCEN_NONE;
	k = stack_kind(&s);
	stack_free(&s);
	return k;
}

enum sb_step_kind sb_scen_after(const struct sb_config *c)
{
	struct scen_stack s;
	enum sb_step_kind k = SB_STEP_KIND_N;
	if (stack_read(c, &s) < 0)
		return k;
	if (stack_kind(&s) != SB_SCEN_NONE)
		k = s.red.after;
	stack_free(&s);
	return k;
}

bool sb_scen_integrity_on(const struct sb_config *c)
{
	struct sb_scen_cfg s;
	sb_scen_cfg_read(c, &s);
	if (strcmp(s.integrity, "no") == 0)
		return false;
	if (strcmp(s.integrity, "yes") == 0)
		return true;
	return sb_scen_kind(c) != SB_SCEN_NONE;
}

/* Why the stack has nothing to degrade (static text), or NULL. */
static const char *no_redundancy(const struct sb_config *c)
{
	struct scen_stack s;
	const char *why = NULL;
	if (stack_read(c, &s) < 0)
		return "out of memory";
	if (s.array < 0)
		why = "only md arrays and btrfs RAID have members to take out (the stack has "
		      "neither)";
	else if (!s.red.may_fail)
		why = s.red.why;
	stack_free(&s);
	return why;
}

int sb_scen_member(const struct sb_config *c, char *var, size_t len, char **why)
{
	struct sb_scen_unit u[64];
	struct sb_scen_target t;
	size_t n = 0;
	const char *v;
	int k = member_key(c, &v), i;

	*why = NULL;
	if (k < 0)
		return 1;
	if (sb_scen_target_parse(v, &t, why) < 0)
		return -EINVAL;
	if (sb_scen_units(c, u, ARRAY_SIZE(u), &n) < 0) {
		*why = sb_asprintf("the stack's members cannot be listed");
		return -EINVAL;
	}
	i = target_unit(&t, u, n);
	if (i < 0) {
		char list[512] = "";
		size_t o = 0;
		for (size_t j = 0; j < n && o + 1 < sizeof(list); j++)
			o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", j ? ", " : "",
					      u[j].var);
		*why =
		    sb_asprintf("%s is not in the array (its members: %s)", v, n ? list : "none");
		return -EINVAL;
	}
	if (n < 2) {
		*why =
		    sb_asprintf("the array has one member: taking %s out leaves nothing", u[i].var);
		return -EINVAL;
	}
	snprintf(var, len, "%s", u[i].var);
	return 0;
}

/* scenario.rebuild-with against the array the rebuild goes into. */
static const char *rebuild_with_why(const struct sb_config *c, const char *w,
				    enum sb_scen_kind kind)
{
	bool bitmap = sb_md_bitmap_internal(c);
	if (kind == SB_SCEN_MD && strcmp(w, "replace") == 0)
		return "replace is btrfs's: md rebuilds with re-add or add";
	if (kind == SB_SCEN_MD && strcmp(w, "re-add") == 0 && !bitmap)
		return "re-add needs md.bitmap = internal (without a bitmap md cannot tell what "
		       "changed: use add)";
	if (kind == SB_SCEN_BTRFS && (strcmp(w, "re-add") == 0 || strcmp(w, "add") == 0))
		return "btrfs rebuilds with replace";
	return NULL;
}

int sb_scen_check_config(const struct sb_config *c, int *key, char **why)
{
	int base = sb_keytab_base(&sb_keytab_scen);
	struct sb_scen_cfg s;
	struct sb_scen_target t;
	char var[40];
	const char *m, *v;
	int k = member_key(c, &v), r;

	sb_scen_cfg_read(c, &s);
	*why = NULL;
	for (int i = SCEN_DEGRADE; i <= SCEN_REBUILD; i++) {
		const char *ti = i == SCEN_DEGRADE ? s.degrade : s.rebuild;
		*key = base + i;
		if (!is_none(ti) && sb_scen_target_parse(ti, &t, why) < 0)
			return -EINVAL;
	}
	if (!is_none(s.degrade) && !is_none(s.rebuild) && strcmp(s.degrade, s.rebuild) != 0) {
		*key = base + SCEN_REBUILD;
		*why =
		    sb_asprintf("names %s but scenario.degrade names %s: a rebuild adds back the "
				"member it took out (give one of them)",
				s.rebuild, s.degrade);
		return -EINVAL;
	}
	if (strcmp(s.integrity, "yes") == 0 && sb_scen_kind(c) == SB_SCEN_NONE &&
	    strcmp(sb_fs_type_name(c), "btrfs") != 0) {
		*key = base + SCEN_INTEGRITY;
		*why = sb_asprintf("yes needs an md array with redundancy or btrfs (nothing here "
				   "can be checked against a second copy)");
		return -EINVAL;
	}
	if (k < 0)
		return 0;
	*key = base + k;
	if ((m = no_redundancy(c))) {
		*why = strdup(m);
		return -EINVAL;
	}
	r = sb_scen_member(c, var, sizeof(var), why);
	if (r < 0)
		return r;
	if (k == SCEN_REBUILD && (m = rebuild_with_why(c, s.rebuild_with, sb_scen_kind(c)))) {
		*key = base + SCEN_REBUILD_WITH;
		*why = strdup(m);
		return -EINVAL;
	}
	return 0;
}

/* The layer's validate: last in the registry, after the layers whose
 * arrays it asks about. */
static int scen_validate(struct sb_vctx *v, const void *cfg, struct sb_vstate *st)
{
	int sk;
	char *why = NULL;
	int r = 0;

	(void)cfg;
	(void)st;
	if (sb_scen_check_config(sb_vctx_config(v), &sk, &why) < 0)
		r = sb_verr(v, sk, "scenario.%s: %s", sb_keys[sk].name, why ? why : "refused");
	free(why);
	return r;
}

/* Placed as core: its keys were the core table's, and result.json's profile
 * config and the list of sections keep their order. */
const struct sb_keytab sb_keytab_scen = {
    .section = "scenario",
    .keys = keys,
    .n = SCEN_KEY_N,
    .cfg_size = sizeof(struct sb_scen_cfg),
    .validate = scen_validate,
    .placed_as_core = true,
};
