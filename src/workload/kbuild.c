/* kbuild[:CONFIG]: a kernel build in the file system under test, the way
 * mmtests' kernbench and Phoronix's build-linux-kernel time it: unpack the
 * tarball Debian's linux-source installs, make CONFIG, make -jN TARGET, then
 * remove the tree. Wall, user and sys seconds per stage; the tree's size and
 * the bytes the build wrote. Every program runs from an argv, no shell. */
#include "workload/wl.h"
#include "util/macro.h"
#include "util/spawn.h"

#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* The typed options kbuild_opts fills (kbuild.c). */
struct kbuild_opts {
	struct sb_wl_common com;
	uint64_t jobs;
	char *source;
	char *target;
};

static inline const struct kbuild_opts *kbuild_o(const struct sb_wl_spec *s)
{
	return s->o;
}

static const struct sb_wl_opt kbuild_opts[] = {
    SB_WO(struct kbuild_opts, jobs, "jobs", SB_WO_UINT, NULL, NULL, 1, 1024,
	  "parallel make jobs (default: the number of online CPUs)"),
    SB_WO(struct kbuild_opts, source, "source", SB_WO_STRING, NULL, NULL, 0, 0,
	  "kernel source tarball (default: the newest /usr/src/linux-source-*.tar.*, "
	  "from Debian's linux-source)"),
    SB_WO(struct kbuild_opts, target, "target", SB_WO_STRING, "vmlinux", NULL, 0, 0,
	  "make target of the timed build (kernbench builds vmlinux)"),
    SB_WL_TIMEOUT_ROW(struct kbuild_opts, "4h", "1h",
		      "time limit of each stage; the build is stopped past it and flagged "
		      "incomplete"),
    {0},
};

/* A make target word: letters, digits, '_', '-', '.', '/', so that it can
 * never be taken for an option or a variable assignment. */
static bool make_word_ok(const char *s)
{
	if (!*s || *s == '-' || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!(('a' <= *s && *s <= 'z') || ('A' <= *s && *s <= 'Z') ||
		      ('0' <= *s && *s <= '9') || strchr("_-./", *s)))
			return false;
	return true;
}

static int parse_config(const char *arg, struct sb_wl_spec *s, char **why)
{
	size_t n = strlen(arg);

	if (!make_word_ok(arg) || n < 6 || strcmp(arg + n - 6, "config") != 0) {
		*why = strdup("CONFIG is a make configuration target ending in \"config\" "
			      "(defconfig, tinyconfig, allnoconfig ...)");
		return -EINVAL;
	}
	return 0;
}

/* The newest linux-source tarball under /usr/src: glob sorts by name and the
 * names carry the version, so the last one wins. */
static char *find_source(void)
{
	glob_t g;
	char *r = NULL;

	if (glob("/usr/src/linux-source-*.tar.*", 0, NULL, &g) == 0 && g.gl_pathc)
		r = strdup(g.gl_pathv[g.gl_pathc - 1]);
	globfree(&g);
	return r;
}

static uint64_t fs_used(int fd)
{
	struct statvfs v;
	if (fstatvfs(fd, &v) < 0)
		return 0;
	return (uint64_t)(v.f_blocks - v.f_bfree) * v.f_frsize;
}

static double tv_s(struct timeval t)
{
	return t.tv_sec + t.tv_usec / 1e6;
}

/* The single directory tar made (linux-source-6.1/). */
static int tree_name(int work_fd, char *name, size_t len)
{
	int fd = dup(work_fd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	int found = 0;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && e->d_type == DT_DIR) {
			snprintf(name, len, "%s", e->d_name);
			found++;
		}
	closedir(d);
	return found == 1 ? 0 : -ENOENT;
}

/* The last line of text that is not a make "***" trailer (else the last
 * line): its start and length. */
static const char *last_reason(const char *t, size_t n, size_t *len)
{
	const char *fallback = NULL;
	size_t fallback_len = 0;

	while (n) {
		while (n && (t[n - 1] == '\n' || t[n - 1] == '\r'))
			n--;
		size_t b = n;
		while (b && t[b - 1] != '\n')
			b--;
		const char *l = t + b;
		size_t ll = n - b;
		if (ll && !fallback) {
			fallback = l;
			fallback_len = ll;
		}
		if (ll && !(strncmp(l, "make", 4) == 0 && memmem(l, ll, ": ***", 5))) {
			*len = ll;
			return l;
		}
		n = b;
	}
	*len = fallback_len;
	return fallback ? fallback : "";
}

