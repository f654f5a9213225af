/* Integrity after the run: md's own check of the array (sync_action =
 * check, then mismatch_cnt), btrfs scrub of the file system. The data the
 * workloads wrote is verified against its pattern by the workloads
 * themselves (their verify_errors); the session adds those up
 * (session/integrity.c). */
#include "stack/layers.h"
#include "stack/scenario.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int sys_write(const char *path, const char *val)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		return -errno;
	return 0;
}

/* The md array of the plan (its "md" variable), when it has redundancy;
 * *clean: made with --assume-clean (never-written blocks may differ). */
static const char *plan_md(const struct sb_plan *p, struct sb_exec *x, bool *clean)
{
	return sb_md_plan_redundant(p, clean) ? sb_exec_var(x, "md") : NULL;
}

static bool plan_btrfs(const struct sb_plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->steps[i].kind == SB_STEP_MKFS &&
		    strcmp(((const struct sb_mkfs_args *)p->steps[i].args)->type, "btrfs") == 0)
			return true;
	return false;
}

/* An md attribute of array NAME as a number; 0 when unreadable. */
static uint64_t md_u64(const char *name, const char *attr)
{
	char p[200], buf[64];
	snprintf(p, sizeof(p), "/sys/block/%s/md/%s", name, attr);
	return sb_sys_read(p, buf, sizeof(buf)) >= 0 ? strtoull(buf, NULL, 10) : 0;
}

/* sync_completed "DONE / TOTAL" (sectors of the walk); false when idle
 * ("none") or unreadable. */
static bool md_progress(const char *name, uint64_t *done, uint64_t *total)
{
	char p[200], buf[64], *end;
	snprintf(p, sizeof(p), "/sys/block/%s/md/sync_completed", name);
	if (sb_sys_read(p, buf, sizeof(buf)) < 0 || buf[0] < '0' || buf[0] > '9')
		return false;
	errno = 0;
	*done = strtoull(buf, &end, 10);
	if (errno || strncmp(end, " / ", 3) != 0)
		return false;
	*total = strtoull(end + 3, &end, 10);
	return errno == 0;
}

/* The end of the walk a check of at most span bytes stops at, in sectors:
 * md's sync_max, a multiple of the chunk (md refuses another); 0 for the
 * whole array (span 0, or not smaller than it). */
static uint64_t md_span_end(const char *name, uint64_t span)
{
	uint64_t chunk = md_u64(name, "chunk_size") / 512, end = span / 512;
	if (!span)
		return 0;
	if (chunk)
		end -= end % chunk;
	if (!end)
		end = chunk ? chunk : 8;
	/* The walk of RAID1/4/5/6 is the members' data; RAID10's, the array. */
	uint64_t whole = md_u64(name, "component_size") * 2;
	return whole && end >= whole ? 0 : end;
}

/* md check: mismatch_cnt counts the sectors whose copies (or parity)
 * disagree. Of the first span bytes of the walk only (sync_max, set back to
 * "max" afterwards) when span is not 0. 0 with *o filled, -errno with *msg. */
