/* A phase's cost (cost.h) taken around it: the instruction counter and the
 * loop workers at the start, the counters at the end, the rows the
 * workloads add after their throughput, and the check that a phase which
 * asked for O_DIRECT did not go through the page cache. */
#include "workload/wl.h"
#include "util/macro.h"

#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

void sb_wl_perf_begin(struct sb_wl_ctx *c)
{
	c->perf_fd =
	    sb_perf_open(sb_perf_paranoid(), &c->perf_user_only, c->perf_why, sizeof(c->perf_why));
	sb_wl_extra_str(c, "instructions",
			c->perf_fd >= 0
			    ? (c->perf_user_only ? "user space only (perf_event_paranoid"
						   " >= 2)"
						 : "user and kernel")
			    : c->perf_why);
}

void sb_wl_perf_end(struct sb_wl_ctx *c)
{
	if (c->perf_fd >= 0)
		close(c->perf_fd);
	c->perf_fd = -1;
}

void sb_phase_cost_begin(struct sb_phase *p)
{
	struct sb_wl_ctx *c = p->c;
	if (c->devs && (p->kw0 = malloc(sizeof(*p->kw0))) &&
	    sb_kw_snap("/proc", c->devs, p->kw0) < 0)
		p->kw0->n = 0;
	if (c->perf_fd >= 0 && sb_perf_read(c->perf_fd, &p->instr0) < 0)
		p->instr0 = UINT64_MAX;
	p->lc0 = NULL;
	if (c->devs && (p->lc0 = malloc(sizeof(*p->lc0)))) {
		sb_lcnt_snap(c->devs, p->lc0, c->env->log_fd);
		if (p->lc0->n == 0) { /* no layer of the stack counts anything */
			free(p->lc0);
			p->lc0 = NULL;
		}
	}
}

/* The layers' counters at the phase's end against its start. */
static void layer_counters_end(struct sb_phase *p)
{
	struct sb_cost *k = &p->cost;
	struct sb_lcnt_snap *now;

	k->n_layer = 0;
	if (!p->lc0)
		return;
	if ((now = malloc(sizeof(*now)))) {
		sb_lcnt_snap(p->c->devs, now, p->c->env->log_fd);
		/* per op in sb_phase_cost, which knows the phase's operations */
		k->n_layer = sb_lcnt_rows(p->lc0, now, 0, k->layer, SB_LCNT_ROWS_MAX);
		free(now);
	}
	free(p->lc0);
	p->lc0 = NULL;
}

static double tv(const struct timeval *a, const struct timeval *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_usec - a->tv_usec) / 1e6;
}

/* Resident pages of the file behind fd; -1 when it cannot be told. */
static long long resident_pages(int fd)
{
	struct stat sb;
	long pg = sysconf(_SC_PAGESIZE);
	long long n = 0;
	if (fd < 0 || fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || pg <= 0)
		return -1;
	if (sb.st_size == 0)
		return 0;
	size_t len = (size_t)sb.st_size, np = (len + (size_t)pg - 1) / (size_t)pg;
	void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	unsigned char *v = malloc(np);
	if (m != MAP_FAILED && v && mincore(m, len, v) == 0)
		for (size_t i = 0; i < np; i++)
			n += v[i] & 1;
	else
		n = -1;
	if (m != MAP_FAILED)
		munmap(m, len);
	free(v);
	return n;
}

/* The file system's own word first: statx(STATX_DIOALIGN) gives both
 * alignments 0 when the file takes no direct I/O and the calls are served
 * buffered (ext4 data=journal, since Linux 6.1). A file system that does
 * not answer leaves the mask bit clear. */
static bool dio_unsupported(int fd)
{
	struct statx sx;
	if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) < 0)
		return false;
	return (sx.stx_mask & STATX_DIOALIGN) && sx.stx_dio_offset_align == 0 &&
	       sx.stx_dio_mem_align == 0;
}

/* Then mincore, against the alternatives: fcntl(F_GETFL) still shows
 * O_DIRECT when ext4 (data=journal) serves the calls from the page cache;
 * the device's read bytes say nothing about writes, and a cache below the
 * file system (or read-ahead) moves them; Cached in /proc/meminfo is the
 * whole machine's. The file's own resident pages are near exact: direct
 * I/O leaves none behind (a direct write even drops cached ones), but a
 * drop_caches by another program during the phase takes clean pages away,
 * which is why the file system's word comes first. */
void sb_phase_direct(struct sb_phase *p, int fd)
{
	long long n = resident_pages(fd);
	p->direct = n >= 0;
	p->direct_fd = fd;
	p->direct_pages0 = n;
	p->direct_unsupported = p->direct && dio_unsupported(fd);
}

