/* Spec parsing: the registry of workloads and NAME[:ARG][,key=value...]
 * read through the workloads' option tables, with "did you mean". */
#include "workload/wl.h"
#include "profile/profile.h"
#include "util/macro.h"
#include "util/strutil.h"
#include "util/suggest.h"
#include "util/value.h"

#include <stdarg.h>
#include <string.h>

/* The order `list workloads` shows: built-ins first, then the adapters. */
const struct sb_wl_ops *const sb_workloads[] = {
    &sb_wl_seq,	   &sb_wl_meta, &sb_wl_rand,   &sb_wl_mixed,  &sb_wl_command,
    &sb_wl_kbuild, &sb_wl_fio,	&sb_wl_bonnie, &sb_wl_iozone,
};
const size_t sb_n_workloads = ARRAY_SIZE(sb_workloads);

const struct sb_wl_ops *sb_wl_find(const char *name)
{
	for (size_t i = 0; i < sb_n_workloads; i++)
		if (strcmp(sb_workloads[i]->name, name) == 0)
			return sb_workloads[i];
	return NULL;
}

int sb_wl_opt_index(const struct sb_wl_ops *ops, const char *name)
{
	for (int i = 0; ops->opts && ops->opts[i].name; i++)
		if (strcmp(ops->opts[i].name, name) == 0)
			return i;
	return -1;
}

bool sb_wl_given(const struct sb_wl_spec *s, const char *name)
{
	int i = sb_wl_opt_index(s->ops, name);
	return i >= 0 && s->set[i];
}

uint64_t sb_wl_opt_u64(const struct sb_wl_spec *s, const char *name, uint64_t def)
{
	int i = sb_wl_opt_index(s->ops, name);
	if (i < 0 || !s->o)
		return def;
	const struct sb_wl_opt *o = &s->ops->opts[i];
	const char *p = (const char *)s->o + o->off;
	switch (o->type) {
	case SB_WO_BOOL:
		return *(const bool *)p;
	case SB_WO_STRING:
		return def;
	default:
		return *(const uint64_t *)p;
	}
}

/* "rand:BS[,key=value...]" */
static void expected_form(const struct sb_wl_ops *ops, char *buf, size_t len)
{
	const char *l = ops->arg_optional ? "[" : "", *r = ops->arg_optional ? "]" : "";
	if (ops->arg)
		snprintf(buf, len, "%s%s:%s%s[,key=value...], e.g. %s", ops->name, l, ops->arg, r,
			 ops->example);
	else
		snprintf(buf, len, "%s[,key=value...], e.g. %s", ops->name, ops->example);
}

static int spec_error(char **err, const char *text, const struct sb_wl_ops *ops, const char *fmt,
		      ...) __attribute__((format(printf, 4, 5)));
