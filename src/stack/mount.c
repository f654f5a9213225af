/* Mounting through libmount at a per-run mount point under the state
 * directory; a multi-device btrfs gets device= for each member, so that
 * the kernel assembles it from ours and not from a stale copy it scanned
 * elsewhere; an xfs with an external log gets logdev= (the kernel claims
 * that device too, so the executor proves it unheld first). Undo unmounts
 * (retrying while the kernel is still busy) and removes the mount point,
 * which must lie in the run directory. */
#include "stack/capture.h"
#include "stack/layers.h"
#include "stack/plan.h"
#include "stack/state.h"
#include "util/macro.h"

/* The kernel's "no such parameter" never reaches user space (ENOPARAM is
 * internal); an unknown option comes back as EINVAL. */
#define ENOPARAM_SB 519

#include <dirent.h>
#include <libmount.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define A struct sb_mount_args
static const struct sb_field fields[] = {
    SB_FIELD(A, devs, SB_FT_DEVV, SB_FF_REQUIRED | SB_FF_WRITES),
    SB_FIELD(A, dir, SB_FT_PATH, SB_FF_REQUIRED),
    SB_FIELD(A, type, SB_FT_STR, SB_FF_REQUIRED),
    SB_FIELD(A, options, SB_FT_STR, SB_FF_OPTIONAL),
    SB_FIELD(A, log, SB_FT_DEV, SB_FF_WRITES),
};
#undef A

/* The profile's options, with device= for each member of a btrfs over
 * several devices in front, or xfs's logdev= for its external log (ext
 * finds its journal device by the number mke2fs wrote in the superblock).
 * NULL when there are none. */
static char *options(const struct sb_mount_args *a)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f;
	bool devs = strcmp(a->type, "btrfs") == 0 && a->devs.n > 1;
	bool logdev = a->log && strcmp(a->type, "xfs") == 0;
	if (!devs && !logdev && !a->options)
		return NULL;
	f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	for (size_t i = 0; devs && i < a->devs.n; i++)
		fprintf(f, "%sdevice=%s", i ? "," : "", a->devs.v[i]);
	if (logdev)
		fprintf(f, "logdev=%s", a->log);
	if (a->options)
		fprintf(f, "%s%s", devs || logdev ? "," : "", a->options);
	fclose(f);
	return out;
}

/* The last error the kernel logged into a file-system context ("e xfs:
 * Unknown parameter 'relatme'" -> "xfs: Unknown parameter 'relatme'"). */
static char *fs_context_message(int fd)
{
	char buf[1024], *last = NULL;
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		if (buf[0] == 'e' && buf[1] == ' ') {
			free(last);
			last = strdup(buf + 2);
		}
	}
	return last;
}

int sb_mount_fs_options(const char *options, char **fsopts)
{
	*fsopts = NULL;
	if (!options || !*options)
		return 0;
	/* The generic ones (noatime, ro, nodev ...) are the VFS's and
	 * libmount's, never a file system's parameters. */
	if (mnt_split_optstr(options, NULL, NULL, fsopts, 0, 0) < 0)
		return -EINVAL;
	if (*fsopts && !**fsopts) {
		free(*fsopts);
		*fsopts = NULL;
	}
	return 0;
}

/* Options that name a device or path are not sent for judging: the
 * kernel acts on some while parsing (btrfs's device= scans and registers
 * the device, ext4's journal_path= looks the path up), and the devices a
 * run mounts with are its own, added by the mount step. */
static const char *const unjudged[] = {"device",      "logdev", "rtdev", "journal_path",
				       "journal_dev", "source", NULL};

static bool is_unjudged(const char *key)
{
	for (const char *const *u = unjudged; *u; u++)
		if (strcmp(*u, key) == 0)
			return true;
	return false;
}

