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
#include "stack/plan.h"
#include "stack/capture.h"
#include "util/macro.h"
#include "util/size.h"

#include <dirent.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The step's typed arguments (its journal record, through fields[]). */
struct sb_md_args {
	char *name; /* sb-${id}: --name, and the node /dev/md/NAME */
	char *var;
	uint64_t level;
	char *metadata;
	bool bitmap;				    /* internal */
	uint64_t bitmap_chunk, chunk, write_behind; /* 0: not given */
	bool assume_clean;
	struct sb_list members, write_mostly;
};

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
			keep =
			    access(sys, F_OK) == 0 && sb_md_detail(x, real, NULL, 0, NULL, 0) == 0;
		}
		if (!keep)
			unlink(link);
	}
	/* The wipes' events too: the next step (or run) finds udev quiet. */
	settle(a, x);
	return 0;
}

/* ---- md's profile facts: section, keys, rules, plan ---- */

/* [md], typed (filled through the key table's offsetof). */
struct md_cfg {
	const char *level; /* NULL or "none": no array */
	struct sb_sel members;
	int write_mostly; /* a role, or -1 */
	uint64_t write_behind;
	const char *bitmap;
	uint64_t bitmap_chunk, chunk; /* bytes, 0: mdadm's default */
	bool assume_clean;
	const char *metadata;
};

/* The key table's order: validate names keys by these. */
enum {
	MD_LEVEL,
	MD_MEMBERS,
	MD_WRITE_MOSTLY,
	MD_WRITE_BEHIND,
	MD_BITMAP,
	MD_BITMAP_CHUNK,
	MD_CHUNK,
	MD_ASSUME_CLEAN,
	MD_METADATA,
	MD_KEY_N
};

#define C struct md_cfg
static const struct sb_key keys[MD_KEY_N] = {
    [MD_LEVEL] = SB_KEY(C, level, "level", SB_KT_CHOICE, "none|0|1|4|5|6|10", 0, 0, NULL, 0,
			"RAID level; setting it builds an md array ('none' leaves md out, e.g. "
			"as the baseline of a matrix)"),
    [MD_MEMBERS] = SB_KEY(C, members, "members", SB_KT_MEMBERS, NULL, 0, 0, "all", 0,
			  "roles whose devices (or partitions) become members, or partitions by "
			  "role and number: 'ssd.p2, hdd.p2'"),
    [MD_WRITE_MOSTLY] =
	SB_KEY(C, write_mostly, "write-mostly", SB_KT_ROLE, NULL, 0, 0, NULL, SB_KF_ROLE_PART,
	       "role whose members get --write-mostly (reads avoid them), or none; "
	       "'hdd.p2' is taken as its role"),
    [MD_WRITE_BEHIND] = SB_KEY(C, write_behind, "write-behind", SB_KT_UINT, NULL, 0, 16383, "0", 0,
			       "--write-behind=N for write-mostly members (0: off; needs the "
			       "internal bitmap)"),
    [MD_BITMAP] = SB_KEY(C, bitmap, "bitmap", SB_KT_CHOICE, "internal|none", 0, 0, "internal", 0,
			 "write-intent bitmap (always passed explicitly)"),
    [MD_BITMAP_CHUNK] =
	SB_KEY(C, bitmap_chunk, "bitmap-chunk", SB_KT_SIZE, NULL, 0, 0, NULL, 0, "--bitmap-chunk"),
    [MD_CHUNK] = SB_KEY(C, chunk, "chunk", SB_KT_SIZE, NULL, 0, 0, NULL, 0,
			"--chunk for striped levels (never passed for RAID1)"),
    [MD_ASSUME_CLEAN] = SB_KEY(C, assume_clean, "assume-clean", SB_KT_BOOL, NULL, 0, 0, "no", 0,
			       "--assume-clean: skip the initial resync"),
    [MD_METADATA] = SB_KEY(C, metadata, "metadata", SB_KT_CHOICE, "0.90|1.0|1.1|1.2", 0, 0, "1.2",
			   0, "superblock format"),
};
#undef C

static bool md_on(const struct md_cfg *m)
{
	return m->level && strcmp(m->level, "none") != 0;
}

