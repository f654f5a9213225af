/* The cost rows of a phase (see cost.h): counters into ratios, the loop
 * devices' kernel workers, and the instruction counter. */
#include "workload/cost.h"
#include "util/macro.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

bool sb_kw_comm_matches(const char *comm, const struct sb_devstack *st)
{
	const char *q;
	if (strncmp(comm, "kworker/", 8) != 0)
		return false;
	/* The work queue follows the last '+' (running) or '-' (idle). */
	q = strrchr(comm, '+');
	if (!q || strrchr(comm, '-') > q)
		q = strrchr(comm, '-');
	if (!q)
		return false;
	q++;
	for (size_t i = 0; i < st->n; i++)
		if (strcmp(st->dev[i].type, "loop") == 0 && strcmp(st->dev[i].name, q) == 0)
			return true;
	return false;
}

int sb_kw_parse_stat(const char *line, char *comm, size_t len, int *ppid, uint64_t *ticks)
{
	/* pid (comm) state ppid ... utime(14) stime(15); comm may hold ')' */
	const char *l = strchr(line, '('), *r = strrchr(line, ')');
	unsigned long long ut, st;
	int pp;

	if (!l || !r || r < l)
		return -EINVAL;
	snprintf(comm, len, "%.*s", (int)(r - l - 1), l + 1);
	if (sscanf(r + 1, " %*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &pp, &ut, &st) !=
	    3)
		return -EINVAL;
	*ppid = pp;
	*ticks = ut + st;
	return 0;
}

/* One small file of procroot/PID into buf; its length or -1. */
static ssize_t read_at(const char *procroot, const char *pid, const char *file, char *buf,
		       size_t len)
{
	char p[PATH_MAX];
	ssize_t n;
	int fd;
	snprintf(p, sizeof(p), "%s/%s/%s", procroot, pid, file);
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

int sb_kw_snap(const char *procroot, const struct sb_devstack *st, struct sb_kwsnap *s)
{
	DIR *d = opendir(procroot);
	struct dirent *de;
	long tck = sysconf(_SC_CLK_TCK);

	s->n = 0;
	if (!d)
		return negerrno();
	while ((de = readdir(d)) && s->n < SB_KW_MAX) {
		char line[512], comm[64];
		int ppid;
		uint64_t ticks;
		unsigned long long ns;
		if (!isdigit((unsigned char)de->d_name[0]) ||
		    read_at(procroot, de->d_name, "stat", line, sizeof(line)) <= 0)
			continue;
		/* kthreadd's children are the kernel threads */
		if (sb_kw_parse_stat(line, comm, sizeof(comm), &ppid, &ticks) < 0 || ppid != 2 ||
		    strncmp(comm, "kworker/", 8) != 0)
			continue;
		/* schedstat's nanoseconds: the ticks of stat are 10 ms, longer
		 * than a quick phase's whole share */
		if (read_at(procroot, de->d_name, "schedstat", line, sizeof(line)) <= 0 ||
		    sscanf(line, "%llu", &ns) != 1)
			ns = tck > 0 ? ticks * (1000000000ull / (unsigned long long)tck) : 0;
		s->t[s->n].tid = (int)strtol(de->d_name, NULL, 10);
		s->t[s->n].ours = sb_kw_comm_matches(comm, st);
		s->t[s->n++].ns = ns;
	}
	closedir(d);
	return 0;
}

double sb_kw_delta_secs(const struct sb_kwsnap *a, const struct sb_kwsnap *b)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < b->n; i++) {
		uint64_t before = 0;
		bool ours = b->t[i].ours;
		for (size_t k = 0; k < a->n; k++)
			if (a->t[k].tid == b->t[i].tid) {
				before = a->t[k].ns;
				ours |= a->t[k].ours;
			}
		if (ours)
			sum += b->t[i].ns >= before ? b->t[i].ns - before : 0;
	}
	return (double)sum / 1e9;
}

int sb_perf_paranoid(void)
{
	char buf[32];
	int fd = open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY | O_CLOEXEC);
	ssize_t n;
	if (fd < 0)
		return INT32_MIN;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return INT32_MIN;
	buf[n] = '\0';
	char *end;
	long v = strtol(buf, &end, 10);
	return end == buf || v < INT32_MIN || v > INT32_MAX ? INT32_MIN : (int)v;
}

