/* The extra.config of result sets recorded before the layers made their own
 * rows (extra.config.rows): flattened here as the report always did, so
 * that those sets report exactly as they did. Newer sets never come here. */
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
