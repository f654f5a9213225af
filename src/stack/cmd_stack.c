/* `stackbench plan|run|teardown`: load the profile, match devices to roles,
 * check safety, then list (plan) or execute (run) every variant's steps and
 * tear them down again; teardown undoes what a killed run left. */
#include "cmd.h"
#include "probe/probe.h"
#include "profile/profile.h"
#include "report/report.h"
#include "result/result.h"
#include "stack/roles.h"
#include "stack/sha256.h"
#include "stack/stack.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/opt.h"
#include "util/size.h"
#include "util/spawn.h"
#include "workload/workload.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

enum {
	OPT_DEVICES = 'd',
	OPT_OVERRIDE = 'o',
	OPT_YES = 'y',
	OPT_LOOP = 256,
	OPT_WIPE,
	OPT_RESULTS,
	OPT_QUICK,
	OPT_REPEAT,
	OPT_ALL,
	OPT_LOOP_DIR,
};

struct opts {
	const char *cmd;
	const char *devices;
	bool loop, yes, wipe, quick, all;
	const char *results;
	const char *loop_dir; /* --loop-dir, or NULL */
	unsigned repeat;
	const char **ov;
	size_t n_ov;
};

static int on_opt(int key, const char *arg, void *ud)
{
	struct opts *o = ud;
	switch (key) {
	case OPT_DEVICES:
		o->devices = arg;
		return 0;
	case OPT_LOOP:
		o->loop = true;
		return 0;
	case OPT_YES:
		o->yes = true;
		return 0;
	case OPT_WIPE:
		o->wipe = true;
		return 0;
	case OPT_QUICK:
		o->quick = true;
		return 0;
	case OPT_ALL:
		o->all = true;
		return 0;
	case OPT_RESULTS:
		o->results = arg;
		return 0;
	case OPT_LOOP_DIR:
		o->loop_dir = arg;
		return 0;
	case OPT_REPEAT: {
		char *end;
		unsigned long n = strtoul(arg, &end, 10);
		if (strcmp(arg, "auto") == 0) /* 0: until the RSE is low, see result.h */
			n = 0;
		else if (!*arg || *end || n < 1 || n > 1000)
			return sb_usage_error(
			    o->cmd,
			    "--repeat: expected 'auto' or a number from 1 to 1000, got '%s'", arg);
		o->repeat = (unsigned)n;
		return 0;
	}
	case OPT_OVERRIDE: {
		const char **n = realloc(o->ov, (o->n_ov + 1) * sizeof(*n));
		if (!n)
			return SB_EXIT_FAILED;
		o->ov = n;
		n[o->n_ov++] = arg;
		return 0;
	}
	}
	return SB_EXIT_USAGE;
}

#define OPT_DEVICES_ROW                                                                            \
	{                                                                                          \
		"devices", OPT_DEVICES, "A,B,C",                                                   \
		    "the devices, in role order (or matched by class)"                             \
	}
#define OPT_LOOP_ROW                                                                               \
	{                                                                                          \
		"loop", OPT_LOOP, NULL,                                                            \
		    "build on loop devices backed by sparse files (no confirmation)"               \
	}
#define OPT_LOOP_DIR_ROW                                                                           \
	{                                                                                          \
		"loop-dir", OPT_LOOP_DIR, "DIR",                                                   \
		    "--loop: backing files in DIR (default " SB_LOOP_DIR_DEFAULT                   \
		    "; a tmpfs only when named here)"                                              \
	}
#define OPT_O_ROW                                                                                  \
	{                                                                                          \
		"set", OPT_OVERRIDE, "SECTION.KEY=VALUE",                                          \
		    "override a profile value (-o; matrix.SECTION.KEY=A|B for a matrix)"           \
	}
#define OPT_QUICK_ROW                                                                              \
	{                                                                                          \
		"quick", OPT_QUICK, NULL, "small loop devices and quick workloads (CI)"            \
	}
#define OPT_WIPE_ROW                                                                               \
	{                                                                                          \
		"wipe", OPT_WIPE, NULL,                                                            \
		    "accept devices that carry signatures (they are destroyed)"                    \
	}

static const struct sb_opt plan_opts[] = {
    OPT_DEVICES_ROW, OPT_LOOP_ROW, OPT_LOOP_DIR_ROW, OPT_O_ROW, OPT_QUICK_ROW, OPT_WIPE_ROW, {0},
};

static const struct sb_opt run_opts[] = {
    OPT_DEVICES_ROW,
    OPT_LOOP_ROW,
    OPT_LOOP_DIR_ROW,
    OPT_O_ROW,
    OPT_QUICK_ROW,
    OPT_WIPE_ROW,
    {"yes", OPT_YES, NULL, "do not ask before destroying the devices' contents"},
    {"results", OPT_RESULTS, "DIR", "write result.json, run.log and plan.txt here"},
    {"repeat", OPT_REPEAT, "N|auto",
     "run every variant N times, interleaved (A B A B); auto: until the relative standard "
     "error of each headline metric is < 2.5% (3 to 10 times)"},
    {0},
};

static const struct sb_opt teardown_opts[] = {
    {"all", OPT_ALL, NULL, "tear down every run left in the state directory"},
    {0},
};

/* Everything plan and run share: profile, variants, devices, plans. */
struct ctx {
	struct opts o;
	char *profile_path;
	struct sb_profile *prof;
	struct sb_pvariant *var;
	size_t n_var;
	struct sb_slot *slots;
	size_t n_slots;
	struct sb_probe *probe;
	struct sb_device **dev; /* per slot (real devices only) */
	struct sb_plan *plans;	/* per variant */
};

