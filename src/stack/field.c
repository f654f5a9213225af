/* Field tables: one {name, type, offsetof, flags} row per argument of a
 * layer turns its typed struct into its journal record and back, fills in
 * "${var}" placeholders, and checks the paths a record may name. Reading a
 * record is as strict as a parser of outside input must be: the journal is
 * all teardown has, and it may be damaged. */
#include "stack/stack.h"
#include "util/macro.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void sb_list_add(struct sb_list *s, const char *str)
{
	sb_vec_add((struct sb_vec *)s, str);
}

void sb_list_free(struct sb_list *s)
{
	sb_vec_free((struct sb_vec *)s);
}

#define AT(args, f, T) ((T *)((char *)(args) + (f)->off))
#define CAT(args, f, T) ((const T *)((const char *)(args) + (f)->off))

static bool is_str(enum sb_ftype t)
{
	return t == SB_FT_STR || t == SB_FT_PATH || t == SB_FT_DEV;
}

static bool is_strv(enum sb_ftype t)
{
	return t == SB_FT_STRV || t == SB_FT_DEVV;
}

json_object *sb_fields_to_json(const struct sb_field *f, size_t n, const void *args)
{
	json_object *o = json_object_new_object();
	for (size_t i = 0; i < n; i++) {
		const struct sb_field *d = &f[i];
		if (is_str(d->type)) {
			const char *s = *CAT(args, d, char *);
			if (s)
				json_object_object_add(o, d->name, json_object_new_string(s));
		} else if (d->type == SB_FT_U64) {
			json_object_object_add(o, d->name,
					       json_object_new_uint64(*CAT(args, d, uint64_t)));
		} else if (d->type == SB_FT_BOOL) {
			json_object_object_add(o, d->name,
					       json_object_new_boolean(*CAT(args, d, bool)));
		} else {
			const struct sb_list *v = CAT(args, d, struct sb_list);
			json_object *a = json_object_new_array();
			for (size_t k = 0; k < v->n; k++)
				json_object_array_add(a, json_object_new_string(v->v[k]));
			json_object_object_add(o, d->name, a);
		}
	}
	return o;
}

static int ferr(char **err, const char *name, const char *what)
{
	if (err && asprintf(err, "'%s': %s", name, what) < 0)
		*err = NULL;
	return -EINVAL;
}

int sb_fields_from_json(const struct sb_field *f, size_t n, void *args, json_object *o, char **err)
{
	if (err)
		*err = NULL;
	if (!json_object_is_type(o, json_type_object))
		return ferr(err, "args", "not an object");
	/* A key no field knows: written by another version, or damage. */
	json_object_object_foreach(o, key, val)
	{
		bool known = false;
		(void)val;
		for (size_t i = 0; i < n && !known; i++)
			known = strcmp(f[i].name, key) == 0;
		if (!known)
			return ferr(err, key, "unknown field");
	}
	for (size_t i = 0; i < n; i++) {
		const struct sb_field *d = &f[i];
		json_object *v;
		if (!json_object_object_get_ex(o, d->name, &v) || !v) {
			if (d->flags & SB_FF_REQUIRED)
				return ferr(err, d->name, "missing");
			continue;
		}
		if (is_str(d->type)) {
			const char *s = json_object_get_string(v);
			if (!json_object_is_type(v, json_type_string) || !*s ||
			    strlen(s) != (size_t)json_object_get_string_len(v))
				return ferr(err, d->name, "expected a non-empty string");
			if ((d->type == SB_FT_PATH || d->type == SB_FT_DEV) && s[0] != '/' &&
			    s[0] != '$')
				return ferr(err, d->name, "expected an absolute path");
			*AT(args, d, char *) = strdup(s);
			if (!*AT(args, d, char *))
				return -ENOMEM;
		} else if (d->type == SB_FT_U64) {
			if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
				return ferr(err, d->name, "expected a number");
			*AT(args, d, uint64_t) = json_object_get_uint64(v);
		} else if (d->type == SB_FT_BOOL) {
			if (!json_object_is_type(v, json_type_boolean))
				return ferr(err, d->name, "expected true or false");
			*AT(args, d, bool) = json_object_get_boolean(v);
		} else {
			struct sb_list *sv = AT(args, d, struct sb_list);
			if (!json_object_is_type(v, json_type_array) ||
			    json_object_array_length(v) > 256)
				return ferr(err, d->name, "expected a list of strings");
			for (size_t k = 0; k < json_object_array_length(v); k++) {
				json_object *e = json_object_array_get_idx(v, k);
				const char *s = json_object_get_string(e);
				if (!json_object_is_type(e, json_type_string) || !*s ||
				    strlen(s) != (size_t)json_object_get_string_len(e) ||
				    (d->type == SB_FT_DEVV && s[0] != '/' && s[0] != '$'))
					return ferr(err, d->name, "expected a list of strings");
				sb_list_add(sv, s);
			}
			if ((d->flags & SB_FF_REQUIRED) && sv->n == 0)
				return ferr(err, d->name, "empty");
		}
	}
	return 0;
}

