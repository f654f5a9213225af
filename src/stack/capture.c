/* What the layers' captures share: running a program for its output and
 * parsing what it prints (pure parsers, unit-tested and fuzzed). */
#include "stack/capture.h"
#include "util/spawn.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *sb_capture_run(const char *const *argv, int log_fd)
{
	struct sb_child c = {.argv = argv, .capture = true, .log_fd = log_fd, .timeout_ms = 10000};
	char *out = NULL;
	if (sb_spawn_run(&c) == 0 && c.status == 0 && c.out)
		out = strdup(c.out);
	sb_child_release(&c);
	return out;
}

json_object *sb_capture_parse_pvs(const char *text)
{
	json_object *o = json_object_new_object();
	const char *p = text ? text : "";

	while (*p) {
		size_t len = strcspn(p, "\n");
		char line[512], name[256], num[32], extra;
		snprintf(line, sizeof(line), "%.*s",
			 (int)(len < sizeof(line) ? len : sizeof(line) - 1), p);
		/* exactly two words: a /dev path and a byte count */
		if (len < sizeof(line) && sscanf(line, " %255s %31s %c", name, num, &extra) == 2 &&
		    strncmp(name, "/dev/", 5) == 0 && num[strspn(num, "0123456789")] == '\0' &&
		    strlen(num) <= 19) {
			const char *base = strrchr(name, '/') + 1;
			if (*base)
				json_object_object_add(
				    o, base, json_object_new_uint64(strtoull(num, NULL, 10)));
		}
		p += len;
		if (*p)
			p++;
	}
	return o;
}

static void put_str(json_object *o, const char *k, const char *v)
{
	if (v)
		json_object_object_add(o, k, json_object_new_string(v));
}

json_object *sb_capture_parse_xfs_info(const char *text)
{
	json_object *o = json_object_new_object();
	char section[32] = "";
	const char *p = text;

	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char line[512];
		snprintf(line, sizeof(line), "%.*s",
			 (int)(len < sizeof(line) ? len : sizeof(line) - 1), p);
		p = eol ? eol + 1 : NULL;
		/* A line starting with a word and '=' opens a section (meta-data=,
		 * data=, naming=, log=, realtime=); indented lines continue it. */
		char *s = line, *save = NULL;
		if (!isspace((unsigned char)line[0])) {
			char *eq = strchr(line, '=');
			if (!eq || eq - line >= (long)sizeof(section))
				continue;
			int sl = (int)(eq - line);
			while (sl && isspace((unsigned char)line[sl - 1]))
				sl--;
			snprintf(section, sizeof(section), "%.*s", sl, line);
			s = eq + 1;
			/* the section's own value (a device, "version 2"): skip the first word */
			while (*s && !isspace((unsigned char)*s))
				s++;
		}
		if (!section[0])
			continue;
		for (char *tok = strtok_r(s, " \t,", &save); tok;
		     tok = strtok_r(NULL, " \t,", &save)) {
			char *eq = strchr(tok, '=');
			char key[96];
			if (!eq || eq == tok || !eq[1] || strchr(eq + 1, '/'))
				continue;
			snprintf(key, sizeof(key), "%s.%.*s", section, (int)(eq - tok), tok);
			put_str(o, key, eq + 1);
		}
	}
	return o;
}

json_object *sb_capture_parse_keys(const char *text, char sep, const char *const *keys)
{
	json_object *o = json_object_new_object();
	const char *p = text;

	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		for (size_t k = 0; keys[k]; k++) {
			size_t kl = strlen(keys[k]);
			if (len <= kl || strncmp(p, keys[k], kl) != 0)
				continue;
			const char *v = p + kl, *end = p + len;
			/* "Key:" then blanks (dumpe2fs), or the key then blanks (btrfs) */
			if (sep != ' ') {
				if (*v != sep)
					continue;
				v++;
			} else if (!isspace((unsigned char)*v)) {
				continue;
			}
			while (v < end && isspace((unsigned char)*v))
				v++;
			while (end > v && isspace((unsigned char)end[-1]))
				end--;
			char val[256];
			snprintf(val, sizeof(val), "%.*s", (int)(end - v), v);
			put_str(o, keys[k], val);
			break;
		}
		p = eol ? eol + 1 : NULL;
	}
	return o;
}

void sb_capture_row(json_object *rows, const char *key, json_object *value)
{
	const char *v = value ? json_object_get_string(value) : NULL;
	if (v)
		json_object_object_add(rows, key, json_object_new_string(v));
}

static bool skipped(const char *const *skip, const char *field)
{
	for (size_t k = 0; skip && skip[k]; k++)
		if (strcmp(skip[k], field) == 0)
			return true;
	return false;
}

void sb_capture_rows(json_object *rows, const struct sb_capture *c, json_object *captured)
{
	size_t n = 0;

	if (!captured || !json_object_is_type(captured, json_type_object))
		return;
	json_object_object_foreach(captured, dev, o)
	{
		(void)dev;
		if (!o || !json_object_is_type(o, json_type_object))
			continue;
		json_object_object_foreach(o, field, v)
		{
			char key[256];
			if (!v || json_object_is_type(v, json_type_object) ||
			    json_object_is_type(v, json_type_array) || skipped(c->skip, field))
				continue;
			snprintf(key, sizeof(key), "%s%zu.%s", c->key, n, field);
			sb_capture_row(rows, key, v);
		}
		n++;
	}
}

void sb_capture_follows(json_object *follows, const struct sb_capture *c)
{
	if (!c->follows && !c->no_section_word)
		return;
	json_object *o = json_object_new_object(), *params = json_object_new_array();
	for (size_t k = 0; c->follows && c->follows[k]; k++)
		json_object_array_add(params, json_object_new_string(c->follows[k]));
	json_object_object_add(o, "params", params);
	json_object_object_add(o, "gone_only", json_object_new_boolean(c->follows_gone_only));
	json_object_object_add(o, "section_word", json_object_new_boolean(!c->no_section_word));
	json_object_object_add(follows, c->key, o);
}