int sb_perf_open(int paranoid, bool *user_only, char *why, size_t len)
{
	struct perf_event_attr a = {
	    .size = sizeof(a),
	    .type = PERF_TYPE_HARDWARE,
	    .config = PERF_COUNT_HW_INSTRUCTIONS,
	    .inherit = 1,
	    .exclude_hv = 1,
	};
	long fd;

	*user_only = paranoid >= 2;
	if (paranoid >= 3) {
		snprintf(why, len, "perf_event_paranoid=%d", paranoid);
		return -EACCES;
	}
	a.exclude_kernel = *user_only;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		if (e == ENOENT || e == EOPNOTSUPP || e == ENODEV)
			snprintf(why, len, "no hardware instruction counter (%s)", strerror(e));
		else if (paranoid != INT32_MIN)
			snprintf(why, len, "perf_event_paranoid=%d (%s)", paranoid, strerror(e));
		else
			snprintf(why, len, "perf_event_open: %s", strerror(e));
		return -e;
	}
	return (int)fd;
}

int sb_perf_read(int fd, uint64_t *v)
{
	return read(fd, v, sizeof(*v)) == (ssize_t)sizeof(*v) ? 0 : -EIO;
}

/* The layers the shares look through to the devices under them. */
static bool layer_type(const char *type)
{
	return strcmp(type, "md") == 0 || strcmp(type, "dm") == 0 || strcmp(type, "bcache") == 0;
}

/* The devices under parent, layers looked through: a parent's index is
 * always below its children's, so the descent ends. */
static size_t leaves(const struct sb_devstack *st, int parent, int *idx, size_t n, size_t max)
{
	for (size_t i = 0; i < st->n && n < max; i++) {
		if (st->dev[i].parent != parent)
			continue;
		if (layer_type(st->dev[i].type))
			n = leaves(st, (int)i, idx, n, max);
		else
			idx[n++] = (int)i;
	}
	return n;
}

size_t sb_cost_members(const struct sb_devstack *st, int *idx, size_t max)
{
	size_t n = leaves(st, -1, idx, 0, max);
	return n > 1 ? n : 0;
}

static uint64_t dlt(const struct sb_devsnap *a, const struct sb_devsnap *b, size_t i,
		    enum sb_stat_field f)
{
	return b->v[i][f] >= a->v[i][f] ? b->v[i][f] - a->v[i][f] : 0;
}

void sb_cost_from_snaps(const struct sb_devstack *st, const struct sb_devsnap *a,
			const struct sb_devsnap *b, struct sb_cost *k)
{
	int idx[SB_DEVSTACK_MAX];
	size_t n;

	k->have_dev = st->n > 0 && a->n == st->n && b->n == st->n;
	k->have_flush = k->have_dev && a->fields >= 17 && b->fields >= 17;
	k->rbytes = k->wbytes = k->rios = k->wios = k->flushes = 0;
	k->have_kw = false;
	for (size_t i = 0; k->have_dev && i < st->n; i++) {
		if (strcmp(st->dev[i].type, "loop") == 0)
			k->have_kw = true;
		if (st->dev[i].parent >= 0)
			continue;
		k->rbytes += dlt(a, b, i, SB_ST_READ_SECTORS) * 512;
		k->wbytes += dlt(a, b, i, SB_ST_WRITE_SECTORS) * 512;
		k->rios += dlt(a, b, i, SB_ST_READ_IOS);
		k->wios += dlt(a, b, i, SB_ST_WRITE_IOS);
		k->flushes += dlt(a, b, i, SB_ST_FLUSH_IOS);
	}
	n = k->have_dev ? sb_cost_members(st, idx, SB_DEVSTACK_MAX) : 0;
	k->n_mem = n;
	for (size_t m = 0; m < n; m++) {
		struct sb_cost_member *cm = &k->mem[m];
		snprintf(cm->name, sizeof(cm->name), "%s", st->dev[idx[m]].name);
		cm->rbytes = dlt(a, b, (size_t)idx[m], SB_ST_READ_SECTORS) * 512;
		cm->wbytes = dlt(a, b, (size_t)idx[m], SB_ST_WRITE_SECTORS) * 512;
	}
}