static void ctx_free(struct ctx *c)
{
	for (size_t i = 0; c->plans && i < c->n_var; i++)
		sb_plan_free(&c->plans[i]);
	free(c->plans);
	free(c->dev);
	sb_probe_free(c->probe);
	free(c->slots);
	sb_pvariants_free(c->var, c->n_var);
	sb_profile_free(c->prof);
	free(c->profile_path);
	free(c->o.ov);
}

static int load_profile(struct ctx *c, const char *arg)
{
	char *err = NULL;
	int r;

	c->profile_path = sb_profile_find(arg);
	if (!c->profile_path) {
		sb_error("%s: no such profile (looked in %s; see 'stackbench list profiles')", arg,
			 sb_profile_dirs_text());
		return SB_EXIT_USAGE;
	}
	r = sb_profile_load(c->profile_path, &c->prof, &err);
	for (size_t i = 0; r == 0 && i < c->o.n_ov; i++)
		r = sb_profile_override(c->prof, c->o.ov[i], &err);
	if (r == 0)
		r = sb_profile_variants(c->prof, &c->var, &c->n_var, &err);
	if (r < 0) {
		if (err)
			sb_error("%s", err);
		else
			sb_error_errno(r, "%s", c->profile_path);
		free(err);
		return SB_EXIT_USAGE;
	}
	r = sb_plan_slots(&c->var[0].cfg, &c->slots, &c->n_slots);
	return r < 0 ? SB_EXIT_FAILED : 0;
}

static char *describe_dev(const struct sb_device *d)
{
	char sz[16], *s = NULL;
	if (asprintf(&s, "%s (%s%s%s, serial %s, %s, %s%s)", d->path, d->vendor ? d->vendor : "",
		     d->vendor ? " " : "", d->model ? d->model : "unknown model",
		     d->serial ? d->serial : "unknown", sb_format_size(d->size, sz, sizeof(sz)),
		     sb_class_name(d->cls),
		     /* a loop device plays the role its flag says */
		     d->cls == SB_CLASS_LOOP || d->cls == SB_CLASS_VIRTUAL
			 ? (d->rotational ? ", rotational" : ", non-rotational")
			 : "") < 0)
		return NULL;
	return s;
}

/* Probe the named devices, match them to roles and check each one. Returns
 * 0, or the exit code after saying why. */
static int resolve_devices(struct ctx *c, bool enforce)
{
	_cleanup_free_ char *copy = strdup(c->o.devices);
	const char *names[65];
	struct sb_device *devs[65];
	size_t nd = 0, assign[65];
	const char *missing = NULL;
	char *save = NULL, *why = NULL;
	int r, refused = 0;

	if (!copy)
		return SB_EXIT_FAILED;
	for (char *w = strtok_r(copy, ",", &save); w && nd < 64; w = strtok_r(NULL, ",", &save))
		names[nd++] = w;
	names[nd] = NULL;
	if (nd == 0)
		return sb_usage_error(c->o.cmd,
				      "--devices: expected device paths such as /dev/sdb,/dev/sdc");
	r = sb_probe_scan(names, &c->probe, &missing);
	if (r == -ENODEV) {
		sb_error("%s: no such block device", missing ? missing : "?");
		return SB_EXIT_USAGE;
	}
	if (r < 0) {
		sb_error_errno(r, "probe");
		return SB_EXIT_FAILED;
	}
	for (size_t i = 0; i < nd; i++) {
		devs[i] = sb_probe_find(c->probe, names[i]);
		if (!devs[i]) {
			sb_error("%s: no such block device", names[i]);
			return SB_EXIT_USAGE;
		}
		for (size_t k = 0; k < i; k++)
			if (devs[k] == devs[i]) {
				sb_error("%s: named twice in --devices", names[i]);
				return SB_EXIT_USAGE;
			}
	}
	r = sb_match_roles(c->slots, c->n_slots, devs, nd, assign, &why);
	if (r < 0) {
		sb_error("%s: refusing: %s", c->prof->name, why ? why : "roles do not match");
		free(why);
		return SB_EXIT_REFUSED;
	}
	c->dev = calloc(c->n_slots, sizeof(*c->dev));
	if (!c->dev)
		return SB_EXIT_FAILED;
	for (size_t k = 0; k < c->n_slots; k++)
		c->dev[k] = devs[assign[k]];
	for (size_t i = 0; i < nd; i++) {
		bool used = false;
		for (size_t k = 0; k < c->n_slots; k++)
			used |= c->dev[k] == devs[i];
		if (!used)
			sb_warn("%s: not needed by the profile, left alone", devs[i]->path);
	}
	/* Every reason for every device, then one verdict. */
	for (size_t k = 0; k < c->n_slots; k++) {
		const struct sb_device *d = c->dev[k];
		for (size_t i = 0; d->reasons && d->reasons[i]; i++) {
			if (c->o.wipe && strncmp(d->reasons[i], "carries signatures", 18) == 0)
				continue;
			if (enforce)
				sb_error("%s: refusing: %s", d->path, d->reasons[i]);
			else
				sb_warn("%s: run would refuse it: %s", d->path, d->reasons[i]);
			refused++;
		}
		if ((d->refuse & ~(unsigned)SB_REFUSE_SIGNATURES) == 0 && d->reasons &&
		    d->reasons[0] && !c->o.wipe && enforce)
			sb_info("%s: --wipe accepts a device whose signatures may be destroyed",
				d->path);
	}
	return refused && enforce ? SB_EXIT_REFUSED : 0;
}

