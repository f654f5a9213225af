/* Key types: a value checked against its key's type, and the typed getters
 * of a config's values. */
#include "profile/profile-int.h"
#include "util/freetext.h"
#include "util/macro.h"
#include "util/strutil.h"
#include "util/suggest.h"
#include "util/value.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

bool sb_prof_key_vrule(const struct sb_key *k, struct sb_vrule *r)
{
	*r = (struct sb_vrule){SB_VT_UINT, k->min, k->max, k->choices};
	switch (k->type) {
	case SB_KT_COUNT:
	case SB_KT_UINT:
		return true;
	case SB_KT_SIZE:
	case SB_KT_SIZEPCT:
	case SB_KT_DURATION:
		*r = (struct sb_vrule){(enum sb_vtype)k->type, 1, 0, NULL};
		return true;
	case SB_KT_SIZES:
	case SB_KT_BOOL:
	case SB_KT_CHOICE:
		r->type = (enum sb_vtype)k->type;
		return true;
	default:
		return false;
	}
}

static char *check_roles(const char *v, bool allow_all)
{
	_cleanup_free_ char *copy = strdup(v);
	char *save = NULL;
	size_t n = 0;

	if (!copy)
		return NULL;
	if (allow_all && strcmp(v, "all") == 0)
		return NULL;
	if (!allow_all && strcmp(v, "none") == 0)
		return NULL;
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		w = sb_str_trim(w);
		n++;
		if (sb_role_lookup(w) < 0) {
			const char *s =
			    sb_suggest(w, (const char *const *)sb_role_names, SB_ROLE_N);
			if (s)
				return sb_asprintf("unknown role '%s' (did you mean '%s'?)", w, s);
			return sb_asprintf("unknown role '%s': expected %s", w,
					   allow_all ? "'all' or roles among ssd, hdd, nvme, any"
						     : "one of ssd, hdd, nvme, any");
		}
	}
	if (n == 0 || (!allow_all && n > 1))
		return sb_asprintf("expected %s, got '%s'",
				   allow_all ? "'all' or roles such as 'ssd,hdd'" : "one role", v);
	return NULL;
}

/* One role; with SB_KF_ROLE_PART, the partition a role's members are
 * (hdd.p2) is taken as its role. */
static char *check_role(const struct sb_key *key, const char *v)
{
	char role[32];
	const char *dot = strchr(v, '.');
	if ((key->flags & SB_KF_ROLE_PART) && dot) {
		struct sb_sel s;
		char *why = NULL;
		if (sb_sel_parse(v, &s, &why) < 0 || s.n != 1)
			return why ? why : sb_asprintf("expected one role, got '%s'", v);
		snprintf(role, sizeof(role), "%.*s", (int)(dot - v), v);
		return check_roles(role, false);
	}
	return check_roles(v, false);
}

static sb_workload_check_fn workload_check;

void sb_keytab_set_workload_check(sb_workload_check_fn check)
{
	workload_check = check;
}

char *sb_key_check_value(int k, const char *v)
{
	const struct sb_key *key = &sb_keys[k];
	struct sb_vrule rule;
	struct sb_value val;

	if (!*v)
		return sb_asprintf("empty value");
	for (const char *c = v; *c; c++)
		if (iscntrl((unsigned char)*c))
			return sb_asprintf("control character in value");

	if (sb_prof_key_vrule(key, &rule)) {
		int rc = sb_value_parse(&rule, v, &val);
		return rc < 0 && rc != -ENOMEM ? sb_value_error(&rule, SB_VSTYLE_KEY, NULL, v, rc)
					       : NULL;
	}
	switch (key->type) {
	case SB_KT_ROLE:
		return check_role(key, v);
	case SB_KT_ROLES:
		return check_roles(v, true);
	case SB_KT_MEMBERS: {
		struct sb_sel s;
		char *why = NULL;
		if (sb_sel_parse(v, &s, &why) < 0)
			return why ? why
				   : sb_asprintf("expected 'all' or roles and partitions "
						 "such as 'ssd.p2, hdd.p2', got '%s'",
						 v);
		return NULL;
	}
	case SB_KT_NAME:
		for (const char *c = v; *c; c++)
			if (!isalnum((unsigned char)*c) && !strchr("_+.-", *c))
				return sb_asprintf("expected a name of letters, digits and _+.-, "
						   "got '%s'",
						   v);
		if (v[0] == '-')
			return sb_asprintf("a name cannot start with '-', got '%s'", v);
		return NULL;
	case SB_KT_WORKLOAD: {
		char *e = NULL;
		if (!workload_check)
			return sb_asprintf("no workload checker to judge '%s'", v);
		if (workload_check(v, &e) < 0)
			return e ? e : sb_asprintf("invalid workload '%s'", v);
		return NULL;
	}
	case SB_KT_WORDS:
	case SB_KT_STRING:
		return sb_ft_check_key(v, key->type == SB_KT_WORDS);
	default:
		return NULL; /* a shared value type, checked above */
	}
}

const char *sb_cfg_str(const struct sb_config *c, enum sb_key_id k)
{
	return c->val[k] ? c->val[k] : sb_keys[k].def;
}

uint64_t sb_cfg_u64(const struct sb_config *c, enum sb_key_id k)
{
	struct sb_vrule any = {SB_VT_UINT, 0, 0, NULL};
	struct sb_value val;

	/* Other keys' values are read as whole numbers: md.level's "10". */
	if (sb_keys[k].type == SB_KT_SIZE || sb_keys[k].type == SB_KT_SIZEPCT)
		any.type = SB_VT_SIZEPCT;
	else if (sb_keys[k].type == SB_KT_DURATION)
		any.type = SB_VT_DURATION;
	sb_value_parse(&any, sb_cfg_str(c, k), &val);
	return val.u;
}

bool sb_cfg_bool(const struct sb_config *c, enum sb_key_id k)
{
	struct sb_vrule yes_no = {SB_VT_BOOL, 0, 0, NULL};
	struct sb_value val;
	return sb_value_parse(&yes_no, sb_cfg_str(c, k), &val) == 0 && val.u;
}

unsigned sb_cfg_role_count(const struct sb_config *c, enum sb_role r)
{
	return (unsigned)sb_cfg_u64(c, (enum sb_key_id)(K_DEV_SSD + r));
}

bool sb_config_differ(const struct sb_config *a, const struct sb_config *b, const char *key)
{
	json_object *ja = sb_config_to_json(a), *jb = sb_config_to_json(b), *va = NULL, *vb = NULL;
	bool differ =
	    json_object_object_get_ex(ja, key, &va) != json_object_object_get_ex(jb, key, &vb) ||
	    (va && vb && !json_object_equal(va, vb));
	json_object_put(ja);
	json_object_put(jb);
	return differ;
}

json_object *sb_config_to_json(const struct sb_config *c)
{
	json_object *o = json_object_new_object();
	for (int k = 0; k < (int)sb_key_n; k++) {
		char full[128];
		const char *v = sb_cfg_str(c, k);
		if (sb_keys[k].flags & SB_KF_REPEAT)
			continue;
		if (!v || (!c->val[k] && !c->has_sec[sb_keys[k].sec]))
			continue;
		snprintf(full, sizeof(full), "%s.%s", sb_sec_names[sb_keys[k].sec],
			 sb_keys[k].name);
		json_object_object_add(o, full, json_object_new_string(v));
	}
	json_object *wl = json_object_new_array();
	for (size_t i = 0; i < c->n_workloads; i++)
		json_object_array_add(wl, json_object_new_string(c->workloads[i]));
	json_object_object_add(o, "workloads.run", wl);
	return o;
}
