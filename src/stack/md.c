/* md arrays through mdadm. Every option is explicit so that mdadm never
 * asks (stdin is /dev/null anyway): --run, --bitmap always, --chunk never
 * for RAID1, --write-mostly in front of the members that get it, and
 * --write-behind only with an internal bitmap. The array has a name of the
 * run's own (--name sb-RUNID, node /dev/md/sb-RUNID) instead of a number
 * picked by us, and its UUID (mdadm --detail --export) is journaled: undo
 * stops only arrays with that UUID (or, when the run died before it was
 * journaled, that name), never whatever now has the number. Then it zeroes
 * the superblock of every member (a stopped member keeps it); with udevd
 * running it first stops what udev assembled again from a member. */
#include "stack/devlock.h"
#include "stack/layers.h"
#include "util/macro.h"
#include "util/size.h"

#include <dirent.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define A struct sb_md_args
static const struct sb_field fields[] = {
    SB_FIELD(A, name, SB_FT_STR, SB_FF_REQUIRED),
    SB_FIELD(A, var, SB_FT_STR, SB_FF_REQUIRED),
    SB_FIELD(A, level, SB_FT_U64, 0),
    SB_FIELD(A, metadata, SB_FT_STR, SB_FF_REQUIRED),
    SB_FIELD(A, bitmap, SB_FT_BOOL, 0),
    SB_FIELD(A, bitmap_chunk, SB_FT_U64, 0),
    SB_FIELD(A, chunk, SB_FT_U64, 0),
    SB_FIELD(A, write_behind, SB_FT_U64, 0),
    SB_FIELD(A, assume_clean, SB_FT_BOOL, 0),
    SB_FIELD(A, members, SB_FT_DEVV, SB_FF_WRITES | SB_FF_IDENT),
    SB_FIELD(A, write_mostly, SB_FT_DEVV, SB_FF_WRITES | SB_FF_IDENT),
};
#undef A

static const struct sb_prog progs[] = {{"mdadm", "mdadm"}, {NULL, NULL}};

static const char *preflight(const void *args)
{
	if (access("/proc/mdstat", F_OK) != 0)
		return "md: this kernel has no md driver (no /proc/mdstat; try 'modprobe md_mod', "
		       "or run the profile in the VM runner)";
	return NULL;
}

/* 0.90 superblocks have no name field. */
static bool has_name(const struct sb_md_args *a)
{
	return strcmp(a->metadata, "0.90") != 0;
}

/* The mdadm --create command line; shared by plan listings and runs. */
static void md_argv(const struct sb_md_args *a, struct sb_vec *v)
{
	sb_vec_add(v, "mdadm");
	sb_vec_add(v, "--create");
	sb_vec_addf(v, "/dev/md/%s", a->name);
	if (has_name(a))
		sb_vec_addf(v, "--name=%s", a->name);
	sb_vec_add(v, "--run");
	sb_vec_addf(v, "--level=%llu", (unsigned long long)a->level);
	sb_vec_addf(v, "--raid-devices=%zu", a->members.n + a->write_mostly.n);
	sb_vec_addf(v, "--metadata=%s", a->metadata);
	sb_vec_addf(v, "--bitmap=%s", a->bitmap ? "internal" : "none");
	if (a->bitmap_chunk)
		sb_vec_addf(v, "--bitmap-chunk=%lluK", (unsigned long long)(a->bitmap_chunk >> 10));
	if (a->level != 1 && a->chunk)
		sb_vec_addf(v, "--chunk=%lluK", (unsigned long long)(a->chunk >> 10));
	if (a->write_behind)
		sb_vec_addf(v, "--write-behind=%llu", (unsigned long long)a->write_behind);
	if (a->assume_clean)
		sb_vec_add(v, "--assume-clean");
	for (size_t i = 0; i < a->members.n; i++)
		sb_vec_add(v, a->members.v[i]);
	if (a->write_mostly.n) {
		sb_vec_add(v, "--write-mostly");
		for (size_t i = 0; i < a->write_mostly.n; i++)
			sb_vec_add(v, a->write_mostly.v[i]);
	}
}

static int describe(const void *args, char **what, char **undo)
{
	const struct sb_md_args *a = args;
	struct sb_vec v = {0};
	char *u = NULL, *w;
	size_t ul = 0;
	FILE *f;

	md_argv(a, &v);
	w = sb_vec_format(&v);
	sb_vec_free(&v);
	if (!w || asprintf(what, "%s -> ${%s}", w, a->var) < 0) {
		free(w);
		return -ENOMEM;
	}
	free(w);
	f = open_memstream(&u, &ul);
	if (!f)
		return -ENOMEM;
	fprintf(f, "mdadm --stop <the array with the journaled UUID>");
	for (size_t i = 0; i < a->members.n; i++)
		fprintf(f, "; mdadm --zero-superblock %s", a->members.v[i]);
	for (size_t i = 0; i < a->write_mostly.n; i++)
		fprintf(f, "; mdadm --zero-superblock %s", a->write_mostly.v[i]);
	fclose(f);
	*undo = u;
	return 0;
}