struct stage {
	const char *name;
	double wall, user, sys;
	uint64_t written; /* ru_oublock: bytes the stage's processes wrote to storage */
};

/* Runs argv in cwd as one timed stage. 0, 1 when it was cut short (time limit
 * or interrupt), or -errno / a failure recorded with sb_wl_fail. */
static int run_stage(struct sb_wl_ctx *c, struct stage *st, const char *cwd,
		     const char *const *argv)
{
	struct sb_child ch = {.argv = argv,
			      .cwd = cwd,
			      .capture = true,
			      .log_fd = c->env->log_fd,
			      .stop = c->env->stop,
			      .timeout_ms = (unsigned)(c->timeout_ns / 1000000)};
	int rc = sb_spawn_run(&ch);

	if (rc < 0) {
		rc = sb_wl_fail(c, rc, "%s: cannot start %s", st->name, argv[0]);
		goto out;
	}
	st->wall = ch.wall_s;
	st->user = tv_s(ch.ru.ru_utime);
	st->sys = tv_s(ch.ru.ru_stime);
	st->written = (uint64_t)ch.ru.ru_oublock * 512;
	if (ch.timed_out || ch.stopped) {
		c->res->flags |= SB_RES_INCOMPLETE;
		free(c->res->error);
		c->res->error = strdup(ch.timed_out ? "a stage hit its time limit" : "interrupted");
		rc = 1;
	} else if (ch.status != 0) {
		/* The last line on stderr that is not make's own "*** [...] Error"
		 * trailer says why. */
		const char *e = ch.err ? ch.err : "";
		size_t len = 0;
		const char *why = last_reason(e, ch.err_len, &len);
		rc = sb_wl_fail(c, 0, "%s: %s exited with status %d%s%.*s", st->name, argv[0],
				ch.status, len ? ": " : "", (int)(len > 300 ? 300 : len), why);
	}
out:
	sb_child_release(&ch);
	return rc;
}

/* The source tarball is there and readable, the target one make word. */
static int check_inputs(struct sb_wl_ctx *c, const char *source, const char *target)
{
	if (!source)
		return sb_wl_fail(c, 0,
				  "no kernel source: install Debian's linux-source "
				  "(tools/install-deps --with-kbuild) or give source=PATH");
	if (access(source, R_OK) < 0)
		return sb_wl_fail(c, -errno, "source=%s", source);
	if (!make_word_ok(target))
		return sb_wl_fail(c, 0, "target=%s: not a make target", target);
	return 0;
}

/* Removes the unpacked tree, synced before and after, timed into st. */
static int remove_tree(struct sb_wl_ctx *c, struct stage *st, const char *tree)
{
	uint64_t r0 = sb_mono_ns();
	sync();
	int r = sb_wl_rmtree_at(c->work_fd, tree);
	if (r < 0)
		return sb_wl_fail(c, r, "cannot remove the kernel tree");
	sync();
	st->wall = (sb_mono_ns() - r0) / 1e9;
	return 0;
}