static unsigned md_level(const struct md_cfg *m)
{
	return (unsigned)strtoul(m->level, NULL, 10);
}

/* The members a level guarantees may go (RAID1 keeps a copy on each). */
static int md_redundancy(const void *cfg, struct sb_redundancy *out)
{
	const struct md_cfg *m = cfg;
	unsigned l;

	if (!md_on(m))
		return -1;
	l = md_level(m);
	*out = (struct sb_redundancy){
	    .may_fail = l == 0	 ? 0
			: l == 6 ? 2
				 : 1,
	    .why = "RAID0 has no redundancy: without one member the array is gone",
	    .kind = "md",
	    .after = SB_STEP_MD};
	return 0;
}

/* The two rules mdadm's levels impose, written once: RAID0 has nothing for
 * a bitmap to track (mdadm refuses one), RAID1 has no stripes (so no
 * --chunk). validate refuses them when the profile asks; the plan applies
 * them to the defaults. */
static bool md_bitmap_internal(const struct md_cfg *m)
{
	return md_level(m) != 0 && strcmp(m->bitmap, "internal") == 0;
}

static bool md_has_chunk(const struct md_cfg *m)
{
	return md_level(m) != 1;
}

static unsigned md_min_members(unsigned level)
{
	return level == 4 || level == 5 ? 3 : level == 6 ? 4 : 2;
}

/* Does the array have a member of the write-mostly role? */
static bool md_has_role(const struct sb_config *c, const struct md_cfg *m, int role)
{
	bool has = m->members.all || sb_sel_match(&m->members, (enum sb_role)role, 0);
	for (size_t i = 0; !has && i < m->members.n; i++)
		has = m->members.item[i].role == (enum sb_role)role;
	return has && sb_cfg_role_count(c, (enum sb_role)role);
}

/* Keys that only mean something with a level; none may come without one. */
static int md_check_off(struct sb_vctx *v, int base)
{
	const struct sb_config *c = sb_vctx_config(v);
	if (c->val[base + MD_LEVEL])
		return 0; /* "none": the matrix's baseline keeps the others */
	for (int k = MD_MEMBERS; k < MD_KEY_N; k++)
		if (c->val[base + k])
			return sb_verr(v, base + k, "md.%s: [md] needs a level", keys[k].name);
	if (c->has_sec[sb_keys[base].sec])
		return sb_verr(v, -1, "[md]: needs a level");
	return 0;
}

static int md_validate(struct sb_vctx *v, const void *cfg, struct sb_vstate *st)
{
	const struct sb_config *c = sb_vctx_config(v);
	const struct md_cfg *m = cfg;
	int base = sb_keytab_base(&sb_keytab_md), nm;
	const char *mem = sb_cfg_str(c, base + MD_MEMBERS);
	char *why = NULL;

	if (!md_on(m))
		return md_check_off(v, base);
	nm = sb_cfg_sel_units(c, mem, st, &why);
	if (nm < 0) {
		int r = sb_verr(v, base + MD_MEMBERS, "md.members: %s", why ? why : mem);
		free(why);
		return r;
	}
	if ((unsigned)nm < md_min_members(md_level(m)))
		return sb_verr(v, base + MD_LEVEL,
			       "md.level: RAID%s needs at least %u members, the profile gives %d",
			       m->level, md_min_members(md_level(m)), nm);
	if (!md_has_chunk(m) && m->chunk)
		return sb_verr(v, base + MD_CHUNK, "md.chunk: RAID1 has no chunk size");
	if (md_level(m) == 0 && c->val[base + MD_BITMAP] && strcmp(m->bitmap, "internal") == 0)
		return sb_verr(v, base + MD_BITMAP,
			       "md.bitmap: RAID0 has no redundancy to track: use none");
	if (m->write_mostly >= 0 && md_level(m) != 1)
		return sb_verr(v, base + MD_WRITE_MOSTLY,
			       "md.write-mostly: only RAID1 has write-mostly members");
	if (m->write_mostly >= 0 && !md_has_role(c, m, m->write_mostly))
		return sb_verr(v, base + MD_WRITE_MOSTLY,
			       "md.write-mostly: no %s member in the array",
			       sb_role_names[m->write_mostly]);
	if (m->write_behind && m->write_mostly < 0)
		return sb_verr(v, base + MD_WRITE_BEHIND, "md.write-behind: needs md.write-mostly");
	if (m->write_behind && strcmp(m->bitmap, "internal") != 0)
		return sb_verr(v, base + MD_WRITE_BEHIND,
			       "md.write-behind: needs md.bitmap = internal");
	if (m->bitmap_chunk && strcmp(m->bitmap, "internal") != 0)
		return sb_verr(v, base + MD_BITMAP_CHUNK,
			       "md.bitmap-chunk: needs md.bitmap = internal");
	st->units = 1;
	st->taker = base + MD_MEMBERS;
	return 0;
}