int sb_md_detail(struct sb_exec *x, const char *dev, char *uuid, size_t ulen, char *name,
		 size_t nlen)
{
	const char *argv[] = {"mdadm", "--detail", "--export", dev, NULL};
	_cleanup_free_ char *out = NULL;
	int st = -1, r;
	bool found = false;

	if (uuid)
		*uuid = '\0';
	if (name)
		*name = '\0';
	r = sb_exec_cmd_output(x, argv, &st, &out);
	if (r < 0)
		return r;
	if (st != 0)
		return -ENOENT;
	/* "MD_UUID=8d4...:...\nMD_NAME=host:sb-x\n" */
	char *save = NULL;
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (strncmp(l, "MD_UUID=", 8) == 0 && uuid) {
			snprintf(uuid, ulen, "%s", l + 8);
			found = true;
		} else if (strncmp(l, "MD_NAME=", 8) == 0 && name) {
			snprintf(name, nlen, "%s", l + 8);
		}
	}
	return found || !uuid ? 0 : -ENOENT;
}

/* The superblock keeps 32 bytes of "homehost:name": a long run id is cut
 * from the front (its tail, time and pid, keeps it unique). */
static int prepare(void *args, struct sb_exec *x)
{
	struct sb_md_args *a = args;
	size_t n = strlen(a->name);
	if (n > 24) {
		char *s = NULL;
		if (asprintf(&s, "sb-%s", a->name + n - 21) < 0)
			return -ENOMEM;
		free(a->name);
		a->name = s;
	}
	return 0;
}

/* "host:sb-x" or "sb-x" (a name with the homehost prefix or without). */
static bool name_is(const char *md_name, const char *ours)
{
	const char *c = strchr(md_name, ':');
	return strcmp(c ? c + 1 : md_name, ours) == 0;
}

static int run(void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_md_args *a = args;
	struct sb_vec v = {0};
	char link[PATH_MAX], real[PATH_MAX], uuid[64], name[128];
	int r;

	md_argv(a, &v);
	r = sb_exec_cmd(x, (const char *const *)v.v);
	sb_vec_free(&v);
	if (r < 0)
		return r;
	/* mdadm makes /dev/md/NAME itself, or udev does. */
	snprintf(link, sizeof(link), "/dev/md/%s", a->name);
	for (int i = 0; i < 500 && !realpath(link, real); i++)
		usleep(20000);
	if (!realpath(link, real))
		return sb_exec_fail(x, -ETIMEDOUT, "%s did not appear", link);
	r = sb_wait_node(real, 10000, x->udev);
	if (r < 0)
		return sb_exec_fail(x, r, "%s: device node did not appear: %s", real, strerror(-r));
	json_object_object_add(result, "dev", json_object_new_string(real));
	r = sb_md_detail(x, real, uuid, sizeof(uuid), name, sizeof(name));
	if (r < 0)
		return sb_exec_fail(x, r, "%s: mdadm --detail --export gave no MD_UUID", real);
	json_object_object_add(result, "uuid", json_object_new_string(uuid));
	sb_exec_log(x, "%s: array %s, UUID %s\n", real, name, uuid);
	sb_result_var(result, a->var, real);
	return 0;
}

/* Can udevd handle events of member m now? Not while someone (this run,
 * on the disks given with --devices) holds an exclusive flock on its whole
 * disk: udevd then defers them until the lock goes, when the superblocks are
 * gone, and `udevadm settle` would only wait for its time limit. */
