/* The scenario step: take a member out of an md array (fail, remove) or
 * remount btrfs RAID degraded without it, and add it back (md re-add or
 * add, btrfs replace) right before the workloads, which then run during the
 * resync. Undo has nothing of its own to put back: the md layer's undo stops
 * the array and zeroes every member (a removed one included), the mount's
 * unmounts whatever is mounted there, mkfs's wipes every device; a btrfs
 * replace still running is cancelled first. */
#include "stack/scenario.h"
#include "stack/plan.h"
#include "stack/layers.h"
#include "util/macro.h"
#include "util/size.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/btrfs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define A struct sb_scen_args
static const struct sb_field fields[] = {
    SB_FIELD(A, action, SB_FT_STR, SB_FF_REQUIRED),
    SB_FIELD(A, kind, SB_FT_STR, SB_FF_REQUIRED),
    SB_FIELD(A, array, SB_FT_STR, SB_FF_OPTIONAL),
    SB_FIELD(A, member, SB_FT_DEV, SB_FF_REQUIRED | SB_FF_IDENT),
    SB_FIELD(A, with, SB_FT_STR, SB_FF_OPTIONAL),
    SB_FIELD(A, dir, SB_FT_PATH, 0),
    SB_FIELD(A, devs, SB_FT_STRV, 0),
    SB_FIELD(A, options, SB_FT_STR, SB_FF_OPTIONAL),
    SB_FIELD(A, devid, SB_FT_U64, 0),
    SB_FIELD(A, limit_ms, SB_FT_U64, 0),
    SB_FIELD(A, fill, SB_FT_U64, 0),
    SB_FIELD(A, fill_pct, SB_FT_BOOL, 0),
};
#undef A

static const struct sb_prog progs[] = {{"mdadm", "mdadm"}, {"btrfs", "btrfs-progs"}, {NULL, NULL}};
static const struct sb_prog md_progs[] = {{"mdadm", "mdadm"}, {NULL, NULL}};
static const struct sb_prog btrfs_progs[] = {{"btrfs", "btrfs-progs"}, {NULL, NULL}};

static bool is_md(const struct sb_scen_args *a)
{
	return strcmp(a->kind, "md") == 0;
}
static bool is_rebuild(const struct sb_scen_args *a)
{
	return strcmp(a->action, "rebuild") == 0;
}

static const struct sb_prog *programs(const void *args)
{
	return is_md(args) ? md_progs : btrfs_progs;
}

