/* mkfs: ext2/3/4 (-F), xfs (-f), btrfs (-f, see btrfs.c), extra options as
 * words. An external log device (fs.log) is one more device this step
 * writes: xfs gets -l logdev=, ext3/4 a journal device made first
 * (-O journal_dev) under a UUID chosen before the begin record, then
 * -J device=UUID=, so that mke2fs finds the journal by what it is and not
 * by a name. The new file system's UUIDs (libblkid) are journaled; undo
 * erases the signatures with libblkid only where those UUIDs are still
 * found. */
#include "stack/answers.h"
#include "stack/fs-int.h"
#include "stack/layers.h"
#include "stack/plan.h"
#include "util/freetext.h"
#include "util/parse.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/spawn.h"
#include "util/toolmsg.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* xfs's largest log (XFS_MAX_LOG_BYTES: 2 GiB less 10 MiB): mkfs.xfs
 * makes an external log as large as its device and refuses a device
 * larger than this, so a bigger one gets a log of this size. */
#define XFS_MAX_LOG_BYTES ((2048ull - 10) << 20)

#define A struct sb_mkfs_args
static const struct sb_field fields[] = {
    SB_FIELD(A, type, SB_FT_STR, SB_FF_REQUIRED),
    SB_FIELD(A, devs, SB_FT_DEVV, SB_FF_REQUIRED | SB_FF_WRITES | SB_FF_IDENT),
    SB_FIELD(A, opts, SB_FT_STRV, 0),
    SB_FIELD(A, data, SB_FT_STR, SB_FF_OPTIONAL),
    SB_FIELD(A, metadata, SB_FT_STR, SB_FF_OPTIONAL),
    SB_FIELD(A, log, SB_FT_DEV, SB_FF_WRITES | SB_FF_IDENT),
    SB_FIELD(A, log_uuid, SB_FT_STR, SB_FF_OPTIONAL),
    SB_FIELD(A, log_size, SB_FT_U64, 0),
};
#undef A

static const struct sb_prog progs[] = {{"mkfs.ext2", "e2fsprogs"},
				       {"mkfs.ext3", "e2fsprogs"},
				       {"mkfs.ext4", "e2fsprogs"},
				       {"mkfs.xfs", "xfsprogs"},
				       {"mkfs.btrfs", "btrfs-progs"},
				       {"btrfs", "btrfs-progs"},
				       {NULL, NULL}};

static const struct sb_prog *programs(const void *args)
{
	const struct sb_mkfs_args *a = args;
	static struct sb_prog one[2];
	for (const struct sb_prog *p = progs; p->prog; p++)
		if (strncmp(p->prog, "mkfs.", 5) == 0 && strcmp(p->prog + 5, a->type) == 0) {
			one[0] = *p;
			return one;
		}
	return NULL;
}

static bool is_btrfs(const struct sb_mkfs_args *a)
{
	return strcmp(a->type, "btrfs") == 0;
}

static bool is_xfs(const struct sb_mkfs_args *a)
{
	return strcmp(a->type, "xfs") == 0;
}

/* ext: the journal device's UUID, or a placeholder in a dry run (prepare
 * chooses it in a real one). */
static const char *log_uuid(const struct sb_mkfs_args *a)
{
	return a->log_uuid ? a->log_uuid : "${log_uuid}";
}

/* The block size the profile's words give mke2fs ("-b 1024", "-b1024"), or
 * NULL. */
static const char *ext_block_size(const struct sb_mkfs_args *a)
{
	const char *bs = NULL;
	for (size_t i = 0; i < a->opts.n; i++) {
		if (strcmp(a->opts.v[i], "-b") == 0 && i + 1 < a->opts.n)
			bs = a->opts.v[++i];
		else if (strncmp(a->opts.v[i], "-b", 2) == 0 && a->opts.v[i][2])
			bs = a->opts.v[i] + 2;
	}
	return bs;
}

/* ext with fs.log: the journal device. The file system then takes the
 * journal's block size, so it gets the profile's (or 4096, as on any disk
 * but a small one: mke2fs would give a small journal device 1024). */
