/* Loop devices for --loop that behave like disks: a sparse file in a
 * directory per run on a disk file system (LOOP_DIR/RUN-ID, linked from
 * the run directory as images/), never on tmpfs unless the user named that
 * directory on purpose, attached with LOOP_CONFIGURE, partition scanning
 * and direct I/O (so the host's page cache does not serve the "disk"), its
 * rotational flag set from the role (and a read-only flag or a read-ahead
 * an earlier user left on the node cleared, set back). The journal keeps
 * the backing file's st_dev/st_ino: undo detaches only loop devices backed
 * by that very file. */
#include "stack/layers.h"
#include "stack/loop-int.h"
#include "stack/plan.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/size.h"

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define A struct sb_loop_args
static const struct sb_field fields[] = {
    SB_FIELD(A, file, SB_FT_PATH, SB_FF_REQUIRED),
    SB_FIELD(A, dir, SB_FT_STR, SB_FF_REQUIRED),
    SB_FIELD(A, size, SB_FT_U64, 0),
    SB_FIELD(A, rotational, SB_FT_BOOL, 0),
    SB_FIELD(A, allow_tmpfs, SB_FT_BOOL, 0),
    SB_FIELD(A, var, SB_FT_STR, SB_FF_REQUIRED),
    SB_FIELD(A, keep, SB_FT_BOOL, 0),
};
#undef A

static void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

static int describe(const void *args, char **what, char **undo)
{
	const struct sb_loop_args *a = args;
	const char *base = strrchr(a->file, '/') ? strrchr(a->file, '/') + 1 : a->file;
	char buf[16];

	if (asprintf(what,
		     "%s %s %s/%s%s; losetup --find --show --partscan --direct-io=on "
		     "%s/%s -> ${%s}; rotational=%d",
		     a->keep ? "fallocate -l" : "truncate -s",
		     sb_format_size(a->size, buf, sizeof(buf)), a->dir, base,
		     a->keep ? " (the first round; later ones attach it again)" : "", a->dir, base,
		     a->var, a->rotational) < 0 ||
	    asprintf(undo, "losetup -d <device of %s/%s>; rm %s/%s%s", a->dir, base, a->dir, base,
		     a->keep ? " (after the last round)" : "") < 0)
		return -ENOMEM;
	return 0;
}

uint64_t sb_loop_plan_bytes(const struct sb_plan *p, char *dir, size_t len)
{
	uint64_t total = 0;

	for (size_t i = 0; i < p->n; i++) {
		const struct sb_loop_args *a = p->steps[i].args;
		if (p->steps[i].kind != SB_STEP_LOOP)
			continue;
		total += a->size;
		if (dir && len) {
			/* "LOOP_DIR/${id}", as plan.c makes it */
			const char *tail = strrchr(a->dir, '/');
			int n = tail && strcmp(tail, "/${id}") == 0 ? (int)(tail - a->dir)
								    : (int)strlen(a->dir);
			snprintf(dir, len, "%.*s", n, a->dir);
		}
	}
	return total;
}

/* The nearest existing directory at or above path. */
static int fs_of(const char *path, struct statfs *sf)
{
	_cleanup_free_ char *p = strdup(path);
	if (!p)
		return -ENOMEM;
	for (;;) {
		if (statfs(p, sf) == 0)
			return 0;
		if (errno != ENOENT || strcmp(p, "/") == 0)
			return negerrno();
		char *s = strrchr(p, '/');
		if (s == p)
			s[1] = '\0';
		else
			*s = '\0';
	}
}

/* A loop directory in RAM measures memory, not a disk: refused before
 * anything is written, unless the user chose it with --loop-dir. */