static int md_check(const char *md, uint64_t limit_ms, uint64_t span, volatile sig_atomic_t *stop,
		    json_object *o, char **msg)
{
	_cleanup_free_ char *name = sb_sys_name(md);
	char p[200], buf[64];
	double t0 = sb_mono_s();
	bool done = false, cut = false;
	uint64_t end = 0, at = 0, total = 0;
	int r;

	if (!name)
		return -ENOENT;
	snprintf(p, sizeof(p), "/sys/block/%s/md/degraded", name);
	bool degraded = sb_sys_read(p, buf, sizeof(buf)) >= 0 && strcmp(buf, "0") != 0;
	if ((end = md_span_end(name, span))) {
		char v[32];
		snprintf(p, sizeof(p), "/sys/block/%s/md/sync_max", name);
		snprintf(v, sizeof(v), "%llu", (unsigned long long)end);
		if (sys_write(p, v) < 0)
			end = 0; /* a resync going: the whole check, as without a span */
	}
	snprintf(p, sizeof(p), "/sys/block/%s/md/sync_action", name);
	r = sys_write(p, "check");
	if (r < 0) {
		if (end) {
			snprintf(p, sizeof(p), "/sys/block/%s/md/sync_max", name);
			sys_write(p, "max");
		}
		if (asprintf(msg, "%s: md check could not start (%s)", md, strerror(-r)) < 0)
			*msg = NULL;
		return r;
	}
	usleep(200000);
	while (!(stop && *stop) && (!limit_ms || (sb_mono_s() - t0) * 1000 < (double)limit_ms)) {
		if (sb_sys_read(p, buf, sizeof(buf)) >= 0 && strcmp(buf, "idle") == 0) {
			done = true;
			break;
		}
		/* At sync_max md waits for it to move: the span is checked. */
		if (md_progress(name, &at, &total) && end && at >= end) {
			cut = done = true;
			break;
		}
		usleep(200000);
	}
	if (!done || cut)
		sys_write(p, "idle"); /* the span, the limit, or a signal: stop the check */
	if (end) {
		for (int i = 0;
		     i < 50 && sb_sys_read(p, buf, sizeof(buf)) >= 0 && strcmp(buf, "idle") != 0;
		     i++)
			usleep(100000);
		snprintf(p, sizeof(p), "/sys/block/%s/md/sync_max", name);
		sys_write(p, "max");
	}
	snprintf(p, sizeof(p), "/sys/block/%s/md/mismatch_cnt", name);
	if (sb_sys_read(p, buf, sizeof(buf)) < 0)
		return -EIO;
	json_object_object_add(o, "mismatch_cnt", json_object_new_int64(strtoll(buf, NULL, 10)));
	json_object_object_add(o, "seconds", json_object_new_double(sb_mono_s() - t0));
	json_object_object_add(o, "finished", json_object_new_boolean(done));
	json_object_object_add(o, "degraded", json_object_new_boolean(degraded));
	if (cut) {
		/* "span" against the walk's whole length, both in bytes */
		json_object_object_add(o, "span_bytes",
				       json_object_new_int64((int64_t)(end * 512)));
		json_object_object_add(o, "walk_bytes",
				       json_object_new_int64((int64_t)(total * 512)));
	}
	return 0;
}

static int btrfs_scrub(struct sb_exec *x, const char *mnt, json_object *o, char **msg)
{
	const char *argv[] = {"btrfs", "scrub", "start", "-B", "-R", mnt, NULL};
	_cleanup_free_ char *out = NULL;
	struct sb_scrub_counts sc;
	double t0 = sb_mono_s();
	int st = 0, r;

	/* Exit 3: uncorrectable errors found; the counters say how many. */
	r = sb_exec_cmd_output(x, argv, &st, &out);
	if (r < 0 || sb_btrfs_parse_scrub(out ? out : "", &sc) < 0) {
		if (asprintf(msg, "%s: btrfs scrub gave no counters (exit %d)", mnt, st) < 0)
			*msg = NULL;
		return r < 0 ? r : -EIO;
	}
	json_object_object_add(o, "errors", json_object_new_int64((int64_t)sc.errors));
	json_object_object_add(o, "uncorrectable",
			       json_object_new_int64((int64_t)sc.uncorrectable));
	json_object_object_add(o, "corrected", json_object_new_int64((int64_t)sc.corrected));
	json_object_object_add(o, "bytes", json_object_new_int64((int64_t)sc.bytes));
	json_object_object_add(o, "exit", json_object_new_int(st));
	json_object_object_add(o, "seconds", json_object_new_double(sb_mono_s() - t0));
	return 0;
}

json_object *sb_integrity_run(const struct sb_plan *p, struct sb_exec *x, const char *mnt,
			      uint64_t limit_ms, uint64_t md_span, volatile sig_atomic_t *stop,
			      char **msg)
{
	bool assume_clean = false;
	const char *md = plan_md(p, x, &assume_clean);
	bool btrfs = plan_btrfs(p) && mnt;
	json_object *o;
	int64_t errors = 0;

	*msg = NULL;
	if (!md && !btrfs)
		return NULL;
	o = json_object_new_object();
	if (md) {
		json_object *m = json_object_new_object(), *v;
		json_object_object_add(m, "assume_clean", json_object_new_boolean(assume_clean));
		if (md_check(md, limit_ms, md_span, stop, m, msg) == 0) {
			json_object_object_get_ex(m, "mismatch_cnt", &v);
			errors += json_object_get_int64(v);
		}
		json_object_object_add(o, "md", m);
	}
	if (btrfs) {
		json_object *b = json_object_new_object(), *v;
		char *m2 = NULL;
		if (btrfs_scrub(x, mnt, b, &m2) == 0) {
			json_object_object_get_ex(b, "errors", &v);
			errors += json_object_get_int64(v);
		}
		if (m2 && !*msg)
			*msg = m2;
		else
			free(m2);
		json_object_object_add(o, "btrfs", b);
	}
	json_object_object_add(o, "errors", json_object_new_int64(errors));
	if (*msg)
		json_object_object_add(o, "incomplete", json_object_new_string(*msg));
	return o;
}