static void journal_argv(const struct sb_mkfs_args *a, struct sb_vec *v)
{
	const char *bs = ext_block_size(a);
	sb_vec_addf(v, "mkfs.%s", a->type);
	sb_vec_add(v, "-F");
	sb_vec_add(v, "-q");
	sb_vec_add(v, "-O");
	sb_vec_add(v, "journal_dev");
	sb_vec_add(v, "-b");
	sb_vec_add(v, bs ? bs : "4096");
	sb_vec_add(v, "-U");
	sb_vec_add(v, log_uuid(a));
	sb_vec_add(v, a->log);
}

static void mkfs_argv(const struct sb_mkfs_args *a, struct sb_vec *v)
{
	if (is_btrfs(a)) {
		sb_btrfs_mkfs_argv(a, v);
		return;
	}
	sb_vec_addf(v, "mkfs.%s", a->type);
	sb_vec_add(v, is_xfs(a) ? "-f" : "-F");
	if (!is_xfs(a))
		sb_vec_add(v, "-q");
	if (a->log && is_xfs(a)) {
		sb_vec_add(v, "-l");
		if (a->log_size)
			sb_vec_addf(v, "logdev=%s,size=%llub", a->log,
				    (unsigned long long)a->log_size);
		else
			sb_vec_addf(v, "logdev=%s", a->log);
	} else if (a->log) {
		sb_vec_add(v, "-J");
		sb_vec_addf(v, "device=UUID=%s", log_uuid(a));
	}
	for (size_t i = 0; i < a->opts.n; i++)
		sb_vec_add(v, a->opts.v[i]);
	/* Other file systems live on the first device only. */
	sb_vec_add(v, a->devs.v[0]);
}

static int describe(const void *args, char **what, char **undo)
{
	const struct sb_mkfs_args *a = args;
	struct sb_vec v = {0}, u = {0};
	_cleanup_free_ char *journal = NULL, *fs = NULL;
	if (a->log && !is_xfs(a)) {
		journal_argv(a, &v);
		journal = sb_vec_format(&v);
		sb_vec_free(&v);
	}
	mkfs_argv(a, &v);
	fs = sb_vec_format(&v);
	sb_vec_free(&v);
	if (journal && fs) {
		if (asprintf(what, "%s; %s", journal, fs) < 0)
			*what = NULL;
	} else {
		*what = TAKE_PTR(fs);
	}
	sb_vec_add(&u, "wipefs");
	sb_vec_add(&u, "-a");
	for (size_t i = 0; i < a->devs.n; i++)
		sb_vec_add(&u, a->devs.v[i]);
	if (a->log)
		sb_vec_add(&u, a->log);
	*undo = sb_vec_format(&u);
	sb_vec_free(&u);
	return *what && *undo ? 0 : -ENOMEM;
}

/* Does a profile word already give the xfs log a size ("-l size=64m")? */
static bool xfs_log_sized(const struct sb_mkfs_args *a)
{
	for (size_t i = 0; i < a->opts.n; i++) {
		const char *w = a->opts.v[i], *g = NULL;
		if (!w)
			continue;
		if (strcmp(w, "-l") == 0 && i + 1 < a->opts.n)
			g = a->opts.v[i + 1];
		else if (strncmp(w, "-l", 2) == 0)
			g = w + 2;
		if (g && (strncmp(g, "size=", 5) == 0 || strstr(g, ",size=")))
			return true;
	}
	return false;
}

/* xfs: a log device larger than xfs's largest log gets a log of that size
 * (unless the profile sized it). */
static int prepare_xfs(struct sb_mkfs_args *a, struct sb_exec *x)
{
	_cleanup_close_ int fd = -1;
	uint64_t bytes = 0;
	if (xfs_log_sized(a))
		return 0;
	fd = open(a->log, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &bytes) < 0)
		return sb_exec_fail(x, negerrno(), "%s: cannot read its size: %s", a->log,
				    strerror(errno));
	if (bytes > XFS_MAX_LOG_BYTES)
		a->log_size = XFS_MAX_LOG_BYTES;
	return 0;
}

