/* devices.precondition: a known starting state for every member device
 * before the stack is built on it. trim discards the whole device
 * (BLKDISCARD, as blkdiscard does); steady discards it too where it can,
 * then writes it past its capacity (sequential 1 MiB, then random 128 KiB,
 * O_DIRECT, incompressible) and on until the per-second throughput passes
 * the SNIA steady-state test (steady.c) or the time limit ends it. What was
 * done, how long it took, the device's own counters across the step and
 * whether steady state was reached go into the step's result (and from the
 * journal into result.json). */
#include "stack/layers.h"
#include "stack/plan.h"
#include "stack/precond.h"
#include "util/macro.h"
#include "probe/devstat.h"
#include "util/clock.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define A struct sb_precond_args
static const struct sb_field fields[] = {
    SB_FIELD(A, dev, SB_FT_DEV, SB_FF_REQUIRED | SB_FF_WRITES | SB_FF_IDENT),
    SB_FIELD(A, mode, SB_FT_STR, SB_FF_REQUIRED),
    SB_FIELD(A, limit_ms, SB_FT_U64, 0),
};
#undef A

/* Discards go in slices so that a signal is noticed within one. */
#define DISCARD_SLICE (1ull << 30)
#define SEQ_IO (1u << 20)
#define RAND_IO (128u << 10)

static bool is_steady(const struct sb_precond_args *a)
{
	return strcmp(a->mode, "steady") == 0;
}

static int describe(const void *args, char **what, char **undo)
{
	const struct sb_precond_args *a = args;
	if (is_steady(a)) {
		if (asprintf(what,
			     "blkdiscard %s; write it past its capacity until steady (SNIA PTS "
			     "window of %d s), at most %llu s",
			     a->dev, SB_STEADY_WINDOW,
			     (unsigned long long)(a->limit_ms / 1000)) < 0)
			return -ENOMEM;
	} else if (asprintf(what, "blkdiscard %s", a->dev) < 0) {
		return -ENOMEM;
	}
	/* The contents are gone either way: there is nothing to put back. */
	*undo = strdup("");
	return *undo ? 0 : -ENOMEM;
}

/* queue/discard_max_bytes of the device (a partition: its disk's). */
static uint64_t discard_max(const char *dev)
{
	_cleanup_free_ char *name = sb_sys_name(dev);
	char p[320], buf[64];
	if (!name)
		return 0;
	snprintf(p, sizeof(p), "/sys/class/block/%s/queue/discard_max_bytes", name);
	if (sb_sys_read(p, buf, sizeof(buf)) < 0)
		return 0;
	return strtoull(buf, NULL, 10);
}

static int snap(const char *dev, uint64_t v[SB_ST_N])
{
	_cleanup_free_ char *name = sb_sys_name(dev);
	char p[320], buf[512];
	int r;
	memset(v, 0, SB_ST_N * sizeof(*v));
	if (!name)
		return -ENODEV;
	snprintf(p, sizeof(p), "/sys/class/block/%s/stat", name);
	r = sb_sys_read(p, buf, sizeof(buf));
	return r < 0 ? r : sb_devstat_parse(buf, v) < 0 ? -EINVAL : 0;
}

static int discard_all(struct sb_exec *x, int fd, const char *dev, uint64_t size)
{
	for (uint64_t off = 0; off < size; off += DISCARD_SLICE) {
		uint64_t range[2] = {off, size - off < DISCARD_SLICE ? size - off : DISCARD_SLICE};
		if (x->stop && *x->stop)
			return sb_exec_fail(x, -EINTR, "%s: discard interrupted", dev);
		if (ioctl(fd, BLKDISCARD, range) < 0)
			return sb_exec_fail(x, negerrno(), "%s: discard of %llu bytes at %llu: %m",
					    dev, (unsigned long long)range[1],
					    (unsigned long long)range[0]);
	}
	return 0;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Fresh pseudo-random bytes for every write, so that a device that
 * compresses or deduplicates cannot shortcut the preconditioning. */
static void fill(uint64_t *buf, size_t len, uint64_t *seed)
{
	for (size_t i = 0; i < len / sizeof(*buf); i++)
		buf[i] = xorshift(seed);
}

/* The result's "steady" object: the MB/s of every second written, and the
 * last window that decided whether the device reached its steady state. */
static void steady_json(json_object *out, const double *series, size_t n, size_t rand_from,
			struct sb_steady st, double t0, double limit, uint64_t written,
			uint64_t size)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array();
	for (size_t i = 0; i < n; i++)
		json_object_array_add(arr, json_object_new_double(series[i]));
	json_object_object_add(o, "reached", json_object_new_boolean(st.steady));
	json_object_object_add(o, "seconds", json_object_new_double(sb_mono_s() - t0));
	json_object_object_add(o, "limit_seconds", json_object_new_double(limit));
	json_object_object_add(o, "written_bytes", json_object_new_uint64(written));
	json_object_object_add(o, "capacity_passes",
			       json_object_new_double((double)written / (double)size));
	json_object_object_add(o, "window", json_object_new_int(SB_STEADY_WINDOW));
	json_object_object_add(o, "window_from", json_object_new_uint64(rand_from));
	if (n - rand_from >= SB_STEADY_WINDOW) {
		sb_steady_check(series, n, SB_STEADY_WINDOW, &st);
		json_object_object_add(o, "window_mean_mbps", json_object_new_double(st.mean));
		json_object_object_add(
		    o, "window_range_pct",
		    json_object_new_double(st.mean > 0 ? 100 * st.range / st.mean : 0));
		json_object_object_add(
		    o, "window_slope_pct",
		    json_object_new_double(
			st.mean > 0 ? 100 * st.slope * (SB_STEADY_WINDOW - 1) / st.mean : 0));
	}
	json_object_object_add(o, "series_mbps", arr);
	json_object_object_add(out, "steady", o);
}

