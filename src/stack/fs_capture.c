/* The file system's capture: its geometry as the file system reports it
 * (xfs_info, dumpe2fs -h, btrfs inspect-internal dump-super: key lines
 * only) and the rows the report compares. Beside fs.c, which is near its
 * size limit. */
#include "stack/capture.h"
#include "stack/layers.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static void geometry(json_object *into, const char *dir, int log_fd)
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
	char fstype[64], source[PATH_MAX], *out = NULL;
	json_object *o = NULL;

	if (sb_mount_at(dir, fstype, sizeof(fstype), source, sizeof(source)) < 0)
		return;
	if (strcmp(fstype, "xfs") == 0) {
		const char *argv[] = {"xfs_info", dir, NULL};
		if ((out = sb_capture_run(argv, log_fd)))
			o = sb_capture_parse_xfs_info(out);
	} else if (strncmp(fstype, "ext", 3) == 0 && source[0] == '/') {
		const char *argv[] = {"dumpe2fs", "-h", source, NULL};
		if ((out = sb_capture_run(argv, log_fd)))
			o = sb_capture_parse_keys(out, ':', ext4_keys);
	} else if (strcmp(fstype, "btrfs") == 0 && source[0] == '/') {
		const char *argv[] = {"btrfs", "inspect-internal", "dump-super", source, NULL};
		if ((out = sb_capture_run(argv, log_fd)))
			o = sb_capture_parse_keys(out, ' ', btrfs_keys);
	}
	free(out);
	if (!o)
		return;
	json_object_object_foreach(o, k, v)
	{
		json_object_object_add(into, k, json_object_get(v));
	}
	json_object_put(o);
}

/* Geometry but what differs between any two runs: UUIDs, device paths, and
 * btrfs's incompat bits (BIG_METADATA...), set at its first mount. */
static void geometry_rows(json_object *rows, const struct sb_capture *c, json_object *g)
{
	(void)c;
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

/* Another file system, other mkfs options: another geometry. */
static const char *const follows[] = {"fs.type", "fs.mkfs", "mkfs*", NULL};
const struct sb_capture sb_fs_capture = {
    .key = "geometry", .rows = geometry_rows, .mounted = geometry, .follows = follows};
