/* Profile parser, value checks, -o overrides and matrix expansion (see
 * profile.h and doc/profile-format.md). Pure apart from sb_profile_load. */
#include "profile/profile.h"
#include "util/freetext.h"
#include "util/macro.h"
#include "util/parse.h"
#include "util/safefile.h"
#include "util/size.h"
#include "util/strutil.h"
#include "util/suggest.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define MAX_VARIANTS 256

static int set_err(char **err, const char *fmt, ...) _printf_(2, 3);
static int set_err(char **err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	*err = sb_vasprintf(fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static const char *pool_add(struct sb_profile *p, const char *s, size_t len)
{
	char **np = realloc(p->pool, (p->n_pool + 1) * sizeof(*np));
	if (!np)
		return NULL;
	p->pool = np;
	np[p->n_pool] = strndup(s, len);
	if (!np[p->n_pool])
		return NULL;
	return np[p->n_pool++];
}

static char *trim(char *s)
{
	char *e;
	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

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
		w = trim(w);
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
		w = trim(w);
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

/* "did you mean" among the keys of one section. */
static const char *suggest_key(enum sb_sec sec, const char *word)
{
	const char *names[SB_KEY_MAX];
	size_t n = 0;
	for (int i = 0; i < (int)sb_key_n; i++)
		if (sb_keys[i].sec == (int)sec)
			names[n++] = sb_keys[i].name;
	return sb_suggest(word, names, n);
}

static char *unknown_key_msg(enum sb_sec sec, const char *key)
{
	const char *s = suggest_key(sec, key);
	if (s)
		return sb_asprintf("unknown key '%s' in [%s] (did you mean '%s'?)", key,
				   sb_sec_names[sec], s);
	return sb_asprintf("unknown key '%s' in [%s]", key, sb_sec_names[sec]);
}

static char *unknown_sec_msg(const char *name)
{
	const char *s = sb_suggest(name, (const char *const *)sb_sec_names, sb_sec_n);
	char *list = NULL, *m;
	size_t len = 0;
	FILE *f;

	if (s)
		return sb_asprintf("unknown section '[%s]' (did you mean '[%s]'?)", name, s);
	/* The sections in stack order: [devices], the layers' in registry
	 * order, the other core ones, [matrix] last. */
	f = open_memstream(&list, &len);
	if (!f)
		return NULL;
	fprintf(f, "[%s], ", sb_sec_names[SB_SEC_DEVICES]);
	for (size_t i = SB_SEC_CORE_N; i < sb_sec_n; i++)
		fprintf(f, "[%s], ", sb_sec_names[i]);
	for (size_t i = 0; i < SB_SEC_CORE_N; i++)
		if (i != SB_SEC_DEVICES && i != SB_SEC_MATRIX)
			fprintf(f, "[%s], ", sb_sec_names[i]);
	fprintf(f, "[%s]", sb_sec_names[SB_SEC_MATRIX]);
	fclose(f);
	m = list ? sb_asprintf("unknown section '[%s]': expected one of %s", name, list) : NULL;
	free(list);
	return m;
}

/* "section.key" -> key id, or a message. */
static int lookup_dotted(const char *dotted, bool for_matrix, char **msg)
{
	_cleanup_free_ char *copy = strdup(dotted);
	char *dot;
	int sec, k;

	if (!copy)
		return -ENOMEM;
	dot = strchr(copy, '.');
	if (!dot) {
		*msg = sb_asprintf("expected 'section.key', got '%s'", dotted);
		return -EINVAL;
	}
	*dot = '\0';
	sec = sb_sec_lookup(copy);
	if (sec < 0 || sec == SB_SEC_MATRIX) {
		*msg = unknown_sec_msg(copy);
		return -EINVAL;
	}
	k = sb_key_lookup(sec, dot + 1);
	if (k < 0) {
		*msg = unknown_key_msg(sec, dot + 1);
		return -EINVAL;
	}
	if (for_matrix && (sb_keys[k].flags & SB_KF_NOMATRIX)) {
		*msg = sb_asprintf("'%s' cannot vary in [matrix]", dotted);
		return -EINVAL;
	}
	return k;
}

static void note_role(struct sb_config *c, enum sb_key_id k)
{
	if (k > K_DEV_ANY)
		return;
	enum sb_role r = (enum sb_role)(k - K_DEV_SSD);
	for (size_t i = 0; i < c->n_roles; i++)
		if (c->role_order[i] == r)
			return;
	c->role_order[c->n_roles++] = r;
}

static int add_workload(struct sb_profile *p, struct sb_config *c, const char *v, unsigned line)
{
	const char **nw = realloc(c->workloads, (c->n_workloads + 1) * sizeof(*nw));
	unsigned *nl;
	if (!nw)
		return -ENOMEM;
	c->workloads = nw;
	nl = realloc(c->wl_lines, (c->n_workloads + 1) * sizeof(*nl));
	if (!nl)
		return -ENOMEM;
	c->wl_lines = nl;
	nw[c->n_workloads] = v;
	nl[c->n_workloads++] = line;
	return 0;
}

static bool dim_has(const struct sb_dim *d, enum sb_key_id k)
{
	for (size_t i = 0; i < d->n_keys; i++)
		if (d->keys[i] == k)
			return true;
	return false;
}

/* Takes key k out of the matrix because -o pins it to value (NULL: the
 * whole key goes). In a joint dimension, only the tuples that agree with
 * the pinned value stay, without that key; what is left may be nothing. */
static void drop_dim(struct sb_profile *p, enum sb_key_id k, const char *value)
{
	for (size_t i = 0; i < p->n_dims; i++) {
		struct sb_dim *d = &p->dims[i];
		size_t j, nk = d->n_keys - 1, w = 0, nt = 0;
		if (!dim_has(d, k))
			continue;
		for (j = 0; d->keys[j] != k; j++)
			;
		for (size_t t = 0; t < d->n; t++) {
			const char *pv = d->vals[t * d->n_keys + j];
			bool keep = !value || !pv || strcmp(pv, value) == 0, all_null = true,
			     dup = false;
			const char **row = &d->vals[t * d->n_keys];
			if (!keep)
				continue;
			for (size_t c = 0; c < d->n_keys; c++)
				all_null &= c == j || !row[c];
			/* Is the shortened tuple one we already have? */
			for (size_t u = 0; u < nt && !dup; u++) {
				bool same = true;
				for (size_t c = 0, cc = 0; c < d->n_keys; c++) {
					if (c == j)
						continue;
					const char *x = d->vals[u * nk + cc++], *y = row[c];
					same &= (!x && !y) || (x && y && strcmp(x, y) == 0);
				}
				dup = same;
			}
			if (dup || (all_null && nk == 0))
				continue;
			/* Rows are compacted in place: the write position never passes the read
			 * one. */
			const char *tmp[SB_DIM_KEYS];
			for (size_t c = 0; c < d->n_keys; c++)
				tmp[c] = row[c];
			for (size_t c = 0; c < d->n_keys; c++)
				if (c != j)
					d->vals[w++] = tmp[c];
			nt++;
		}
		memmove(&d->keys[j], &d->keys[j + 1], (d->n_keys - j - 1) * sizeof(d->keys[0]));
		d->n_keys = nk;
		d->n = nt;
		/* One tuple left (or none): nothing varies any more, but its values
		 * still apply to every variant, so fold them into the base. */
		if (nk == 0 || nt <= 1) {
			for (size_t c = 0; nt == 1 && c < nk; c++)
				if (d->vals[c]) {
					p->base.val[d->keys[c]] = d->vals[c];
					p->base.line[d->keys[c]] = d->line;
					p->base.origin[d->keys[c]] = d->line ? "matrix" : "-o";
					p->base.has_sec[sb_keys[d->keys[c]].sec] = true;
				}
			free(d->vals);
			memmove(d, d + 1, (p->n_dims - i - 1) * sizeof(*d));
			p->n_dims--;
		}
		return;
	}
}

static char *dim_name(const struct sb_dim *d)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	for (size_t i = 0; i < d->n_keys; i++)
		fprintf(f, "%s%s.%s", i ? "; " : "", sb_sec_names[sb_keys[d->keys[i]].sec],
			sb_keys[d->keys[i]].name);
	fclose(f);
	return out;
}

/* One value of a dimension ("btrfs; -n 4k"): its parts into row (one per
 * key, left NULL where empty), each checked against its key. 0, -EINVAL
 * with *msg, or -ENOMEM. */
static int dim_parts(struct sb_profile *p, const struct sb_dim *d, char *w, const char *orig,
		     const char **row, char **msg)
{
	char *psave = NULL, *part;
	size_t c = 0;

	/* strtok_r would merge empty parts: split by hand. */
	for (part = w; part; part = psave, c++) {
		psave = strchr(part, ';');
		if (psave)
			*psave++ = '\0';
		char *v = trim(part);
		int k;
		if (c >= d->n_keys) {
			*msg = sb_asprintf("value '%s' has more parts than the %zu keys", orig,
					   d->n_keys);
			return -EINVAL;
		}
		k = d->keys[c];
		if (!*v) {
			if (d->n_keys == 1) {
				*msg = sb_asprintf("%s.%s: empty value in [matrix]",
						   sb_sec_names[sb_keys[k].sec], sb_keys[k].name);
				return -EINVAL;
			}
			continue;
		}
		if (sb_keys[k].type != SB_KT_WORKLOAD) {
			char *m = sb_key_check_value(k, v);
			if (m) {
				*msg = sb_asprintf("%s.%s: %s", sb_sec_names[sb_keys[k].sec],
						   sb_keys[k].name, m);
				free(m);
				return -EINVAL;
			}
		}
		if (!(row[c] = pool_add(p, v, strlen(v))))
			return -ENOMEM;
	}
	return 0;
}

/* "fs.type; fs.mkfs" and "btrfs; -n 4k | xfs" -> a dimension, each value
 * checked against its key. line 0: from -o, which replaces the profile's. */
static int add_dim(struct sb_profile *p, char *keys, char *values, unsigned line, char **msg)
{
	struct sb_dim d = {.line = line};
	char *save = NULL;
	int r = -EINVAL;

	for (char *k = strtok_r(keys, ";", &save); k; k = strtok_r(NULL, ";", &save)) {
		int id = lookup_dotted(trim(k), true, msg);
		if (id < 0)
			return id;
		if (d.n_keys == SB_DIM_KEYS) {
			*msg = sb_asprintf("at most %d keys can vary together", SB_DIM_KEYS);
			return -EINVAL;
		}
		if (dim_has(&d, id)) {
			*msg = sb_asprintf("'%s' named twice", trim(k));
			return -EINVAL;
		}
		for (size_t i = 0; i < p->n_dims; i++)
			if (dim_has(&p->dims[i], id)) {
				if (line) {
					*msg = sb_asprintf("'%s.%s' already in [matrix] on line %u",
							   sb_sec_names[sb_keys[id].sec],
							   sb_keys[id].name, p->dims[i].line);
					return -EINVAL;
				}
				/* -o matrix.KEY replaces every dimension KEY was part of. */
				free(p->dims[i].vals);
				memmove(&p->dims[i], &p->dims[i + 1],
					(p->n_dims - i - 1) * sizeof(*p->dims));
				p->n_dims--;
				break;
			}
		d.keys[d.n_keys++] = id;
	}
	if (d.n_keys == 0) {
		*msg = sb_asprintf("expected 'section.key = value | value'");
		return -EINVAL;
	}
	save = NULL;
	for (char *w = strtok_r(values, "|", &save); w; w = strtok_r(NULL, "|", &save)) {
		const char **nv = realloc(d.vals, (d.n + 1) * d.n_keys * sizeof(*nv));
		char orig[512];
		snprintf(orig, sizeof(orig), "%s", trim(w));
		if (!nv) {
			r = -ENOMEM;
			goto fail;
		}
		d.vals = nv;
		for (size_t k = 0; k < d.n_keys; k++)
			nv[d.n * d.n_keys + k] = NULL;
		r = dim_parts(p, &d, w, orig, &nv[d.n * d.n_keys], msg);
		if (r < 0)
			goto fail;
		r = -EINVAL;
		for (size_t t = 0; t < d.n; t++) {
			bool same = true;
			for (size_t k = 0; k < d.n_keys; k++) {
				const char *x = d.vals[t * d.n_keys + k],
					   *y = nv[d.n * d.n_keys + k];
				same &= (!x && !y) || (x && y && strcmp(x, y) == 0);
			}
			if (same) {
				*msg = sb_asprintf("value '%s' listed twice", orig);
				goto fail;
			}
		}
		d.n++;
	}
	if (d.n == 0) {
		_cleanup_free_ char *n = dim_name(&d);
		*msg = sb_asprintf("%s: expected values separated by '|'", n ? n : "?");
		goto fail;
	}
	struct sb_dim *nd = realloc(p->dims, (p->n_dims + 1) * sizeof(*nd));
	if (!nd) {
		r = -ENOMEM;
		goto fail;
	}
	p->dims = nd;
	p->dims[p->n_dims++] = d;
	return 0;
fail:
	free(d.vals);
	return r;
}

static char *profile_name(const char *path)
{
	const char *b = strrchr(path, '/');
	size_t n;
	b = b ? b + 1 : path;
	n = strlen(b);
	if (n > 5 && strcmp(b + n - 5, ".conf") == 0)
		n -= 5;
	return strndup(b, n);
}

/* "[name]": the section's id, or -EINVAL with *msg. */
static int parse_section(struct sb_profile *p, char *line, unsigned lineno, char **msg)
{
	char *end = strchr(line, ']');
	int sec;

	if (!end || end[1]) {
		*msg = sb_asprintf("expected '[section]', got '%s'", line);
		return -EINVAL;
	}
	*end = '\0';
	sec = sb_sec_lookup(trim(line + 1));
	if (sec < 0) {
		*msg = unknown_sec_msg(trim(line + 1));
		return -EINVAL;
	}
	if (p->base.has_sec[sec]) {
		*msg = sb_asprintf("section [%s] appears twice (first on line %u)",
				   sb_sec_names[sec], p->base.sec_line[sec]);
		return -EINVAL;
	}
	p->base.has_sec[sec] = true;
	p->base.sec_line[sec] = lineno;
	return sec;
}

/* "key = val" in section sec: checked against its key's row, then kept.
 * 0, -EINVAL with *msg, or -ENOMEM. */
static int parse_key(struct sb_profile *p, int sec, const char *key, const char *val,
		     unsigned lineno, char **msg)
{
	int k = sb_key_lookup(sec, key);
	const char *v;
	char *m;

	if (k < 0) {
		*msg = unknown_key_msg(sec, key);
		return -EINVAL;
	}
	if (!*val) {
		*msg = sb_asprintf("%s.%s: expected a value", sb_sec_names[sec], key);
		return -EINVAL;
	}
	/* Workloads are checked once overrides are in (-o may replace them). */
	m = sb_keys[k].type == SB_KT_WORKLOAD ? NULL : sb_key_check_value(k, val);
	if (m) {
		*msg = sb_asprintf("%s.%s: %s", sb_sec_names[sec], key, m);
		free(m);
		return -EINVAL;
	}
	if (!(v = pool_add(p, val, strlen(val))))
		return -ENOMEM;
	if (sb_keys[k].flags & SB_KF_REPEAT)
		return add_workload(p, &p->base, v, lineno);
	if (p->base.val[k]) {
		*msg = sb_asprintf("%s.%s: already set on line %u", sb_sec_names[sec], key,
				   p->base.line[k]);
		return -EINVAL;
	}
	p->base.val[k] = v;
	p->base.line[k] = lineno;
	p->base.origin[k] = "profile";
	note_role(&p->base, k);
	return 0;
}

int sb_profile_parse(const char *path, const char *text, struct sb_profile **out, char **err)
{
	struct sb_profile *p = calloc(1, sizeof(*p));
	_cleanup_free_ char *copy = strdup(text);
	char *line, *next, *msg = NULL;
	unsigned lineno = 0;
	int sec = -1, r = 0;

	*err = NULL;
	if (!p || !copy || !(p->path = strdup(path)) || !(p->name = profile_name(path))) {
		sb_profile_free(p);
		return -ENOMEM;
	}
	for (line = copy; line; line = next) {
		char *eq, *key, *val, *hash;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		line = trim(line);
		if (!*line || *line == '#' || *line == ';')
			continue;
		/* An inline comment starts at a '#' after a blank. */
		for (hash = line; (hash = strchr(hash, '#')); hash++)
			if (hash > line && isspace((unsigned char)hash[-1])) {
				*hash = '\0';
				line = trim(line);
				break;
			}

		if (*line == '[') {
			if ((sec = parse_section(p, line, lineno, &msg)) < 0)
				goto bad;
			continue;
		}
		if (sec < 0) {
			msg = sb_asprintf("expected a '[section]' before '%s'", line);
			goto bad;
		}
		eq = strchr(line, '=');
		if (!eq) {
			msg = sb_asprintf("expected 'key = value', got '%s'", line);
			goto bad;
		}
		*eq = '\0';
		key = trim(line);
		val = trim(eq + 1);
		if (!*key) {
			msg = sb_asprintf("expected a key before '='");
			goto bad;
		}

		if (sec == SB_SEC_MATRIX) {
			r = add_dim(p, key, val, lineno, &msg);
			if (r < 0)
				goto bad;
			continue;
		}

		r = parse_key(p, sec, key, val, lineno, &msg);
		if (r < 0)
			goto bad;
	}
	*out = p;
	return 0;

bad:
	if (r == -ENOMEM || !msg) {
		r = -ENOMEM;
		goto fail;
	}
	set_err(err, "%s:%u: %s", path, lineno, msg);
	free(msg);
	r = -EINVAL;
fail:
	sb_profile_free(p);
	return r;
}

int sb_profile_load(const char *path, struct sb_profile **out, char **err)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	FILE *m;
	char chunk[4096];
	size_t got;

	*err = NULL;
	if (!f) {
		int e = -errno;
		set_err(err, "%s: cannot open profile: %s", path, strerror(-e));
		return e;
	}
	m = open_memstream(&buf, &len);
	if (!m)
		return -ENOMEM;
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, got, m);
	if (ferror(f)) {
		int e = -errno;
		fclose(m);
		set_err(err, "%s: cannot read profile: %s", path, strerror(-e));
		return e ? e : -EIO;
	}
	fclose(m);
	if (memchr(buf, '\0', len))
		return set_err(err, "%s: not a text file", path);
	return sb_profile_parse(path, buf, out, err);
}