static int write_steady(struct sb_exec *x, const struct sb_precond_args *a, uint64_t size,
			json_object *out)
{
	_cleanup_close_ int fd = open(a->dev, O_WRONLY | O_EXCL | O_DIRECT | O_CLOEXEC);
	_cleanup_free_ double *series = NULL;
	void *mem = NULL;
	size_t n = 0, cap = 0, rand_from = 0;
	uint64_t seed = 0x9e3779b97f4a7c15ull ^ size, written = 0, sec_bytes = 0, off = 0;
	double t0 = sb_mono_s(), sec_start = t0, limit = (double)a->limit_ms / 1000.0;
	struct sb_steady st = {0};
	bool random = false, seq_in_round = false;
	int r = 0;

	if (fd < 0)
		return sb_exec_fail(x, negerrno(), "%s: cannot open for writing: %m", a->dev);
	if (size < RAND_IO * 2)
		return sb_exec_fail(x, -EINVAL, "%s: too small to precondition", a->dev);
	if (posix_memalign(&mem, 4096, SEQ_IO) != 0)
		return sb_exec_fail(x, -ENOMEM, "out of memory");
	for (;;) {
		size_t len;
		if (x->stop && *x->stop) {
			r = sb_exec_fail(x, -EINTR, "%s: preconditioning interrupted", a->dev);
			break;
		}
		if (!random) {
			len = size - off < SEQ_IO ? (size_t)(size - off) : SEQ_IO;
		} else {
			len = RAND_IO;
			off = (xorshift(&seed) % (size / RAND_IO)) * RAND_IO;
		}
		seq_in_round |= !random;
		fill(mem, len, &seed);
		ssize_t w = pwrite(fd, mem, len, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			/* Any write error ends it: it is the device's state we are after. */
			r = sb_exec_fail(x, w < 0 ? negerrno() : -EIO, "%s: write at %llu: %s",
					 a->dev, (unsigned long long)off,
					 w < 0 ? strerror(errno) : "nothing written");
			break;
		}
		written += (uint64_t)w;
		sec_bytes += (uint64_t)w;
		off += (uint64_t)w;
		if (!random && off >= size)
			random = true; /* one pass over every block: past capacity from here */
		double t = sb_mono_s();
		if (t - sec_start >= 1.0) {
			if (n == cap) {
				double *ns =
				    realloc(series, (cap = cap ? cap * 2 : 64) * sizeof(*ns));
				if (!ns) {
					r = sb_exec_fail(x, -ENOMEM, "out of memory");
					break;
				}
				series = ns;
			}
			series[n++] = (double)sec_bytes / (t - sec_start) / 1e6;
			sec_bytes = 0;
			sec_start = t;
			/* The window only over rounds written past capacity, all of
			 * one pattern. */
			if (seq_in_round)
				rand_from = n;
			seq_in_round = false;
			if (n - rand_from >= SB_STEADY_WINDOW &&
			    sb_steady_check(series, n, SB_STEADY_WINDOW, &st))
				break;
		}
		if (limit > 0 && t - t0 >= limit)
			break;
	}
	free(mem);
	if (r == 0 && fdatasync(fd) < 0)
		r = sb_exec_fail(x, negerrno(), "%s: flush: %m", a->dev);
	steady_json(out, series, n, rand_from, st, t0, limit, written, size);
	return r;
}

