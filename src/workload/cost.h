/* What a phase cost, beside its throughput: device bytes per workload byte
 * (write amplification), I/Os and flushes per operation, the average
 * request, CPU time per operation (the workload's threads, and the loop
 * devices' kernel workers), instructions per operation (perf_event_open).
 * Ratios of counts, so that the noise that moves throughput moves these
 * much less. Pure parts (the rows from the counters, kworker names, the
 * members of a stack) are separate from the readers of /proc and /sys. */
#pragma once

#include "result/result.h"
#include "probe/devstat.h"
#include "stack/counters.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Kernel threads that worked for the stack: kworker threads whose name
 * says they last ran (or run) the work queue of one of its loop devices
 * ("kworker/u8:2+loop3", "kworker/u8:2-loop3"), at the start or at the end
 * of the phase. Every kworker is kept, so that one which turns to the
 * stack during the phase is charged its difference, not its life. */
#define SB_KW_MAX 1024
struct sb_kwsnap {
	size_t n;
	struct {
		int tid;
		bool ours;   /* its name named one of the stack's loop devices */
		uint64_t ns; /* time on a CPU: schedstat's, else utime + stime */
	} t[SB_KW_MAX];
};

/* comm (as in /proc/PID/stat, without parentheses) is a kworker of one of
 * the stack's loop devices. Pure. */
bool sb_kw_comm_matches(const char *comm, const struct sb_devstack *st);
/* The kworker threads of procroot ("/proc"); 0 or -errno. */
int sb_kw_snap(const char *procroot, const struct sb_devstack *st, struct sb_kwsnap *s);
/* CPU seconds the threads that were ours in a or b spent in between (one
 * not in a started in between: all of it; one seen only in a is lost). Pure. */
double sb_kw_delta_secs(const struct sb_kwsnap *a, const struct sb_kwsnap *b);
/* One /proc/PID/stat line: comm, ppid, utime + stime. 0 or -EINVAL. Pure. */
int sb_kw_parse_stat(const char *line, char *comm, size_t len, int *ppid, uint64_t *ticks);

/* /proc/sys/kernel/perf_event_paranoid, or INT32_MIN when unreadable. */
int sb_perf_paranoid(void);
/* A counter of the instructions of the calling thread and the threads it
 * starts from now on (inherit), kernel included when paranoid < 2 (the
 * administrator's setting is followed even as root: >= 2 counts user
 * space only, >= 3 not at all). Returns the fd, or -errno with why set to
 * the reason a row shows ("perf_event_paranoid=3", "no hardware counter:
 * No such file or directory"); *user_only tells which was opened. */
int sb_perf_open(int paranoid, bool *user_only, char *why, size_t len);
/* The count so far; 0 or -errno. */
int sb_perf_read(int fd, uint64_t *v);

/* The devices whose shares are rows: the disks, partitions and loop
 * devices under the mount, with every md, dm and bcache layer between
 * looked through (LVM on md: the md's members; dm-cache or bcache over md
 * with an SSD: the md's members and the SSD; btrfs over several devices:
 * those). None (0) when that is one device. Indexes into st->dev, in
 * stack order; pure. */
size_t sb_cost_members(const struct sb_devstack *st, int *idx, size_t max);

struct sb_cost_member {
	char name[64];
	char cls[48];  /* "ssd, loop", "hdd (rotational flag only), loop" */
	char role[32]; /* the profile's device role, or "" */
	uint64_t rbytes, wbytes;
};

#define SB_LCNT_ROWS_MAX 32

/* The counters of one phase (workload.c fills it at the phase's end). */
struct sb_cost {
	bool have_dev;	 /* device counters of the stack */
	bool have_flush; /* the kernel counts flushes (stat has 17 fields: 5.5) */
	uint64_t rbytes, wbytes, rios, wios, flushes; /* top devices */
	size_t n_mem;
	struct sb_cost_member mem[SB_DEVSTACK_MAX];
	double user_s, sys_s; /* the workload's threads */
	bool have_kw;	      /* the stack has loop devices */
	double kw_s;	      /* their kernel workers */
	bool have_instr;
	double instr;
	char instr_why[96];   /* why not, when !have_instr */
	bool direct_fallback; /* asked for O_DIRECT, got the page cache */
	/* The stack's layer counters (cache hits, promotions): per op, or a
	 * level at the end (stack/counters.h). */
	size_t n_layer;
	struct sb_lcnt_row layer[SB_LCNT_ROWS_MAX];
};

/* Fills the device part of k from the snapshots a (start) and b (end). Pure. */
void sb_cost_from_snaps(const struct sb_devstack *st, const struct sb_devsnap *a,
			const struct sb_devsnap *b, struct sb_cost *k);

/* One cost row of a phase: the metric name is the phase's prefix, '_',
 * then suffix (and ":" key for a member). */
struct sb_cost_row {
	char suffix[32];
	char key[32];	  /* member rows: the role, or "m1", "m2"...; else "" */
	const char *unit; /* "B/B", "IOs/op"... */
	enum sb_better better;
	double value;  /* NAN: unavailable (why says why) */
	char why[128]; /* label addition: member's device and class, or the reason */
};

#define SB_COST_ROWS_MAX (16 + 2 * SB_DEVSTACK_MAX + SB_LCNT_ROWS_MAX)
/* The rows of a phase that did ops operations, read rbytes and wrote wbytes
 * through the workload's calls: write amplification when it wrote, read
 * amplification when it read, device bytes written per op when neither
 * (metadata), I/Os and flushes per op, the average request, CPU µs per op,
 * loop workers' CPU µs per op (when the stack has loop devices),
 * instructions per op (NAN when unavailable), and each member's bytes per
 * workload byte. Returns the count. Pure. */
size_t sb_cost_rows(const struct sb_cost *k, uint64_t ops, uint64_t rbytes, uint64_t wbytes,
		    struct sb_cost_row *rows, size_t max);