static int build_plans(struct ctx *c)
{
	const char *paths[65];
	c->plans = calloc(c->n_var, sizeof(*c->plans));
	if (!c->plans)
		return SB_EXIT_FAILED;
	for (size_t k = 0; k < c->n_slots && c->dev; k++)
		paths[k] = c->dev[k]->path;
	for (size_t i = 0; i < c->n_var; i++) {
		struct sb_plan_in in = {.loop = c->o.loop,
					.quick = c->o.quick,
					.loop_dir = c->o.loop_dir,
					.loop_dir_forced = c->o.loop_dir != NULL};
		char *err = NULL;
		int r;
		if (!c->o.loop) {
			in.devs = paths;
			in.n_devs = c->n_slots;
		}
		r = sb_plan_build(&c->var[i].cfg, &in, &c->plans[i], &err);
		if (r < 0) {
			sb_error("%s: %s", c->prof->path, err ? err : strerror(-r));
			free(err);
			return SB_EXIT_USAGE;
		}
	}
	return 0;
}

static void set_device_vars(struct ctx *c, struct sb_exec *x)
{
	for (size_t k = 0; k < c->n_slots; k++)
		if (c->dev)
			sb_exec_set_var(x, c->slots[k].name, c->dev[k]->path);
}

/* The listing `plan` prints and `run` shows first: the executor's dry-run. */
static void print_plans(struct ctx *c, FILE *out)
{
	fprintf(out, "profile %s (%s): %zu variant%s\n", c->prof->name, c->prof->path, c->n_var,
		c->n_var == 1 ? "" : "s");
	for (size_t k = 0; k < c->n_slots; k++) {
		if (c->dev) {
			_cleanup_free_ char *d = describe_dev(c->dev[k]);
			fprintf(out, "  %-6s %s\n", c->slots[k].name, d ? d : c->dev[k]->path);
		} else if (c->o.loop) {
			fprintf(out, "  %-6s loop device (%s)\n", c->slots[k].name,
				c->slots[k].role == SB_ROLE_HDD ? "rotational" : "non-rotational");
		} else {
			fprintf(out, "  %-6s a %s device (give --devices or --loop)\n",
				c->slots[k].name, sb_role_names[c->slots[k].role]);
		}
	}
	for (size_t i = 0; i < c->prof->n_dropped; i++)
		fprintf(out, "left out: %s\n", c->prof->dropped[i]);
	for (size_t i = 0; i < c->n_var; i++) {
		struct sb_exec x;
		sb_exec_init(&x);
		x.dry_run = true;
		x.out = out;
		set_device_vars(c, &x);
		fprintf(out, "\nvariant %zu/%zu: %s\n", i + 1, c->n_var, c->var[i].name);
		sb_exec_plan(&x, &c->plans[i]);
		for (size_t w = 0; w < c->var[i].cfg.n_workloads; w++)
			fprintf(out, "      %-13s %s\n", "workload", c->var[i].cfg.workloads[w]);
		fprintf(out, "      %-13s undo steps %zu..1\n", "teardown", c->plans[i].n);
		sb_exec_release(&x);
	}
}

static int common_setup(struct ctx *c, const struct sb_cmdline *cl, int argc, char **argv,
			bool enforce)
{
	char **rest;
	int n, r;

	r = sb_opt_parse(cl, argc, argv, &rest, &n);
	if (r)
		return r < 0 ? -1 : r;
	if (n != 1)
		return sb_usage_error(
		    c->o.cmd,
		    n ? "expected one PROFILE, got %d arguments"
		      : "expected a PROFILE (a file or a name from 'stackbench list profiles')",
		    n);
	if (c->o.loop && c->o.devices)
		return sb_usage_error(c->o.cmd, "give either --devices or --loop, not both");
	r = load_profile(c, rest[0]);
	if (r)
		return r;
	if (c->o.devices) {
		r = resolve_devices(c, enforce);
		if (r)
			return r;
	}
	return build_plans(c);
}

int cmd_plan(int argc, char **argv)
{
	struct ctx c = {.o = {.cmd = "plan", .repeat = 1}};
	struct sb_cmdline cl = {
	    "plan",
	    "PROFILE [--devices A,B,C | --loop] [-o SECTION.KEY=VALUE]...",
	    "Print every step a run would take, with its undo, for every variant. "
	    "Touches nothing.",
	    plan_opts,
	    on_opt,
	    &c.o};
	int r = common_setup(&c, &cl, argc, argv, false);
	if (r == 0)
		print_plans(&c, stdout);
	ctx_free(&c);
	return r < 0 ? 0 : r;
}

/* ---- run ---- */

static volatile sig_atomic_t g_stop, g_wl_stop;

static void on_signal(int sig)
{
	g_stop = 1;
	g_wl_stop = 1;
}

static void on_alarm(int sig)
{
	g_wl_stop = 1;
}

static const char *state_dir(void)
{
	const char *s = getenv("STACKBENCH_STATE_DIR");
	return s && *s ? s : "/run/stackbench";
}

static int mkdir_p(const char *path, mode_t mode)
{
	_cleanup_free_ char *p = strdup(path);
	if (!p)
		return -ENOMEM;
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST)
			return negerrno();
		*s = '/';
	}
	if (mkdir(p, mode) < 0 && errno != EEXIST)
		return negerrno();
	return 0;
}

/* UTC time: 0 "20261130-054800" (run ids), 1 "20261130T054800Z" (result
 * directories), 2 ISO 8601. */
static char *utc_stamp(int form)
{
	char buf[64];
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	if (form == 0)
		strftime(buf, sizeof(buf), "%Y%m%d-%H%M%S", &tm);
	else if (form == 1)
		strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", &tm);
	else
		strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return strdup(buf);
}