static int spec_error(char **err, const char *text, const struct sb_wl_ops *ops, const char *fmt,
		      ...)
{
	char msg[512], form[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (ops)
		expected_form(ops, form, sizeof(form));
	else
		snprintf(form, sizeof(form),
			 "NAME[:ARG][,key=value...], see 'stackbench list workloads'");
	if (asprintf(err, "workload '%s': %s (expected %s)", text, msg, form) < 0)
		*err = NULL;
	return -EINVAL;
}

/* Parses v into row o's place in s->o. want_range: the bounds are checked.
 * 0, -EINVAL (bad value), -ERANGE (out of range) or -ENOMEM. */
static int store_value(struct sb_wl_spec *s, const struct sb_wl_opt *o, const char *v,
		       bool want_range)
{
	struct sb_vrule rule = {o->type, want_range ? o->min : 0, want_range ? o->max : 0, NULL};
	char *p = (char *)s->o + o->off;
	struct sb_value val;
	int r;

	if (o->type == SB_WO_STRING) {
		char *d = strdup(v);
		if (!d)
			return -ENOMEM;
		free(*(char **)p);
		*(char **)p = d;
		return 0;
	}
	if ((r = sb_value_parse(&rule, v, &val)) < 0)
		return r;
	if (o->type == SB_WO_BOOL)
		*(bool *)p = val.u;
	else
		*(uint64_t *)p = val.u;
	return 0;
}

static int set_key(struct sb_wl_spec *s, const char *text, const char *kv, char **err)
{
	const struct sb_wl_ops *ops = s->ops;
	const char *eq = strchr(kv, '=');
	char key[64];
	int i;

	if (!eq || eq == kv)
		return spec_error(err, text, ops, "'%s' is not key=value", kv);
	snprintf(key, sizeof(key), "%.*s", (int)(eq - kv), kv);
	i = sb_wl_opt_index(ops, key);
	if (i < 0) {
		const char *names[SB_WL_MAX_OPTS];
		size_t n = 0;
		for (; ops->opts && ops->opts[n].name; n++)
			names[n] = ops->opts[n].name;
		const char *sug = sb_suggest(key, names, n);
		if (sug)
			return spec_error(err, text, ops, "unknown key '%s' (did you mean '%s'?)",
					  key, sug);
		return spec_error(err, text, ops, "unknown key '%s' for %s", key, ops->name);
	}
	const struct sb_wl_opt *o = &ops->opts[i];
	if (s->set[i])
		return spec_error(err, text, ops, "key '%s' given twice", key);
	int r = store_value(s, o, eq + 1, true);
	if (r == -EINVAL || r == -ERANGE) {
		_cleanup_free_ char *m =
		    sb_value_error(&(struct sb_vrule){o->type, o->min, o->max, NULL}, SB_VSTYLE_OPT,
				   key, eq + 1, r);
		if (!m)
			return -ENOMEM;
		return spec_error(err, text, ops, "%s", m);
	}
	if (r < 0)
		return r;
	s->set[i] = true;
	return 0;
}

/* For free-text ARGs: is ",word=" at p the start of one of the workload's keys? */
static bool is_key_at(const struct sb_wl_ops *ops, const char *p)
{
	const char *eq = strchr(p, '=');
	char key[64];
	if (!eq || eq - p >= (long)sizeof(key))
		return false;
	snprintf(key, sizeof(key), "%.*s", (int)(eq - p), p);
	return sb_wl_opt_index(ops, key) >= 0;
}

/* The error for a workload name not in the registry, with a suggestion. */
static int unknown_workload(const char *text, const char *name, char **err)
{
	const char *names[32];
	for (size_t i = 0; i < sb_n_workloads; i++)
		names[i] = sb_workloads[i]->name;
	const char *sug = sb_suggest(name, names, sb_n_workloads);
	if (sug)
		return spec_error(err, text, NULL, "unknown workload '%s' (did you mean '%s'?)",
				  name, sug);
	return spec_error(err, text, NULL, "unknown workload '%s'", name);
}

/* The ARG after ':': an empty one is none; does the workload take it, need
 * it, and does its parser accept it. */
static int check_arg(struct sb_wl_spec *s, const char *text, char **err)
{
	const struct sb_wl_ops *ops = s->ops;

	if (s->arg && !*s->arg) {
		free(s->arg);
		s->arg = NULL;
	}
	if (!ops->arg && s->arg)
		return spec_error(err, text, ops, "%s takes no argument", ops->name);
	if (ops->arg && !s->arg && !ops->arg_optional)
		return spec_error(err, text, ops, "%s needs %s", ops->name, ops->arg);
	if (s->arg && ops->parse_arg) {
		char *why = NULL;
		int rc = ops->parse_arg(s->arg, s, &why);
		if (rc < 0) {
			spec_error(err, text, ops, "%s", why ? why : "bad argument");
			free(why);
			return rc;
		}
	}
	return 0;
}

/* Defaults; a NULL default means the workload computes it (from RAM). */
static int set_defaults(struct sb_wl_spec *s, const char *text, bool quick, char **err)
{
	const struct sb_wl_ops *ops = s->ops;

	for (int i = 0; ops->opts && ops->opts[i].name; i++) {
		const struct sb_wl_opt *o = &ops->opts[i];
		const char *d = quick && o->quick_def ? o->quick_def : o->def;
		if (s->set[i] || !d)
			continue;
		int r = store_value(s, o, d, false);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			/* a bug in a table; the unit test catches it */
			spec_error(err, text, ops, "bad default '%s' for %s", d, o->name);
			return -EINVAL;
		}
	}
	return 0;
}

