/* Capturing the effective configuration (see effconf.h). External programs
 * run through spawn.h with an argv and a time limit; sysfs and procfs are
 * read directly. Nothing here prints. */
#include "workload/effconf.h"
#include "util/macro.h"
#include "util/kmsg.h"
#include "util/spawn.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libmount.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ssize_t n;
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return (int)n;
}

static void add_str(json_object *o, const char *k, const char *v)
{
	if (v)
		json_object_object_add(o, k, json_object_new_string(v));
}

static void add_file(json_object *o, const char *key, const char *path)
{
	char buf[512];
	if (read_small(path, buf, sizeof(buf)) >= 0)
		add_str(o, key, buf);
}

/* ---- pure parsers ---- */

json_object *sb_effconf_parse_xfs_info(const char *text)
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
			add_str(o, key, eq + 1);
		}
	}
	return o;
}

json_object *sb_effconf_parse_keys(const char *text, char sep, const char *const *keys)
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
			add_str(o, keys[k], val);
			break;
		}
		p = eol ? eol + 1 : NULL;
	}
	return o;
}

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

static json_object *mount_info(const char *dir, char *fstype, size_t flen, char *source,
			       size_t slen)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_BACKWARD);
	struct libmnt_fs *fs, *best = NULL;
	json_object *o = NULL;
	char real[PATH_MAX];

	if (!tb || !it || mnt_table_parse_file(tb, "/proc/self/mountinfo") != 0)
		goto out;
	if (!realpath(dir, real))
		snprintf(real, sizeof(real), "%s", dir);
	while (mnt_table_next_fs(tb, it, &fs) == 0) {
		const char *t = mnt_fs_get_target(fs);
		size_t l = t ? strlen(t) : 0;
		if (!t || !(strcmp(t, "/") == 0 ||
			    (strncmp(real, t, l) == 0 && (real[l] == '/' || !real[l]))))
			continue;
		if (!best || l > strlen(mnt_fs_get_target(best)))
			best = fs;
	}
	if (!best)
		goto out;
	o = json_object_new_object();
	add_str(o, "target", mnt_fs_get_target(best));
	add_str(o, "source", mnt_fs_get_source(best));
	add_str(o, "fstype", mnt_fs_get_fstype(best));
	/* The VFS (per-mount) options and the file system's (super) options:
	 * what the kernel applied, not what was asked. */
	add_str(o, "vfs_options", mnt_fs_get_vfs_options(best));
	add_str(o, "fs_options", mnt_fs_get_fs_options(best));
	{
		char *all = mnt_fs_strdup_options(best);
		add_str(o, "options", all);
		free(all);
	}
	snprintf(fstype, flen, "%s", mnt_fs_get_fstype(best) ? mnt_fs_get_fstype(best) : "");
	snprintf(source, slen, "%s", mnt_fs_get_srcpath(best) ? mnt_fs_get_srcpath(best) : "");
out:
	mnt_free_iter(it);
	mnt_unref_table(tb);
	return o;
}

/* The kernel log lines about our devices (or file system, by its type's
 * prefix), from the last one about mounting it on: /dev/kmsg read without
 * blocking, at most KMSG_MAX lines kept. */
#define KMSG_MAX 60
static json_object *kmsg_lines(const struct sb_devstack *st, const char *fstype)
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
	(void)fstype;
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

static json_object *geometry(const char *fstype, const char *dir, const char *source, int log_fd)
{
	static const char *const ext4_keys[] = {"Filesystem features",
						"Default mount options",
						"Block size",
						"Inode size",
						"Inode count",
						"Block count",
						"Reserved block count",
						"Flex block group size",
						"RAID stride",
						"RAID stripe width",
						"Journal size",
						"Journal features",
						"Lazy init",
						"Filesystem flags",
						NULL};
	static const char *const btrfs_keys[] = {"sectorsize",	    "nodesize",	 "stripesize",
						 "num_devices",	    "csum_type", "incompat_flags",
						 "compat_ro_flags", NULL};
	char *out = NULL;
	json_object *o = NULL;

	if (strcmp(fstype, "xfs") == 0) {
		const char *argv[] = {"xfs_info", dir, NULL};
		if ((out = sb_capture_run(argv, log_fd)))
			o = sb_effconf_parse_xfs_info(out);
	} else if (strncmp(fstype, "ext", 3) == 0 && source[0] == '/') {
		const char *argv[] = {"dumpe2fs", "-h", source, NULL};
		if ((out = sb_capture_run(argv, log_fd)))
			o = sb_effconf_parse_keys(out, ':', ext4_keys);
	} else if (strcmp(fstype, "btrfs") == 0 && source[0] == '/') {
		const char *argv[] = {"btrfs", "inspect-internal", "dump-super", source, NULL};
		if ((out = sb_capture_run(argv, log_fd)))
			o = sb_effconf_parse_keys(out, ' ', btrfs_keys);
	}
	free(out);
	return o;
}

/* What each layer reads of its own devices ({"md": {"md127": {...}}}), in
 * stack order, and the rows it makes of them. */