/* On a terminal: type the device names to go on. */
static int confirm(struct ctx *c)
{
	char line[1024];
	size_t matched = 0;

	fprintf(stderr, "\nstackbench will DESTROY all data on:\n");
	for (size_t k = 0; k < c->n_slots; k++) {
		const struct sb_device *d = c->dev[k];
		_cleanup_free_ char *desc = describe_dev(d);
		fprintf(stderr, "  %-6s %s\n", c->slots[k].name, desc ? desc : d->path);
		for (size_t i = 0; i < d->n_sigs; i++)
			fprintf(stderr, "         signature: %s (%s)%s%s\n", d->sigs[i].type,
				d->sigs[i].usage ? d->sigs[i].usage : "?",
				d->sigs[i].label ? " label " : "",
				d->sigs[i].label ? d->sigs[i].label : "");
	}
	if (c->o.yes)
		return 0;
	if (!isatty(STDIN_FILENO)) {
		sb_error(
		    "refusing: give --yes to destroy these devices (no terminal to confirm on)");
		return SB_EXIT_REFUSED;
	}
	fprintf(stderr, "Type the device names to confirm (e.g. %s): ", c->dev[0]->path);
	if (!fgets(line, sizeof(line), stdin))
		return g_stop ? SB_EXIT_INTERRUPTED : SB_EXIT_REFUSED;
	char *save = NULL;
	for (char *w = strtok_r(line, " \t\n,", &save); w; w = strtok_r(NULL, " \t\n,", &save)) {
		bool ok = false;
		for (size_t k = 0; k < c->n_slots; k++)
			ok |= strcmp(w, c->dev[k]->path) == 0 || strcmp(w, c->dev[k]->name) == 0;
		if (!ok) {
			sb_error("refusing: '%s' is not one of the devices", w);
			return SB_EXIT_REFUSED;
		}
		matched++;
	}
	if (matched != c->n_slots) {
		sb_error("refusing: expected all %zu device names", c->n_slots);
		return SB_EXIT_REFUSED;
	}
	return 0;
}

/* Pids that hold a flock on the inode dev:ino, from /proc/locks (lines of
 * waiters, "N: -> FLOCK ...", are not holders and do not parse). */
static size_t flock_holders(dev_t dev, ino_t ino, pid_t *pids, size_t max)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/locks", "re");
	char line[256];
	size_t n = 0;

	while (f && n < max && fgets(line, sizeof(line), f)) {
		/* "1: FLOCK  ADVISORY  WRITE 1234 fe:00:5678 0 EOF" */
		char *tok[6], *save = NULL, *end;
		size_t nt = 0;
		for (char *t = strtok_r(line, " \t\n", &save); t && nt < ARRAY_SIZE(tok);
		     t = strtok_r(NULL, " \t\n", &save))
			tok[nt++] = t;
		if (nt < 6 || strcmp(tok[1], "FLOCK") != 0)
			continue;
		long pid = strtol(tok[4], &end, 10);
		unsigned long maj = strtoul(tok[5], &end, 16);
		if (*end != ':')
			continue;
		unsigned long min = strtoul(end + 1, &end, 16);
		if (*end != ':')
			continue;
		unsigned long long i = strtoull(end + 1, &end, 10);
		if (*end == '\0' && major(dev) == maj && minor(dev) == min && (ino_t)i == ino)
			pids[n++] = (pid_t)pid;
	}
	return n;
}

/* Is the holder of fd's flock a stackbench run, that is a process that also
 * holds the lock of a run in the state directory? */
static bool run_holds(int fd)
{
	DIR *d = NULL;
	pid_t dev_pids[16], run_pids[16];
	bool found = false;
	size_t n_dev, n_run;
	struct dirent *e;
	struct stat st;

	if (fstat(fd, &st) < 0)
		return false;
	n_dev = flock_holders(st.st_dev, st.st_ino, dev_pids, ARRAY_SIZE(dev_pids));
	d = n_dev ? opendir(state_dir()) : NULL;
	while (d && !found && (e = readdir(d))) {
		char lock[4096];
		if (e->d_name[0] == '.')
			continue;
		snprintf(lock, sizeof(lock), "%s/%s/lock", state_dir(), e->d_name);
		if (stat(lock, &st) < 0)
			continue;
		n_run = flock_holders(st.st_dev, st.st_ino, run_pids, ARRAY_SIZE(run_pids));
		for (size_t i = 0; i < n_run; i++)
			for (size_t k = 0; k < n_dev; k++)
				found |= run_pids[i] == dev_pids[k];
	}
	if (d)
		closedir(d);
	return found;
}

/* udevd probes a disk (blkid) under a shared flock after every close that
 * wrote to it, so a run started right after a teardown can find the lock
 * taken for a moment: wait that long, but not for another run. */
#define LOCK_WAIT_MS 5000

/* Holding an exclusive flock on each whole device keeps two runs apart. */
static int lock_devices(struct ctx *c, int *fds)
{
	char locked[65][300];
	size_t n_locked = 0;

	for (size_t k = 0; k < c->n_slots; k++) {
		const struct sb_device *d = c->dev[k];
		char path[300];
		bool again = false;
		snprintf(path, sizeof(path), "/dev/%s",
			 d->is_partition && d->parent ? d->parent : d->name);
		/* Two partitions of one disk: its lock is ours already (a second
		 * flock from this process would conflict with the first). */
		for (size_t i = 0; i < n_locked; i++)
			again |= strcmp(locked[i], path) == 0;
		if (again)
			continue;
		fds[k] = open(path, O_RDONLY | O_CLOEXEC);
		if (fds[k] < 0)
			fds[k] = open(d->path, O_RDONLY | O_CLOEXEC);
		for (unsigned waited = 0; fds[k] >= 0 && flock(fds[k], LOCK_EX | LOCK_NB) < 0;
		     waited += 100) {
			if (errno != EWOULDBLOCK) {
				sb_error_errno(negerrno(), "%s: cannot lock", path);
				return SB_EXIT_FAILED;
			}
			if (run_holds(fds[k])) {
				sb_error("%s: refusing: another stackbench run uses it", path);
				return SB_EXIT_REFUSED;
			}
			if (waited >= LOCK_WAIT_MS) {
				sb_error("%s: refusing: another program (udev, a tool) has held its "
					 "lock for %u s",
					 path, LOCK_WAIT_MS / 1000);
				return SB_EXIT_REFUSED;
			}
			if (g_stop)
				return SB_EXIT_INTERRUPTED;
			if (waited == 0)
				sb_verbose("%s: locked by another program: waiting", path);
			nanosleep(&(struct timespec){0, 100 * 1000000L}, NULL);
		}
		snprintf(locked[n_locked++], sizeof(locked[0]), "%s", path);
	}
	return 0;
}

