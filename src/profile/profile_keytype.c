/* Key types: a value checked against its key's type, and the typed getters
 * of a config's values. */
#include "profile/profile-int.h"
#include "util/freetext.h"
#include "util/macro.h"
#include "util/parse.h"
#include "util/size.h"
#include "util/strutil.h"
#include "util/suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static bool parse_uint(const char *v, uint64_t *out)
{
	return sb_parse_uint(v, 0, UINT64_MAX, out) == 0;
}

static int parse_bool(const char *v)
{
	bool b;
	return sb_parse_bool(v, &b) < 0 ? -1 : b;
}

static bool in_choices(const char *choices, const char *v)
{
	size_t n = strlen(v);
	for (const char *c = choices; c && *c;) {
		const char *e = strchrnul(c, '|');
		if ((size_t)(e - c) == n && strncmp(c, v, n) == 0)
			return true;
		c = *e ? e + 1 : e;
	}
	return false;
}

static char *choices_text(const char *choices)
{
	char *s = strdup(choices);
	size_t n = 0;
	if (!s)
		return NULL;
	for (char *c = s; *c; c++)
		n += *c == '|';
	/* "a|b|c" -> "a, b, c" needs one more byte per separator. */
	char *out = malloc(strlen(s) + n + 1), *o = out;
	if (out) {
		for (char *c = s; *c; c++) {
			if (*c == '|') {
				*o++ = ',';
				*o++ = ' ';
			} else {
				*o++ = *c;
			}
		}
		*o = '\0';
	}
	free(s);
	return out;
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
		w = sb_prof_trim(w);
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

/* "50%,50%" or "10G,rest": sizes, "rest" last, percentages at most 100. */
static char *check_sizes(const char *v)
{
	_cleanup_free_ char *copy = strdup(v);
	char *save = NULL, *w;
	uint64_t pct_sum = 0, u;
	bool rest = false, pct;
	if (!copy)
		return NULL;
	for (w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		w = sb_prof_trim(w);
		if (rest)
			return sb_asprintf("'rest' must be the last size, got '%s'", v);
		if (strcmp(w, "rest") == 0) {
			rest = true;
			continue;
		}
		if (sb_parse_size(w, &u, true, &pct) < 0 || u == 0)
			return sb_asprintf("expected sizes such as '50%%,50%%' or "
					   "'10G,rest', got '%s'",
					   w);
		if (pct)
			pct_sum += u;
	}
	if (pct_sum > 100)
		return sb_asprintf("percentages add up to %llu%%, more than 100%%",
				   (unsigned long long)pct_sum);
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
	uint64_t u;
	bool pct;

	if (!*v)
		return sb_asprintf("empty value");
	for (const char *c = v; *c; c++)
		if (iscntrl((unsigned char)*c))
			return sb_asprintf("control character in value");

	switch (key->type) {
	case SB_KT_COUNT:
	case SB_KT_UINT:
		if (!parse_uint(v, &u) || u < key->min || u > key->max)
			return sb_asprintf("expected a whole number from %llu to %llu, got '%s'",
					   (unsigned long long)key->min,
					   (unsigned long long)key->max, v);
		return NULL;
	case SB_KT_SIZE:
		if (sb_parse_size(v, &u, false, NULL) < 0 || u == 0)
			return sb_asprintf("expected a size such as 512M or 2G, got '%s'", v);
		return NULL;
	case SB_KT_SIZEPCT:
		if (sb_parse_size(v, &u, true, &pct) < 0 || u == 0)
			return sb_asprintf("expected a size such as 20G or a percentage such as "
					   "50%%, got '%s'",
					   v);
		return NULL;
	case SB_KT_SIZES:
		return check_sizes(v);
	case SB_KT_BOOL:
		if (parse_bool(v) < 0)
			return sb_asprintf("expected yes or no, got '%s'", v);
		return NULL;
	case SB_KT_CHOICE:
		if (!in_choices(key->choices, v)) {
			_cleanup_free_ char *c = choices_text(key->choices);
			return sb_asprintf("expected one of %s, got '%s'", c ? c : key->choices, v);
		}
		return NULL;
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
	case SB_KT_DURATION:
		if (sb_parse_duration_ms(v, &u) < 0 || u == 0)
			return sb_asprintf("expected a duration such as 30s or 10m, got '%s'", v);
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
	}
	return NULL;
}

const char *sb_cfg_str(const struct sb_config *c, enum sb_key_id k)
{
	return c->val[k] ? c->val[k] : sb_keys[k].def;
}

uint64_t sb_cfg_u64(const struct sb_config *c, enum sb_key_id k)
{
	const char *v = sb_cfg_str(c, k);
	uint64_t u = 0;
	bool pct;
	if (!v)
		return 0;
	switch (sb_keys[k].type) {
	case SB_KT_SIZE:
	case SB_KT_SIZEPCT:
		if (sb_parse_size(v, &u, true, &pct) < 0)
			return 0;
		return u;
	case SB_KT_DURATION:
		if (sb_parse_duration_ms(v, &u) < 0)
			return 0;
		return u;
	default:
		return parse_uint(v, &u) ? u : 0;
	}
}

bool sb_cfg_bool(const struct sb_config *c, enum sb_key_id k)
{
	const char *v = sb_cfg_str(c, k);
	return v && parse_bool(v) == 1;
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