static void layer_states(json_object *o, json_object *rows, const struct sb_devstack *st,
			 int log_fd)
{
	const struct sb_capture *caps[16];
	size_t n = sb_layer_captures(caps, ARRAY_SIZE(caps));

	for (size_t c = 0; c < n; c++) {
		json_object *all = json_object_new_object();
		for (size_t i = 0; st && i < st->n; i++)
			if (strcmp(st->dev[i].type, caps[c]->type) == 0)
				caps[c]->fn(all, st, i, log_fd);
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

static json_object *queues(const struct sb_devstack *st)
{
	static const struct {
		const char *key, *file;
	} q[] = {
	    {"scheduler", "queue/scheduler"},
	    {"wbt_lat_usec", "queue/wbt_lat_usec"},
	    {"write_cache", "queue/write_cache"},
	    {"rotational", "queue/rotational"},
	    {"io_min", "queue/minimum_io_size"},
	    {"io_opt", "queue/optimal_io_size"},
	    {"logical_block_size", "queue/logical_block_size"},
	    {"physical_block_size", "queue/physical_block_size"},
	    {"read_ahead_kb", "queue/read_ahead_kb"},
	    {"nr_requests", "queue/nr_requests"},
	    {"max_sectors_kb", "queue/max_sectors_kb"},
	    {"discard_granularity", "queue/discard_granularity"},
	    {"loop_dio", "loop/dio"},
	};
	json_object *all = json_object_new_object();
	for (size_t i = 0; st && i < st->n; i++) {
		json_object *o = json_object_new_object();
		add_str(o, "kind", st->dev[i].kind);
		for (size_t k = 0; k < ARRAY_SIZE(q); k++) {
			char p[PATH_MAX];
			/* a partition has no queue/ of its own: its disk's applies */
			snprintf(p, sizeof(p), "%s/class/block/%s/%s", st->sysroot, st->dev[i].name,
				 q[k].file);
			add_file(o, q[k].key, p);
		}
		json_object_object_add(all, st->dev[i].name, o);
	}
	return all;
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

/* ---- the rows the report compares (extra.config.rows) ---- */

/* The mount's type and each option its own row ("mount.option.ssd": "on"). */
static void mount_rows(json_object *rows, json_object *m)
{
	json_object *v;
	char key[256];

	if (json_object_object_get_ex(m, "fstype", &v))
		sb_capture_row(rows, "mount.fstype", v);
	if (!json_object_object_get_ex(m, "options", &v) || !json_object_get_string(v))
		return;
	char *opts = strdup(json_object_get_string(v)), *save = NULL;
	for (char *t = opts ? strtok_r(opts, ",", &save) : NULL; t;
	     t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '=');
		if (eq)
			*eq = '\0';
		snprintf(key, sizeof(key), "mount.option.%s", t);
		add_str(rows, key, eq ? eq + 1 : "on");
	}
	free(opts);
}

/* Geometry but what differs between any two runs: UUIDs, device paths, and
 * btrfs's incompat bits (BIG_METADATA...), set at its first mount. */
static void geometry_rows(json_object *rows, json_object *g)
{
	json_object_object_foreach(g, k, val)
	{
		char key[256];
		const char *s = json_object_get_string(val);
		snprintf(key, sizeof(key), "geometry.%s", k);
		if (!strcasestr(key, "uuid") && !strstr(key, "incompat_flags") &&
		    !(s && strstr(s, "/dev/")))
			sb_capture_row(rows, key, val);
	}
}

/* by_place: "PREFIXn.key" for each key of the n-th object of o (a device's
 * place, not its name); else "PREFIX.key" for each of o's own values. */
static void section_rows(json_object *rows, const char *prefix, json_object *o, bool by_place)
{
	int n = 0;
	char key[256];

	json_object_object_foreach(o, name, val)
	{
		if (!by_place) {
			snprintf(key, sizeof(key), "%s.%s", prefix, name);
			sb_capture_row(rows, key, val);
			continue;
		}
		if (!val || !json_object_is_type(val, json_type_object))
			continue;
		json_object_object_foreach(val, k, v)
		{
			snprintf(key, sizeof(key), "%s%d.%s", prefix, n, k);
			sb_capture_row(rows, key, v);
		}
		n++;
	}
}

json_object *sb_effconf_capture(const char *dir, const struct sb_devstack *st, int log_fd)
{
	json_object *o = json_object_new_object(), *rows = json_object_new_object(), *v;
	char fstype[64] = "", source[PATH_MAX] = "";

	if ((v = mount_info(dir, fstype, sizeof(fstype), source, sizeof(source)))) {
		json_object_object_add(o, "mount", v);
		mount_rows(rows, v);
	}
	if ((v = kmsg_lines(st, fstype)))
		json_object_object_add(o, "kmsg", v);
	if ((v = geometry(fstype, dir, source, log_fd))) {
		json_object_object_add(o, "geometry", v);
		geometry_rows(rows, v);
	}
	layer_states(o, rows, st, log_fd);
	json_object_object_add(o, "queue", v = queues(st));
	section_rows(rows, "queue", v, true);
	json_object_object_add(o, "sysctl", v = sysctls());
	section_rows(rows, "sysctl", v, false);
	json_object_object_add(o, "rows", rows);
	return o;
}