static double now_real(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- plan ---- */

int sb_scen_plan_step(const struct sb_config *c, const char *action, bool after_mount,
		      const struct sb_list *fs_devs, const char *dir, const char *options,
		      struct sb_scen_args *a)
{
	enum sb_scen_kind kind = sb_scen_kind(c);
	bool rebuild = strcmp(action, "rebuild") == 0;
	struct sb_scen_cfg s;
	char var[40], *why = NULL;

	sb_scen_cfg_read(c, &s);
	if (sb_scen_member(c, var, sizeof(var), &why) != 0) {
		free(why);
		return 0;
	}
	if (kind == SB_SCEN_NONE || (rebuild && strcmp(s.rebuild, "none") == 0))
		return 0;
	/* md degrades right after the array exists (mkfs and mount then
	 * write a degraded array); btrfs needs its file system first. */
	if (rebuild ? !after_mount : after_mount != (kind == SB_SCEN_BTRFS))
		return 0;
	if (!a)
		return 1;
	a->action = strdup(action);
	a->kind = strdup(kind == SB_SCEN_MD ? "md" : "btrfs");
	if (asprintf(&a->member, "${%s}", var) < 0)
		abort();
	a->limit_ms = s.rebuild_limit_ms;
	/* The fill goes in where the rebuild will have to copy it: btrfs
	 * before the member goes, md while it is out. */
	if (rebuild == (kind == SB_SCEN_MD)) {
		a->fill = s.fill.v;
		a->fill_pct = s.fill.pct;
	}
	if (dir)
		a->dir = strdup(dir);
	if (kind == SB_SCEN_MD) {
		bool bitmap = sb_md_bitmap_internal(c);
		a->array = strdup("${md}");
		if (rebuild)
			a->with = strdup(strcmp(s.rebuild_with, "auto") != 0 ? s.rebuild_with
					 : bitmap			     ? "re-add"
									     : "add");
		return 1;
	}
	if (rebuild)
		a->with = strdup("replace");
	if (options)
		a->options = strdup(options);
	for (size_t i = 0; fs_devs && i < fs_devs->n; i++) {
		sb_list_add(&a->devs, fs_devs->v[i]);
		if (strcmp(fs_devs->v[i], a->member) == 0)
			a->devid = i + 1; /* mkfs.btrfs numbers devices in its order */
	}
	return 1;
}

/* ---- the step ---- */

static int describe(const void *args, char **what, char **undo)
{
	const struct sb_scen_args *a = args;
	int r;
	if (is_md(a) && !is_rebuild(a))
		r = asprintf(what, "wait for %s's resync; mdadm %s --fail %s; mdadm %s --remove %s",
			     a->array, a->array, a->member, a->array, a->member);
	else if (is_md(a))
		r = asprintf(what, "%s%s%smdadm %s --%s %s (the workloads run during the recovery)",
			     strcmp(a->with, "add") == 0 ? "mdadm --zero-superblock " : "",
			     strcmp(a->with, "add") == 0 ? a->member : "",
			     strcmp(a->with, "add") == 0 ? "; " : "", a->array, a->with, a->member);
	else if (!is_rebuild(a))
		r = asprintf(what, "umount %s; wipefs -a %s; mount -o degraded %s (without %s)",
			     a->dir, a->member, a->dir, a->member);
	else
		r = asprintf(what,
			     "btrfs replace start -f %llu %s %s (the workloads run during the "
			     "replace)",
			     (unsigned long long)a->devid, a->member, a->dir);
	if (r < 0)
		return -ENOMEM;
	if (a->fill) {
		char *w2 = NULL;
		if (asprintf(&w2, "write %llu%s of pattern data in %s; %s",
			     (unsigned long long)a->fill,
			     a->fill_pct ? "% of the free space" : " bytes", a->dir, *what) < 0)
			return -ENOMEM;
		free(*what);
		*what = w2;
	}
	r = asprintf(undo, "%s",
		     is_md(a) ? "nothing of its own (the array's undo stops it and zeroes every "
				"member)"
		     : is_rebuild(a) ? "btrfs replace cancel (then the mount's undo)"
				     : "nothing of its own (the mount's undo unmounts)");
	return r < 0 ? -ENOMEM : 0;
}

/* /sys/block/mdX/md for the array's node (resolving /dev/md/NAME). */
static int md_sys(const char *array, char *buf, size_t len)
{
	_cleanup_free_ char *name = sb_sys_name(array);
	if (!name)
		return -ENOENT;
	snprintf(buf, len, "/sys/block/%s/md", name);
	return access(buf, F_OK) == 0 ? 0 : -ENOENT;
}

static int md_wait_idle(struct sb_exec *x, const char *sys, uint64_t limit_ms)
{
	char p[200], st[32];
	snprintf(p, sizeof(p), "%s/sync_action", sys);
	for (uint64_t t = 0; !limit_ms || t < limit_ms; t += 100) {
		if (sb_sys_read(p, st, sizeof(st)) < 0)
			return sb_exec_fail(x, -EIO, "%s: unreadable", p);
		if (strcmp(st, "idle") == 0)
			return 0;
		if (x->stop && *x->stop)
			return -EINTR;
		usleep(100000);
	}
	return sb_exec_fail(x, -ETIMEDOUT, "%s: still '%s' after scenario.rebuild-limit", p, st);
}

static int md_degrade(const struct sb_scen_args *a, struct sb_exec *x)
{
	char sys[160];
	int r = md_sys(a->array, sys, sizeof(sys));
	if (r < 0)
		return sb_exec_fail(x, r, "%s: not an md array", a->array);
	/* Take the member out of a consistent array: the initial resync ends
	 * first (fresh disks given with md.assume-clean have none). */
	r = md_wait_idle(x, sys, a->limit_ms);
	if (r < 0)
		return r;
	const char *fail[] = {"mdadm", a->array, "--fail", a->member, NULL};
	const char *rm[] = {"mdadm", a->array, "--remove", a->member, NULL};
	r = sb_exec_cmd(x, fail);
	if (r < 0)
		return r;
	/* md may still hold the failed member for a moment. */
	for (int i = 0; i < 50; i++) {
		int st = 0;
		r = sb_exec_cmd_quiet(x, rm, &st);
		if (r == 0 && st == 0)
			return 0;
		usleep(100000);
	}
	return sb_exec_cmd(x, rm);
}

static int md_rebuild(const struct sb_scen_args *a, struct sb_exec *x)
{
	int r;
	if (strcmp(a->with, "add") == 0) {
		/* A blank member: md recovers all of it. */
		const char *z[] = {"mdadm", "--zero-superblock", a->member, NULL};
		r = sb_exec_cmd(x, z);
		if (r < 0)
			return r;
	}
	char opt[16];
	snprintf(opt, sizeof(opt), "--%s", a->with);
	const char *add[] = {"mdadm", a->array, opt, a->member, NULL};
	return sb_exec_cmd(x, add);
}

/* umount, then mount again from the other devices with -o degraded. */
static int btrfs_degrade(const struct sb_scen_args *a, struct sb_exec *x)
{
	struct sb_mount_args m = {.dir = a->dir, .type = (char *)"btrfs"};
	_cleanup_free_ char *opts = NULL;
	json_object *res = json_object_new_object();
	int r;

	m.devs = (struct sb_list){0};
	r = sb_layer_mount.undo(&m, NULL, x);
	if (r < 0)
		goto out;
	r = sb_wipe_signatures(a->member);
	if (r < 0) {
		r = sb_exec_fail(x, r, "%s: cannot wipe: %s", a->member, strerror(-r));
		goto out;
	}
	sb_btrfs_forget(a->member);
	for (size_t i = 0; i < a->devs.n; i++)
		if (strcmp(a->devs.v[i], a->member) != 0)
			sb_list_add(&m.devs, a->devs.v[i]);
	if (asprintf(&opts, "degraded%s%s", a->options ? "," : "", a->options ? a->options : "") <
	    0) {
		r = -ENOMEM;
		goto out;
	}
	m.options = opts;
	r = sb_layer_mount.run(&m, res, x);
	sb_list_free(&m.devs);
out:
	json_object_put(res);
	return r;
}

static int run(void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_scen_args *a = args;
	int r;

	if (a->fill && a->dir) {
		uint64_t bytes = a->fill;
		struct statvfs sv;
		if (a->fill_pct)
			bytes = statvfs(a->dir, &sv) == 0
				    ? (uint64_t)sv.f_bavail * sv.f_frsize / 100 * a->fill
				    : 0;
		r = sb_scen_fill_write(a->dir, bytes, x->stop);
		if (r < 0)
			return sb_exec_fail(x, r, "%s: scenario.fill: cannot write %llu bytes: %s",
					    a->dir, (unsigned long long)bytes, strerror(-r));
		sb_exec_log(x, "scenario: %llu bytes of pattern data written in %s\n",
			    (unsigned long long)bytes, a->dir);
		json_object_object_add(result, "fill_bytes", json_object_new_int64((int64_t)bytes));
	}
	if (is_md(a))
		r = is_rebuild(a) ? md_rebuild(a, x) : md_degrade(a, x);
	else if (!is_rebuild(a))
		r = btrfs_degrade(a, x);
	else {
		char id[24];
		snprintf(id, sizeof(id), "%llu", (unsigned long long)a->devid);
		const char *rep[] = {"btrfs", "replace", "start", "-f",
				     id,      a->member, a->dir,  NULL};
		r = sb_exec_cmd(x, rep);
	}
	if (r < 0)
		return r;
	json_object_object_add(result, "started", json_object_new_double(now_real()));
	sb_exec_log(x, "scenario: %s %s%s%s\n", a->action, a->member, a->with ? " with " : "",
		    a->with ? a->with : "");
	return 0;
}

static int undo(const void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_scen_args *a = args;
	if (is_md(a) || !is_rebuild(a) || !a->dir || strstr(a->dir, "${"))
		return 0;
	/* A replace still running would keep the file system busy. */
	const char *cancel[] = {"btrfs", "replace", "cancel", a->dir, NULL};
	int st;
	if (access(a->dir, F_OK) == 0)
		sb_exec_cmd_quiet(x, cancel, &st);
	return 0;
}

static void scen_follow(const void *cfg, struct sb_pctx *b, enum sb_step_kind done);

const struct sb_layer sb_layer_scen = {
    .kind = "scenario",
    .args_size = sizeof(struct sb_scen_args),
    .fields = fields,
    .n_fields = ARRAY_SIZE(fields),
    .progs = progs,
    .programs = programs,
    .describe = describe,
    .run = run,
    .undo = undo,
    .keytab = &sb_keytab_scen,
    .follow = scen_follow,
};

/* ---- pure parsers ---- */

/* A decimal number at *s (digits only, no sign), *s moved past it. */
static bool take_u64(const char **s, uint64_t *v)
{
	char *end;
	if (**s < '0' || **s > '9')
		return false;
	errno = 0;
	*v = strtoull(*s, &end, 10);
	if (errno)
		return false;
	*s = end;
	return true;
}

int sb_md_parse_sync_completed(const char *s, uint64_t *done, uint64_t *total)
{
	uint64_t d, t;
	while (*s == ' ' || *s == '\t')
		s++;
	if (strncmp(s, "none", 4) == 0 && (!s[4] || s[4] == '\n'))
		return 1;
	if (!take_u64(&s, &d) || strncmp(s, " / ", 3) != 0)
		return -EINVAL;
	s += 3;
	if (!take_u64(&s, &t) || d > t)
		return -EINVAL;
	for (; *s == ' ' || *s == '\n'; s++)
		;
	if (*s)
		return -EINVAL;
	*done = d;
	*total = t;
	return 0;
}

int sb_btrfs_parse_scrub(const char *text, struct sb_scrub_counts *out)
{
	static const struct {
		const char *name;
		unsigned what; /* 1 error, 2 uncorrectable, 4 corrected, 8 bytes */
	} keys[] = {
	    {"read_errors", 1},		{"csum_errors", 1},	 {"verify_errors", 1},
	    {"super_errors", 1},	{"malloc_errors", 1},	 {"uncorrectable_errors", 3},
	    {"unverified_errors", 0},	{"corrected_errors", 4}, {"data_bytes_scrubbed", 8},
	    {"tree_bytes_scrubbed", 8},
	};
	*out = (struct sb_scrub_counts){0};
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		while (*l == ' ' || *l == '\t')
			l++;
		for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
			size_t n = strlen(keys[k].name);
			char *end;
			if (strncmp(l, keys[k].name, n) != 0 || l[n] != ':')
				continue;
			const char *v = l + n + 1;
			while (*v == ' ')
				v++;
			if (*v < '0' || *v > '9')
				break;
			unsigned long long x = strtoull(v, &end, 10);
			if (keys[k].what & 1)
				out->errors += x;
			if (keys[k].what & 2)
				out->uncorrectable += x;
			if (keys[k].what & 4)
				out->corrected += x;
			if (keys[k].what & 8)
				out->bytes += x;
			out->seen++;
			break;
		}
	}
	return out->seen ? 0 : -EINVAL;
}