int sb_mount_check_options(const char *fstype, const char *options, char **bad, char **why)
{
	_cleanup_free_ char *fsopts = NULL;
	_cleanup_close_ int fd = -1;
	char *p, *name, *value;
	size_t nsz, vsz;
	int r = 0;

	*bad = *why = NULL;
	if (!options || !*options)
		return 0;
	r = sb_mount_fs_options(options, &fsopts);
	if (r < 0)
		return r;
	if (!fsopts)
		return 1;
	fd = fsopen(fstype, FSOPEN_CLOEXEC);
	if (fd < 0)
		return negerrno();
	for (p = fsopts; mnt_optstr_next_option(&p, &name, &nsz, &value, &vsz) == 0;) {
		_cleanup_free_ char *k = strndup(name, nsz);
		/* A quoted value (context="a,b") goes without its quotes, as
		 * mount(2)'s option string would be parsed. */
		if (value && vsz >= 2 && value[0] == '"' && value[vsz - 1] == '"') {
			value++;
			vsz -= 2;
		}
		_cleanup_free_ char *v = value ? strndup(value, vsz) : NULL;
		if (!k || (value && !v))
			return -ENOMEM;
		if (is_unjudged(k))
			continue;
		if (v)
			r = fsconfig(fd, FSCONFIG_SET_STRING, k, v, 0);
		else
			r = fsconfig(fd, FSCONFIG_SET_FLAG, k, NULL, 0);
		if (r < 0) {
			r = negerrno();
			*why = fs_context_message(fd);
			if (!*why)
				*why = strdup(strerror(-r));
			if (v) {
				if (asprintf(bad, "%s=%s", k, v) < 0)
					*bad = NULL;
			} else {
				*bad = TAKE_PTR(k);
			}
			/* Anything but a verdict on the option is no verdict. */
			return r == -EINVAL || r == -ENOPARAM_SB ? -EINVAL : r;
		}
	}
	return 0;
}

static int describe(const void *args, char **what, char **undo)
{
	const struct sb_mount_args *a = args;
	_cleanup_free_ char *o = options(a);
	struct sb_vec v = {0};
	sb_vec_add(&v, "mount");
	sb_vec_add(&v, "-t");
	sb_vec_add(&v, a->type);
	if (o) {
		sb_vec_add(&v, "-o");
		sb_vec_add(&v, o);
	}
	sb_vec_add(&v, a->devs.v[0]);
	sb_vec_add(&v, a->dir);
	*what = sb_vec_format(&v);
	sb_vec_free(&v);
	if (!*what)
		return -ENOMEM;
	char *w;
	if (asprintf(&w, "mkdir %s; %s", a->dir, *what) >= 0) {
		free(*what);
		*what = w;
	}
	return asprintf(undo, "umount %s; rmdir %s", a->dir, a->dir) < 0 ? -ENOMEM : 0;
}

static void ctx_free(struct libmnt_context **c)
{
	if (*c)
		mnt_free_context(*c);
}

static int run(void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_mount_args *a = args;
	_cleanup_(ctx_free) struct libmnt_context *cxt = mnt_new_context();
	_cleanup_free_ char *o = options(a);
	int r;

	if (!cxt)
		return -ENOMEM;
	if (mkdir(a->dir, 0755) < 0 && errno != EEXIST)
		return sb_exec_fail(x, negerrno(), "%s: cannot create: %s", a->dir,
				    strerror(errno));
	/* Only the options the profile gives; never /etc/fstab's. */
	mnt_context_disable_helpers(cxt, 1);
	mnt_context_set_optsmode(cxt, MNT_OMODE_IGNORE);
	mnt_context_set_source(cxt, a->devs.v[0]);
	mnt_context_set_target(cxt, a->dir);
	mnt_context_set_fstype(cxt, a->type);
	if (o)
		mnt_context_set_options(cxt, o);
	r = mnt_context_mount(cxt);
	if (r != 0 || mnt_context_get_status(cxt) != 1) {
		char buf[BUFSIZ] = "";
		mnt_context_get_excode(cxt, r, buf, sizeof(buf));
		return sb_exec_fail(x, -EIO, "mount %s on %s: %s", a->devs.v[0], a->dir,
				    *buf ? buf : "failed");
	}
	sb_exec_log(x, "mounted %s on %s (%s%s%s)\n", a->devs.v[0], a->dir, a->type, o ? ", " : "",
		    o ? o : "");
	return 0;
}

static bool is_mounted(const char *dir)
{
	struct libmnt_table *tb = mnt_new_table_from_file("/proc/self/mountinfo");
	bool found = false;
	if (!tb)
		return false;
	found = mnt_table_find_target(tb, dir, MNT_ITER_BACKWARD) != NULL;
	mnt_unref_table(tb);
	return found;
}

/* Is link (a /proc/PID/{cwd,root,fd/N} target) inside dir? */
static bool under(const char *link, const char *dir, size_t dl)
{
	char t[PATH_MAX];
	ssize_t n = readlink(link, t, sizeof(t) - 1);
	if (n <= 0)
		return false;
	t[n] = '\0';
	return strncmp(t, dir, dl) == 0 && (t[dl] == '\0' || t[dl] == '/');
}

/* Was pid started by the run run_id? Its environment carries the run id
 * (SB_RUN_ENV, inherited from the run): a process another user started
 * in the mount point does not. */