static json_object *tool_versions(struct ctx *c)
{
	const char *progs[32];
	json_object *o = json_object_new_object();
	for (size_t i = 0; i < c->n_var; i++) {
		size_t n = (size_t)sb_plan_programs(&c->plans[i], progs, ARRAY_SIZE(progs));
		for (size_t k = 0; k < n; k++) {
			const char *p = progs[k];
			json_object *tmp;
			if (json_object_object_get_ex(o, p, &tmp) || strstr(p, "remove"))
				continue;
			/* e2fsprogs and xfsprogs know -V; the others --version. */
			bool dash_v = strncmp(p, "mkfs.ext", 8) == 0 || strcmp(p, "mkfs.xfs") == 0;
			const char *argv[] = {p, dash_v ? "-V" : "--version", NULL};
			struct sb_child ch = {
			    .argv = argv, .capture = true, .log_fd = -1, .timeout_ms = 5000};
			if (sb_spawn_run(&ch) == 0) {
				char *s = ch.out_len ? ch.out : ch.err;
				s[strcspn(s, "\n")] = '\0';
				json_object_object_add(o, p, json_object_new_string(s));
			}
			sb_child_release(&ch);
		}
	}
	return o;
}

/* Everything the plans need, checked before anything is touched, and all
 * that is missing reported at once (each layer knows its programs, their
 * packages and the kernel support it needs). */
static int check_programs(struct ctx *c)
{
	char *seen[64];
	size_t n_seen = 0;
	int missing = 0;

	for (size_t i = 0; i < c->n_var; i++) {
		char **msgs = NULL;
		int n = sb_plan_check(&c->plans[i], &msgs);
		for (int k = 0; k < n; k++) {
			bool dup = false;
			for (size_t j = 0; j < n_seen; j++)
				dup |= strcmp(seen[j], msgs[k]) == 0;
			if (!dup && n_seen < ARRAY_SIZE(seen)) {
				sb_error("%s", msgs[k]);
				seen[n_seen++] = msgs[k];
				missing++;
			} else {
				free(msgs[k]);
			}
		}
		free(msgs);
	}
	for (size_t j = 0; j < n_seen; j++)
		free(seen[j]);
	return missing ? SB_EXIT_FAILED : 0;
}

struct runstate {
	char *run_id, *run_dir, *journal, *results;
	int lock_fd, log_fd;
	unsigned fail_step;
	bool udev;
};

/* Builds one variant, runs its workloads, tears it down. Returns 0, or an
 * exit code after reporting. The repeat's results are added to rv. */
static int run_variant(struct ctx *c, struct runstate *rs, size_t vi, unsigned rep,
		       struct sb_variant *rv, bool *loops_probed, json_object *devices)
{
	const struct sb_pvariant *v = &c->var[vi];
	struct sb_exec x, u;
	struct sb_wl_result **wl = NULL;
	size_t n_wl = 0;
	int r, code = 0;
	_cleanup_free_ char *mnt = NULL, *started = utc_stamp(2);
	uint64_t limit_ms = sb_cfg_u64(&v->cfg, K_WL_TIME_LIMIT);

	sb_info("variant %zu/%zu (repeat %u): %s", vi + 1, c->n_var, rep + 1, v->name);
	dprintf(rs->log_fd, "\n=== variant %s, repeat %u\n", v->name, rep + 1);
	sb_exec_init(&x);
	x.log_fd = rs->log_fd;
	x.stop = &g_stop;
	x.fail_step = rs->fail_step;
	x.udev = rs->udev;
	sb_exec_set_var(&x, "run", rs->run_dir);
	sb_exec_set_var(&x, "id", rs->run_id);
	set_device_vars(c, &x);
	r = sb_journal_open(rs->journal, rs->run_id, &x.j);
	if (r < 0) {
		sb_error_errno(r, "%s: cannot create the journal", rs->journal);
		sb_exec_release(&x);
		return SB_EXIT_FAILED;
	}
	r = sb_exec_plan(&x, &c->plans[vi]);
	if (r < 0) {
		sb_error("%s: %s", v->name, x.errmsg ? x.errmsg : strerror(-r));
		code = g_stop	  ? SB_EXIT_INTERRUPTED
		       : x.refused ? SB_EXIT_REFUSED
				   : SB_EXIT_FAILED;
	}

	if (r == 0 && c->o.loop && !*loops_probed) {
		/* The loop devices as the probe sees them, for result.json. */
		const char *only[65];
		size_t n = 0;
		struct sb_probe *p = NULL;
		for (size_t k = 0; k < c->n_slots && n < 64; k++) {
			const char *d = sb_exec_var(&x, c->slots[k].name);
			if (d && strncmp(d, "/dev/loop", 9) == 0)
				only[n++] = d;
		}
		only[n] = NULL;
		if (n && sb_probe_scan(only, &p, NULL) == 0) {
			for (size_t i = 0; i < p->n; i++)
				json_object_array_add(devices, sb_device_to_json(&p->dev[i]));
			sb_probe_free(p);
		}
		*loops_probed = true;
	}