int sb_mdstat_progress(const char *text, const char *name, unsigned *permille, uint64_t *kbps)
{
	size_t n = strlen(name);
	const char *l = text;
	/* "md127 : active raid1 sdb[2] sda[0]" then its indented lines. */
	for (; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, name, n) == 0 && (l[n] == ' ' || l[n] == ':'))
			break;
	if (!l || !*l)
		return -ENOENT;
	for (l = strchr(l, '\n'); l && l[1] == ' '; l = strchr(l + 1, '\n')) {
		const char *eq = strstr(l + 1, "% (");
		const char *nl = strchr(l + 1, '\n');
		const char *sp;
		if (!eq || (nl && eq > nl))
			continue;
		const char *p = eq;
		while (p > l + 1 && (p[-1] == '.' || (p[-1] >= '0' && p[-1] <= '9')))
			p--;
		uint64_t whole, frac = 0, k;
		if (!take_u64(&p, &whole) || whole > 100)
			return -EINVAL;
		if (*p == '.') {
			p++;
			if (*p < '0' || *p > '9')
				return -EINVAL;
			frac = (uint64_t)(*p - '0');
		}
		*permille = (unsigned)(whole * 10 + frac);
		*kbps = 0;
		sp = strstr(eq, "speed=");
		if (sp && (!nl || sp < nl)) {
			sp += 6;
			if (take_u64(&sp, &k))
				*kbps = k;
		}
		return 0;
	}
	return 1;
}