static int prepare(void *args, struct sb_exec *x)
{
	struct sb_loop_args *a = args;
	_cleanup_free_ char *parent = strdup(a->dir);
	struct statfs sf;
	int r;

	if (!parent)
		return -ENOMEM;
	r = fs_of(dirname(parent), &sf);
	if (r < 0)
		return sb_exec_fail(x, r, "%s: cannot check its file system: %s", a->dir,
				    strerror(-r));
	if (sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC) {
		if (!a->allow_tmpfs) {
			x->refused = true;
			return sb_exec_fail(
			    x, -EPERM,
			    "refused: the loop directory %s is on %s (RAM): its loop devices "
			    "would measure memory, not a disk; give --loop-dir DIR on a disk "
			    "file system (naming a tmpfs there on purpose accepts it)",
			    a->dir, sf.f_type == TMPFS_MAGIC ? "tmpfs" : "ramfs");
		}
		sb_warn("%s is on %s: the loop devices measure memory, not a disk", a->dir,
			sf.f_type == TMPFS_MAGIC ? "tmpfs" : "ramfs");
	}
	return 0;
}

/* The directory the per-run directories go in: a real directory that no
 * other user can swap things in (owned by root or us, and not writable by
 * others unless sticky, as /var/tmp is); created 0700 when missing. */
static int check_root(struct sb_exec *x, const char *root)
{
	struct stat st;
	if (mkdir(root, 0700) < 0 && errno != EEXIST)
		return sb_exec_fail(x, negerrno(), "%s: cannot create: %s", root, strerror(errno));
	if (lstat(root, &st) < 0)
		return sb_exec_fail(x, negerrno(), "%s: %s", root, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return sb_exec_fail(x, -ENOTDIR, "%s: not a directory (a symlink?)", root);
	if ((st.st_uid != 0 && st.st_uid != geteuid()) ||
	    ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))) {
		x->refused = true;
		return sb_exec_fail(x, -EPERM,
				    "refused: %s is writable by other users or owned by uid %u: "
				    "not a place for backing files",
				    root, (unsigned)st.st_uid);
	}
	return 0;
}

/* The image file, made (or, keep_images, the one an earlier round kept):
 * its fd, or -errno. */
static int open_image(struct sb_exec *x, int dfd, const struct sb_loop_args *a, const char *base);

/* keep_images: a new image allocated in full, so that its placement on
 * the backing file system is fixed for the whole run (a file system that
 * cannot allocate ahead, such as one without fallocate, fills it as it is
 * written, as without). */
static int allocate(struct sb_exec *x, int fd, const struct sb_loop_args *a, const char *base)
{
	struct stat st;
	if (fallocate(fd, 0, 0, (off_t)a->size) == 0 && fstat(fd, &st) == 0) {
		sb_exec_log(x, "%s/%s: allocated in full, kept from round to round (inode %llu)\n",
			    a->dir, base, (unsigned long long)st.st_ino);
		return 0;
	}
	if (errno == EOPNOTSUPP) {
		sb_exec_log(x, "%s/%s: cannot be allocated ahead here: sparse\n", a->dir, base);
		return 0;
	}
	return sb_exec_fail(x, negerrno(), "%s/%s: cannot allocate %" PRIu64 " bytes: %s", a->dir,
			    base, a->size, strerror(errno));
}