	if (r == 0) {
		mnt = sb_exec_expand(&x, c->plans[vi].mountpoint);
		for (size_t w = 0; w < v->cfg.n_workloads && !g_stop; w++) {
			const char *spec = v->cfg.workloads[w];
			struct sb_wl_env env = {.dir = mnt,
						.quick = c->o.quick,
						.log_fd = rs->log_fd,
						.stop = &g_wl_stop};
			struct sb_wl_result *res = NULL;
			char *err = NULL;

			g_wl_stop = g_stop;
			sb_info("workload %s", spec);
			dprintf(rs->log_fd, "== workload %s in %s\n", spec, mnt);
			if (limit_ms)
				alarm((unsigned)((limit_ms + 999) / 1000));
			r = sb_workload_run(spec, &env, &res, &err);
			alarm(0);
			if (res) {
				if (g_wl_stop && !g_stop)
					res->flags |= SB_RES_INCOMPLETE;
				struct sb_wl_result **nw = realloc(wl, (n_wl + 1) * sizeof(*nw));
				if (nw) {
					wl = nw;
					wl[n_wl++] = res;
				} else {
					sb_wl_result_free(res);
				}
			}
			if (r < 0 && g_wl_stop && !g_stop) {
				/* The time limit: keep what was measured, go on. */
				sb_warn("%s: workload %s stopped by workloads.time-limit", v->name,
					spec);
				dprintf(rs->log_fd, "!! workload %s: stopped by the time limit\n",
					spec);
				free(err);
				continue;
			}
			if (r < 0) {
				sb_error("%s: %s", v->name, err ? err : strerror(-r));
				dprintf(rs->log_fd, "!! workload %s: %s\n", spec,
					err ? err : strerror(-r));
				code = g_stop ? SB_EXIT_INTERRUPTED : SB_EXIT_FAILED;
				free(err);
				break;
			}
			free(err);
		}
		if (g_stop && !code)
			code = SB_EXIT_INTERRUPTED;
	}
	sb_journal_close(x.j);
	x.j = NULL;
	sb_exec_release(&x);

	/* Teardown from the journal, the same way `teardown` does it. */
	sb_exec_init(&u);
	u.log_fd = rs->log_fd;
	u.udev = rs->udev;
	dprintf(rs->log_fd, "== teardown\n");
	r = sb_exec_undo_journal(&u, rs->journal);
	if (r < 0) {
		sb_error("%s: teardown: %s (the journal is kept: run 'stackbench teardown %s')",
			 v->name, u.errmsg ? u.errmsg : strerror(-r), rs->run_id);
		/* An interruption stays one; anything else is a failure. */
		if (code != SB_EXIT_INTERRUPTED)
			code = SB_EXIT_FAILED;
	}
	sb_exec_release(&u);
	sb_variant_add_repeat(rv, rep, wl, n_wl);
	if (rv->n_rep) {
		free(rv->rep[rv->n_rep - 1].started);
		rv->rep[rv->n_rep - 1].started = TAKE_PTR(started);
	}
	free(wl);
	return code;
}

static int write_file(const char *path, const char *data, size_t len)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len)
		return negerrno();
	return 0;
}

static int profile_json(struct ctx *c, struct sb_resultset *set)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	_cleanup_fclose_ FILE *f = fopen(c->profile_path, "re");
	char hex[65], chunk[4096];
	size_t got;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return -ENOMEM;
	while (f && (got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, got, m);
	fclose(m);
	sb_sha256_hex(text ? text : "", len, hex);
	json_object *o = json_object_new_object(), *vars = json_object_new_array();
	json_object_object_add(o, "path", json_object_new_string(c->profile_path));
	json_object_object_add(o, "name", json_object_new_string(c->prof->name));
	json_object_object_add(o, "sha256", json_object_new_string(hex));
	json_object_object_add(o, "values", sb_config_to_json(&c->prof->base));
	json_object *ov = json_object_new_array();
	for (size_t i = 0; i < c->o.n_ov; i++)
		json_object_array_add(ov, json_object_new_string(c->o.ov[i]));
	json_object_object_add(o, "overrides", ov);
	for (size_t i = 0; i < c->n_var; i++) {
		json_object *v = json_object_new_object();
		json_object_object_add(v, "name", json_object_new_string(c->var[i].name));
		json_object_object_add(v, "values", sb_config_to_json(&c->var[i].cfg));
		json_object_array_add(vars, v);
	}
	json_object_object_add(o, "variants", vars);
	json_object_object_add(o, "loop", json_object_new_boolean(c->o.loop));
	json_object_object_add(o, "quick", json_object_new_boolean(c->o.quick));
	set->profile = o;
	return 0;
}

static void remove_run_dir(struct runstate *rs)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/lock", rs->run_dir);
	unlink(p);
	if (rmdir(rs->run_dir) < 0 && errno != ENOENT)
		sb_warn("%s: not removed: %s", rs->run_dir, strerror(errno));
}