static bool started_by(pid_t pid, const char *run_id)
{
	char p[64], buf[65536], want[128];
	ssize_t n, wl;
	_cleanup_close_ int fd = -1;

	snprintf(p, sizeof(p), "/proc/%d/environ", pid);
	wl = snprintf(want, sizeof(want), "%s=%s", SB_RUN_ENV, run_id ? run_id : "");
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (!run_id || fd < 0 || (n = read(fd, buf, sizeof(buf) - 1)) <= 0)
		return false;
	buf[n] = '\0';
	for (char *e = buf; e < buf + n; e += strlen(e) + 1)
		if (strncmp(e, want, (size_t)wl) == 0 && e[wl] == '\0')
			return true;
	return false;
}

/* Does pid have its cwd, root or an open file inside dir? */
static bool uses(pid_t pid, const char *dir, size_t dl)
{
	char p[300];
	bool hit;

	snprintf(p, sizeof(p), "/proc/%d/cwd", pid);
	hit = under(p, dir, dl);
	snprintf(p, sizeof(p), "/proc/%d/root", pid);
	hit |= under(p, dir, dl);
	snprintf(p, sizeof(p), "/proc/%d/fd", pid);
	DIR *fd = hit ? NULL : opendir(p);
	struct dirent *f;
	while (fd && (f = readdir(fd)) && !hit) {
		char l[600];
		snprintf(l, sizeof(l), "%s/%s", p, f->d_name);
		hit = under(l, dir, dl);
	}
	if (fd)
		closedir(fd);
	return hit;
}

/* Signals every process the run started that has its cwd, root or an open
 * file inside the mount point: a workload left running by a run that was
 * killed (kill -9 does not reach the workload, which has its own process
 * group). Others using it are never signalled: they are named in *others
 * ("pid 42 (bash)"), for the caller to stop and say who holds the mount. */
static int kill_users(const char *dir, int sig, struct sb_exec *x, char **others)
{
	const char *run_id = x->run_dir ? strrchr(x->run_dir, '/') : NULL;
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t dl = strlen(dir);
	int n = 0;

	run_id = run_id ? run_id + 1 : getenv(SB_RUN_ENV);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		pid_t pid = (pid_t)atoi(e->d_name);
		if (pid <= 0 || pid == getpid() || !uses(pid, dir, dl))
			continue;
		if (!started_by(pid, run_id)) {
			char p[64], comm[64] = "?", *s = NULL;
			snprintf(p, sizeof(p), "/proc/%d/comm", pid);
			_cleanup_fclose_ FILE *c = fopen(p, "re");
			if (c && fgets(comm, sizeof(comm), c))
				comm[strcspn(comm, "\n")] = '\0';
			if (asprintf(&s, "%s%spid %d (%s)", *others ? *others : "",
				     *others ? ", " : "", pid, comm) >= 0) {
				free(*others);
				*others = s;
			}
			continue;
		}
		if (kill(pid, sig) == 0) {
			sb_exec_log(x,
				    "%s: sent signal %d to pid %d, which the run started and which "
				    "uses it\n",
				    dir, sig, pid);
			n++;
		}
	}
	closedir(d);
	return n;
}