static bool udev_can_probe(const char *m)
{
	_cleanup_free_ char *whole = sb_devlock_whole_disk(m);
	_cleanup_close_ int fd = open(whole ? whole : m, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
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
static void settle(const struct sb_md_args *a, struct sb_exec *x)
{
	const char *argv[] = {"udevadm", "settle", "--timeout=30", NULL};
	const struct sb_list *lists[] = {&a->members, &a->write_mostly};
	bool probe = false;
	int st;

	if (!x->udev)
		return;
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < lists[k]->n; i++)
			probe |= !strstr(lists[k]->v[i], "${") && udev_can_probe(lists[k]->v[i]);
	if (probe)
		sb_exec_cmd_quiet(x, argv, &st);
}

struct want {
	const char *uuid; /* journaled, or NULL */
	const char *name; /* ours, when there is no UUID (and the format has names) */
};

/* Is the running array dev ours? 1 yes, 0 no (logged), -errno. */
static int is_ours(struct sb_exec *x, const char *dev, const struct want *w)
{
	char uuid[64], name[128];
	int r = sb_md_detail(x, dev, uuid, sizeof(uuid), name, sizeof(name));
	if (r == -ENOENT)
		return 0; /* not running (inactive, or gone) */
	if (r < 0)
		return r;
	if (w->uuid ? strcasecmp(uuid, w->uuid) == 0 : (w->name && name_is(name, w->name)))
		return 1;
	sb_exec_log(x, "%s: not ours (UUID %s, name %s): left alone\n", dev, uuid,
		    *name ? name : "none");
	return 0;
}

/* Stops every md array that holds member m and is ours (one udev assembled
 * again, as "mdX : inactive m[0](S)", has no UUID to show: it holds our
 * member, which is ours). Returns how many it stopped, or -errno. */
static int stop_holders(struct sb_exec *x, const char *m, const struct want *w)
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
		char dev[PATH_MAX], state[64] = "";
		if (strncmp(e->d_name, "md", 2) != 0)
			continue;
		snprintf(dev, sizeof(dev), "/dev/%s", e->d_name);
		snprintf(dir, sizeof(dir), "/sys/block/%s/md/array_state", e->d_name);
		sb_sys_read(dir, state, sizeof(state));
		if (strcmp(state, "inactive") != 0 && strcmp(state, "clear") != 0) {
			r = is_ours(x, dev, w);
			if (r <= 0)
				continue;
		}
		const char *argv[] = {"mdadm", "--stop", dev, NULL};
		sb_exec_log(x, "%s: %s holds it (udev assembled it again): stopping it\n", m,
			    e->d_name);
		r = sb_exec_cmd(x, argv);
		if (r < 0)
			break;
		n++;
	}
	closedir(d);
	return r < 0 ? r : n;
}

static int undo(const void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_md_args *a = args;
	const struct sb_list *lists[] = {&a->members, &a->write_mostly};
	struct want w = {.uuid = sb_json_str(result, "uuid"), .name = has_name(a) ? a->name : NULL};
	char link[PATH_MAX], real[PATH_MAX];
	const char *cand[2] = {NULL, NULL};
	int r, st;

	/* The array itself: where the journal saw it, and where its name
	 * points now; stopped only when it is ours. */
	cand[0] = sb_json_str(result, "dev");
	snprintf(link, sizeof(link), "/dev/md/%s", a->name);
	if (realpath(link, real) && (!cand[0] || strcmp(real, cand[0]) != 0))
		cand[1] = real;
	for (size_t i = 0; i < 2; i++) {
		char sys[PATH_MAX];
		if (!cand[i] || strncmp(cand[i], "/dev/md", 7) != 0)
			continue;
		snprintf(sys, sizeof(sys), "/sys/block/%s/md", strrchr(cand[i], '/') + 1);
		if (access(sys, F_OK) != 0)
			continue;
		r = is_ours(x, cand[i], &w);
		if (r < 0)
			return r;
		if (r == 0)
			continue;
		const char *argv[] = {"mdadm", "--stop", cand[i], NULL};
		settle(a, x);
		r = sb_exec_cmd(x, argv);
		if (r < 0)
			return r;
	}
	/* Whatever udev assembled again must go before the superblocks can;
	 * a few rounds, as stopping one can queue events for the next. */
	for (int round = 0; round < 5; round++) {
		int stopped = 0;
		settle(a, x);
		for (size_t k = 0; k < 2; k++)
			for (size_t i = 0; i < lists[k]->n; i++) {
				const char *m = lists[k]->v[i];
				if (strstr(m, "${"))
					continue;
				r = stop_holders(x, m, &w);
				if (r < 0)
					return r;
				stopped += r;
			}
		if (!stopped)
			break;
	}
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < lists[k]->n; i++) {
			const char *m = lists[k]->v[i];
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
	/* Our name's link, when nobody (udev) removed it: it points at a
	 * stopped array (or nothing) now; a running array keeps it. */
	struct stat lst;
	if (lstat(link, &lst) == 0 && S_ISLNK(lst.st_mode)) {
		char sys[PATH_MAX];
		bool keep = false;
		if (realpath(link, real)) {
			snprintf(sys, sizeof(sys), "/sys/block/%s/md", strrchr(real, '/') + 1);
			keep = access(sys, F_OK) == 0 && sb_md_detail(x, real, NULL, 0, NULL, 0) == 0;
		}
		if (!keep)
			unlink(link);
	}
	/* The wipes' events too: the next step (or run) finds udev quiet. */
	settle(a, x);
	return 0;
}

const struct sb_layer sb_layer_md = {
    .kind = "mdadm-create",
    .args_size = sizeof(struct sb_md_args),
    .fields = fields,
    .n_fields = ARRAY_SIZE(fields),
    .progs = progs,
    .preflight = preflight,
    .prepare = prepare,
    .describe = describe,
    .run = run,
    .undo = undo,
    .flags = SB_LF_CREATES_DEV,
};
