/* Capturing the effective configuration (see effconf.h): the layers'
 * captures walked in the registry's order (stack/capture.h), with what
 * belongs to no layer (the kernel's log lines, the vm.dirty_* sysctls)
 * read here directly. Nothing here prints. */
#include "workload/effconf.h"
#include "util/macro.h"
#include "util/kmsg.h"
#include "util/spawn.h"
#include "util/strutil.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void add_str(json_object *o, const char *k, const char *v)
{
	if (v)
		json_object_object_add(o, k, json_object_new_string(v));
}

static void add_file(json_object *o, const char *key, const char *path)
{
	char buf[512];
	if (sb_read_small(path, buf, sizeof(buf)) >= 0)
		add_str(o, key, buf);
}

/* ---- pure parsers ---- */

bool sb_effconf_mentions(const char *msg, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(names[i]);
		if (!l)
			continue;
		for (const char *p = msg; (p = strstr(p, names[i])); p++) {
			bool before = p == msg || !isalnum((unsigned char)p[-1]);
			bool after = !isalnum((unsigned char)p[l]);
			if (before && after)
				return true;
		}
	}
	return false;
}

/* ---- capture ---- */

/* The kernel log lines about our devices, from the last one about mounting it on: /dev/kmsg read
 * without blocking, at most KMSG_MAX lines kept. */
#define KMSG_MAX 60
static json_object *kmsg_lines(const struct sb_devstack *st)
{
	const char *names[SB_DEVSTACK_MAX + 1];
	size_t n = 0;
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	char rec[8192];
	char *ring[256];
	size_t nring = 0, start = 0;

	if (fd < 0)
		return NULL;
	for (size_t i = 0; st && i < st->n; i++)
		names[n++] = st->dev[i].name;
	if (!n) {
		close(fd);
		return NULL;
	}
	memset(ring, 0, sizeof(ring));
	for (;;) {
		ssize_t r = read(fd, rec, sizeof(rec) - 1);
		if (r < 0) {
			if (errno == EPIPE) /* overwritten while we read: go on */
				continue;
			break;
		}
		rec[r] = '\0';
		/* The record format is util/kmsg's to parse. */
		const char *text;
		size_t tlen;
		unsigned prio;
		unsigned long long seq;
		if (sb_kmsg_parse_record(rec, (size_t)r, &text, &tlen, &prio, &seq) < 0)
			continue;
		char *line = strndup(text, tlen);
		if (!line)
			continue;
		if (!sb_effconf_mentions(line, names, n)) {
			free(line);
			continue;
		}
		const char *msg = line;
		bool mount = strcasestr(msg, "mount") != NULL;
		if (nring == ARRAY_SIZE(ring)) {
			free(ring[0]);
			memmove(ring, ring + 1, (nring - 1) * sizeof(*ring));
			nring--;
			if (start)
				start--;
		}
		if (mount)
			start = nring;
		ring[nring++] = line;
	}
	close(fd);
	if (nring - start > KMSG_MAX)
		start = nring - KMSG_MAX;
	json_object *a = json_object_new_array();
	for (size_t i = 0; i < nring; i++) {
		if (i >= start)
			json_object_array_add(a, json_object_new_string(ring[i]));
		free(ring[i]);
	}
	return a;
}

/* What each layer reads of the file system mounted at dir or of its own
 * devices ({"md": {"md127": {...}}}), in the registry's capture order, the
 * rows it makes of them and the parameters those rows follow. */
static void layer_states(json_object *o, json_object *rows, json_object *follows, const char *dir,
			 const struct sb_devstack *st, int log_fd)
{
	const struct sb_capture *caps[16];
	size_t n = sb_layer_captures(caps, ARRAY_SIZE(caps));

	for (size_t c = 0; c < n; c++) {
		json_object *all = json_object_new_object();
		if (caps[c]->mounted)
			caps[c]->mounted(all, dir, log_fd);
		for (size_t i = 0; caps[c]->fn && st && i < st->n; i++)
			if (!caps[c]->type || strcmp(st->dev[i].type, caps[c]->type) == 0)
				caps[c]->fn(all, st, i, log_fd);
		sb_capture_follows(follows, caps[c]);
		if (caps[c]->rows)
			caps[c]->rows(rows, caps[c], all);
		else
			sb_capture_rows(rows, caps[c], all);
		if (json_object_object_length(all))
			json_object_object_add(o, caps[c]->key, all);
		else
			json_object_put(all);
	}
}

static json_object *sysctls(void)
{
	static const char *const names[] = {"dirty_ratio",
					    "dirty_background_ratio",
					    "dirty_bytes",
					    "dirty_background_bytes",
					    "dirty_expire_centisecs",
					    "dirty_writeback_centisecs",
					    NULL};
	json_object *o = json_object_new_object();
	for (size_t i = 0; names[i]; i++) {
		char p[128], key[64];
		snprintf(p, sizeof(p), "/proc/sys/vm/%s", names[i]);
		snprintf(key, sizeof(key), "vm.%s", names[i]);
		add_file(o, key, p);
	}
	return o;
}

json_object *sb_effconf_capture(const char *dir, const struct sb_devstack *st, int log_fd)
{
	json_object *o = json_object_new_object(), *rows = json_object_new_object(), *v;
	json_object *follows = json_object_new_object();

	if ((v = kmsg_lines(st)))
		json_object_object_add(o, "kmsg", v);
	layer_states(o, rows, follows, dir, st, log_fd);
	json_object_object_add(o, "sysctl", v = sysctls());
	json_object_object_foreach(v, k, val)
	{
		char key[256];
		snprintf(key, sizeof(key), "sysctl.%s", k);
		sb_capture_row(rows, key, val);
	}
	json_object_object_add(o, "rows", rows);
	json_object_object_add(o, "follows", follows);
	return o;
}