int cmd_run(int argc, char **argv)
{
	struct ctx c = {.o = {.cmd = "run", .repeat = 1}};
	struct sb_cmdline cl = {
	    "run",
	    "PROFILE [--devices A,B,C | --loop] [--yes] [--results DIR] [--quick] "
	    "[--repeat N|auto] [-o SECTION.KEY=VALUE]...",
	    "Build the stack of every variant, run its workloads, tear it down, and "
	    "write a result set.",
	    run_opts,
	    on_opt,
	    &c.o};
	struct runstate rs = {.lock_fd = -1, .log_fd = -1};
	struct sb_resultset *set = NULL;
	int dev_fds[65], r, code = 0;
	bool loops_probed = false;
	_cleanup_free_ char *plan_text = NULL;
	size_t plan_len = 0;
	const char *fs = getenv("STACKBENCH_FAIL_STEP");

	for (size_t i = 0; i < ARRAY_SIZE(dev_fds); i++)
		dev_fds[i] = -1;
	r = common_setup(&c, &cl, argc, argv, true);
	if (r) {
		ctx_free(&c);
		return r < 0 ? 0 : r;
	}
	if (!c.o.loop && !c.o.devices) {
		ctx_free(&c);
		return sb_usage_error("run", "give --devices A,B,C or --loop");
	}
	/* From here on an interruption ends in a teardown, not a dead process. */
	struct sigaction sa = {.sa_handler = on_signal}, sal = {.sa_handler = on_alarm};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL); /* a closed terminal: tear down too */
	sigaction(SIGALRM, &sal, NULL);
	r = check_programs(&c);
	if (r)
		goto out;
	if (c.o.devices) {
		r = confirm(&c);
		if (r == 0)
			r = lock_devices(&c, dev_fds);
		if (r)
			goto out;
	}
	rs.fail_step = fs ? (unsigned)strtoul(fs, NULL, 10) : 0;
	rs.udev = sb_udev_running();

	/* State: <state>/<run-id>/{lock,journal,*.img,mnt}. */
	{
		char real[4096];
		const char *sd = state_dir();
		r = mkdir_p(sd, 0700);
		if (r < 0 || !realpath(sd, real)) {
			sb_error_errno(r < 0 ? r : negerrno(),
				       "%s: cannot create the state directory", sd);
			r = SB_EXIT_FAILED;
			goto out;
		}
		_cleanup_free_ char *stamp = utc_stamp(0);
		if (asprintf(&rs.run_id, "%s-%d", stamp, (int)getpid()) < 0 ||
		    asprintf(&rs.run_dir, "%s/%s", real, rs.run_id) < 0 ||
		    asprintf(&rs.journal, "%s/journal", rs.run_dir) < 0) {
			r = SB_EXIT_FAILED;
			goto out;
		}
	}
	if (mkdir(rs.run_dir, 0700) < 0) {
		sb_error_errno(negerrno(), "%s: cannot create", rs.run_dir);
		r = SB_EXIT_FAILED;
		goto out;
	}
	{
		char p[4096];
		snprintf(p, sizeof(p), "%s/lock", rs.run_dir);
		rs.lock_fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (rs.lock_fd < 0 || flock(rs.lock_fd, LOCK_EX) < 0) {
			sb_error_errno(negerrno(), "%s: cannot lock", p);
			r = SB_EXIT_FAILED;
			goto out_dir;
		}
	}

	/* Results directory, run log, the plan. */
	if (c.o.results) {
		rs.results = strdup(c.o.results);
	} else {
		_cleanup_free_ char *stamp = utc_stamp(1);
		if (asprintf(&rs.results, "results/%s-%s", stamp, c.prof->name) < 0)
			rs.results = NULL;
	}
	if (!rs.results || (r = mkdir_p(rs.results, 0755)) < 0) {
		sb_error_errno(r, "%s: cannot create the results directory",
			       rs.results ? rs.results : "?");
		r = SB_EXIT_FAILED;
		goto out_dir;
	}
	{
		char p[4096];
		snprintf(p, sizeof(p), "%s/run.log", rs.results);
		rs.log_fd = open(p, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (rs.log_fd < 0) {
			sb_error_errno(negerrno(), "%s: cannot create", p);
			r = SB_EXIT_FAILED;
			goto out_dir;
		}
		FILE *pf = open_memstream(&plan_text, &plan_len);
		if (pf) {
			print_plans(&c, pf);
			fclose(pf);
			snprintf(p, sizeof(p), "%s/plan.txt", rs.results);
			write_file(p, plan_text, plan_len);
			if (sb_log_level >= SB_LOG_NORMAL)
				fputs(plan_text, stderr);
		}
		dprintf(rs.log_fd, "stackbench %s run %s, profile %s, run id %s\n", SB_VERSION,
			c.o.loop ? "--loop" : c.o.devices, c.profile_path, rs.run_id);
	}

	set = sb_resultset_new("run");
	if (!set) {
		r = SB_EXIT_FAILED;
		goto out_dir;
	}
	json_object_put(set->host);
	json_object_put(set->tools);
	json_object_put(set->devices);
	set->host = sb_host_facts();
	set->tools = tool_versions(&c);
	set->devices = json_object_new_array();
	for (size_t k = 0; c.dev && k < c.n_slots; k++) {
		json_object *d = sb_device_to_json(c.dev[k]);
		if (d)
			json_object_object_add(d, "role", json_object_new_string(c.slots[k].name));
		json_object_array_add(set->devices, d);
	}
	profile_json(&c, set);

	for (size_t i = 0; i < c.n_var; i++)
		if (!sb_resultset_variant(set, c.var[i].name, json_object_get(c.var[i].params))) {
			r = SB_EXIT_FAILED;
			goto out_dir;
		}
	/* Interleaved (A B A B) so that drift over time hits every variant alike. */
	unsigned n_rep = c.o.repeat ? c.o.repeat : SB_REPEAT_AUTO_MAX;
	for (unsigned rep = 0, more = 1; rep < n_rep && more && !code; rep++)
		for (size_t i = more = 0; i < c.n_var && !code; i++)
			if (c.o.repeat || sb_variant_needs_repeat(&set->var[i], n_rep))
				more = 1, code = run_variant(&c, &rs, i, rep, &set->var[i],
							     &loops_probed, set->devices);

	r = sb_resultset_write(set, rs.results);
	if (r < 0)
		sb_error_errno(r, "%s: cannot write result.json", rs.results);
	else if (!code && sb_report_print(set, "text", stdout, NULL) == 0)
		printf("\nresults: %s\n", rs.results);
	else if (!code)
		printf("%s\n", rs.results);
	if (code == SB_EXIT_INTERRUPTED)
		sb_error("interrupted: torn down");
	r = code ? code : (r < 0 ? SB_EXIT_FAILED : 0);

out_dir:
	/* Keep the run directory while its journal says something is left. */
	if (rs.run_dir && access(rs.journal, F_OK) != 0)
		remove_run_dir(&rs);
out:
	sb_resultset_free(set);
	if (rs.log_fd >= 0)
		close(rs.log_fd);
	if (rs.lock_fd >= 0)
		close(rs.lock_fd);
	for (size_t i = 0; i < ARRAY_SIZE(dev_fds); i++)
		if (dev_fds[i] >= 0)
			close(dev_fds[i]);
	free(rs.run_id);
	free(rs.run_dir);
	free(rs.journal);
	free(rs.results);
	ctx_free(&c);
	return r;
}