int sb_profile_override(struct sb_profile *p, const char *assignment, char **err)
{
	_cleanup_free_ char *copy = strdup(assignment);
	char *eq, *msg = NULL, *val;
	int k;

	*err = NULL;
	if (!copy)
		return -ENOMEM;
	eq = strchr(copy, '=');
	if (!eq)
		return set_err(err, "-o '%s': expected section.key=value", assignment);
	*eq = '\0';
	val = trim(eq + 1);
	char *lhs = trim(copy);
	if (strncmp(lhs, "matrix.", 7) == 0) {
		int r = add_dim(p, lhs + 7, val, 0, &msg);
		if (r == 0)
			return 0;
		if (r == -ENOMEM)
			return r;
	} else {
		k = lookup_dotted(lhs, false, &msg);
		if (k >= 0) {
			msg = sb_keys[k].type == SB_KT_WORKLOAD ? NULL : sb_key_check_value(k, val);
			if (msg) {
				char *m = sb_asprintf("%s: %s", lhs, msg);
				free(msg);
				msg = m;
			}
		}
		if (k >= 0 && !msg) {
			const char *v = pool_add(p, val, strlen(val));
			if (!v)
				return -ENOMEM;
			if (sb_keys[k].flags & SB_KF_REPEAT) {
				/* The command line's list replaces the profile's;
				 * repeating -o adds to it. */
				if (!p->workloads_overridden) {
					free(p->base.workloads);
					free(p->base.wl_lines);
					p->base.workloads = NULL;
					p->base.wl_lines = NULL;
					p->base.n_workloads = 0;
					p->workloads_overridden = true;
				}
				if (add_workload(p, &p->base, v, 0) < 0)
					return -ENOMEM;
			} else {
				p->base.val[k] = v;
				p->base.line[k] = 0;
				p->base.origin[k] = "-o";
				note_role(&p->base, k);
				/* Keys given one way or the other (partition.count
				 * or sizes): -o switches. */
				for (int o = 0;
				     (sb_keys[k].flags & SB_KF_ONEOF) && o < (int)sb_key_n; o++)
					if (o != k && sb_keys[o].sec == sb_keys[k].sec &&
					    (sb_keys[o].flags & SB_KF_ONEOF)) {
						p->base.val[o] = NULL;
						drop_dim(p, o, NULL);
					}
			}
			p->base.has_sec[sb_keys[k].sec] = true;
			drop_dim(p, k, v);
			return 0;
		}
	}
	if (!msg)
		return -ENOMEM;
	set_err(err, "-o '%s': %s", assignment, msg);
	free(msg);
	return -EINVAL;
}