const struct sb_keytab sb_keytab_md = {
    .section = "md",
    .keys = keys,
    .n = MD_KEY_N,
    .cfg_size = sizeof(struct md_cfg),
    .validate = md_validate,
};

bool sb_md_bitmap_internal(const struct sb_config *c)
{
	return strcmp(sb_cfg_str(c, sb_keytab_base(&sb_keytab_md) + MD_BITMAP), "internal") == 0;
}

static const struct sb_sel *md_takes(const void *cfg)
{
	const struct md_cfg *m = cfg;
	return md_on(m) ? &m->members : NULL;
}

/* The md step: level, members in order, write-mostly ones last so that
 * --write-mostly precedes them on mdadm's command line. The array's name is
 * the run's own, so that it never takes a number someone else's array may
 * want and undo can tell it from any other. m NULL: an emulated volume. */
static struct sb_md_args *md_step(struct sb_pctx *b, const struct md_cfg *m, const char *var,
				  unsigned level, const struct sb_unit *mem, size_t n_mem)
{
	struct sb_md_args *a = sb_plan_add_step(b, SB_STEP_MD);
	int wm_role = m ? m->write_mostly : -1;

	a->name =
	    strcmp(var, "md") == 0 ? sb_plan_fmt("sb-${id}") : sb_plan_fmt("sb-${id}-%s", var);
	a->var = sb_plan_fmt("%s", var);
	a->level = level;
	a->metadata = sb_plan_fmt("%s", m ? m->metadata : "1.2");
	a->bitmap = !m || md_bitmap_internal(m);
	if (m) {
		a->bitmap_chunk = m->bitmap_chunk;
		a->chunk = md_has_chunk(m) ? m->chunk : 0;
		a->write_behind = wm_role >= 0 ? m->write_behind : 0;
	}
	a->assume_clean = !m || m->assume_clean;
	for (size_t i = 0; i < n_mem; i++)
		if ((int)mem[i].role != wm_role)
			sb_plan_addv(&a->members, mem[i].var);
	for (size_t i = 0; i < n_mem; i++)
		if ((int)mem[i].role == wm_role)
			sb_plan_addv(&a->write_mostly, mem[i].var);
	return a;
}

bool sb_md_plan_redundant(const struct sb_plan *p, bool *assume_clean)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct sb_md_args *a = p->steps[i].args;
		if (p->steps[i].kind == SB_STEP_MD && strcmp(a->var, "md") == 0 && a->level != 0) {
			*assume_clean = a->assume_clean;
			return true;
		}
	}
	return false;
}

void sb_md_plan_emulated(struct sb_pctx *b, const char *var, unsigned level,
			 const struct sb_unit *mem, size_t n_mem)
{
	md_step(b, NULL, var, level, mem, n_mem);
}

/* The chosen members become one device, the only unit above. */
static int md_plan(const void *cfg, struct sb_pctx *b)
{
	const struct md_cfg *m = cfg;
	struct sb_unit *mem;
	size_t nm = 0;

	if (!md_on(m))
		return 0;
	mem = calloc(b->n_u + 1, sizeof(*mem));
	if (!mem)
		return -ENOMEM;
	for (size_t i = 0; i < b->n_u; i++)
		if (sb_sel_match(&m->members, b->u[i].role, b->u[i].part))
			mem[nm++] = b->u[i];
	md_step(b, m, "md", md_level(m), mem, nm);
	free(mem);
	b->n_u = 0;
	sb_plan_add_unit(b, SB_ROLE_ANY, 0, "md");
	return 0;
}