/* Buffered: the file's cache grew by a quarter of what the phase moved (at
 * least 16 pages), or a writing phase left at least that much cached and
 * dropped less than that (a direct write drops the cached pages it
 * overwrites; memory pressure from others may take a few). */
static bool direct_fell_back(struct sb_phase *p)
{
	long long n = resident_pages(p->direct_fd), pg = sysconf(_SC_PAGESIZE);
	uint64_t moved = p->rbytes + p->wbytes;
	struct stat sb;
	p->direct_pages1 = n;
	if (p->direct_unsupported)
		return true;
	if (n < 0 || pg <= 0 || fstat(p->direct_fd, &sb) < 0)
		return false;
	if ((uint64_t)sb.st_size < moved)
		moved = (uint64_t)sb.st_size;
	long long grown = n - p->direct_pages0, need = (long long)(moved / 4 / (uint64_t)pg);
	if (need < 16)
		need = 16;
	return grown >= need || (p->wbytes && n >= need && grown > -need);
}

void sb_phase_cost_end(struct sb_phase *p, const struct rusage *ru, const struct sb_devsnap *now)
{
	struct sb_wl_ctx *c = p->c;
	struct sb_cost *k = &p->cost;
	uint64_t v;

	k->user_s = tv(&p->ru0.ru_utime, &ru->ru_utime);
	k->sys_s = tv(&p->ru0.ru_stime, &ru->ru_stime);
	k->have_instr = false;
	if (c->perf_fd < 0) {
		snprintf(k->instr_why, sizeof(k->instr_why), "%s", c->perf_why);
	} else if (p->instr0 == UINT64_MAX || sb_perf_read(c->perf_fd, &v) < 0) {
		snprintf(k->instr_why, sizeof(k->instr_why), "the counter could not be read");
	} else {
		k->have_instr = true;
		k->instr = (double)(v - p->instr0);
	}
	if (c->devs && p->dev0 && now) {
		sb_cost_from_snaps(c->devs, p->dev0, now, k);
		for (size_t m = 0; m < k->n_mem; m++) {
			bool emulated;
			int i = -1;
			for (size_t d = 0; d < c->devs->n; d++)
				if (strcmp(c->devs->dev[d].name, k->mem[m].name) == 0)
					i = (int)d;
			if (i >= 0)
				sb_devstack_class(c->devs, (size_t)i, k->mem[m].cls,
						  sizeof(k->mem[m].cls), &emulated);
			if (i >= 0 && emulated)
				snprintf(k->mem[m].cls, sizeof(k->mem[m].cls),
					 "hdd (rotational flag only), loop");
			if (i >= 0)
				sb_wl_member_role(c, (size_t)i, k->mem[m].role,
						  sizeof(k->mem[m].role));
		}
	}
	if (k->have_kw && p->kw0) {
		struct sb_kwsnap *kw = malloc(sizeof(*kw));
		if (kw && sb_kw_snap("/proc", c->devs, kw) == 0)
			k->kw_s = sb_kw_delta_secs(p->kw0, kw);
		else
			k->have_kw = false;
		free(kw);
	} else {
		k->have_kw = false;
	}
	free(p->kw0);
	p->kw0 = NULL;
	k->direct_fallback = p->direct && direct_fell_back(p);
	layer_counters_end(p);
}

/* name is disk or one of its partitions (sda1, loop0p2, nvme0n1p1). */
static bool on_disk(const char *name, const char *disk)
{
	size_t l = strlen(disk);
	const char *q = name + l;
	if (strncmp(name, disk, l) != 0)
		return false;
	if (*q == 'p' && q[1] >= '0' && q[1] <= '9' && q[-1] >= '0' && q[-1] <= '9')
		q++;
	else if (*q && (q[-1] >= '0' && q[-1] <= '9'))
		return false; /* loop1 is not loop10 */
	return strspn(q, "0123456789") == strlen(q);
}

void sb_wl_member_role(const struct sb_wl_ctx *c, size_t i, char *buf, size_t len)
{
	const struct sb_wl_env *e = c->env;
	/* The bottom device; a second partition of a disk already in the
	 * stack has none below it in the stack, hence its own name too. */
	const char *b = c->devs->dev[sb_devstack_bottom(c->devs, i)].name;
	buf[0] = '\0';
	for (size_t k = 0; k < e->n_roles; k++) {
		const char *d = e->role_devs[k], *slash = d ? strrchr(d, '/') : NULL;
		if (d && (on_disk(b, slash ? slash + 1 : d) ||
			  on_disk(c->devs->dev[i].name, slash ? slash + 1 : d)))
			snprintf(buf, len, "%s", e->role_names[k]);
	}
}