/* ---- whole-variant checks ---- */

struct sb_vctx {
	const struct sb_profile *p;
	const struct sb_config *c;
	const char *variant; /* NULL for the base */
	char **err;
};

const struct sb_config *sb_vctx_config(const struct sb_vctx *v)
{
	return v->c;
}

bool sb_vctx_varies(const struct sb_vctx *v, int k)
{
	for (size_t d = 0; d < v->p->n_dims; d++)
		if (dim_has(&v->p->dims[d], k))
			return true;
	return false;
}

int sb_verr(struct sb_vctx *v, int k, const char *fmt, ...)
{
	va_list ap;
	_cleanup_free_ char *m = NULL, *where = NULL;
	va_start(ap, fmt);
	m = sb_vasprintf(fmt, ap);
	va_end(ap);
	if (k >= 0 && v->c->origin[k] && strcmp(v->c->origin[k], "-o") == 0)
		where = sb_asprintf("%s: -o %s.%s", v->p->path, sb_sec_names[sb_keys[k].sec],
				    sb_keys[k].name);
	else if (k >= 0 && v->c->line[k])
		where = sb_asprintf("%s:%u", v->p->path, v->c->line[k]);
	else
		where = strdup(v->p->path);
	if (v->variant)
		set_err(v->err, "%s: variant %s: %s", where, v->variant, m ? m : "");
	else
		set_err(v->err, "%s: %s", where, m ? m : "");
	return -EINVAL;
}

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