static int run(void *args, json_object *result, struct sb_exec *x)
{
	struct sb_loop_args *a = args;
	_cleanup_close_ int dfd = -1, fd = -1;
	_cleanup_free_ char *root = strdup(a->dir), *link = strdup(a->file);
	const char *base = strrchr(a->file, '/') + 1;
	char dev[64], path[128], lbuf[PATH_MAX], bf[PATH_MAX];
	struct stat st;
	ssize_t ll;
	int r;

	if (!root || !link)
		return -ENOMEM;
	r = check_root(x, dirname(root));
	if (r < 0)
		return r;
	if (mkdir(a->dir, 0700) < 0 && errno != EEXIST)
		return sb_exec_fail(x, negerrno(), "%s: cannot create: %s", a->dir,
				    strerror(errno));
	dfd = open(a->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0 || fstat(dfd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077))
		return sb_exec_fail(x, dfd < 0 ? negerrno() : -EPERM,
				    "%s: not a private directory of ours", a->dir);
	/* images/ in the run directory points at it: the journal's paths stay
	 * inside the run directory. */
	dirname(link);
	if (symlink(a->dir, link) < 0) {
		if (errno != EEXIST)
			return sb_exec_fail(x, negerrno(), "%s: cannot create: %s", link,
					    strerror(errno));
		ll = readlink(link, lbuf, sizeof(lbuf) - 1);
		if (ll < 0 || (lbuf[ll] = '\0', strcmp(lbuf, a->dir) != 0))
			return sb_exec_fail(x, -EEXIST, "%s exists and does not point at %s", link,
					    a->dir);
	}
	fd = open_image(x, dfd, a, base);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		return sb_exec_fail(x, negerrno(), "%s/%s: cannot size: %s", a->dir, base,
				    strerror(errno));
	/* Known before the device exists, so that undo can tell our loop from
	 * any other even if the run dies right after attaching. */
	json_object *b = json_object_new_object();
	snprintf(path, sizeof(path), "%u:%u", major(st.st_dev), minor(st.st_dev));
	json_object_object_add(b, "dev", json_object_new_string(path));
	json_object_object_add(b, "ino", json_object_new_int64((int64_t)st.st_ino));
	json_object_object_add(result, "backing", b);

	r = sb_loop_attach(fd, true, dev, sizeof(dev));
	if (r < 0)
		return sb_exec_fail(x, r, "%s/%s: cannot attach a loop device: %s", a->dir, base,
				    strerror(-r));
	json_object_object_add(result, "dev", json_object_new_string(dev));
	sb_exec_log(x, "%s/%s attached as %s\n", a->dir, base, dev);
	if ((r = sb_loop_clear_stale_ro(x, dev)) < 0)
		return r;
	if (!sb_loop_dio(dev)) {
		_cleanup_close_ int lfd = open(dev, O_RDONLY | O_CLOEXEC);
		if (lfd >= 0)
			ioctl(lfd, LOOP_SET_DIRECT_IO, 1UL);
	}
	bool dio = sb_loop_dio(dev);
	if (dio && (r = sb_loop_dio_works(dev)) < 0) {
		x->refused = true;
		return sb_exec_fail(x, r,
				    "refused: %s: direct I/O to its backing file in %s fails (%s): "
				    "that file system takes O_DIRECT but cannot do it (overlayfs "
				    "over tmpfs, as the VM runner's root, does); give --loop-dir "
				    "DIR on a disk file system, or in the VM runner give the run "
				    "disks of its own (contrib/vm/replicate PROFILE)",
				    dev, a->dir, strerror(-r));
	}
	json_object_object_add(result, "dio", json_object_new_boolean(dio));
	snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", dev + 5);
	if (sb_sys_read(path, bf, sizeof(bf)) == 0)
		json_object_object_add(result, "backing_file", json_object_new_string(bf));
	if (!dio && !a->allow_tmpfs)
		return sb_exec_fail(x, -EOPNOTSUPP,
				    "%s: direct I/O could not be enabled (the file system of %s "
				    "does not support it): the page cache would serve reads",
				    dev, a->dir);
	if (!dio)
		sb_warn("%s: without direct I/O: the page cache serves its reads", dev);
	snprintf(path, sizeof(path), "/sys/block/%s/queue/rotational", dev + 5);
	r = sb_sys_write(path, a->rotational ? "1" : "0");
	if (r < 0)
		return sb_exec_fail(x, r, "%s: cannot set rotational: %s", dev, strerror(-r));
	if ((r = sb_loop_reset_read_ahead(x, dev)) < 0)
		return r;
	sb_result_var(result, a->var, dev);
	return 0;
}

/* The backing file of ours: from the result, or (the run died between
 * attaching and journaling) from the file itself. */
/* "254:0" -> its dev_t. */
static bool parse_mm(const char *s, dev_t *out)
{
	char *e;
	unsigned long ma, mi;
	if (!s)
		return false;
	errno = 0;
	ma = strtoul(s, &e, 10);
	if (e == s || *e != ':' || errno)
		return false;
	s = e + 1;
	mi = strtoul(s, &e, 10);
	if (e == s || *e || errno)
		return false;
	*out = makedev(ma, mi);
	return true;
}