/* The log's parameters are settled before the begin record: for ext the
 * journal device's UUID, so that the record already names it (undo can
 * tell our journal device from another even when the step never
 * finished); for xfs its size. */
static int prepare(void *args, struct sb_exec *x)
{
	struct sb_mkfs_args *a = args;
	char uuid[64];
	int r;
	if (a->log && is_xfs(a))
		return prepare_xfs(a, x);
	if (!a->log || a->log_uuid)
		return 0;
	r = sb_sys_read("/proc/sys/kernel/random/uuid", uuid, sizeof(uuid));
	if (r < 0)
		return sb_exec_fail(x, r, "cannot make a UUID for the journal device: %s",
				    strerror(-r));
	uuid[strcspn(uuid, " \n")] = '\0';
	a->log_uuid = strdup(uuid);
	return a->log_uuid ? 0 : -ENOMEM;
}

/* mkfs's reason often takes several lines (mkfs.xfs on a small device
 * names the value it rejects last and the 300 MB minimum before it), so
 * its whole stderr, bounded and escaped, goes into the error; the run log
 * gets all of its output. The time limit and the stop flag are the
 * steps' defaults (sb_spawn_defaults). */
static int mkfs_cmd(struct sb_exec *x, const char *const *argv)
{
	_cleanup_free_ char *txt = sb_argv_format(argv), *why = NULL;
	struct sb_child c = {.argv = argv, .capture = true, .log_fd = x->log_fd};
	int r;

	sb_exec_log(x, "$ %s\n", txt ? txt : argv[0]);
	sb_verbose("run: %s", txt ? txt : argv[0]);
	r = sb_spawn_run(&c);
	if (r == -ENOENT)
		r = sb_exec_fail(x, r, "%s: not found (install the Debian package %s)", argv[0],
				 sb_program_package(argv[0]) ? sb_program_package(argv[0]) : "?");
	else if (r < 0)
		r = sb_exec_fail(x, r, "%s: cannot start: %s", argv[0], strerror(-r));
	else if (c.timed_out || c.stopped)
		r = sb_exec_fail(x, c.stopped ? -EINTR : -ETIMEDOUT, "%s: %s", txt ? txt : argv[0],
				 c.stopped ? "stopped (interrupted)" : "time limit reached");
	else if (c.status != 0) {
		why = c.err_len ? sb_tool_msg(c.err, c.err_len, SB_TOOL_MSG_MAX, "    ")
				: sb_tool_msg(c.out, c.out_len, SB_TOOL_MSG_MAX, "    ");
		r = sb_exec_fail(x, -EIO, "%s exited with status %d%s%s", txt ? txt : argv[0],
				 c.status, why && *why ? ":\n    " : "", why ? why : "");
	}
	sb_child_release(&c);
	return r;
}

/* The dry run: mkfs's own check of the words, at the size of the files. */
/* The key of a dry run's answer: its argv with each scratch file named by
 * its size (what the answer depends on; the files' names do not). */
static char *dry_run_key(const struct sb_vec *v, const char *const *files, size_t n)
{
	const char *words[128];
	char sizes[16][32];
	struct stat st;
	size_t k = 0;

	if (v->n < 1 || v->n > ARRAY_SIZE(words) || n > ARRAY_SIZE(sizes))
		return NULL;
	for (size_t i = 1; i < v->n; i++) {
		words[k] = v->v[i];
		for (size_t f = 0; f < n; f++)
			if (strcmp(v->v[i], files[f]) == 0) {
				if (stat(files[f], &st) < 0)
					return NULL;
				snprintf(sizes[f], sizeof(sizes[f]), "<file of %lld bytes>",
					 (long long)st.st_size);
				words[k] = sizes[f];
			}
		k++;
	}
	return sb_answer_key(v->v[0], words, k);
}

