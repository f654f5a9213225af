/* Queue settings of whole devices (I/O scheduler, read-ahead) through sysfs;
 * the old values are read before the begin record so that undo can put
 * them back from the journal alone. */
#include "stack/capture.h"
#include "stack/layers.h"
#include "stack/plan.h"
#include "util/parse.h"
#include "util/macro.h"
#include "util/strutil.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* A partition has no queue of its own: its disk's is the one (the kernel
 * resolves ".." from the partition's real directory). */
static void qpath(const char *dev, const char *attr, char *buf, size_t len)
{
	_cleanup_free_ char *name = sb_sys_name(dev);
	char part[300];
	snprintf(part, sizeof(part), "/sys/class/block/%s/partition", name ? name : "?");
	snprintf(buf, len, "/sys/class/block/%s/%squeue/%s", name ? name : "?",
		 access(part, F_OK) == 0 ? "../" : "", attr);
}

/* "none [mq-deadline] kyber" -> "mq-deadline" */
/* The scheduler in use, and the offered ones (blank-separated) when all is
 * given: one parser for this file, the probe's (util/parse.h). */
static int current_scheduler(const char *dev, char *out, size_t len, char *all, size_t alen)
{
	char p[300], buf[256];
	int r;
	qpath(dev, "scheduler", p, sizeof(p));
	r = sb_sys_read(p, buf, sizeof(buf));
	if (r < 0)
		return r;
	return sb_scheduler_parse(buf, out, len, all, alen);
}

#define A struct sb_queue_args
static const struct sb_field fields[] = {
    SB_FIELD(A, dev, SB_FT_DEV, SB_FF_REQUIRED | SB_FF_IDENT),
    SB_FIELD(A, scheduler, SB_FT_STR, SB_FF_OPTIONAL),
    SB_FIELD(A, read_ahead, SB_FT_BOOL, 0),
    SB_FIELD(A, read_ahead_kb, SB_FT_U64, 0),
    SB_FIELD(A, old_scheduler, SB_FT_STR, SB_FF_OPTIONAL),
    SB_FIELD(A, old_read_ahead, SB_FT_BOOL, 0),
    SB_FIELD(A, old_read_ahead_kb, SB_FT_U64, 0),
};
#undef A

static int describe(const void *args, char **what, char **undo)
{
	const struct sb_queue_args *a = args;
	char *w = NULL, *u = NULL;
	size_t wl = 0, ul = 0;
	FILE *fw = open_memstream(&w, &wl), *fu = open_memstream(&u, &ul);
	if (!fw || !fu) {
		if (fw)
			fclose(fw);
		if (fu)
			fclose(fu);
		return -ENOMEM;
	}
	/* /sys/block/sdb/... for a known disk, /sys/block/<${hdd1}>/... in a dry run */
	char name[128];
	const char *slash = strrchr(a->dev, '/');
	if (strstr(a->dev, "${") || !slash)
		snprintf(name, sizeof(name), "<%s>", a->dev);
	else
		snprintf(name, sizeof(name), "%s", slash + 1);
	if (a->scheduler) {
		fprintf(fw, "echo %s > /sys/block/%s/queue/scheduler", a->scheduler, name);
		fprintf(fu, "echo %s > /sys/block/%s/queue/scheduler",
			a->old_scheduler ? a->old_scheduler : "<old value>", name);
	}
	if (a->read_ahead) {
		char old[32] = "<old value>";
		if (a->old_read_ahead)
			snprintf(old, sizeof(old), "%llu",
				 (unsigned long long)a->old_read_ahead_kb);
		fprintf(fw, "%secho %llu > /sys/block/%s/queue/read_ahead_kb",
			a->scheduler ? "; " : "", (unsigned long long)a->read_ahead_kb, name);
		fprintf(fu, "%secho %s > /sys/block/%s/queue/read_ahead_kb",
			a->scheduler ? "; " : "", old, name);
	}
	fclose(fw);
	fclose(fu);
	*what = w;
	*undo = u;
	return 0;
}

static int prepare(void *args, struct sb_exec *x)
{
	struct sb_queue_args *a = args;
	char cur[64], p[300], buf[32];
	int r;
	if (a->scheduler) {
		r = current_scheduler(a->dev, cur, sizeof(cur), NULL, 0);
		if (r < 0)
			return sb_exec_fail(x, r, "%s: cannot read its scheduler: %s", a->dev,
					    strerror(-r));
		free(a->old_scheduler);
		a->old_scheduler = strdup(cur);
	}
	if (a->read_ahead) {
		qpath(a->dev, "read_ahead_kb", p, sizeof(p));
		r = sb_sys_read(p, buf, sizeof(buf));
		if (r < 0)
			return sb_exec_fail(x, r, "%s: cannot read read_ahead_kb: %s", a->dev,
					    strerror(-r));
		a->old_read_ahead = true;
		a->old_read_ahead_kb = strtoull(buf, NULL, 10);
	}
	return 0;
}