int sb_wl_spec_parse(const char *text, bool quick, struct sb_wl_spec *s, char **err)
{
	const struct sb_wl_ops *ops;
	char name[64], *copy = NULL, *keys = NULL, *save = NULL;
	size_t nl = strcspn(text, ":,");
	int rc = 0;

	memset(s, 0, sizeof(*s));
	*err = NULL;
	if (nl == 0 || nl >= sizeof(name))
		return spec_error(err, text, NULL, "no workload name");
	snprintf(name, sizeof(name), "%.*s", (int)nl, text);
	ops = sb_wl_find(name);
	if (!ops)
		return unknown_workload(text, name, err);
	s->ops = ops;
	if (!(s->text = strdup(text)) || !(copy = strdup(text + nl)))
		goto nomem;
	/* the typed struct; at least the common part, which workload.c reads */
	if (!(s->o = calloc(1, ops->opts_size > sizeof(struct sb_wl_common)
				   ? ops->opts_size
				   : sizeof(struct sb_wl_common))))
		goto nomem;

	if (copy[0] == ':') {
		char *a = copy + 1, *k = NULL;
		if (ops->arg_rest) {
			/* The command keeps its commas, except before one of our keys. */
			for (char *p = a; (p = strchr(p, ',')); p++)
				if (is_key_at(ops, p + 1)) {
					k = p;
					break;
				}
		} else {
			k = strchr(a, ',');
		}
		if (k) {
			*k = '\0';
			keys = k + 1;
		}
		if (!(s->arg = strdup(a)))
			goto nomem;
	} else if (copy[0] == ',') {
		keys = copy + 1;
	}

	if ((rc = check_arg(s, text, err)) < 0)
		goto out;
	for (char *kv = keys ? strtok_r(keys, ",", &save) : NULL; kv;
	     kv = strtok_r(NULL, ",", &save)) {
		rc = set_key(s, text, kv, err);
		if (rc < 0)
			goto out;
	}
	if (keys && !*keys) {
		rc = spec_error(err, text, ops, "empty key list");
		goto out;
	}
	if ((rc = set_defaults(s, text, quick, err)) < 0)
		goto out;
	if (ops->check) {
		char *why = NULL;
		rc = ops->check(s, &why);
		if (rc < 0) {
			spec_error(err, text, ops, "%s", why ? why : "bad combination of keys");
			free(why);
			goto out;
		}
	}
out:
	free(copy);
	if (rc < 0)
		sb_wl_spec_release(s);
	return rc;
nomem:
	free(copy);
	sb_wl_spec_release(s);
	return -ENOMEM;
}

void sb_wl_spec_release(struct sb_wl_spec *s)
{
	free(s->text);
	free(s->arg);
	for (int i = 0; s->o && s->ops->opts && s->ops->opts[i].name; i++)
		if (s->ops->opts[i].type == SB_WO_STRING)
			free(*(char **)((char *)s->o + s->ops->opts[i].off));
	free(s->o);
	memset(s, 0, sizeof(*s));
}

int sb_workload_check(const char *spec, char **err)
{
	struct sb_wl_spec s;
	int rc = sb_wl_spec_parse(spec, false, &s, err);
	if (rc == 0)
		sb_wl_spec_release(&s);
	return rc;
}

/* Before main, as the layers' key tables are (stack/exec.c): a profile's
 * workloads.run values are checked without profile/ including workload/. */
__attribute__((constructor)) static void spec_check_register(void)
{
	sb_keytab_set_workload_check(sb_workload_check);
}
