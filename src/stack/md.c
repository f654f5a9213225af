/* md arrays through mdadm. Every option is explicit so that mdadm never
 * asks (stdin is /dev/null anyway): --run, --bitmap always, --chunk never
 * for RAID1, --write-mostly in front of the members that get it, and
 * --write-behind only with an internal bitmap. Undo stops the array and
 * zeroes the superblock of every member (a stopped member keeps it); with
 * udevd running it first stops what udev assembled again from a member. */
#include "stack/stack.h"
#include "util/macro.h"
#include "util/size.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The mdadm --create command line; shared by plan listings and runs. */
static void md_argv(json_object *a, struct sb_vec *v)
{
	const char *level = sb_arg_str(a, "level"), *s;
	size_t nm = sb_arg_len(a, "members"), nw = sb_arg_len(a, "write_mostly");
	uint64_t u;

	sb_vec_add(v, "mdadm");
	sb_vec_add(v, "--create");
	sb_vec_add(v, sb_arg_str(a, "dev"));
	sb_vec_add(v, "--run");
	sb_vec_addf(v, "--level=%s", level);
	sb_vec_addf(v, "--raid-devices=%zu", nm + nw);
	sb_vec_addf(v, "--metadata=%s", sb_arg_str(a, "metadata"));
	sb_vec_addf(v, "--bitmap=%s", sb_arg_str(a, "bitmap"));
	if ((s = sb_arg_str(a, "bitmap_chunk")) && sb_parse_size(s, &u, false, NULL) == 0)
		sb_vec_addf(v, "--bitmap-chunk=%lluK", (unsigned long long)(u >> 10));
	if (strcmp(level, "1") != 0 && (s = sb_arg_str(a, "chunk")) &&
	    sb_parse_size(s, &u, false, NULL) == 0)
		sb_vec_addf(v, "--chunk=%lluK", (unsigned long long)(u >> 10));
	if ((s = sb_arg_str(a, "write_behind")))
		sb_vec_addf(v, "--write-behind=%s", s);
	if ((s = sb_arg_str(a, "assume_clean")) && strcmp(s, "yes") == 0)
		sb_vec_add(v, "--assume-clean");
	for (size_t i = 0; i < nm; i++)
		sb_vec_add(v, sb_arg_idx(a, "members", i));
	if (nw) {
		sb_vec_add(v, "--write-mostly");
		for (size_t i = 0; i < nw; i++)
			sb_vec_add(v, sb_arg_idx(a, "write_mostly", i));
	}
}

static int describe(json_object *a, char **what, char **undo)
{
	struct sb_vec v = {0};
	char *u = NULL;
	size_t ul = 0;
	FILE *f;

	md_argv(a, &v);
	*what = sb_vec_format(&v);
	sb_vec_free(&v);
	f = open_memstream(&u, &ul);
	if (!f)
		return -ENOMEM;
	fprintf(f, "mdadm --stop %s", sb_arg_str(a, "dev"));
	const char *keys[] = {"members", "write_mostly"};
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < sb_arg_len(a, keys[k]); i++)
			fprintf(f, "; mdadm --zero-superblock %s", sb_arg_idx(a, keys[k], i));
	fclose(f);
	*undo = u;
	return *what ? 0 : -ENOMEM;
}

/* The highest free minor, like mdadm picks for named arrays. */
static int prepare(json_object *a, struct sb_exec *x)
{
	const char *dev = sb_arg_str(a, "dev");
	if (access("/proc/mdstat", F_OK) != 0)
		return sb_exec_fail(x, -ENODEV,
				    "this kernel has no md driver (/proc/mdstat missing): "
				    "use a machine or VM with md (see tests/vm)");
	if (!strstr(dev, "${"))
		return 0;
	for (int n = 127; n >= 0; n--) {
		char sys[64], path[32];
		snprintf(sys, sizeof(sys), "/sys/block/md%d", n);
		if (access(sys, F_OK) == 0)
			continue;
		snprintf(path, sizeof(path), "/dev/md%d", n);
		sb_arg_set(a, "dev", path);
		sb_exec_set_var(x, sb_arg_str(a, "var"), path);
		return 0;
	}
	return sb_exec_fail(x, -ENOSPC, "no free md device number");
}

static int run(json_object *a, json_object *result, struct sb_exec *x)
{
	struct sb_vec v = {0};
	const char *dev = sb_arg_str(a, "dev");
	int r;

	md_argv(a, &v);
	r = sb_exec_cmd(x, (const char *const *)v.v);
	sb_vec_free(&v);
	if (r < 0)
		return r;
	r = sb_wait_node(dev, 10000, x->udev);
	if (r < 0)
		return sb_exec_fail(x, r, "%s: device node did not appear: %s", dev, strerror(-r));
	sb_arg_set(result, "dev", dev);
	sb_result_var(result, sb_arg_str(a, "var"), dev);
	return 0;
}

/* Can udevd handle events of member m now? Not while someone (this run,
 * on the disks given with --devices) holds an exclusive flock on its whole
 * disk: udevd then defers them until the lock goes, when the superblocks are
 * gone, and `udevadm settle` would only wait for its time limit. */