/* [devices]: the units the first layer sees. */
static int check_devices(struct sb_vctx *v, struct sb_vstate *st)
{
	const struct sb_config *c = v->c;
	unsigned total = 0;

	for (int r = 0; r < SB_ROLE_N; r++)
		total += sb_cfg_role_count(c, r);
	if (total == 0)
		return sb_verr(v, -1,
			       "[devices]: the stack needs at least one device (ssd = 1, say)");
	if (total > 64)
		return sb_verr(v, -1, "[devices]: %u devices, at most 64", total);

	st->units = total;
	return 0;
}

/* The registered layers' own rules, bottom up, each on its typed config. */
static int check_keytabs(struct sb_vctx *v, struct sb_vstate *st)
{
	for (size_t t = 0; t < sb_keytab_n; t++) {
		const struct sb_keytab *kt = sb_keytabs[t];
		void *cfg;
		int r;
		if (!kt->validate)
			continue;
		cfg = calloc(1, kt->cfg_size ? kt->cfg_size : 1);
		if (!cfg)
			return -ENOMEM;
		sb_keytab_fill(kt, v->c, cfg);
		r = kt->validate(v, cfg, st);
		free(cfg);
		if (r < 0)
			return r;
	}
	return 0;
}

int sb_vselect(struct sb_vctx *v, int key, struct sb_vstate *st)
{
	char *why = NULL;
	int n = sb_cfg_sel_units(v->c, sb_cfg_str(v->c, key), st, &why);
	if (n <= 0) {
		int r = sb_verr(v, key, "%s.%s: %s", sb_sec_names[sb_keys[key].sec],
				sb_keys[key].name, why ? why : "selects no device");
		free(why);
		return r;
	}
	st->units = (unsigned)n;
	st->taker = key;
	return 0;
}

