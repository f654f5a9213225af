/* What the layers' captures share: running a program for its output and
 * parsing what it prints (pure parsers, unit-tested and fuzzed). */
#include "stack/capture.h"
#include "util/spawn.h"

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
