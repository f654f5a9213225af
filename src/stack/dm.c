/* libdevmapper: find and remove device-mapper devices a run left behind
 * (LVs whose VG could not be removed by the LVM tools), and read a
 * device's first target (the cache layers' status and table). */
#include "stack/stack.h"
#include "util/macro.h"

#include <libdevmapper.h>
#include <stdio.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

/* libdevmapper prints to stderr by default; helpers must not. */
static void quiet_log(int level, const char *file, int line, int dm_errno, const char *f, ...)
{
}

static int dm_remove(const char *name)
{
	struct dm_task *t = dm_task_create(DM_DEVICE_REMOVE);
	int r = -EIO;
	if (!t)
		return -ENOMEM;
	dm_task_retry_remove(t);
	if (dm_task_set_name(t, name) && dm_task_run(t))
		r = 0;
	dm_task_destroy(t);
	return r;
}

int sb_dm_remove_prefix(const char *prefix, char ***removed)
{
	struct dm_task *t;
	struct dm_names *names;
	int n = 0, r = 0;

	if (removed)
		*removed = NULL;
	if (access("/dev/mapper/control", F_OK) != 0)
		return 0;
	dm_log_with_errno_init(quiet_log);
	t = dm_task_create(DM_DEVICE_LIST);
	if (!t)
		return -ENOMEM;
	if (!dm_task_run(t) || !(names = dm_task_get_names(t))) {
		dm_task_destroy(t);
		return 0;
	}
	if (names->dev) {
		for (;;) {
			if (strncmp(names->name, prefix, strlen(prefix)) == 0) {
				int e = dm_remove(names->name);
				if (e < 0 && !r)
					r = e;
				else if (e == 0) {
					n++;
					if (removed) {
						char **nv =
						    realloc(*removed, (n + 1) * sizeof(char *));
						if (nv) {
							nv[n - 1] = strdup(names->name);
							nv[n] = NULL;
							*removed = nv;
						}
					}
				}
			}
			if (!names->next)
				break;
			names = (struct dm_names *)((char *)names + names->next);
		}
	}
	dm_task_destroy(t);
	return r < 0 ? r : n;
}

int sb_dm_first_target(const char *name, bool table, char *buf, size_t len)
{
	uint64_t start, length;
	char *type = NULL, *params = NULL;
	struct dm_task *t;
	int r = -ENODEV;

	dm_log_with_errno_init(quiet_log);
	if (!(t = dm_task_create(table ? DM_DEVICE_TABLE : DM_DEVICE_STATUS)))
		return -ENOMEM;
	if (dm_task_set_name(t, name) && dm_task_run(t)) {
		dm_get_next_target(t, NULL, &start, &length, &type, &params);
		if (type) {
			snprintf(buf, len, "%llu %llu %s %s", (unsigned long long)start,
				 (unsigned long long)length, type, params ? params : "");
			r = 0;
		}
	}
	dm_task_destroy(t);
	return r;
}
