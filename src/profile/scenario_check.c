/* The rules of the scenario keys (degrade, rebuild, integrity) against the
 * stack a variant builds: only a member of an array with redundancy can be
 * taken out, and the member must be in the array. Pure: the plan and the
 * profile's whole-variant check both ask here, so they cannot disagree. */
#include "profile/profile.h"
#include "util/macro.h"
#include "util/strutil.h"

#include <ctype.h>
#include <stdio.h>
#include <assert.h>
#include <string.h>

/* The stack layers' keys live in their own tables (stack/LAYER.c): looked
 * up by name, always registered by the time a profile is checked. */
static int lkey(const char *dotted)
{
	int k = sb_key_find(dotted);
	assert(k >= 0);
	return k;
}

static bool md_on(const struct sb_config *c)
{
	const char *v = c->val[lkey("md.level")];
	return v && strcmp(v, "none") != 0;
}

static bool lvm_on(const struct sb_config *c)
{
	int sec = sb_sec_lookup("lvm");
	return sec >= 0 && c->has_sec[sec] && sb_cfg_bool(c, lkey("lvm.enable"));
}

/* btrfs profiles that keep a second copy (or parity) of every block. */
static bool btrfs_redundant(const char *prof)
{
	static const char *const ok[] = {"raid1", "raid1c3", "raid1c4", "raid10", "raid5", "raid6"};
	for (size_t i = 0; prof && i < ARRAY_SIZE(ok); i++)
		if (strcmp(prof, ok[i]) == 0)
			return true;
	return false;
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

/* The partitions each device of role r is split into (0: none). */
static unsigned role_parts(const struct sb_config *c, enum sb_role r)
{
	unsigned n = 0;
	if (c->val[lkey("partition.count")])
		n = (unsigned)sb_cfg_u64(c, lkey("partition.count"));
	else if (c->val[lkey("partition.sizes")]) {
		n = 1;
		for (const char *s = c->val[lkey("partition.sizes")]; *s; s++)
			n += *s == ',';
	}
	return n && sb_roles_has(sb_cfg_str(c, lkey("partition.on")), r) ? n : 0;
}

int sb_scen_units(const struct sb_config *c, struct sb_scen_unit *u, size_t max, size_t *n)
{
	bool md = md_on(c);
	struct sb_sel sel;
	char *why = NULL;
	size_t k = 0;
	uint64_t fsdev = 0;

	*n = 0;
	if (!md && lvm_on(c))
		return 0; /* LVM alone: no array to take a member out of */
	if (sb_sel_parse(sb_cfg_str(c, md ? lkey("md.members") : lkey("fs.on")), &sel, &why) < 0) {
		free(why);
		return -EINVAL;
	}
	if (!md) {
		const char *fd = sb_cfg_str(c, lkey("fs.devices"));
		if (fd && strcmp(fd, "all") != 0)
			fsdev = strtoull(fd, NULL, 10);
	}
	for (size_t i = 0; i < c->n_roles; i++) {
		enum sb_role r = c->role_order[i];
		unsigned cnt = sb_cfg_role_count(c, r), np = role_parts(c, r);
		if ((int)r == sb_role_lookup(sb_cfg_str(c, lkey("fs.log"))))
			continue;
		for (unsigned s = 1; s <= cnt; s++)
			for (unsigned p = np ? 1 : 0; p <= np; p++) {
				if (!sb_sel_match(&sel, r, p) || (fsdev && k >= fsdev))
					continue;
				if (k == max)
					return -E2BIG;
				u[k] = (struct sb_scen_unit){.role = r, .slot = s, .part = p};
				if (cnt == 1)
					snprintf(u[k].var, sizeof(u[k].var), "%s",
						 sb_role_names[r]);
				else
					snprintf(u[k].var, sizeof(u[k].var), "%s%u",
						 sb_role_names[r], s);
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
 * degrade), or -1 when the variant has no scenario. */
static int member_key(const struct sb_config *c)
{
	if (!is_none(sb_cfg_str(c, K_SCEN_REBUILD)))
		return K_SCEN_REBUILD;
	if (!is_none(sb_cfg_str(c, K_SCEN_DEGRADE)))
		return K_SCEN_DEGRADE;
	return -1;
}

enum sb_scen_kind sb_scen_kind(const struct sb_config *c)
{
	if (md_on(c))
		return strcmp(sb_cfg_str(c, lkey("md.level")), "0") == 0 ? SB_SCEN_NONE
									 : SB_SCEN_MD;
	if (!lvm_on(c) && strcmp(sb_cfg_str(c, lkey("fs.type")), "btrfs") == 0 &&
	    btrfs_redundant(c->val[lkey("fs.data")]) &&
	    btrfs_redundant(c->val[lkey("fs.metadata")]))
		return SB_SCEN_BTRFS;
	return SB_SCEN_NONE;
}

bool sb_scen_integrity_on(const struct sb_config *c)
{
	const char *v = sb_cfg_str(c, K_SCEN_INTEGRITY);
	if (strcmp(v, "no") == 0)
		return false;
	if (strcmp(v, "yes") == 0)
		return true;
	return sb_scen_kind(c) != SB_SCEN_NONE;
}

/* Why the stack has nothing to degrade (static text), or NULL. */
static const char *no_redundancy(const struct sb_config *c)
{
	if (md_on(c))
		return strcmp(sb_cfg_str(c, lkey("md.level")), "0") == 0
			   ? "RAID0 has no redundancy: without one member the array is gone"
			   : NULL;
	if (lvm_on(c))
		return "LVM without md has no redundancy to lose a member from";
	if (strcmp(sb_cfg_str(c, lkey("fs.type")), "btrfs") != 0)
		return "only md arrays and btrfs RAID have members to take out (the stack has "
		       "neither)";
	if (!btrfs_redundant(c->val[lkey("fs.data")]) ||
	    !btrfs_redundant(c->val[lkey("fs.metadata")]))
		return "btrfs keeps one copy of some blocks here (fs.data and fs.metadata must "
		       "both "
		       "be raid1, raid1c3, raid1c4, raid10, raid5 or raid6)";
	return NULL;
}

int sb_scen_member(const struct sb_config *c, char *var, size_t len, char **why)
{
	struct sb_scen_unit u[64];
	struct sb_scen_target t;
	size_t n = 0;
	int k = member_key(c), i;

	*why = NULL;
	if (k < 0)
		return 1;
	if (sb_scen_target_parse(sb_cfg_str(c, k), &t, why) < 0)
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
		*why = sb_asprintf("%s is not in the array (its members: %s)", sb_cfg_str(c, k),
				   n ? list : "none");
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
static const char *rebuild_with_why(const struct sb_config *c, enum sb_scen_kind kind)
{
	const char *w = sb_cfg_str(c, K_SCEN_REBUILD_WITH);
	bool bitmap = strcmp(sb_cfg_str(c, lkey("md.bitmap")), "internal") == 0;
	if (kind == SB_SCEN_MD && strcmp(w, "replace") == 0)
		return "replace is btrfs's: md rebuilds with re-add or add";
	if (kind == SB_SCEN_MD && strcmp(w, "re-add") == 0 && !bitmap)
		return "re-add needs md.bitmap = internal (without a bitmap md cannot tell what "
		       "changed: use add)";
	if (kind == SB_SCEN_BTRFS && (strcmp(w, "re-add") == 0 || strcmp(w, "add") == 0))
		return "btrfs rebuilds with replace";
	return NULL;
}

int sb_scen_check_config(const struct sb_config *c, enum sb_key_id *key, char **why)
{
	const char *deg = sb_cfg_str(c, K_SCEN_DEGRADE), *reb = sb_cfg_str(c, K_SCEN_REBUILD);
	struct sb_scen_target t;
	char var[40];
	const char *m;
	int k = member_key(c), r;

	*why = NULL;
	for (enum sb_key_id i = K_SCEN_DEGRADE; i <= K_SCEN_REBUILD; i++) {
		*key = i;
		if (!is_none(sb_cfg_str(c, i)) &&
		    sb_scen_target_parse(sb_cfg_str(c, i), &t, why) < 0)
			return -EINVAL;
	}
	if (!is_none(deg) && !is_none(reb) && strcmp(deg, reb) != 0) {
		*key = K_SCEN_REBUILD;
		*why =
		    sb_asprintf("names %s but scenario.degrade names %s: a rebuild adds back the "
				"member it took out (give one of them)",
				reb, deg);
		return -EINVAL;
	}
	if (strcmp(sb_cfg_str(c, K_SCEN_INTEGRITY), "yes") == 0 &&
	    sb_scen_kind(c) == SB_SCEN_NONE &&
	    strcmp(sb_cfg_str(c, lkey("fs.type")), "btrfs") != 0) {
		*key = K_SCEN_INTEGRITY;
		*why = sb_asprintf("yes needs an md array with redundancy or btrfs (nothing here "
				   "can be checked against a second copy)");
		return -EINVAL;
	}
	if (k < 0)
		return 0;
	*key = (enum sb_key_id)k;
	if ((m = no_redundancy(c))) {
		*why = strdup(m);
		return -EINVAL;
	}
	r = sb_scen_member(c, var, sizeof(var), why);
	if (r < 0)
		return r;
	if (k == K_SCEN_REBUILD && (m = rebuild_with_why(c, sb_scen_kind(c)))) {
		*key = K_SCEN_REBUILD_WITH;
		*why = strdup(m);
		return -EINVAL;
	}
	return 0;
}