int sb_mkfs_dry_run(const struct sb_mkfs_args *a, const char *const *files, size_t n,
		    volatile sig_atomic_t *stop, char **msg, bool *kept)
{
	struct sb_mkfs_args t = *a;
	struct sb_vec v = {0};
	struct sb_list devs = {.v = (char **)files, .n = n};
	/* Ctrl-C during the check ends it (and the run) at once. */
	struct sb_child c = {.capture = true, .log_fd = -1, .timeout_ms = 120 * 1000, .stop = stop};
	int r;

	*msg = NULL;
	if (!n)
		return -EINVAL;
	/* The external log is a device of the run's, not the profile's words. */
	t.devs = devs;
	t.log = NULL;
	t.log_size = 0;
	mkfs_argv(&t, &v);
	/* mkfs.xfs -N and mke2fs -n compute everything and write nothing;
	 * mkfs.btrfs has no such mode and writes the scratch files. */
	if (is_xfs(a) || !is_btrfs(a)) {
		char **nv = realloc(v.v, (v.n + 2) * sizeof(*nv));
		if (!nv) {
			sb_vec_free(&v);
			return -ENOMEM;
		}
		v.v = nv;
		memmove(v.v + 2, v.v + 1, v.n * sizeof(*v.v));
		v.v[1] = strdup(is_xfs(a) ? "-N" : "-n");
		v.n++;
	}
	c.argv = (const char *const *)v.v;
	_cleanup_free_ char *key = dry_run_key(&v, files, n), *ans = sb_answer_get(key);
	if (ans && strcmp(ans, "accepted") == 0) {
		sb_vec_free(&v);
		if (kept)
			*kept = true;
		return 0;
	}
	r = sb_spawn_run(&c);
	if (r == 0 && !c.stopped && !c.timed_out && c.status == 0)
		sb_answer_put(key, "accepted");
	if (r < 0) {
		if (asprintf(msg, "%s: %s", v.v[0], r == -ENOENT ? "not found" : strerror(-r)) < 0)
			*msg = NULL;
	} else if (c.stopped) {
		r = -EINTR;
	} else if (c.timed_out || c.status != 0) {
		*msg = c.timed_out ? strdup("time limit reached")
		       : c.err_len ? sb_tool_msg(c.err, c.err_len, SB_TOOL_MSG_MAX, "    ")
				   : sb_tool_msg(c.out, c.out_len, SB_TOOL_MSG_MAX, "    ");
		r = c.timed_out ? -ETIMEDOUT : -EINVAL;
		/* mkfs.btrfs first asks whether the file backs a mounted loop
		 * device, and without root it cannot look at one whose backing
		 * file lies in a directory it may not enter (any run's images):
		 * that says nothing about the words. */
		if (r == -EINVAL && is_btrfs(a) && *msg &&
		    strstr(*msg, "cannot check mount status"))
			r = -EACCES;
	}
	sb_child_release(&c);
	sb_vec_free(&v);
	return r;
}

static int run(void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_mkfs_args *a = args;
	struct sb_vec v = {0};
	char uuid[128];
	int r;
	if (a->log && !is_xfs(a)) {
		journal_argv(a, &v);
		r = mkfs_cmd(x, (const char *const *)v.v);
		sb_vec_free(&v);
		if (r < 0)
			return r;
	}
	mkfs_argv(a, &v);
	r = mkfs_cmd(x, (const char *const *)v.v);
	sb_vec_free(&v);
	if (r < 0)
		return r;
	if (sb_blkid_value(a->devs.v[0], "UUID", uuid, sizeof(uuid)) == 0)
		json_object_object_add(result, "uuid", json_object_new_string(uuid));
	if (a->log && sb_blkid_value(a->log, "UUID", uuid, sizeof(uuid)) == 0)
		json_object_object_add(result, "log_uuid", json_object_new_string(uuid));
	return 0;
}

/* Each device carries our file system (its UUID), or none at all. */
static int check(const void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_mkfs_args *a = args;
	const char *want = sb_json_str(result, "uuid");
	const char *lwant = a->log_uuid ? a->log_uuid : sb_json_str(result, "log_uuid");
	char cur[128];
	size_t n = is_btrfs(a) ? a->devs.n : 1;
	/* The journal device carries the UUID we gave it, or no UUID (an xfs
	 * log has none; a wiped one neither). */
	if (a->log && lwant && sb_blkid_value(a->log, "UUID", cur, sizeof(cur)) == 0 &&
	    strcasecmp(cur, lwant) != 0)
		return sb_exec_fail(x, -ESTALE,
				    "%s: not ours: journal device UUID %s != journaled %s", a->log,
				    cur, lwant);
	if (!want)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (sb_blkid_value(a->devs.v[i], "UUID", cur, sizeof(cur)) < 0)
			continue;
		if (strcasecmp(cur, want) != 0)
			return sb_exec_fail(x, -ESTALE,
					    "%s: not ours: file system UUID %s != journaled %s",
					    a->devs.v[i], cur, want);
	}
	return 0;
}