static struct sb_cost_row *row(struct sb_cost_row *rows, size_t *n, size_t max, const char *suffix,
			       const char *unit, double v)
{
	/* More is not worse in a share or a request size. */
	bool none = strncmp(suffix, "member_", 7) == 0 || strcmp(suffix, "req_kib") == 0;
	if (*n >= max)
		return NULL;
	struct sb_cost_row *r = &rows[(*n)++];
	memset(r, 0, sizeof(*r));
	snprintf(r->suffix, sizeof(r->suffix), "%s", suffix);
	r->unit = unit;
	r->better = none ? SB_BETTER_NONE : SB_BETTER_LOWER;
	r->value = v;
	return r;
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : NAN;
}

/* The member rows: bytes per workload byte, written (read) when the phase
 * wrote (read). */
static void member_rows(const struct sb_cost *k, uint64_t rbytes, uint64_t wbytes,
			struct sb_cost_row *rows, size_t *n, size_t max)
{
	for (size_t m = 0; m < k->n_mem; m++) {
		const struct sb_cost_member *cm = &k->mem[m];
		char key[32];
		bool shared = false;
		for (size_t o = 0; o < k->n_mem; o++)
			shared |= o != m && strcmp(k->mem[o].role, cm->role) == 0;
		/* Two partitions of one disk have its role: the position too. */
		if (cm->role[0] && !shared)
			snprintf(key, sizeof(key), "%s", cm->role);
		else if (cm->role[0])
			snprintf(key, sizeof(key), "%.20s#%u", cm->role, (unsigned)(m + 1) % 1000);
		else
			snprintf(key, sizeof(key), "m%zu", m + 1);
		for (int w = 1; w >= 0; w--) {
			uint64_t wl = w ? wbytes : rbytes;
			struct sb_cost_row *r;
			if (!wl)
				continue;
			r = row(rows, n, max, w ? "member_w_per_b" : "member_r_per_b", "B/B",
				(double)(w ? cm->wbytes : cm->rbytes) / (double)wl);
			if (!r)
				return;
			snprintf(r->key, sizeof(r->key), "%s", key);
			snprintf(r->why, sizeof(r->why), "%s%s%s", cm->name, cm->cls[0] ? ", " : "",
				 cm->cls);
		}
	}
}

size_t sb_cost_rows(const struct sb_cost *k, uint64_t ops, uint64_t rbytes, uint64_t wbytes,
		    struct sb_cost_row *rows, size_t max)
{
	size_t n = 0;
	double o = (double)ops;
	struct sb_cost_row *r;

	if (k->have_dev) {
		if (wbytes)
			row(rows, &n, max, "dev_w_per_b", "B/B", ratio(k->wbytes, wbytes));
		if (rbytes)
			row(rows, &n, max, "dev_r_per_b", "B/B", ratio(k->rbytes, rbytes));
		if (!wbytes && !rbytes)
			row(rows, &n, max, "dev_w_per_op", "B/op", ratio(k->wbytes, o));
		row(rows, &n, max, "ios_per_op", "IOs/op", ratio(k->rios + k->wios, o));
		r = row(rows, &n, max, "flushes_per_op", "flushes/op",
			k->have_flush ? ratio(k->flushes, o) : NAN);
		if (r && !k->have_flush)
			snprintf(r->why, sizeof(r->why),
				 "unavailable: no flush counters (kernel "
				 "before 5.5)");
		if (k->rios + k->wios)
			row(rows, &n, max, "req_kib", "KiB",
			    (double)(k->rbytes + k->wbytes) / 1024.0 / (double)(k->rios + k->wios));
	}
	row(rows, &n, max, "cpu_us_per_op", "µs/op", ratio((k->user_s + k->sys_s) * 1e6, o));
	if (k->have_kw)
		row(rows, &n, max, "kcpu_us_per_op", "µs/op", ratio(k->kw_s * 1e6, o));
	r = row(rows, &n, max, "instr_per_op", "instr/op",
		k->have_instr ? ratio(k->instr, o) : NAN);
	if (r && !k->have_instr)
		snprintf(r->why, sizeof(r->why), "unavailable: %s", k->instr_why);
	if (k->have_dev)
		member_rows(k, rbytes, wbytes, rows, &n, max);
	return n;
}
