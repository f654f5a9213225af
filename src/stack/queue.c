/* Queue settings of whole devices (I/O scheduler, read-ahead) through sysfs;
 * the old values are read before the begin record so that undo can put
 * them back from the journal alone. */
#include "stack/stack.h"
#include "util/macro.h"

#include <stdio.h>
#include <string.h>
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
static int current_scheduler(const char *dev, char *out, size_t len, char *all, size_t alen)
{
	char p[300], buf[256];
	int r;
	qpath(dev, "scheduler", p, sizeof(p));
	r = sb_sys_read(p, buf, sizeof(buf));
	if (r < 0)
		return r;
	if (all)
		snprintf(all, alen, "%s", buf);
	char *b = strchr(buf, '['), *e = b ? strchr(b, ']') : NULL;
	if (!b || !e)
		return -EINVAL;
	snprintf(out, len, "%.*s", (int)(e - b - 1), b + 1);
	return 0;
}

static int describe(json_object *a, char **what, char **undo)
{
	const char *dev = sb_arg_str(a, "dev"), *s = sb_arg_str(a, "scheduler"),
		   *ra = sb_arg_str(a, "read_ahead_kb"), *os = sb_arg_str(a, "old_scheduler"),
		   *ora = sb_arg_str(a, "old_read_ahead_kb");
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
	const char *slash = strrchr(dev, '/');
	if (strstr(dev, "${") || !slash)
		snprintf(name, sizeof(name), "<%s>", dev);
	else
		snprintf(name, sizeof(name), "%s", slash + 1);
	if (s) {
		fprintf(fw, "echo %s > /sys/block/%s/queue/scheduler", s, name);
		fprintf(fu, "echo %s > /sys/block/%s/queue/scheduler", os ? os : "<old value>",
			name);
	}
	if (ra) {
		fprintf(fw, "%secho %s > /sys/block/%s/queue/read_ahead_kb", s ? "; " : "", ra,
			name);
		fprintf(fu, "%secho %s > /sys/block/%s/queue/read_ahead_kb", s ? "; " : "",
			ora ? ora : "<old value>", name);
	}
	fclose(fw);
	fclose(fu);
	*what = w;
	*undo = u;
	return 0;
}

static int prepare(json_object *a, struct sb_exec *x)
{
	const char *dev = sb_arg_str(a, "dev");
	char cur[64], p[300], buf[32];
	int r;
	if (sb_arg_str(a, "scheduler")) {
		r = current_scheduler(dev, cur, sizeof(cur), NULL, 0);
		if (r < 0)
			return sb_exec_fail(x, r, "%s: cannot read its scheduler: %s", dev,
					    strerror(-r));
		sb_arg_set(a, "old_scheduler", cur);
	}
	if (sb_arg_str(a, "read_ahead_kb")) {
		qpath(dev, "read_ahead_kb", p, sizeof(p));
		r = sb_sys_read(p, buf, sizeof(buf));
		if (r < 0)
			return sb_exec_fail(x, r, "%s: cannot read read_ahead_kb: %s", dev,
					    strerror(-r));
		sb_arg_set(a, "old_read_ahead_kb", buf);
	}
	return 0;
}

static int apply(struct sb_exec *x, const char *dev, const char *sched, const char *ra, bool check)
{
	char p[300], cur[64], all[256];
	int r;
	if (sched) {
		if (check) {
			r = current_scheduler(dev, cur, sizeof(cur), all, sizeof(all));
			if (r < 0)
				return sb_exec_fail(x, r, "%s: cannot read its scheduler: %s", dev,
						    strerror(-r));
			/* Whole words only: "bfq" must not match inside another name.
			 * The names again, comma-separated, for the message. */
			bool found = false;
			char *save = NULL, names[300] = "";
			size_t nl = 0;
			for (char *w = strtok_r(all, " []", &save); w;
			     w = strtok_r(NULL, " []", &save)) {
				found |= strcmp(w, sched) == 0;
				if (nl < sizeof(names))
					nl += (size_t)snprintf(names + nl, sizeof(names) - nl,
							       "%s%s", nl ? ", " : "", w);
			}
			if (!found)
				return sb_exec_fail(
				    x, -EINVAL,
				    "%s: scheduler '%s' not available (the kernel offers: %s)", dev,
				    sched, nl ? names : "nothing");
		}
		qpath(dev, "scheduler", p, sizeof(p));
		r = sb_sys_write(p, sched);
		if (r < 0)
			return sb_exec_fail(x, r, "%s: cannot set scheduler %s: %s", dev, sched,
					    strerror(-r));
		sb_exec_log(x, "%s: scheduler %s\n", dev, sched);
	}
	if (ra) {
		qpath(dev, "read_ahead_kb", p, sizeof(p));
		r = sb_sys_write(p, ra);
		if (r < 0)
			return sb_exec_fail(x, r, "%s: cannot set read_ahead_kb %s: %s", dev, ra,
					    strerror(-r));
		sb_exec_log(x, "%s: read_ahead_kb %s\n", dev, ra);
	}
	return 0;
}

static int run(json_object *a, json_object *result, struct sb_exec *x)
{
	return apply(x, sb_arg_str(a, "dev"), sb_arg_str(a, "scheduler"),
		     sb_arg_str(a, "read_ahead_kb"), true);
}

static int undo(json_object *a, json_object *result, struct sb_exec *x)
{
	const char *dev = sb_arg_str(a, "dev");
	char p[300];
	qpath(dev, "scheduler", p, sizeof(p));
	/* A loop device detached already has nothing to restore. */
	if (access(p, F_OK) != 0)
		return 0;
	return apply(x, dev, sb_arg_str(a, "old_scheduler"), sb_arg_str(a, "old_read_ahead_kb"),
		     false);
}

const struct sb_layer sb_layer_queue = {
    .kind = "queue",
    .prepare = prepare,
    .describe = describe,
    .run = run,
    .undo = undo,
    .required = {"dev"},
};
