/* Profile parsing: the INI text and -o assignments into a struct sb_profile
 * (see profile.h and doc/profile-format.md). Pure apart from sb_profile_load. */
#include "profile/profile-int.h"
#include "util/macro.h"
#include "util/safefile.h"
#include "util/strutil.h"
#include "util/suggest.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int sb_prof_set_err(char **err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	*err = sb_vasprintf(fmt, ap);
	va_end(ap);
	return -EINVAL;
}

const char *sb_prof_pool_add(struct sb_profile *p, const char *s, size_t len)
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

/* Is section sec a table's placed as core (struct sb_keytab)? */
static bool sec_placed_as_core(size_t sec)
{
	for (size_t t = 0; t < sb_keytab_n; t++)
		if (sb_keytabs[t]->placed_as_core &&
		    strcmp(sb_keytabs[t]->section, sb_sec_names[sec]) == 0)
			return true;
	return false;
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
	 * order, the other core ones, those placed as core, [matrix] last. */
	f = open_memstream(&list, &len);
	if (!f)
		return NULL;
	fprintf(f, "[%s], ", sb_sec_names[SB_SEC_DEVICES]);
	for (size_t i = SB_SEC_CORE_N; i < sb_sec_n; i++)
		if (!sec_placed_as_core(i))
			fprintf(f, "[%s], ", sb_sec_names[i]);
	for (size_t i = 0; i < SB_SEC_CORE_N; i++)
		if (i != SB_SEC_DEVICES && i != SB_SEC_MATRIX)
			fprintf(f, "[%s], ", sb_sec_names[i]);
	for (size_t i = SB_SEC_CORE_N; i < sb_sec_n; i++)
		if (sec_placed_as_core(i))
			fprintf(f, "[%s], ", sb_sec_names[i]);
	fprintf(f, "[%s]", sb_sec_names[SB_SEC_MATRIX]);
	fclose(f);
	m = list ? sb_asprintf("unknown section '[%s]': expected one of %s", name, list) : NULL;
	free(list);
	return m;
}

int sb_prof_lookup_dotted(const char *dotted, bool for_matrix, char **msg)
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
	sec = sb_sec_lookup(sb_str_trim(line + 1));
	if (sec < 0) {
		*msg = unknown_sec_msg(sb_str_trim(line + 1));
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
	if (!(v = sb_prof_pool_add(p, val, strlen(val))))
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
		line = sb_str_trim(line);
		if (!*line || *line == '#' || *line == ';')
			continue;
		/* An inline comment starts at a '#' after a blank. */
		for (hash = line; (hash = strchr(hash, '#')); hash++)
			if (hash > line && isspace((unsigned char)hash[-1])) {
				*hash = '\0';
				line = sb_str_trim(line);
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
		key = sb_str_trim(line);
		val = sb_str_trim(eq + 1);
		if (!*key) {
			msg = sb_asprintf("expected a key before '='");
			goto bad;
		}

		if (sec == SB_SEC_MATRIX) {
			r = sb_prof_add_dim(p, key, val, lineno, &msg);
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
	sb_prof_set_err(err, "%s:%u: %s", path, lineno, msg);
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
		sb_prof_set_err(err, "%s: cannot open profile: %s", path, strerror(-e));
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
		sb_prof_set_err(err, "%s: cannot read profile: %s", path, strerror(-e));
		return e ? e : -EIO;
	}
	fclose(m);
	if (memchr(buf, '\0', len))
		return sb_prof_set_err(err, "%s: not a text file", path);
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
		return sb_prof_set_err(err, "-o '%s': expected section.key=value", assignment);
	*eq = '\0';
	val = sb_str_trim(eq + 1);
	char *lhs = sb_str_trim(copy);
	if (strncmp(lhs, "matrix.", 7) == 0) {
		int r = sb_prof_add_dim(p, lhs + 7, val, 0, &msg);
		if (r == 0)
			return 0;
		if (r == -ENOMEM)
			return r;
	} else {
		k = sb_prof_lookup_dotted(lhs, false, &msg);
		if (k >= 0) {
			msg = sb_keys[k].type == SB_KT_WORKLOAD ? NULL : sb_key_check_value(k, val);
			if (msg) {
				char *m = sb_asprintf("%s: %s", lhs, msg);
				free(msg);
				msg = m;
			}
		}
		if (k >= 0 && !msg) {
			const char *v = sb_prof_pool_add(p, val, strlen(val));
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
						sb_prof_drop_dim(p, o, NULL);
					}
			}
			p->base.has_sec[sb_keys[k].sec] = true;
			sb_prof_drop_dim(p, k, v);
			return 0;
		}
	}
	if (!msg)
		return -ENOMEM;
	sb_prof_set_err(err, "-o '%s': %s", assignment, msg);
	free(msg);
	return -EINVAL;
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