/* ---- teardown ---- */

static int teardown_one(const char *sd, const char *id, bool explicit_id)
{
	char dir[4096], journal[4200], lock[4200];
	_cleanup_close_ int lfd = -1;
	struct sb_exec u;
	struct sb_jread jr = {0};
	int r;

	snprintf(dir, sizeof(dir), "%s/%s", sd, id);
	snprintf(journal, sizeof(journal), "%s/journal", dir);
	snprintf(lock, sizeof(lock), "%s/lock", dir);
	lfd = open(lock, O_RDWR | O_CLOEXEC);
	if (lfd >= 0 && flock(lfd, LOCK_EX | LOCK_NB) < 0) {
		long pid = 0;
		if (sb_journal_read(journal, &jr) == 0)
			pid = jr.pid;
		sb_jread_free(&jr);
		if (explicit_id) {
			sb_error("%s: run in progress (pid %ld): not touching it", id, pid);
			return SB_EXIT_FAILED;
		}
		sb_warn("%s: run in progress (pid %ld): skipped", id, pid);
		return 0;
	}
	if (access(journal, F_OK) == 0 && sb_journal_read(journal, &jr) == 0) {
		sb_info("%s: undoing %zu step%s%s", id, jr.n, jr.n == 1 ? "" : "s",
			jr.torn ? " (torn last record skipped)" : "");
		sb_jread_free(&jr);
	}
	sb_exec_init(&u);
	u.udev = sb_udev_running();
	r = sb_exec_undo_journal(&u, journal);
	if (r < 0) {
		sb_error("%s: %s (journal kept)", id, u.errmsg ? u.errmsg : strerror(-r));
		sb_exec_release(&u);
		return SB_EXIT_FAILED;
	}
	sb_exec_release(&u);
	unlink(lock);
	if (rmdir(dir) < 0 && errno != ENOENT) {
		sb_error("%s: %s not removed: %s", id, dir, strerror(errno));
		return SB_EXIT_FAILED;
	}
	sb_info("%s: torn down", id);
	return 0;
}

int cmd_teardown(int argc, char **argv)
{
	struct opts o = {.cmd = "teardown"};
	struct sb_cmdline cl = {"teardown",
				"[RUN-ID | --all]",
				"Undo, from its journal, what an interrupted or killed run left "
				"behind. Safe to run twice.",
				teardown_opts,
				on_opt,
				&o};
	const char *sd = state_dir();
	char **rest;
	int n, r, code = 0;

	r = sb_opt_parse(&cl, argc, argv, &rest, &n);
	if (r)
		return r < 0 ? 0 : r;
	if ((n == 1) == o.all || n > 1) {
		/* Name the runs there are, so that the next command can be typed. */
		struct dirent **ents = NULL;
		int ne = scandir(sd, &ents, NULL, alphasort);
		for (int i = 0; i < ne; i++) {
			if (ents[i]->d_name[0] != '.')
				fprintf(stderr, "run left in %s: %s\n", sd, ents[i]->d_name);
			free(ents[i]);
		}
		free(ents);
		return sb_usage_error("teardown", "give one RUN-ID or --all");
	}
	if (n == 1) {
		char p[4096];
		struct stat st;
		if (strchr(rest[0], '/') || rest[0][0] == '.')
			return sb_usage_error("teardown", "'%s' is not a run id", rest[0]);
		snprintf(p, sizeof(p), "%s/%s", sd, rest[0]);
		if (stat(p, &st) < 0 || !S_ISDIR(st.st_mode)) {
			sb_error("%s: no such run in %s", rest[0], sd);
			return SB_EXIT_USAGE;
		}
		return teardown_one(sd, rest[0], true);
	}
	struct dirent **ents = NULL;
	int ne = scandir(sd, &ents, NULL, alphasort), runs = 0;
	for (int i = 0; i < ne; i++) {
		const char *id = ents[i]->d_name;
		char p[4096];
		struct stat st;
		snprintf(p, sizeof(p), "%s/%s", sd, id);
		if (id[0] != '.' && stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			runs++;
			r = teardown_one(sd, id, false);
			if (r && !code)
				code = r;
		}
		free(ents[i]);
	}
	free(ents);
	if (runs == 0)
		sb_info("nothing to tear down in %s", sd);
	return code;
}