static bool udev_can_probe(const char *m)
{
	_cleanup_free_ char *name = sb_sys_name(m);
	char sys[PATH_MAX + 16], real[PATH_MAX], dev[PATH_MAX];
	const char *whole;

	if (!name)
		return true;
	snprintf(sys, sizeof(sys), "/sys/class/block/%s", name);
	whole = name;
	if (realpath(sys, real)) {
		snprintf(sys, sizeof(sys), "%s/partition", real);
		char *slash = strrchr(real, '/');
		if (access(sys, F_OK) == 0 && slash) {
			*slash = '\0'; /* a partition: its disk's lock counts */
			slash = strrchr(real, '/');
			if (slash)
				whole = slash + 1;
		}
	}
	snprintf(dev, sizeof(dev), "/dev/%s", whole);
	_cleanup_close_ int fd = open(dev, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return true;
	/* Our own lock, through another open file, conflicts too. */
	if (flock(fd, LOCK_SH | LOCK_NB) < 0)
		return false;
	flock(fd, LOCK_UN);
	return true;
}

/* With udevd running, its md rules (mdadm --incremental on every device that
 * shows an md superblock) can assemble a member again right after --stop,
 * from events the create or the stop queued: wait until udev is done, when
 * it can do anything with the members at all. */
static void settle(json_object *a, struct sb_exec *x)
{
	const char *argv[] = {"udevadm", "settle", "--timeout=30", NULL};
	const char *keys[] = {"members", "write_mostly"};
	bool probe = false;
	int st;

	if (!x->udev)
		return;
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < sb_arg_len(a, keys[k]); i++) {
			const char *m = sb_arg_idx(a, keys[k], i);
			probe |= !strstr(m, "${") && udev_can_probe(m);
		}
	if (probe)
		sb_exec_cmd_quiet(x, argv, &st);
}

/* Stops every md array that holds member m (one udev assembled again, as
 * "mdX : inactive m[0](S)"). Returns how many it stopped, or -errno. */
static int stop_holders(struct sb_exec *x, const char *m)
{
	_cleanup_free_ char *name = sb_sys_name(m);
	char dir[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int n = 0, r = 0;

	if (!name)
		return -ENOMEM;
	snprintf(dir, sizeof(dir), "/sys/class/block/%s/holders", name);
	d = opendir(dir);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char dev[PATH_MAX];
		if (strncmp(e->d_name, "md", 2) != 0)
			continue;
		snprintf(dev, sizeof(dev), "/dev/%s", e->d_name);
		const char *argv[] = {"mdadm", "--stop", dev, NULL};
		sb_exec_log(x, "%s: %s holds it again (udev assembled it): stopping it\n", m,
			    e->d_name);
		r = sb_exec_cmd(x, argv);
		if (r < 0)
			break;
		n++;
	}
	closedir(d);
	return r < 0 ? r : n;
}

static int undo(json_object *a, json_object *result, struct sb_exec *x)
{
	const char *dev = sb_arg_str(a, "dev");
	const char *keys[] = {"members", "write_mostly"};
	_cleanup_free_ char *name = NULL;
	char sys[128];
	int r, st;

	if (strstr(dev, "${"))
		name = NULL; /* never got a device: only the members may need cleaning */
	else
		name = strdup(strrchr(dev, '/') + 1);
	if (name) {
		snprintf(sys, sizeof(sys), "/sys/block/%s/md", name);
		if (access(sys, F_OK) == 0) {
			const char *argv[] = {"mdadm", "--stop", dev, NULL};
			settle(a, x);
			r = sb_exec_cmd(x, argv);
			if (r < 0)
				return r;
		}
	}
	/* Whatever udev assembled again must go before the superblocks can;
	 * a few rounds, as stopping one can queue events for the next. */
	for (int round = 0; round < 5; round++) {
		int stopped = 0;
		settle(a, x);
		for (size_t k = 0; k < 2; k++)
			for (size_t i = 0; i < sb_arg_len(a, keys[k]); i++) {
				const char *m = sb_arg_idx(a, keys[k], i);
				if (strstr(m, "${"))
					continue;
				r = stop_holders(x, m);
				if (r < 0)
					return r;
				stopped += r;
			}
		if (!stopped)
			break;
	}
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < sb_arg_len(a, keys[k]); i++) {
			const char *m = sb_arg_idx(a, keys[k], i);
			struct stat sst;
			if (strstr(m, "${") || stat(m, &sst) < 0)
				continue;
			const char *argv[] = {"mdadm", "--zero-superblock", m, NULL};
			/* Exit 1 when there is no superblock: already clean. */
			r = sb_exec_cmd_quiet(x, argv, &st);
			if (r < 0 && r != -ENOENT)
				return r;
			/* What mdadm could not (or was not there to) erase. */
			r = sb_wipe_signatures(m);
			if (r < 0)
				return sb_exec_fail(x, r, "%s: cannot wipe: %s", m, strerror(-r));
		}
	/* The wipes' events too: the next step (or run) finds udev quiet. */
	settle(a, x);
	return 0;
}

const struct sb_layer sb_layer_md = {
    .kind = "mdadm-create",
    .prepare = prepare,
    .describe = describe,
    .run = run,
    .undo = undo,
    .required = {"dev"},
};