/* scenario.degrade / rebuild against the stack they act on (scenario_check.c). */
static int check_scenario(struct sb_vctx *v)
{
	enum sb_key_id sk;
	char *why = NULL;
	int r = 0;

	if (sb_scen_check_config(v->c, &sk, &why) < 0)
		r = sb_verr(v, sk, "scenario.%s: %s", sb_keys[sk].name, why ? why : "refused");
	free(why);
	return r;
}

static int check_config(struct sb_vctx *v)
{
	struct sb_vstate st = {.taker = -1};
	int r;

	if ((r = check_devices(v, &st)) < 0 || (r = check_keytabs(v, &st)) < 0)
		return r;
	return check_scenario(v);
}

static void free_one(struct sb_pvariant *v)
{
	free(v->name);
	json_object_put(v->params);
	free(v->cfg.workloads);
}

/* Builds variant i of the matrix (last dimension fastest). */
static int make_variant(struct sb_profile *p, size_t i, struct sb_pvariant *v)
{
	char *name = NULL;
	size_t len = 0, rem = i, idx[p->n_dims + 1];
	FILE *f = open_memstream(&name, &len);
	bool first = true;

	if (!f)
		return -ENOMEM;
	v->cfg = p->base;
	v->cfg.workloads = NULL;
	if (p->base.n_workloads) {
		v->cfg.workloads = malloc(p->base.n_workloads * sizeof(char *));
		if (!v->cfg.workloads) {
			fclose(f);
			free(name);
			return -ENOMEM;
		}
		memcpy(v->cfg.workloads, p->base.workloads, p->base.n_workloads * sizeof(char *));
	}
	v->params = json_object_new_object();
	for (size_t d = p->n_dims; d-- > 0;) {
		idx[d] = rem % p->dims[d].n;
		rem /= p->dims[d].n;
	}
	for (size_t d = 0; d < p->n_dims; d++) {
		const struct sb_dim *dm = &p->dims[d];
		for (size_t c = 0; c < dm->n_keys; c++) {
			enum sb_key_id k = dm->keys[c];
			const char *val = dm->vals[idx[d] * dm->n_keys + c];
			char full[128];
			if (!val)
				continue;
			snprintf(full, sizeof(full), "%s.%s", sb_sec_names[sb_keys[k].sec],
				 sb_keys[k].name);
			fprintf(f, "%s%s=%s", first ? "" : ",", full, val);
			first = false;
			json_object_object_add(v->params, full, json_object_new_string(val));
			v->cfg.val[k] = val;
			v->cfg.line[k] = dm->line;
			v->cfg.origin[k] = dm->line ? "matrix" : "-o";
			v->cfg.has_sec[sb_keys[k].sec] = true;
		}
	}
	if (first)
		fputs("default", f);
	fclose(f);
	v->name = name;
	return name ? 0 : -ENOMEM;
}