static int undo(const void *args, json_object *result, struct sb_exec *x)
{
	const char *dir = ((const struct sb_mount_args *)args)->dir;

	while (is_mounted(dir)) {
		int i;
		/* A workload stopped a moment ago may still hold files open; one
		 * orphaned by a killed run is stopped after a while. */
		for (i = 0; i < 100 && umount2(dir, 0) < 0; i++) {
			if (errno != EBUSY)
				return sb_exec_fail(x, negerrno(), "umount %s: %s", dir,
						    strerror(errno));
			if (i == 20 || i == 60) {
				_cleanup_free_ char *others = NULL;
				kill_users(dir, i == 20 ? SIGTERM : SIGKILL, x, &others);
				/* not ours to stop: say who, leave it mounted */
				if (others)
					return sb_exec_fail(
					    x, -EBUSY,
					    "umount %s: busy: used by %s, which this "
					    "run did not start (stop it, then run "
					    "teardown again)",
					    dir, others);
			}
			struct timespec ts = {0, 100 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
		if (i == 100)
			return sb_exec_fail(x, -EBUSY, "umount %s: still busy", dir);
		sb_exec_log(x, "unmounted %s\n", dir);
	}
	if (rmdir(dir) < 0 && errno != ENOENT)
		return sb_exec_fail(x, negerrno(), "%s: cannot remove: %s", dir, strerror(errno));
	return 0;
}

/* ---- [mount]: keys and plan ---- */

struct mount_cfg {
	const char *options; /* or NULL */
};

static const struct sb_key keys[] = {
    SB_KEY(struct mount_cfg, options, "options", SB_KT_STRING, NULL, 0, 0, NULL, 0,
	   "mount options ('noatime,logbufs=8')"),
};

const struct sb_keytab sb_keytab_mount = {
    .section = "mount",
    .keys = keys,
    .n = ARRAY_SIZE(keys),
    .cfg_size = sizeof(struct mount_cfg),
};

int sb_mount_key_options(void)
{
	return sb_keytab_base(&sb_keytab_mount);
}

/* What the step below made (mkfs): its units, type and log device are
 * what is mounted. */
static int mount_plan(const void *cfg, struct sb_pctx *b)
{
	const struct mount_cfg *m = cfg;
	const struct sb_mkfs_args *fs = NULL;

	for (size_t i = b->p->n; i-- > 0 && !fs;)
		if (b->p->steps[i].kind == SB_STEP_MKFS)
			fs = b->p->steps[i].args;
	if (!fs)
		return sb_plan_fail(b, -EINVAL, "mount: no file system below");
	struct sb_mount_args *a = sb_plan_add_step(b, SB_STEP_MOUNT);
	for (size_t i = 0; i < b->n_u; i++)
		sb_plan_addv(&a->devs, b->u[i].var);
	if (!b->n_u)
		sb_plan_addv(&a->devs, "none");
	a->dir = sb_plan_fmt("${run}/mnt");
	a->type = sb_plan_fmt("%s", fs->type);
	if (m->options)
		a->options = sb_plan_fmt("%s", m->options);
	if (fs->log)
		a->log = sb_plan_fmt("%s", fs->log);
	return 0;
}

/* ---- capture: the mount as the kernel applied it ---- */

/* The mount at dir's real path: the longest mount point above it (NULL:
 * none); tb keeps it. */
static struct libmnt_fs *mounted_at(struct libmnt_table *tb, const char *dir)
{
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_BACKWARD);
	struct libmnt_fs *fs, *best = NULL;
	char real[PATH_MAX];

	if (!it || mnt_table_parse_file(tb, "/proc/self/mountinfo") != 0)
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
out:
	mnt_free_iter(it);
	return best;
}

int sb_mount_at(const char *dir, char *fstype, size_t flen, char *source, size_t slen)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_fs *fs = tb ? mounted_at(tb, dir) : NULL;

	if (fs) {
		const char *t = mnt_fs_get_fstype(fs), *s = mnt_fs_get_srcpath(fs);
		snprintf(fstype, flen, "%s", t ? t : "");
		snprintf(source, slen, "%s", s ? s : "");
	}
	mnt_unref_table(tb);
	return fs ? 0 : -ENOENT;
}

static void put_str(json_object *o, const char *k, const char *v)
{
	if (v)
		json_object_object_add(o, k, json_object_new_string(v));
}

static void mount_capture(json_object *into, const char *dir, int log_fd)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_fs *fs = tb ? mounted_at(tb, dir) : NULL;

	(void)log_fd;
	if (fs) {
		char *all = mnt_fs_strdup_options(fs);
		put_str(into, "target", mnt_fs_get_target(fs));
		put_str(into, "source", mnt_fs_get_source(fs));
		put_str(into, "fstype", mnt_fs_get_fstype(fs));
		/* The VFS (per-mount) options and the file system's (super)
		 * options: what the kernel applied, not what was asked. */
		put_str(into, "vfs_options", mnt_fs_get_vfs_options(fs));
		put_str(into, "fs_options", mnt_fs_get_fs_options(fs));
		put_str(into, "options", all);
		free(all);
	}
	mnt_unref_table(tb);
}

/* The mount's type and each option its own row ("mount.option.ssd": "on"). */
static void mount_rows(json_object *rows, const struct sb_capture *c, json_object *m)
{
	json_object *v;
	char key[256];

	(void)c;
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
		put_str(rows, key, eq ? eq + 1 : "on");
	}
	free(opts);
}

/* Another file system comes with its own default mount options; an option
 * asked for is its own row's word, so "mount" asks for none. */
static const char *const follows[] = {"fs.type", NULL};
static const struct sb_capture capture = {.key = "mount",
					  .rows = mount_rows,
					  .mounted = mount_capture,
					  .follows = follows,
					  .no_section_word = true};

const struct sb_layer sb_layer_mount = {
    .kind = "mount",
    .args_size = sizeof(struct sb_mount_args),
    .fields = fields,
    .n_fields = ARRAY_SIZE(fields),
    .describe = describe,
    .run = run,
    .undo = undo,
    .keytab = &sb_keytab_mount,
    .plan = mount_plan,
    .capture = &capture,
};