/* ---- the rebuild's watch ---- */

/* One sample: is the rebuild still running, and how far is it? */
static bool watch_sample(struct sb_scen_watch *w, uint64_t *done)
{
	if (strcmp(w->kind, "md") == 0) {
		char p[200], buf[64], act[32] = "";
		uint64_t d, t;
		snprintf(p, sizeof(p), "%s/sync_action", w->sys);
		sb_sys_read(p, act, sizeof(act));
		snprintf(p, sizeof(p), "%s/sync_completed", w->sys);
		if (sb_sys_read(p, buf, sizeof(buf)) >= 0 &&
		    sb_md_parse_sync_completed(buf, &d, &t) == 0) {
			*done = d;
			w->total = t;
			return true;
		}
		*done = w->total;
		/* Until md starts the recovery the array is still degraded. */
		snprintf(p, sizeof(p), "%s/degraded", w->sys);
		if (sb_sys_read(p, buf, sizeof(buf)) >= 0 && strcmp(buf, "0") != 0)
			return true;
		return strcmp(act, "recover") == 0 || strcmp(act, "resync") == 0;
	}
	_cleanup_close_ int fd = open(w->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct btrfs_ioctl_dev_replace_args ra = {.cmd = BTRFS_IOCTL_DEV_REPLACE_CMD_STATUS};
	if (fd < 0 || ioctl(fd, BTRFS_IOC_DEV_REPLACE, &ra) < 0) {
		*done = w->total;
		return false;
	}
	w->total = 1000;
	*done = ra.status.progress_1000;
	if (ra.status.replace_state == BTRFS_IOCTL_DEV_REPLACE_STATE_FINISHED)
		*done = 1000;
	return ra.status.replace_state == BTRFS_IOCTL_DEV_REPLACE_STATE_STARTED;
}

static void *watch_thread(void *ud)
{
	struct sb_scen_watch *w = ud;
	while (!w->quit) {
		uint64_t d = 0;
		bool on = watch_sample(w, &d);
		w->done_last = d;
		if (!on && !w->finished)
			w->finished = now_real();
		if (w->finished)
			break;
		usleep(200000);
	}
	return NULL;
}

int sb_scen_watch_start(struct sb_scen_watch *w, const char *journal, struct sb_exec *x)
{
	struct sb_jread jr = {0};
	int r = 1;

	*w = (struct sb_scen_watch){0};
	if (sb_journal_read(journal, &jr) < 0)
		return 1;
	for (size_t i = 0; i < jr.n; i++) {
		json_object *res = jr.rec[i].result, *st;
		const char *act = sb_json_str(jr.rec[i].args, "action");
		const char *kind = sb_json_str(jr.rec[i].args, "kind");
		if (strcmp(jr.rec[i].kind, "scenario") != 0 || !res || !act || !kind ||
		    strcmp(act, "rebuild") != 0)
			continue;
		snprintf(w->kind, sizeof(w->kind), "%s", kind);
		w->started = json_object_object_get_ex(res, "started", &st)
				 ? json_object_get_double(st)
				 : now_real();
		if (strcmp(kind, "md") == 0) {
			const char *md = sb_exec_var(x, "md");
			if (!md || md_sys(md, w->sys, sizeof(w->sys)) < 0)
				break;
		} else {
			_cleanup_free_ char *d = sb_exec_expand(x, "${run}/mnt");
			snprintf(w->dir, sizeof(w->dir), "%s", d ? d : "");
		}
		r = 0;
		break;
	}
	sb_jread_free(&jr);
	if (r)
		return r;
	w->active = true;
	w->wl_begin = now_real();
	watch_sample(w, &w->done_begin);
	/* The thread takes no signal: SIGALRM (the workload time limit) and
	 * SIGINT must interrupt the workload's system calls, not its sleep. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	w->th_on = pthread_create(&w->th, NULL, watch_thread, w) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return 0;
}

json_object *sb_scen_watch_end(struct sb_scen_watch *w, uint64_t limit_ms,
			       volatile sig_atomic_t *stop)
{
	json_object *o;
	double t0;

	if (!w->active)
		return NULL;
	w->wl_end = now_real();
	w->done_end = w->finished ? w->total : w->done_last;
	bool outlasted = !w->finished;
	t0 = now_real();
	while (w->th_on && !w->finished && (!stop || !*stop) &&
	       (!limit_ms || (now_real() - t0) * 1000 < (double)limit_ms))
		usleep(100000);
	w->quit = true;
	if (w->th_on)
		pthread_join(w->th, NULL);
	double end_load = w->finished && w->finished < w->wl_end ? w->finished : w->wl_end;
	double under = end_load - w->wl_begin;
	o = json_object_new_object();
	json_object_object_add(o, "kind", json_object_new_string(w->kind));
	json_object_object_add(o, "finished", json_object_new_boolean(w->finished > 0));
	if (w->finished)
		json_object_object_add(o, "seconds",
				       json_object_new_double(w->finished - w->started));
	json_object_object_add(o, "under_load_seconds",
			       json_object_new_double(under > 0 ? under : 0));
	json_object_object_add(o, "outlasted_workloads", json_object_new_boolean(outlasted));
	if (strcmp(w->kind, "md") == 0 && under > 0.05) {
		/* sectors of 512 bytes recovered while the workloads ran */
		uint64_t d = w->done_end >= w->done_begin ? w->done_end - w->done_begin : 0;
		json_object_object_add(o, "rate_under_load_mbps",
				       json_object_new_double((double)d * 512 / 1e6 / under));
		json_object_object_add(o, "total_bytes",
				       json_object_new_int64((int64_t)(w->total * 512)));
	} else if (under > 0.05) {
		uint64_t d = w->done_end >= w->done_begin ? w->done_end - w->done_begin : 0;
		json_object_object_add(o, "progress_per_mille_under_load",
				       json_object_new_int64((int64_t)d));
	}
	w->active = false;
	return o;
}