static uint64_t phase_ops(const struct sb_phase *p)
{
	if (p->ops)
		return p->ops;
	if (p->bytes)
		return p->op_bytes ? p->done / p->op_bytes : p->done;
	return p->done;
}

static json_object *obj_at(json_object *o, const char *key)
{
	json_object *v;
	if (!json_object_object_get_ex(o, key, &v)) {
		v = json_object_new_object();
		json_object_object_add(o, key, v);
	}
	return v;
}

static void cost_extra(struct sb_phase *p, uint64_t ops)
{
	const struct sb_cost *k = &p->cost;
	struct sb_wl_ctx *c = p->c;
	if (!c->res->extra)
		c->res->extra = json_object_new_object();
	json_object *o = obj_at(obj_at(c->res->extra, "cost"), p->name);
#define I(key, v) json_object_object_add(o, key, json_object_new_int64((int64_t)(v)))
#define D(key, v) json_object_object_add(o, key, json_object_new_double(v))
	I("ops", ops);
	D("user_s", k->user_s);
	D("sys_s", k->sys_s);
	if (k->have_kw)
		D("loop_workers_s", k->kw_s);
	if (k->have_instr)
		I("instructions", k->instr);
	else
		json_object_object_add(o, "instructions_unavailable",
				       json_object_new_string(k->instr_why));
	if (p->direct) {
		json_object_object_add(o, "direct_fallback",
				       json_object_new_boolean(k->direct_fallback));
		I("cached_pages_before", p->direct_pages0);
		I("cached_pages_after", p->direct_pages1);
		json_object_object_add(o, "direct_fallback_by",
				       json_object_new_string(!k->direct_fallback ? "none"
							      : p->direct_unsupported
								  ? "statx: no direct I/O alignment"
								  : "page cache"));
	}
#undef I
#undef D
	if (k->n_layer) {
		json_object *l = obj_at(o, "layers");
		for (size_t i = 0; i < k->n_layer; i++)
			json_object_object_add(obj_at(l, k->layer[i].dev), k->layer[i].name,
					       json_object_new_uint64(k->layer[i].raw));
	}
	if (k->direct_fallback) {
		json_object *a = obj_at(c->res->extra, "direct_fallback_phases");
		json_object_object_add(
		    a, p->name,
		    json_object_new_string(p->direct_unsupported
					       ? "asked for O_DIRECT, got the page cache (the "
						 "file system takes no direct I/O on this file)"
					       : "asked for O_DIRECT, got the page cache (the "
						 "file's pages stayed resident)"));
	}
}

/* The layers' rows: a counter's increase per op ("lc_"), a level at the
 * phase's end ("lg_"), keyed by the device. */
static size_t layer_rows(const struct sb_cost *k, uint64_t ops, struct sb_cost_row *rows,
			 size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < k->n_layer && n < max; i++) {
		const struct sb_lcnt_row *l = &k->layer[i];
		struct sb_cost_row *r = &rows[n++];
		memset(r, 0, sizeof(*r));
		snprintf(r->suffix, sizeof(r->suffix), "%s%.28s", l->per_op ? "lc_" : "lg_",
			 l->name);
		snprintf(r->key, sizeof(r->key), "%s", l->dev);
		r->unit = l->per_op ? "/op" : "";
		r->better = SB_BETTER_NONE;
		r->value = l->per_op ? (ops ? (double)l->raw / (double)ops : NAN) : (double)l->raw;
		if (l->per_op && !ops)
			snprintf(r->why, sizeof(r->why), "no operations counted in the phase");
	}
	return n;
}

void sb_phase_cost(struct sb_phase *p, const char *prefix)
{
	struct sb_cost_row *rows = calloc(SB_COST_ROWS_MAX, sizeof(*rows));
	struct sb_wl_ctx *c = p->c;
	uint64_t ops = phase_ops(p);
	size_t n;

	if (!rows)
		return;
	n = sb_cost_rows(&p->cost, ops, p->rbytes, p->wbytes, rows, SB_COST_ROWS_MAX);
	n += layer_rows(&p->cost, ops, rows + n, SB_COST_ROWS_MAX - n);
	cost_extra(p, ops);
	for (size_t i = 0; i < n; i++) {
		const struct sb_cost_row *r = &rows[i];
		char name[160];
		if (r->key[0])
			snprintf(name, sizeof(name), "%s_%s:%s", prefix, r->suffix, r->key);
		else
			snprintf(name, sizeof(name), "%s_%s", prefix, r->suffix);
		/* NAN is written as null: the row is there, with the reason,
		 * never a zero. */
		if (sb_wl_add_metric(c->res, name, r->unit, r->better, r->value) < 0)
			break;
		if (r->why[0])
			sb_wl_metric_note(c->spec, &c->res->metrics[c->res->n_metrics - 1], r->why);
	}
	free(rows);
}
