/* The extra.config of result sets recorded before the layers made their own
 * rows (extra.config.rows): flattened here as the report always did, and
 * the parameters their rows follow for sets recorded before the layers
 * wrote those (extra.config.follows), so that those sets report exactly as
 * they did. Newer sets never come here. */
#include "report/measure.h"
#include "util/macro.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* qsort over an array of strings (the elements are pointers to them). */
static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char *str_of(json_object *o)
{
	return o ? json_object_get_string(o) : NULL;
}

static bool is_obj(json_object *o)
{
	return o && json_object_is_type(o, json_type_object);
}

static void put(json_object *flat, const char *key, const char *val)
{
	if (val)
		json_object_object_add(flat, key, json_object_new_string(val));
}

/* Values naming a device, a path or an identity differ between any two
 * runs and say nothing about the configuration; btrfs sets incompat bits
 * (BIG_METADATA...) at its first mount, so they depend on when the
 * superblock was read. */
static bool incidental(const char *key, const char *val)
{
	return strcasestr(key, "uuid") || strstr(key, "incompat_flags") ||
	       (val && strstr(val, "/dev/"));
}

json_object *sb_measure_config_flat_v1(json_object *cfg)
{
	json_object *flat = json_object_new_object(), *m, *v;
	char key[256];

	if (!is_obj(cfg))
		return flat;
	if (json_object_object_get_ex(cfg, "mount", &m) && is_obj(m)) {
		if (json_object_object_get_ex(m, "fstype", &v))
			put(flat, "mount.fstype", str_of(v));
		if (json_object_object_get_ex(m, "options", &v) && str_of(v)) {
			char *opts = strdup(str_of(v)), *save = NULL;
			for (char *t = opts ? strtok_r(opts, ",", &save) : NULL; t;
			     t = strtok_r(NULL, ",", &save)) {
				char *eq = strchr(t, '=');
				if (eq)
					*eq = '\0';
				snprintf(key, sizeof(key), "mount.option.%s", t);
				put(flat, key, eq ? eq + 1 : "on");
			}
			free(opts);
		}
	}
	if (json_object_object_get_ex(cfg, "geometry", &m) && is_obj(m)) {
		json_object_object_foreach(m, k, val)
		{
			snprintf(key, sizeof(key), "geometry.%s", k);
			if (!incidental(key, str_of(val)))
				put(flat, key, str_of(val));
		}
	}
	if (json_object_object_get_ex(cfg, "md", &m) && is_obj(m)) {
		int i = 0;
		json_object_object_foreach(m, name, md)
		{
			(void)name;
			if (!is_obj(md))
				continue;
			json_object_object_foreach(md, k, val)
			{
				if (strcmp(k, "members") == 0) {
					if (!is_obj(val))
						continue;
					/* member names change; their states, sorted, do not */
					const char *st[64] = {0};
					size_t n = 0, len = 1;
					json_object_object_foreach(val, mk, ms)
					{
						(void)mk;
						if (n < ARRAY_SIZE(st))
							st[n++] = str_of(ms),
							len += strlen(st[n - 1]) + 1;
					}
					qsort(st, n, sizeof(*st), cmp_strp);
					char *all = calloc(1, len);
					for (size_t j = 0, o = 0; all && j < n; j++)
						o += (size_t)snprintf(all + o, len - o, "%s%s",
								      j ? " " : "", st[j]);
					snprintf(key, sizeof(key), "md%d.member_states", i);
					put(flat, key, all);
					free(all);
					continue;
				}
				snprintf(key, sizeof(key), "md%d.%s", i, k);
				put(flat, key, str_of(val));
			}
			i++;
		}
	}
	if (json_object_object_get_ex(cfg, "queue", &m) && is_obj(m)) {
		int i = 0;
		json_object_object_foreach(m, name, q)
		{
			(void)name;
			if (!is_obj(q))
				continue;
			json_object_object_foreach(q, k, val)
			{
				snprintf(key, sizeof(key), "queue%d.%s", i, k);
				put(flat, key, str_of(val));
			}
			i++;
		}
	}
	if (json_object_object_get_ex(cfg, "sysctl", &m) && is_obj(m)) {
		json_object_object_foreach(m, k, val)
		{
			snprintf(key, sizeof(key), "sysctl.%s", k);
			put(flat, key, str_of(val));
		}
	}
	return flat;
}

json_object *sb_measure_follows_v1(void)
{
	/* Another file system type comes with its own fstype, default mount
	 * options and geometry, mkfs options with their geometry; a member
	 * taken out of an array (or rebuilt) changes the md state, and its
	 * queue is no longer captured (gone: a queue setting that differs on
	 * both sides is still a surprise); md keys ask for the whole md
	 * state. A mount option is asked for by its own word, not by
	 * "mount". */
	static const struct {
		const char *key, *params[4];
		bool gone_only, section_word;
	} rules[] = {
	    {"mount", {"fs.type"}, false, false},
	    {"geometry", {"fs.type", "fs.mkfs", "mkfs*"}, false, true},
	    {"md", {"scenario.degrade", "scenario.rebuild", "md*"}, false, true},
	    {"queue", {"scenario.degrade", "scenario.rebuild"}, true, true},
	};
	json_object *o = json_object_new_object();
	for (size_t i = 0; i < ARRAY_SIZE(rules); i++) {
		json_object *r = json_object_new_object(), *p = json_object_new_array();
		for (size_t k = 0; k < ARRAY_SIZE(rules[i].params) && rules[i].params[k]; k++)
			json_object_array_add(p, json_object_new_string(rules[i].params[k]));
		json_object_object_add(r, "params", p);
		json_object_object_add(r, "gone_only", json_object_new_boolean(rules[i].gone_only));
		json_object_object_add(r, "section_word",
				       json_object_new_boolean(rules[i].section_word));
		json_object_object_add(o, rules[i].key, r);
	}
	return o;
}