void sb_fields_free(const struct sb_field *f, size_t n, void *args)
{
	if (!args)
		return;
	for (size_t i = 0; i < n; i++) {
		if (is_str(f[i].type)) {
			free(*AT(args, &f[i], char *));
			*AT(args, &f[i], char *) = NULL;
		} else if (is_strv(f[i].type)) {
			sb_list_free(AT(args, &f[i], struct sb_list));
		}
	}
}

/* "${name}" -> value; unknown names stay as written (dry-run listings). */
static char *subst(const char *s, json_object *vars)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	while (*s) {
		const char *b = strstr(s, "${"), *e;
		json_object *v;
		if (!b || !(e = strchr(b, '}'))) {
			fputs(s, f);
			break;
		}
		fwrite(s, 1, (size_t)(b - s), f);
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)(e - b - 2), b + 2);
		if (vars && json_object_object_get_ex(vars, name, &v))
			fputs(json_object_get_string(v), f);
		else
			fwrite(b, 1, (size_t)(e - b + 1), f);
		s = e + 1;
	}
	fclose(f);
	return out;
}

char *sb_subst(const char *s, json_object *vars)
{
	return subst(s, vars);
}

static int subst_in_place(char **s, json_object *vars)
{
	char *n;
	if (!*s || !strstr(*s, "${"))
		return 0;
	n = subst(*s, vars);
	if (!n)
		return -ENOMEM;
	free(*s);
	*s = n;
	return 0;
}

int sb_fields_subst(const struct sb_field *f, size_t n, void *args, json_object *vars)
{
	for (size_t i = 0; i < n; i++) {
		int r = 0;
		if (is_str(f[i].type)) {
			r = subst_in_place(AT(args, &f[i], char *), vars);
		} else if (is_strv(f[i].type)) {
			struct sb_list *v = AT(args, &f[i], struct sb_list);
			for (size_t k = 0; k < v->n && r == 0; k++)
				r = subst_in_place(&v->v[k], vars);
		}
		if (r < 0)
			return r;
	}
	return 0;
}

bool sb_path_inside(const char *path, const char *dir)
{
	size_t dl = strlen(dir);
	while (dl > 1 && dir[dl - 1] == '/')
		dl--;
	if (dir[0] != '/' || strncmp(path, dir, dl) != 0 || path[dl] != '/')
		return false;
	/* Each component after dir: not empty, not ".", not "..". */
	for (const char *p = path + dl; *p;) {
		const char *c = p + 1, *e = strchr(c, '/');
		size_t l = e ? (size_t)(e - c) : strlen(c);
		if (l == 0 || (l == 1 && c[0] == '.') || (l == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		p = c + l;
	}
	return true;
}

int sb_fields_check_paths(const struct sb_field *f, size_t n, const void *args, const char *dir,
			  char **err)
{
	if (err)
		*err = NULL;
	for (size_t i = 0; i < n; i++) {
		const char *p;
		if (f[i].type != SB_FT_PATH || !(p = *CAT(args, &f[i], char *)))
			continue;
		if (!sb_path_inside(p, dir)) {
			if (err && asprintf(err, "'%s' = %s lies outside the run directory %s",
					    f[i].name, p, dir) < 0)
				*err = NULL;
			return -EPERM;
		}
	}
	return 0;
}

void sb_fields_each_dev(const struct sb_field *f, size_t n, const void *args, unsigned flags,
			void (*fn)(const char *dev, void *ud), void *ud)
{
	for (size_t i = 0; i < n; i++) {
		if (!(f[i].flags & flags))
			continue;
		if (f[i].type == SB_FT_DEV) {
			const char *s = *CAT(args, &f[i], char *);
			if (s)
				fn(s, ud);
		} else if (f[i].type == SB_FT_DEVV) {
			const struct sb_list *v = CAT(args, &f[i], struct sb_list);
			for (size_t k = 0; k < v->n; k++)
				fn(v->v[k], ud);
		}
	}
}

static int map_one(char **s, const char *(*map)(const char *dev, void *ud), void *ud)
{
	const char *to = *s ? map(*s, ud) : NULL;
	if (!to || strcmp(to, *s) == 0)
		return 0;
	char *c = strdup(to);
	if (!c)
		return -ENOMEM;
	free(*s);
	*s = c;
	return 0;
}

int sb_fields_map_dev(const struct sb_field *f, size_t n, void *args,
		      const char *(*map)(const char *dev, void *ud), void *ud)
{
	for (size_t i = 0; i < n; i++) {
		int r = 0;
		if (f[i].type == SB_FT_DEV) {
			r = map_one(AT(args, &f[i], char *), map, ud);
		} else if (f[i].type == SB_FT_DEVV) {
			struct sb_list *v = AT(args, &f[i], struct sb_list);
			for (size_t k = 0; k < v->n && r == 0; k++)
				r = map_one(&v->v[k], map, ud);
		}
		if (r < 0)
			return r;
	}
	return 0;
}