static int undo(const void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_mkfs_args *a = args;
	for (size_t i = 0; i <= a->devs.n; i++) {
		const char *d = i < a->devs.n ? a->devs.v[i] : a->log;
		struct stat st;
		int r;
		if (!d || strstr(d, "${") || stat(d, &st) < 0 || !S_ISBLK(st.st_mode))
			continue;
		r = sb_wipe_signatures(d);
		if (r < 0)
			return sb_exec_fail(x, r, "%s: cannot wipe: %s", d, strerror(-r));
		if (r > 0)
			sb_exec_log(x, "%s: %d signature(s) wiped\n", d, r);
		if (is_btrfs(a) && i < a->devs.n)
			sb_btrfs_forget(d);
	}
	return 0;
}

/* ---- [fs]: keys, rules, plan ---- */

const char *const sb_fs_names[SB_FS_N] = {
    [SB_FS_EXT2] = "ext2", [SB_FS_EXT3] = "ext3",   [SB_FS_EXT4] = "ext4",
    [SB_FS_XFS] = "xfs",   [SB_FS_BTRFS] = "btrfs",
};

struct fs_cfg {
	const char *type, *mkfs;
	const char *data, *metadata; /* btrfs profiles or NULL */
	const char *devices;	     /* "all" or a number */
	struct sb_sel on;	     /* without a layer below taking units: the units it goes on */
	int log;		     /* role of the external log device, or -1 */
};

enum { FS_TYPE, FS_MKFS, FS_DATA, FS_METADATA, FS_DEVICES, FS_ON, FS_LOG, FS_KEY_N };

#define BTRFS_PROFILES "single|dup|raid0|raid1|raid1c3|raid1c4|raid10|raid5|raid6"
#define C struct fs_cfg
static const struct sb_key keys[FS_KEY_N] = {
    [FS_TYPE] = SB_KEY(C, type, "type", SB_KT_CHOICE, "ext2|ext3|ext4|xfs|btrfs", 0, 0, NULL, 0,
		       "file system (required)"),
    [FS_MKFS] = SB_KEY(C, mkfs, "mkfs", SB_KT_WORDS, NULL, 0, 0, NULL, 0,
		       "extra mkfs options, split on blanks ('-n 4k', '-i size=512')"),
    [FS_DATA] = SB_KEY(C, data, "data", SB_KT_CHOICE, BTRFS_PROFILES, 0, 0, NULL, 0,
		       "btrfs: data profile (-d)"),
    [FS_METADATA] = SB_KEY(C, metadata, "metadata", SB_KT_CHOICE, BTRFS_PROFILES, 0, 0, NULL, 0,
			   "btrfs: metadata profile (-m)"),
    [FS_DEVICES] = SB_KEY(C, devices, "devices", SB_KT_STRING, NULL, 0, 0, "all", 0,
			  "btrfs: 'all' devices below, or a number; other file systems use "
			  "the first"),
    [FS_ON] = SB_KEY(C, on, "on", SB_KT_MEMBERS, NULL, 0, 0, "all", 0,
		     "without md or LVM: the devices or partitions the file system goes on "
		     "('ssd.p1', 'ssd.p1, ssd.p2'); the others are left untouched"),
    [FS_LOG] = SB_KEY(C, log, "log", SB_KT_ROLE, NULL, 0, 0, "none", 0,
		      "xfs, ext3, ext4: an external log (journal) on the one device of this role, "
		      "which the data stack must not use ('ssd'), or none"),
};
#undef C