static int check_workloads(struct sb_profile *p, char **err)
{
	for (size_t i = 0; i < p->base.n_workloads; i++) {
		char *m = sb_key_check_value(K_WL_RUN, p->base.workloads[i]);
		if (!m)
			continue;
		if (p->base.wl_lines[i])
			set_err(err, "%s:%u: workloads.run: %s", p->path, p->base.wl_lines[i], m);
		else
			set_err(err, "-o 'workloads.run=%s': %s", p->base.workloads[i], m);
		free(m);
		return -EINVAL;
	}
	return 0;
}

int sb_profile_variants(struct sb_profile *p, struct sb_pvariant **out, size_t *n, char **err)
{
	size_t total = 1, kept = 0;
	struct sb_pvariant *vs;
	char *first_err = NULL;
	int r = 0;

	*err = NULL;
	r = check_workloads(p, err);
	if (r < 0)
		return r;
	for (size_t d = 0; d < p->n_dims; d++) {
		total *= p->dims[d].n;
		if (total > MAX_VARIANTS)
			return set_err(err, "%s:%u: [matrix]: more than %d variants", p->path,
				       p->dims[d].line, MAX_VARIANTS);
	}
	vs = calloc(total, sizeof(*vs));
	if (!vs)
		return -ENOMEM;
	for (size_t i = 0; i < total; i++) {
		struct sb_pvariant *v = &vs[kept];
		char *e = NULL;

		r = make_variant(p, i, v);
		if (r < 0)
			goto fail;
		struct sb_vctx vc = {p, &v->cfg, p->n_dims ? v->name : NULL, &e};
		r = check_config(&vc);
		if (r == 0) {
			kept++;
			continue;
		}
		/* A combination that cannot be built is left out, as long as
		 * some can: the matrix is a product, not every cell makes sense. */
		if (!p->n_dims) {
			*err = e;
			goto fail;
		}
		char **nd = realloc(p->dropped, (p->n_dropped + 1) * sizeof(*nd));
		if (!nd) {
			free(e);
			r = -ENOMEM;
			goto fail;
		}
		p->dropped = nd;
		nd[p->n_dropped++] = e;
		if (!first_err)
			first_err = e;
		free_one(v);
		memset(v, 0, sizeof(*v));
	}
	if (kept == 0) {
		*err = strdup(first_err ? first_err : "no variant can be built");
		r = -EINVAL;
		goto fail;
	}
	*out = vs;
	*n = kept;
	return 0;
fail:
	sb_pvariants_free(vs, total);
	return r;
}

