/* Member selectors ("all", "ssd.p2, hdd"): parsed, matched, and counted
 * against a variant's devices and partitions. */
#include "profile/profile-int.h"
#include "util/macro.h"
#include "util/strutil.h"
#include "util/suggest.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Units a layer sees: devices, or their partitions. */
static unsigned role_units(const struct sb_config *c, enum sb_role r, const struct sb_vstate *st)
{
	unsigned n = sb_cfg_role_count(c, r);
	if (st->parted & (1u << r))
		n *= st->nparts;
	return n;
}

int sb_cfg_sel_units(const struct sb_config *c, const char *v, const struct sb_vstate *st,
		     char **why)
{
	unsigned nparts = st->nparts;
	struct sb_sel s;
	int n = 0;

	*why = NULL;
	if (sb_sel_parse(v, &s, why) < 0)
		return -1;
	for (int r = 0; r < SB_ROLE_N; r++) {
		bool parted = st->parted & (1u << r);
		if (s.all) {
			n += (int)role_units(c, r, st);
			continue;
		}
		for (size_t i = 0; i < s.n; i++) {
			if (s.item[i].role != (enum sb_role)r)
				continue;
			if (!sb_cfg_role_count(c, r)) {
				*why = sb_asprintf("no %s device in [devices]", sb_role_names[r]);
				return -1;
			}
			if (s.item[i].part && (!parted || s.item[i].part > nparts)) {
				*why = sb_asprintf(
				    "%s.p%u: the %s devices have %s", sb_role_names[r],
				    s.item[i].part, sb_role_names[r],
				    parted ? (nparts == 1 ? "one partition" : "fewer partitions")
					   : "no partitions ([partition] on = ...)");
				return -1;
			}
			n += s.item[i].part ? (int)sb_cfg_role_count(c, r)
					    : (int)role_units(c, r, st);
		}
	}
	return n;
}

int sb_sel_parse(const char *v, struct sb_sel *out, char **why)
{
	_cleanup_free_ char *copy = v ? strdup(v) : NULL;
	char *save = NULL;

	*out = (struct sb_sel){0};
	*why = NULL;
	if (!copy)
		return -EINVAL;
	if (strcmp(sb_str_trim(copy), "all") == 0) {
		out->all = true;
		return 0;
	}
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		char *dot;
		unsigned long part = 0;
		w = sb_str_trim(w);
		if ((dot = strchr(w, '.'))) {
			char *end;
			*dot = '\0';
			if (dot[1] != 'p' || !isdigit((unsigned char)dot[2]) ||
			    (part = strtoul(dot + 2, &end, 10)) == 0 || part > 128 || *end) {
				*why =
				    sb_asprintf("'%s.%s': a partition is ROLE.pN, N from 1, as in "
						"'ssd.p2'",
						w, dot + 1);
				return -EINVAL;
			}
		}
		int r = sb_role_lookup(w);
		if (r < 0) {
			const char *s =
			    sb_suggest(w, (const char *const *)sb_role_names, SB_ROLE_N);
			*why =
			    s ? sb_asprintf("unknown role '%s' (did you mean '%s'?)", w, s)
			      : sb_asprintf("unknown role '%s': expected 'all' or roles among ssd, "
					    "hdd, nvme, any, each with an optional .pN",
					    w);
			return -EINVAL;
		}
		if (out->n == SB_SEL_MAX) {
			*why = sb_asprintf("more than %d roles and partitions", SB_SEL_MAX);
			return -EINVAL;
		}
		out->item[out->n].role = (enum sb_role)r;
		out->item[out->n++].part = (unsigned)part;
	}
	if (out->n == 0) {
		*why =
		    sb_asprintf("expected 'all' or roles and partitions such as 'ssd.p2, hdd.p2', "
				"got '%s'",
				v);
		return -EINVAL;
	}
	return 0;
}

bool sb_sel_match(const struct sb_sel *s, enum sb_role r, unsigned part)
{
	if (s->all)
		return true;
	for (size_t i = 0; i < s->n; i++)
		if (s->item[i].role == r && (s->item[i].part == 0 || s->item[i].part == part))
			return true;
	return false;
}

bool sb_roles_has(const char *roles, enum sb_role r)
{
	size_t n = strlen(sb_role_names[r]);
	if (!roles)
		return false;
	if (strcmp(roles, "all") == 0)
		return true;
	for (const char *c = roles; *c;) {
		const char *e = strchrnul(c, ',');
		const char *s = c;
		while (s < e && isspace((unsigned char)*s))
			s++;
		const char *t = e;
		while (t > s && isspace((unsigned char)t[-1]))
			t--;
		if ((size_t)(t - s) == n && strncmp(s, sb_role_names[r], n) == 0)
			return true;
		c = *e ? e + 1 : e;
	}
	return false;
}