static enum sb_fs_type fs_type(const struct fs_cfg *f)
{
	for (int t = 0; f->type && t < SB_FS_N; t++)
		if (strcmp(sb_fs_names[t], f->type) == 0)
			return (enum sb_fs_type)t;
	return SB_FS_N;
}

/* A btrfs profile's fewest devices, and how many of them may go with
 * every block still there (single, dup: one device, none). */
static const struct {
	const char *name;
	unsigned min, may_fail;
} btrfs_profiles[] = {{"raid0", 2, 0},	{"raid1", 2, 1}, {"raid1c3", 3, 2}, {"raid1c4", 4, 3},
		      {"raid10", 2, 1}, {"raid5", 2, 1}, {"raid6", 3, 2}};

static int btrfs_profile(const char *prof)
{
	for (size_t i = 0; prof && i < ARRAY_SIZE(btrfs_profiles); i++)
		if (strcmp(prof, btrfs_profiles[i].name) == 0)
			return (int)i;
	return -1;
}

static unsigned btrfs_min_devices(const char *prof)
{
	int i = btrfs_profile(prof);
	return i < 0 ? 1 : btrfs_profiles[i].min;
}

static unsigned btrfs_may_fail(const char *prof)
{
	int i = btrfs_profile(prof);
	return i < 0 ? 0 : btrfs_profiles[i].may_fail;
}

/* fs.devices against the units below, and the btrfs-only keys. */
static int fs_check_devices(struct sb_vctx *v, const struct fs_cfg *f, unsigned units, int base)
{
	const struct sb_config *c = sb_vctx_config(v);
	bool btrfs = fs_type(f) == SB_FS_BTRFS;
	unsigned fsdev = units;

	if (strcmp(f->devices, "all") != 0) {
		uint64_t n;
		if (sb_parse_uint(f->devices, 0, UINT64_MAX, &n) < 0 || n == 0)
			return sb_verr(v, base + FS_DEVICES,
				       "fs.devices: expected 'all' or a number, got '%s'",
				       f->devices);
		if (n > units)
			return sb_verr(v, base + FS_DEVICES,
				       "fs.devices: %llu devices but the layer below gives %u",
				       (unsigned long long)n, units);
		fsdev = (unsigned)n;
	}
	/* With the type varied in the matrix, btrfs-only keys apply to its
	 * btrfs variants and are simply not used by the others. */
	if (!btrfs && !sb_vctx_varies(v, base + FS_TYPE)) {
		if (c->val[base + FS_DATA])
			return sb_verr(v, base + FS_DATA, "fs.data: only btrfs has data profiles");
		if (c->val[base + FS_METADATA])
			return sb_verr(v, base + FS_METADATA,
				       "fs.metadata: only btrfs has metadata profiles");
	} else if (btrfs) {
		static const int prof[] = {FS_DATA, FS_METADATA};
		for (size_t i = 0; i < ARRAY_SIZE(prof); i++) {
			const char *pv = c->val[base + prof[i]];
			if (btrfs_min_devices(pv) > fsdev)
				return sb_verr(v, base + prof[i],
					       "fs.%s: %s needs at least %u devices, the stack "
					       "gives %u",
					       keys[prof[i]].name, pv, btrfs_min_devices(pv),
					       fsdev);
		}
	}
	return 0;
}

/* fs.log: one whole device of its own, for a file system that can keep its
 * log elsewhere. The device is a slot like the others (matched, probed,
 * confirmed, locked); what must not happen is that the data stack takes it
 * too, since mkfs would then write both over the same blocks. */