/* Is w one of the blank-separated words of list? */
static bool word_in(const char *list, const char *w)
{
	size_t n = strlen(w);
	for (const char *p = list; (p = strstr(p, w)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

/* The blank-separated list as "a, b, c" (or "nothing"), for messages. */
static const char *commas(const char *list, char *out, size_t len)
{
	size_t o = 0;
	out[0] = '\0';
	for (const char *p = list; *p && o + 1 < len; p++)
		o += (size_t)snprintf(out + o, len - o, *p == ' ' ? ", " : "%c", *p);
	return *out ? out : "nothing";
}

static int apply(struct sb_exec *x, const char *dev, const char *sched, bool has_ra, uint64_t ra_kb,
		 bool check)
{
	char p[300], cur[64], all[256];
	int r;
	if (sched) {
		if (check) {
			r = current_scheduler(dev, cur, sizeof(cur), all, sizeof(all));
			if (r < 0)
				return sb_exec_fail(x, r, "%s: cannot read its scheduler: %s", dev,
						    strerror(-r));
			char names[320];
			/* Whole words only: "bfq" must not match inside another name. */
			if (!word_in(all, sched))
				return sb_exec_fail(
				    x, -EINVAL,
				    "%s: scheduler '%s' not available (the kernel offers: %s)", dev,
				    sched, commas(all, names, sizeof(names)));
		}
		qpath(dev, "scheduler", p, sizeof(p));
		r = sb_sys_write(p, sched);
		if (r < 0)
			return sb_exec_fail(x, r, "%s: cannot set scheduler %s: %s", dev, sched,
					    strerror(-r));
		sb_exec_log(x, "%s: scheduler %s\n", dev, sched);
	}
	if (has_ra) {
		char ra[32];
		snprintf(ra, sizeof(ra), "%llu", (unsigned long long)ra_kb);
		qpath(dev, "read_ahead_kb", p, sizeof(p));
		r = sb_sys_write(p, ra);
		if (r < 0)
			return sb_exec_fail(x, r, "%s: cannot set read_ahead_kb %s: %s", dev, ra,
					    strerror(-r));
		sb_exec_log(x, "%s: read_ahead_kb %s\n", dev, ra);
	}
	return 0;
}

/* Adds to all (blank-separated) each scheduler that one device offers and
 * all does not hold yet. */
static void add_offered(const char *dev, char *all, size_t len)
{
	char p[300], buf[256], cur[64], names[256];
	char *save = NULL;
	snprintf(p, sizeof(p), "/sys/block/%s/queue/scheduler", dev);
	if (sb_sys_read(p, buf, sizeof(buf)) < 0 ||
	    sb_scheduler_parse(buf, cur, sizeof(cur), names, sizeof(names)) < 0)
		return;
	for (char *w = strtok_r(names, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (!word_in(all, w) && strlen(all) + strlen(w) + 2 < len)
			snprintf(all + strlen(all), len - strlen(all), "%s%s", *all ? " " : "", w);
	}
}

/* Can the running kernel load NAME when it is asked for it (writing a
 * scheduler's name makes it request "NAME-iosched")? Its modules.dep names
 * NAME.ko or NAME-iosched.ko, compressed or not. */
static bool module_loadable(const char *name)
{
	struct utsname u;
	char p[400], line[512];
	bool found = false;
	if (uname(&u) < 0)
		return false;
	snprintf(p, sizeof(p), "/lib/modules/%s/modules.dep", u.release);
	_cleanup_fclose_ FILE *f = fopen(p, "re");
	while (f && !found && fgets(line, sizeof(line), f))
		found = sb_modules_dep_has_iosched(line, name);
	return found;
}

/* A scheduler the kernel neither offers on any device nor can load fails
 * every variant that asks for it at its queue step, after the devices were
 * built: said before anything is touched instead (some kernels are built
 * without BFQ, and modules cannot always be loaded). NULL when it is
 * there, or when no device says what the kernel offers. */
static const char *preflight(const void *args)
{
	const struct sb_queue_args *a = args;
	static char msg[512];
	char all[256] = "", names[320];
	struct utsname u;

	if (!a->scheduler || !*a->scheduler)
		return NULL;
	DIR *d = opendir("/sys/block");
	for (struct dirent *e; d && (e = readdir(d));)
		if (e->d_name[0] != '.')
			add_offered(e->d_name, all, sizeof(all));
	if (d)
		closedir(d);
	if (!*all || word_in(all, a->scheduler) || module_loadable(a->scheduler))
		return NULL;
	if (uname(&u) < 0)
		snprintf(u.release, sizeof(u.release), "?");
	snprintf(msg, sizeof(msg),
		 "queue: the I/O scheduler '%s' is not in this kernel (%s offers %s, and has no "
		 "module for it)",
		 a->scheduler, u.release, commas(all, names, sizeof(names)));
	return msg;
}

static int run(void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_queue_args *a = args;
	return apply(x, a->dev, a->scheduler, a->read_ahead, a->read_ahead_kb, true);
}

static int undo(const void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_queue_args *a = args;
	char p[300];
	qpath(a->dev, "scheduler", p, sizeof(p));
	/* A loop device detached already has nothing to restore. */
	if (access(p, F_OK) != 0)
		return 0;
	return apply(x, a->dev, a->old_scheduler, a->old_read_ahead, a->old_read_ahead_kb, false);
}

/* ---- [queue]: keys and plan ---- */

struct queue_cfg {
	struct sb_present set;
	const char *scheduler; /* or NULL */
	uint64_t read_ahead_kb;
};

enum { QUEUE_SCHEDULER, QUEUE_READ_AHEAD, QUEUE_KEY_N };

#define C struct queue_cfg
static const struct sb_key keys[QUEUE_KEY_N] = {
    [QUEUE_SCHEDULER] = SB_KEY(C, scheduler, "scheduler", SB_KT_NAME, NULL, 0, 0, NULL, 0,
			       "I/O scheduler of every whole device in the stack (restored "
			       "afterwards)"),
    [QUEUE_READ_AHEAD] =
	SB_KEY(C, read_ahead_kb, "read-ahead-kb", SB_KT_UINT, NULL, 0, 1 << 20, NULL, 0,
	       "read_ahead_kb of every whole device (restored afterwards)"),
};
#undef C

const struct sb_keytab sb_keytab_queue = {
    .section = "queue",
    .keys = keys,
    .n = QUEUE_KEY_N,
    .cfg_size = sizeof(struct queue_cfg),
    .present = SB_PRESENT(struct queue_cfg, set),
};

/* The settings on every whole device (emulated volumes' members too),
 * restored at undo. */
static int queue_plan(const void *cfg, struct sb_pctx *b)
{
	const struct queue_cfg *q = cfg;
	bool ra = q->set.keys & (1ul << QUEUE_READ_AHEAD);

	if (!q->scheduler && !ra)
		return 0;
	for (size_t i = 0; i < b->n_whole; i++) {
		struct sb_queue_args *a = sb_plan_add_step(b, SB_STEP_QUEUE);
		a->dev = sb_plan_fmt("${%s}", b->whole[i].var);
		if (q->scheduler)
			a->scheduler = sb_plan_fmt("%s", q->scheduler);
		a->read_ahead = ra;
		a->read_ahead_kb = q->read_ahead_kb;
	}
	return 0;
}

/* ---- capture: every device's queue as the kernel has it ---- */

static void queue_capture(json_object *into, const struct sb_devstack *st, size_t i, int log_fd)
{
	static const struct {
		const char *key, *file;
	} q[] = {
	    {"scheduler", "queue/scheduler"},
	    {"wbt_lat_usec", "queue/wbt_lat_usec"},
	    {"write_cache", "queue/write_cache"},
	    {"rotational", "queue/rotational"},
	    {"io_min", "queue/minimum_io_size"},
	    {"io_opt", "queue/optimal_io_size"},
	    {"logical_block_size", "queue/logical_block_size"},
	    {"physical_block_size", "queue/physical_block_size"},
	    {"read_ahead_kb", "queue/read_ahead_kb"},
	    {"nr_requests", "queue/nr_requests"},
	    {"max_sectors_kb", "queue/max_sectors_kb"},
	    {"discard_granularity", "queue/discard_granularity"},
	    {"loop_dio", "loop/dio"},
	};
	json_object *o = json_object_new_object();

	(void)log_fd;
	json_object_object_add(o, "kind", json_object_new_string(st->dev[i].kind));
	for (size_t k = 0; k < ARRAY_SIZE(q); k++) {
		char p[PATH_MAX], buf[512];
		/* a partition has no queue/ of its own: its disk's applies */
		snprintf(p, sizeof(p), "%s/class/block/%s/%s", st->sysroot, st->dev[i].name,
			 q[k].file);
		if (sb_read_small(p, buf, sizeof(buf)) >= 0)
			json_object_object_add(o, q[k].key, json_object_new_string(buf));
	}
	json_object_object_add(into, st->dev[i].name, o);
}

/* A member taken out of an array (or rebuilt) is no longer captured. */
static const char *const follows[] = {"scenario.degrade", "scenario.rebuild", NULL};
static const struct sb_capture capture = {
    .key = "queue", .fn = queue_capture, .follows = follows, .follows_gone_only = true};

const struct sb_layer sb_layer_queue = {
    .kind = "queue",
    .args_size = sizeof(struct sb_queue_args),
    .fields = fields,
    .n_fields = ARRAY_SIZE(fields),
    .preflight = preflight,
    .prepare = prepare,
    .describe = describe,
    .run = run,
    .undo = undo,
    .keytab = &sb_keytab_queue,
    .plan = queue_plan,
    .capture = &capture,
};