/* The degrade and rebuild steps at this point of the stack: right after
 * the array's layer (mnt NULL) or right after the mount (mnt its step). */
static void scen_plan(struct sb_pctx *b, const struct sb_mount_args *mnt)
{
	static const char *const acts[] = {"degrade", "rebuild"};
	bool after_mount = mnt != NULL;

	for (size_t i = 0; i < ARRAY_SIZE(acts); i++)
		if (sb_scen_plan_step(b->c, acts[i], after_mount, NULL, NULL, NULL, NULL))
			sb_scen_plan_step(b->c, acts[i], after_mount, mnt ? &mnt->devs : NULL,
					  mnt ? mnt->dir : NULL, mnt ? mnt->options : NULL,
					  sb_plan_add_step(b, SB_STEP_SCEN));
}

/* After each layer's plan: a member goes right after the layer of the
 * array (md) or after the mount (btrfs), and comes back after the mount;
 * no layer calls the scenario by name. */
static void scen_follow(const void *cfg, struct sb_pctx *b, enum sb_step_kind done)
{
	const struct sb_mount_args *mnt = NULL;

	(void)cfg;
	if (done != SB_STEP_MOUNT) {
		if (done == sb_scen_after(b->c))
			scen_plan(b, NULL);
		return;
	}
	for (size_t i = b->p->n; i-- > 0 && !mnt;)
		if (b->p->steps[i].kind == SB_STEP_MOUNT)
			mnt = b->p->steps[i].args;
	if (mnt)
		scen_plan(b, mnt);
}