static int fs_check_log(struct sb_vctx *v, const struct fs_cfg *f, const struct sb_vstate *st,
			int base)
{
	const struct sb_config *c = sb_vctx_config(v);
	int lr = f->log, sk = st->taker;
	const char *name;
	struct sb_sel s;
	char *why = NULL;
	bool taken;

	if (lr < 0)
		return 0;
	name = sb_role_names[lr];
	if (fs_type(f) == SB_FS_BTRFS)
		return sb_verr(v, base + FS_LOG,
			       "fs.log: btrfs has no external log (its metadata lives on its own "
			       "devices): use xfs, ext3 or ext4, or leave fs.log out");
	if (fs_type(f) == SB_FS_EXT2)
		return sb_verr(v, base + FS_LOG, "fs.log: ext2 has no journal: use ext3 or ext4");
	if (sb_cfg_role_count(c, (enum sb_role)lr) == 0)
		return sb_verr(v, base + FS_LOG, "fs.log: no %s device in [devices]", name);
	if (sb_cfg_role_count(c, (enum sb_role)lr) > 1)
		return sb_verr(v, base + FS_LOG,
			       "fs.log: the log takes exactly one device, [devices] has %u %s "
			       "devices: give the log a role of its own",
			       sb_cfg_role_count(c, (enum sb_role)lr), name);
	if (st->parted & (1u << lr))
		return sb_verr(v, base + FS_LOG,
			       "fs.log: the %s device is partitioned (partition.on = %s) but the "
			       "log takes a whole device: leave %s out of partition.on",
			       name, sb_part_on_text(c), name);
	if (sb_loop_emulates(c) && lr == SB_ROLE_ANY)
		return sb_verr(v, base + FS_LOG,
			       "fs.log: 'any' devices are emulated arrays with --loop "
			       "(devices.loop.emulate): give the log another role");
	/* The layer that takes the data devices. */
	if (sk < 0 || sb_sel_parse(sb_cfg_str(c, sk), &s, &why) < 0) {
		free(why);
		return 0; /* said by the layer's own check */
	}
	taken = s.all;
	for (size_t i = 0; i < s.n; i++)
		taken |= s.item[i].role == (enum sb_role)lr;
	if (taken)
		return sb_verr(
		    v, base + FS_LOG,
		    "fs.log: the %s device would also be in the data stack (%s.%s = %s): "
		    "the log device must be the file system's log alone; name the data "
		    "devices in %s.%s",
		    name, sb_sec_names[sb_keys[sk].sec], sb_keys[sk].name, sb_cfg_str(c, sk),
		    sb_sec_names[sb_keys[sk].sec], sb_keys[sk].name);
	return 0;
}

static int fs_validate(struct sb_vctx *v, const void *cfg, struct sb_vstate *st)
{
	const struct fs_cfg *f = cfg;
	int base = sb_keytab_base(&sb_keytab_fs), r;

	/* No layer below took the devices: fs.on picks them. */
	if (st->taker < 0 && (r = sb_vselect(v, base + FS_ON, st)) < 0)
		return r;
	if (!f->type)
		return sb_verr(v, -1, "[fs]: type is required (ext2, ext3, ext4, xfs or btrfs)");
	if ((r = fs_check_devices(v, f, st->units, base)) < 0)
		return r;
	return fs_check_log(v, f, st, base);
}

const struct sb_keytab sb_keytab_fs = {
    .section = "fs",
    .keys = keys,
    .n = FS_KEY_N,
    .cfg_size = sizeof(struct fs_cfg),
    .validate = fs_validate,
};

const char *sb_fs_type_name(const struct sb_config *c)
{
	return sb_cfg_str(c, sb_keytab_base(&sb_keytab_fs) + FS_TYPE);
}

int sb_fs_log_role(const struct sb_config *c)
{
	struct fs_cfg f = {0};
	sb_keytab_fill(&sb_keytab_fs, c, &f);
	return f.log;
}

int sb_fs_key(enum sb_fs_keyname k)
{
	static const int id[] = {[SB_FS_KEY_MKFS] = FS_MKFS, [SB_FS_KEY_LOG] = FS_LOG};
	return sb_keytab_base(&sb_keytab_fs) + id[k];
}

static const struct sb_sel *fs_takes(const void *cfg)
{
	return &((const struct fs_cfg *)cfg)->on;
}

static int fs_aside(const void *cfg)
{
	return ((const struct fs_cfg *)cfg)->log;
}