static void add_file(json_object *o, const char *key, const char *path)
{
	char buf[512];
	size_t n;
	if (sb_sys_read(path, buf, sizeof(buf)) < 0)
		return;
	for (n = strlen(buf); n && buf[n - 1] == ' ';)
		buf[--n] = '\0';
	json_object_object_add(o, key, json_object_new_string(buf));
}

/* The array as md runs it: its sysfs attributes, and each member's state
 * ("in_sync,write_mostly"; what md calls write-behind is bitmap/backlog). */
static void md_capture(json_object *into, const struct sb_devstack *st, size_t i, int log_fd)
{
	const char *sysroot = st->sysroot, *name = st->dev[i].name;
	static const char *const files[] = {"level",
					    "raid_disks",
					    "chunk_size",
					    "layout",
					    "array_state",
					    "sync_action",
					    "bitmap/location",
					    "bitmap/chunksize",
					    "bitmap/backlog",
					    "consistency_policy",
					    NULL};
	json_object *o = json_object_new_object(), *mem = json_object_new_object();
	char p[PATH_MAX];
	DIR *d;
	struct dirent *de;

	for (size_t k = 0; files[k]; k++) {
		char key[64];
		snprintf(p, sizeof(p), "%s/class/block/%s/md/%s", sysroot, name, files[k]);
		snprintf(key, sizeof(key), "%s", files[k]);
		for (char *s = key; *s; s++)
			if (*s == '/')
				*s = '_';
		add_file(o, key, p);
	}
	snprintf(p, sizeof(p), "%s/class/block/%s/md", sysroot, name);
	d = opendir(p);
	while (d && (de = readdir(d))) {
		char sp[PATH_MAX + 300];
		if (strncmp(de->d_name, "dev-", 4) != 0)
			continue;
		snprintf(sp, sizeof(sp), "%s/%s/state", p, de->d_name);
		add_file(mem, de->d_name + 4, sp);
	}
	if (d)
		closedir(d);
	json_object_object_add(o, "members", mem);
	json_object_object_add(into, name, o);
}

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The rows of md's capture: each array's attributes as "mdN.level", its
 * members' states sorted into one "mdN.member_states" (member names change
 * between variants; their states do not). */
static void md_rows(json_object *rows, const struct sb_capture *c, json_object *captured)
{
	int i = 0;
	char key[128];

	if (!captured || !json_object_is_type(captured, json_type_object))
		return;
	json_object_object_foreach(captured, name, md)
	{
		(void)name;
		if (!md || !json_object_is_type(md, json_type_object))
			continue;
		json_object_object_foreach(md, k, val)
		{
			if (strcmp(k, "members") != 0) {
				snprintf(key, sizeof(key), "%s%d.%s", c->key, i, k);
				sb_capture_row(rows, key, val);
				continue;
			}
			if (!val || !json_object_is_type(val, json_type_object))
				continue;
			const char *st[64] = {0};
			size_t n = 0, len = 1;
			json_object_object_foreach(val, mk, ms)
			{
				(void)mk;
				const char *s = ms ? json_object_get_string(ms) : NULL;
				if (s && n < ARRAY_SIZE(st)) {
					st[n++] = s;
					len += strlen(s) + 1;
				}
			}
			qsort(st, n, sizeof(*st), cmp_strp);
			char *all = calloc(1, len);
			for (size_t j = 0, o = 0; all && j < n; j++)
				o +=
				    (size_t)snprintf(all + o, len - o, "%s%s", j ? " " : "", st[j]);
			snprintf(key, sizeof(key), "%s%d.member_states", c->key, i);
			if (all)
				json_object_object_add(rows, key, json_object_new_string(all));
			free(all);
		}
		i++;
	}
}

/* A member taken out (or rebuilt) changes the array's state, as md's keys do. */
static const char *const md_follows[] = {"scenario.degrade", "scenario.rebuild", "md*", NULL};

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
    .keytab = &sb_keytab_md,
    .takes = md_takes,
    .redundancy = md_redundancy,
    .plan = md_plan,
    .capture =
	&(const struct sb_capture){
	    .key = "md", .type = "md", .fn = md_capture, .rows = md_rows, .follows = md_follows},
};