static bool ours(const struct sb_loop_args *a, json_object *result, dev_t *dev, ino_t *ino)
{
	json_object *b;
	struct stat st;
	if (json_object_object_get_ex(result, "backing", &b) &&
	    parse_mm(sb_json_str(b, "dev"), dev) && sb_json_i64(b, "ino", -1) > 0) {
		*ino = (ino_t)sb_json_i64(b, "ino", 0);
		return true;
	}
	if (stat(a->file, &st) == 0 && S_ISREG(st.st_mode)) {
		*dev = st.st_dev;
		*ino = st.st_ino;
		return true;
	}
	return false;
}

struct scan {
	const struct sb_loop_args *a;
	json_object *result;
	bool known;
	dev_t dev;
	ino_t ino;
	struct sb_exec *x;
	bool detach;
	int err;
	char *mismatch;
	unsigned attached; /* loop devices on our inode */
};

static int detach(const char *dev, struct sb_exec *x)
{
	_cleanup_close_ int fd = -1;
	int r = sb_wait_node(dev, 2000, false);
	if (r < 0)
		return r;
	fd = open(dev, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return negerrno();
	/* EBUSY right after an unmount can be transient. */
	for (int i = 0; i < 50; i++) {
		if (ioctl(fd, LOOP_CLR_FD, 0) == 0 || errno == ENXIO) {
			/* A device still open somewhere is only marked to detach on
			 * its last close (ours counts too): wait for it to go. */
			char p[PATH_MAX], buf[16];
			close(TAKE_FD(fd));
			snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file", dev + 5);
			for (int k = 0; k < 100 && sb_sys_read(p, buf, sizeof(buf)) == 0; k++)
				usleep(20000);
			if (sb_sys_read(p, buf, sizeof(buf)) == 0)
				return -EBUSY;
			sb_exec_log(x, "%s detached\n", dev);
			return 0;
		}
		if (errno != EBUSY)
			break;
		struct timespec ts = {0, 100 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	return negerrno();
}

/* Every loop device: ours (the same backing inode) is detached when asked;
 * one backed by a file of our name but another inode is someone else's. */
static int scan(struct scan *s)
{
	_cleanup_(closedirp) DIR *d = opendir("/sys/block");
	const char *jfile = sb_json_str(s->result, "backing_file");
	struct dirent *e;

	if (!d)
		return negerrno();
	while ((e = readdir(d))) {
		char p[300], buf[4096], dev[300];
		struct loop_info64 li;
		if (strncmp(e->d_name, "loop", 4) != 0)
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file", e->d_name);
		if (sb_sys_read(p, buf, sizeof(buf)) < 0)
			continue;
		snprintf(dev, sizeof(dev), "/dev/%s", e->d_name);
		_cleanup_close_ int fd = open(dev, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		bool have = fd >= 0 && ioctl(fd, LOOP_GET_STATUS64, &li) == 0;
		bool same_ino = have && s->known && li.lo_inode == s->ino && li.lo_device == s->dev;
		size_t n = jfile ? strlen(jfile) : 0;
		bool same_name = jfile && strncmp(buf, jfile, n) == 0 &&
				 (!buf[n] || strcmp(buf + n, " (deleted)") == 0);
		if (!same_ino && same_name && s->known && have) {
			char *m = NULL;
			if (asprintf(&m, "%s: not ours: backing file inode %llu != journaled %llu",
				     dev, (unsigned long long)li.lo_inode,
				     (unsigned long long)s->ino) >= 0) {
				free(s->mismatch);
				s->mismatch = m;
			}
			continue;
		}
		/* Without any inode (the file gone and no result), the name is all
		 * there is, as before identities were journaled. */
		if (!same_ino && !(same_name && !s->known))
			continue;
		s->attached++;
		if (!s->detach)
			continue;
		close(TAKE_FD(fd));
		int k = detach(dev, s->x);
		if (k < 0 && !s->err)
			s->err = sb_exec_fail(s->x, k, "%s: cannot detach: %s", dev, strerror(-k));
	}
	return s->err;
}

/* keep_images: the image an earlier round of this run kept, in our own
 * private directory: a regular file of ours, linked once, attached to no
 * loop device, sized as this step asks. */
static int kept_image(struct sb_exec *x, int dfd, const struct sb_loop_args *a, const char *base)
{
	int fd = openat(dfd, base, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	struct scan s = {.a = a, .x = x, .known = true};

	if (fd < 0)
		return sb_exec_fail(x, negerrno(), "%s/%s: cannot open the kept image: %s", a->dir,
				    base, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_nlink != 1) {
		close(fd);
		return sb_exec_fail(x, -EPERM, "%s/%s: not an image this run kept", a->dir, base);
	}
	s.dev = st.st_dev;
	s.ino = st.st_ino;
	(void)scan(&s);
	free(s.mismatch);
	if (s.attached) {
		close(fd);
		return sb_exec_fail(x, -EBUSY, "%s/%s: kept, but still attached to a loop device",
				    a->dir, base);
	}
	if ((uint64_t)st.st_size != a->size && ftruncate(fd, (off_t)a->size) < 0) {
		int r = sb_exec_fail(x, negerrno(), "%s/%s: cannot size: %s", a->dir, base,
				     strerror(errno));
		close(fd);
		return r;
	}
	sb_exec_log(x, "%s/%s: the image kept from the round before (inode %llu)\n", a->dir, base,
		    (unsigned long long)st.st_ino);
	return fd;
}

static int open_image(struct sb_exec *x, int dfd, const struct sb_loop_args *a, const char *base)
{
	int r, fd = openat(dfd, base, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0 && errno == EEXIST && x->keep_images)
		return kept_image(x, dfd, a, base);
	if (fd < 0)
		return sb_exec_fail(x, negerrno(), "%s/%s: cannot create: %s", a->dir, base,
				    strerror(errno));
	r = ftruncate(fd, (off_t)a->size) < 0
		? sb_exec_fail(x, negerrno(), "%s/%s: cannot size: %s", a->dir, base,
			       strerror(errno))
	    : a->keep ? allocate(x, fd, a, base)
		      : 0;
	if (r < 0)
		close(fd);
	return r < 0 ? r : fd;
}

static int check(const void *args, json_object *result, struct sb_exec *x)
{
	struct scan s = {.a = args, .result = result, .x = x};
	s.known = ours(args, result, &s.dev, &s.ino);
	int r = scan(&s);
	if (r == 0 && s.mismatch)
		r = sb_exec_fail(x, -ESTALE, "%s", s.mismatch);
	free(s.mismatch);
	return r;
}

static int undo(const void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_loop_args *a = args;
	struct scan s = {.a = a, .result = result, .x = x, .detach = true};
	_cleanup_free_ char *link = strdup(a->file);
	struct stat st;
	char real[PATH_MAX];
	ssize_t n;
	int r;

	if (!link)
		return -ENOMEM;
	s.known = ours(a, result, &s.dev, &s.ino);
	r = scan(&s);
	free(s.mismatch);
	if (r < 0)
		return r;
	/* Between rounds side by side: the image stays for the next round
	 * (the journal keeps its record: sb_exec_undo_journal). */
	if (x->keep_images && result && stat(a->file, &st) == 0 && s.known && st.st_ino == s.ino &&
	    st.st_dev == s.dev) {
		sb_exec_log(x, "%s: kept for the next round\n", a->file);
		return 0;
	}
	/* The file, when it is still the one we made. */
	if (stat(a->file, &st) == 0 && (!s.known || (st.st_ino == s.ino && st.st_dev == s.dev)) &&
	    unlink(a->file) < 0 && errno != ENOENT)
		return sb_exec_fail(x, negerrno(), "%s: cannot remove: %s", a->file,
				    strerror(errno));
	/* The per-run image directory goes with its last image, then the link. */
	dirname(link);
	n = readlink(link, real, sizeof(real) - 1);
	if (n > 0) {
		real[n] = '\0';
		if (rmdir(real) == 0 || errno == ENOENT)
			unlink(link);
	}
	return 0;
}

/* ---- [devices]' loop keys, rules and plan: the devices themselves ---- */

struct loop_cfg {
	struct sb_present set;
	uint64_t size[SB_ROLE_N]; /* devices.loop.ROLE */
	uint64_t quick;
	const char *emulate; /* "none" or "raid6" */
	uint64_t emulate_members;
};

enum {
	LOOP_SSD,
	LOOP_HDD,
	LOOP_NVME,
	LOOP_ANY,
	LOOP_QUICK,
	LOOP_EMULATE,
	LOOP_EMULATE_MEMBERS,
	LOOP_KEY_N
};

#define C struct loop_cfg
static const struct sb_key keys[LOOP_KEY_N] = {
    [LOOP_SSD] = SB_KEY(C, size[SB_ROLE_SSD], "loop.ssd", SB_KT_SIZE, NULL, 0, 0, "1G", 0,
			"--loop: size of each ssd loop device (sparse)"),
    [LOOP_HDD] = SB_KEY(C, size[SB_ROLE_HDD], "loop.hdd", SB_KT_SIZE, NULL, 0, 0, "1G", 0,
			"--loop: size of each hdd loop device (rotational flag set)"),
    [LOOP_NVME] = SB_KEY(C, size[SB_ROLE_NVME], "loop.nvme", SB_KT_SIZE, NULL, 0, 0, "1G", 0,
			 "--loop: size of each nvme loop device"),
    [LOOP_ANY] = SB_KEY(C, size[SB_ROLE_ANY], "loop.any", SB_KT_SIZE, NULL, 0, 0, "1G", 0,
			"--loop: size of each 'any' loop device"),
    [LOOP_QUICK] = SB_KEY(C, quick, "loop.quick", SB_KT_SIZE, NULL, 0, 0, "320M", 0,
			  "--loop --quick: size of every loop device (xfs needs 300M)"),
    [LOOP_EMULATE] =
	SB_KEY(C, emulate, "loop.emulate", SB_KT_CHOICE, "none|raid6", 0, 0, "none", SB_KF_NOMATRIX,
	       "--loop: build each 'any' device as an md array of this level over "
	       "loop devices (emulates a hardware RAID volume)"),
    [LOOP_EMULATE_MEMBERS] =
	SB_KEY(C, emulate_members, "loop.emulate-members", SB_KT_UINT, NULL, 4, 16, "4",
	       SB_KF_NOMATRIX, "--loop: loop devices in each emulated array"),
};
#undef C

static int loop_validate(struct sb_vctx *v, const void *cfg, struct sb_vstate *st)
{
	const struct loop_cfg *l = cfg;
	if (strcmp(l->emulate, "none") != 0 && !sb_cfg_role_count(sb_vctx_config(v), SB_ROLE_ANY))
		return sb_verr(v, sb_keytab_base(&sb_keytab_loop) + LOOP_EMULATE,
			       "devices.loop.emulate: needs 'any' devices");
	return 0;
}

const struct sb_keytab sb_keytab_loop = {
    .section = "devices",
    .keys = keys,
    .n = LOOP_KEY_N,
    .cfg_size = sizeof(struct loop_cfg),
    .present = SB_PRESENT(struct loop_cfg, set),
    .validate = loop_validate,
};

bool sb_loop_emulates(const struct sb_config *c)
{
	return strcmp(sb_cfg_str(c, sb_keytab_base(&sb_keytab_loop) + LOOP_EMULATE), "none") != 0;
}

static void loop_step(struct sb_pctx *b, const char *loop_dir, const char *var, uint64_t size,
		      bool rot)
{
	struct sb_loop_args *a = sb_plan_add_step(b, SB_STEP_LOOP);
	a->file = sb_plan_fmt("${run}/images/%s.img", var);
	a->dir = sb_plan_fmt("%s/${id}", loop_dir);
	a->size = size;
	a->rotational = rot;
	a->allow_tmpfs = b->in->loop_dir_forced;
	a->var = sb_plan_fmt("%s", var);
	a->keep = b->in->keep_images;
}

/* --loop: an image the profile does not size holds the data set (plus a
 * file system's own share: journal, metadata, ext4's 5% reserve), on the
 * smallest unit the file system may go on (the layers that split a device
 * say how large it must be). The files are sparse: a generous size costs
 * nothing until written. */
static uint64_t loop_size(const struct loop_cfg *l, struct sb_pctx *b, enum sb_role role)
{
	const struct sb_plan_in *in = b->in;
	uint64_t need, size = l->size[role];

	if (in->quick)
		return l->quick;
	if (!in->loop || !in->data_bytes || (l->set.keys & (1ul << (LOOP_SSD + role))))
		return size;
	need = in->data_bytes + in->data_bytes / 8 + (512ull << 20);
	need = sb_plan_fit(b, role, need);
	need = (need + (1ull << 30) - 1) & ~((1ull << 30) - 1);
	return need > size ? need : size;
}

/* devices.loop.emulate: an 'any' device is an md RAID6 of loop devices,
 * about as large as the role's size. */
static void loop_emulated(const struct loop_cfg *l, struct sb_pctx *b, const char *loop_dir,
			  const struct sb_slot *sl, uint64_t size)
{
	unsigned n = (unsigned)l->emulate_members;
	struct sb_unit mem[16];
	uint64_t msize =
	    b->in->quick ? size : (size / (n - 2) + (1 << 20) - 1) & ~((uint64_t)(1 << 20) - 1);

	for (unsigned m = 0; m < n && m < 16; m++) {
		snprintf(mem[m].var, sizeof(mem[m].var), "%s.m%u", sl->name, m + 1);
		mem[m].role = sl->role;
		mem[m].part = 0;
		loop_step(b, loop_dir, mem[m].var, msize, false);
		sb_plan_device(b, sl->role, mem[m].var);
	}
	sb_md_plan_emulated(b, sl->name, 6, mem, n);
}

/* The devices: loop files (an emulated volume an md array of them), or
 * the given disks (variables set by the caller), each one handed to the
 * layers' device() hooks as it appears; then the first units, the device
 * set aside (fs.log) left out. */
static int loop_plan(const void *cfg, struct sb_pctx *b)
{
	const struct loop_cfg *l = cfg;
	const char *loop_dir = b->in->loop_dir ? b->in->loop_dir : getenv("STACKBENCH_LOOP_DIR");
	bool emulate = b->in->loop && strcmp(l->emulate, "raid6") == 0;
	int aside = sb_plan_aside(b);

	if (!loop_dir || !*loop_dir)
		loop_dir = SB_LOOP_DIR_DEFAULT;
	for (size_t i = 0; i < b->n_slots; i++) {
		const struct sb_slot *sl = &b->slots[i];
		if (!sb_plan_slot_used(b, sl))
			continue;
		if (b->in->loop && emulate && sl->role == SB_ROLE_ANY)
			loop_emulated(l, b, loop_dir, sl, loop_size(l, b, sl->role));
		else if (b->in->loop)
			loop_step(b, loop_dir, sl->name, loop_size(l, b, sl->role),
				  sl->role == SB_ROLE_HDD);
		if (!(b->in->loop && emulate && sl->role == SB_ROLE_ANY))
			sb_plan_device(b, sl->role, sl->name);
	}
	for (size_t i = 0; i < b->n_slots; i++) {
		const struct sb_slot *sl = &b->slots[i];
		if (!sb_plan_slot_used(b, sl))
			continue;
		if ((int)sl->role == aside)
			snprintf(b->aside, sizeof(b->aside), "%s", sl->name);
		else
			sb_plan_add_unit(b, sl->role, 0, sl->name);
	}
	return 0;
}

const struct sb_layer sb_layer_loop = {
    .kind = "loop",
    .args_size = sizeof(struct sb_loop_args),
    .fields = fields,
    .n_fields = ARRAY_SIZE(fields),
    .prepare = prepare,
    .describe = describe,
    .run = run,
    .check = check,
    .undo = undo,
    .flags = SB_LF_CREATES_DEV,
    .keytab = &sb_keytab_loop,
    .plan = loop_plan,
};