static int run(void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_precond_args *a = args;
	uint64_t size = 0, dmax = discard_max(a->dev), before[SB_ST_N], after[SB_ST_N];
	double t0 = sb_mono_s(), td;
	int r;

	/* The verdict refuses real devices without discard before anything is
	 * written; a loop device gets its discard support only once attached
	 * (from its backing file system), so it is checked here. */
	if (!dmax && !is_steady(a)) {
		x->refused = true;
		return sb_exec_fail(x, -EOPNOTSUPP,
				    "%s: refusing devices.precondition = trim: the device does "
				    "not support discard (queue/discard_max_bytes is 0)",
				    a->dev);
	}
	{
		_cleanup_close_ int fd = open(a->dev, O_WRONLY | O_EXCL | O_CLOEXEC);
		if (fd < 0)
			return sb_exec_fail(x, negerrno(), "%s: cannot open: %m", a->dev);
		if (ioctl(fd, BLKGETSIZE64, &size) < 0)
			return sb_exec_fail(x, negerrno(), "%s: cannot read its size: %m", a->dev);
		snap(a->dev, before);
		if (dmax) {
			r = discard_all(x, fd, a->dev, size);
			if (r < 0)
				return r;
		}
	}
	td = sb_mono_s() - t0;
	json_object_object_add(result, "mode", json_object_new_string(a->mode));
	json_object_object_add(result, "dev", json_object_new_string(a->dev));
	json_object_object_add(result, "size", json_object_new_uint64(size));
	json_object_object_add(result, "discarded_bytes", json_object_new_uint64(dmax ? size : 0));
	json_object_object_add(result, "discard_seconds", json_object_new_double(td));
	if (is_steady(a)) {
		r = write_steady(x, a, size, result);
		if (r < 0)
			return r;
	}
	snap(a->dev, after);
	json_object *d = json_object_new_object();
	static const struct {
		const char *name;
		enum sb_stat_field f;
	} keep[] = {
	    {"discard_ios", SB_ST_DISCARD_IOS},
	    {"discard_sectors", SB_ST_DISCARD_SECTORS},
	    {"write_ios", SB_ST_WRITE_IOS},
	    {"write_sectors", SB_ST_WRITE_SECTORS},
	};
	for (size_t i = 0; i < ARRAY_SIZE(keep); i++)
		json_object_object_add(
		    d, keep[i].name, json_object_new_uint64(after[keep[i].f] - before[keep[i].f]));
	json_object_object_add(result, "devstat", d);
	json_object_object_add(result, "seconds", json_object_new_double(sb_mono_s() - t0));
	sb_exec_log(x, "%s: %s: %llu bytes discarded in %.1f s\n", a->dev, a->mode,
		    (unsigned long long)(dmax ? size : 0), td);
	return 0;
}

static int undo(const void *args, json_object *result, struct sb_exec *x)
{
	(void)args;
	(void)result;
	(void)x;
	return 0;
}

/* ---- [devices]' precondition keys and their step on each device ---- */

struct precond_cfg {
	const char *mode; /* none, trim, steady */
	uint64_t limit_ms;
};

#define C struct precond_cfg
static const struct sb_key keys[] = {
    SB_KEY(C, mode, "precondition", SB_KT_CHOICE, "none|trim|steady", 0, 0, "none", 0,
	   "starting state of every member device before mkfs: 'trim' discards "
	   "it all, 'steady' also writes it past its capacity until a steady "
	   "state (SNIA PTS); both make the file system with discard off"),
    SB_KEY(C, limit_ms, "precondition-limit", SB_KT_DURATION, NULL, 0, 0, "30m", 0,
	   "steady: stop writing a device after this long, steady or not "
	   "(result.json says which)"),
};
#undef C

const struct sb_keytab sb_keytab_precond = {
    .section = "devices",
    .keys = keys,
    .n = ARRAY_SIZE(keys),
    .cfg_size = sizeof(struct precond_cfg),
};

const char *sb_precond_mode(const struct sb_config *c)
{
	struct precond_cfg p = {0};
	sb_keytab_fill(&sb_keytab_precond, c, &p);
	return p.mode;
}

/* devices.precondition: each whole device as soon as it is there, before
 * anything is built on it (an emulated array's members before the array).
 * Not the hdd role's: a disk has no flash translation state to reset, and
 * no discard (trim would refuse every md demo with HDD members). --quick
 * keeps steady to a short bound, like its workloads. */
#define SB_PRECOND_QUICK_MS 30000u
static void precond_device(const void *cfg, struct sb_pctx *b, enum sb_role role, const char *var)
{
	const struct precond_cfg *p = cfg;

	if (strcmp(p->mode, "none") == 0)
		return;
	b->preconditioned = true;
	if (role == SB_ROLE_HDD)
		return;
	struct sb_precond_args *a = sb_plan_add_step(b, SB_STEP_PRECOND);
	a->dev = sb_plan_fmt("${%s}", var);
	a->mode = sb_plan_fmt("%s", p->mode);
	a->limit_ms = p->limit_ms;
	if (b->in->quick && a->limit_ms > SB_PRECOND_QUICK_MS)
		a->limit_ms = SB_PRECOND_QUICK_MS;
}

const struct sb_layer sb_layer_precond = {
    .kind = "precondition",
    .args_size = sizeof(struct sb_precond_args),
    .fields = fields,
    .n_fields = ARRAY_SIZE(fields),
    .describe = describe,
    .run = run,
    .undo = undo,
    .keytab = &sb_keytab_precond,
    .device = precond_device,
};