void sb_pvariants_free(struct sb_pvariant *v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		free_one(&v[i]);
	free(v);
}

void sb_profile_free(struct sb_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_pool; i++)
		free(p->pool[i]);
	for (size_t i = 0; i < p->n_dims; i++)
		free(p->dims[i].vals);
	free(p->dims);
	free(p->pool);
	for (size_t i = 0; i < p->n_dropped; i++)
		free(p->dropped[i]);
	free(p->dropped);
	free(p->base.workloads);
	free(p->base.wl_lines);
	free(p->path);
	free(p->name);
	free(p);
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

int sb_sel_parse(const char *v, struct sb_sel *out, char **why)
{
	_cleanup_free_ char *copy = v ? strdup(v) : NULL;
	char *save = NULL;

	*out = (struct sb_sel){0};
	*why = NULL;
	if (!copy)
		return -EINVAL;
	if (strcmp(trim(copy), "all") == 0) {
		out->all = true;
		return 0;
	}
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		char *dot;
		unsigned long part = 0;
		w = trim(w);
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

bool sb_cfg_bool(const struct sb_config *c, enum sb_key_id k)
{
	const char *v = sb_cfg_str(c, k);
	return v && parse_bool(v) == 1;
}

unsigned sb_cfg_role_count(const struct sb_config *c, enum sb_role r)
{
	return (unsigned)sb_cfg_u64(c, (enum sb_key_id)(K_DEV_SSD + r));
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

char *sb_profile_find(const char *arg)
{
	char *path = NULL;
	struct stat st;

	if (strchr(arg, '/') || (strlen(arg) > 5 && strcmp(arg + strlen(arg) - 5, ".conf") == 0))
		return strdup(arg);
	/* A bare name found in the current directory (or its profiles/) is
	 * taken only when the caller owns it and no one else can write it: a
	 * root run in someone's directory must not follow their file. */
	if (stat(arg, &st) == 0 && sb_file_trusted(arg, true) == 0)
		return strdup(arg);
	const char *dirs[8];
	size_t n = sb_profile_dirs(dirs, ARRAY_SIZE(dirs));
	for (size_t i = 0; i < n; i++) {
		if (asprintf(&path, "%s/%s.conf", dirs[i], arg) < 0)
			return NULL;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    (dirs[i][0] == '/' || sb_file_trusted(path, true) == 0))
			return path;
		free(path);
		path = NULL;
	}
	return NULL;
}