/* btrfs RAID: as many devices may go as both profiles keep copies for. */
static int fs_redundancy(const void *cfg, struct sb_redundancy *out)
{
	const struct fs_cfg *f = cfg;
	unsigned d, m;

	if (fs_type(f) != SB_FS_BTRFS)
		return -1;
	d = btrfs_may_fail(f->data);
	m = btrfs_may_fail(f->metadata);
	*out = (struct sb_redundancy){
	    .may_fail = d < m ? d : m,
	    .why = "btrfs keeps one copy of some blocks here (fs.data and fs.metadata must both "
		   "be raid1, raid1c3, raid1c4, raid10, raid5 or raid6)",
	    .kind = "btrfs",
	    .max_units = f->devices && strcmp(f->devices, "all") != 0
			     ? (unsigned)strtoul(f->devices, NULL, 10)
			     : 0,
	    .after = SB_STEP_MOUNT};
	return 0;
}

/* The profile's mkfs words, checked against this file system's own mkfs
 * (an option that takes a host path means another thing to each: -d, -r),
 * with what the run needs added: ext4 initialised up front, no discard
 * after a precondition or on images kept from round to round. */
static int fs_words(const struct fs_cfg *f, struct sb_pctx *b, struct sb_list *w)
{
	enum sb_fs_type t = fs_type(f);
	char *why = NULL;

	sb_fs_split_words(f->mkfs, w);
	if (sb_ft_check_words(sb_ft_mkfs_tool(f->type), (const char *const *)w->v, w->n, NULL,
			      &why) < 0) {
		int r = sb_plan_fail(b, -EINVAL, "fs.mkfs: %s", why ? why : "refused");
		free(why);
		return r;
	}
	if (t == SB_FS_EXT4)
		sb_ext4_no_lazy_init(w);
	return b->preconditioned || b->in->keep_images ? sb_mkfs_no_discard(t, w, b) : 0;
}

/* btrfs over all (or N) units, other file systems on the first; without a
 * layer below taking units, fs.on picks them (ssd.p1: one partition). */
static int fs_plan(const void *cfg, struct sb_pctx *b)
{
	const struct fs_cfg *f = cfg;
	enum sb_fs_type t = fs_type(f);
	struct sb_list words = {0};
	size_t nfs;
	int r;

	if (!b->taken && !f->on.all) {
		size_t k = 0;
		for (size_t i = 0; i < b->n_u; i++)
			if (sb_sel_match(&f->on, b->u[i].role, b->u[i].part))
				b->u[k++] = b->u[i];
		b->n_u = k;
	}
	if (t == SB_FS_N)
		return sb_plan_fail(b, -EINVAL, "fs.type: '%s' is not a known file system",
				    f->type ? f->type : "");
	if ((r = fs_words(f, b, &words)) < 0) {
		sb_list_free(&words);
		return r;
	}
	nfs = t != SB_FS_BTRFS		       ? 1
	      : strcmp(f->devices, "all") == 0 ? b->n_u
					       : strtoul(f->devices, NULL, 10);
	if (nfs > b->n_u)
		nfs = b->n_u;
	struct sb_mkfs_args *a = sb_plan_add_step(b, SB_STEP_MKFS);
	a->type = sb_plan_fmt("%s", sb_fs_names[t]);
	if (t == SB_FS_BTRFS && f->data)
		a->data = sb_plan_fmt("%s", f->data);
	if (t == SB_FS_BTRFS && f->metadata)
		a->metadata = sb_plan_fmt("%s", f->metadata);
	for (size_t i = 0; i < nfs; i++)
		sb_plan_addv(&a->devs, b->u[i].var);
	a->opts = words;
	if (*b->aside)
		a->log = sb_plan_fmt("${%s}", b->aside);
	b->n_u = nfs;
	return 0;
}

const struct sb_layer sb_layer_mkfs = {
    .kind = "mkfs",
    .args_size = sizeof(struct sb_mkfs_args),
    .fields = fields,
    .n_fields = ARRAY_SIZE(fields),
    .progs = progs,
    .programs = programs,
    .prepare = prepare,
    .describe = describe,
    .run = run,
    .check = check,
    .undo = undo,
    .keytab = &sb_keytab_fs,
    .takes = fs_takes,
    .aside = fs_aside,
    .redundancy = fs_redundancy,
    .plan = fs_plan,
    .capture = &sb_fs_capture,
};