static int kbuild_run(struct sb_wl_ctx *c)
{
	const struct sb_wl_spec *s = c->spec;
	const char *config = s->arg ? s->arg : c->env->quick ? "tinyconfig" : "defconfig";
	const char *target = kbuild_o(s)->target ? kbuild_o(s)->target : "vmlinux";
	char *source = kbuild_o(s)->source ? strdup(kbuild_o(s)->source) : find_source();
	char jobs[16], tree[256], *tree_path = NULL;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct stage st[] = {
	    {.name = "untar"}, {.name = "config"}, {.name = "build"}, {.name = "remove"}};
	uint64_t used0, used_tree = 0, used_built = 0, t0;
	int rc = 0;

	if ((rc = check_inputs(c, source, target)) < 0)
		goto out;
	snprintf(jobs, sizeof(jobs), "-j%llu",
		 (unsigned long long)(sb_wl_given(s, "jobs") ? kbuild_o(s)->jobs
				      : ncpu > 0	     ? ncpu
							     : 1));
	sb_wl_extra_str(c, "source", source);
	sb_wl_extra_str(c, "config", config);
	sb_wl_extra_str(c, "target", target);
	sb_wl_extra_str(c, "jobs", jobs + 2);

	used0 = fs_used(c->work_fd);
	t0 = sb_mono_ns();
	{
		const char *argv[] = {"tar", "-xf", source, "--no-same-owner", NULL};
		rc = run_stage(c, &st[0], c->work, argv);
	}
	if (rc != 0)
		goto report;
	used_tree = fs_used(c->work_fd);
	if (tree_name(c->work_fd, tree, sizeof(tree)) < 0) {
		rc = sb_wl_fail(c, 0, "%s: the tarball did not unpack into one directory", source);
		goto report;
	}
	if (asprintf(&tree_path, "%s/%s", c->work, tree) < 0) {
		tree_path = NULL;
		rc = -ENOMEM;
		goto report;
	}
	{
		const char *argv[] = {"make", "-s", config, NULL};
		rc = run_stage(c, &st[1], tree_path, argv);
	}
	if (rc != 0)
		goto report;
	{
		const char *argv[] = {"make", "-s", jobs, target, NULL};
		rc = run_stage(c, &st[2], tree_path, argv);
	}
	if (rc != 0)
		goto report;
	used_built = fs_used(c->work_fd);
	/* Removing the tree is part of the workload (a file system that
	 * unpacks fast and deletes slowly shows it here). */
	if ((rc = remove_tree(c, &st[3], tree)) < 0)
		goto report;

report:
	for (size_t i = 0; i < ARRAY_SIZE(st); i++) {
		char name[32];
		if (st[i].wall <= 0)
			continue;
		snprintf(name, sizeof(name), "%s_wall", st[i].name);
		sb_wl_add_metric(c->res, name, "s", SB_BETTER_LOWER, st[i].wall);
		if (i == 2) {
			sb_wl_add_metric(c->res, "build_user", "s", SB_BETTER_LOWER, st[i].user);
			sb_wl_add_metric(c->res, "build_sys", "s", SB_BETTER_LOWER, st[i].sys);
		}
	}
	if (rc == 0)
		sb_wl_add_metric(c->res, "total_wall", "s", SB_BETTER_LOWER,
				 (sb_mono_ns() - t0) / 1e9);
	if (used_tree > used0)
		sb_wl_extra_int(c, "tree_bytes", (int64_t)(used_tree - used0));
	if (used_built > used_tree)
		sb_wl_extra_int(c, "build_output_bytes", (int64_t)(used_built - used_tree));
	sb_wl_extra_int(c, "written_bytes",
			(int64_t)(st[0].written + st[1].written + st[2].written));
	if (rc > 0)
		rc = 0; /* cut short: incomplete, not failed */
out:
	free(tree_path);
	free(source);
	return rc;
}

/* The build's wall time is the headline, as kernbench reports it. */
static const struct sb_wl_metric kbuild_metrics[] = {
    {"untar_wall", "Unpack wall time", "s", SB_BETTER_LOWER, false, "untar", false},
    {"config_wall", "Configure wall time", "s", SB_BETTER_LOWER, false, "config", false},
    {"build_wall", "Build wall time", "s", SB_BETTER_LOWER, true, "build", false},
    {"build_user", "Build user time", "s", SB_BETTER_LOWER, false, "build", false},
    {"build_sys", "Build system time", "s", SB_BETTER_LOWER, false, "build", false},
    {"remove_wall", "Remove wall time", "s", SB_BETTER_LOWER, false, "remove", false},
    {"total_wall", "Total wall time", "s", SB_BETTER_LOWER, false, NULL, false},
    {0},
};

const struct sb_wl_ops sb_wl_kbuild = {
    .name = "kbuild",
    .arg = "CONFIG",
    .arg_optional = true,
    .example = "kbuild:defconfig,jobs=4",
    .summary = "unpack Debian's linux-source, make CONFIG (defconfig; --quick: tinyconfig), "
	       "make -jN vmlinux, remove the tree; wall/user/sys seconds per stage",
    .opts = kbuild_opts,
    .opts_size = sizeof(struct kbuild_opts),
    .metrics = kbuild_metrics,
    .parse_arg = parse_config,
    .run = kbuild_run,
};
