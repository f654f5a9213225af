/* The cost rows of a phase (src/workload/cost.c): kworker names and their
 * CPU, the members of a stack, and the rows from the counters: write
 * amplification, per-op figures, members' shares, and an unavailable
 * counter that is a row with a reason, never a zero. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "workload/cost.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_dev(struct sb_devstack *st, const char *name, const char *type, int parent)
{
	struct sb_dev *d = &st->dev[st->n++];
	snprintf(d->name, sizeof(d->name), "%s", name);
	snprintf(d->type, sizeof(d->type), "%s", type);
	snprintf(d->kind, sizeof(d->kind), "%s", parent < 0 ? "top" : type);
	d->parent = parent;
}

static void test_kw_names(void **state)
{
	struct sb_devstack st = {0};
	static const struct {
		const char *comm;
		bool ours;
	} cases[] = {
	    {"kworker/u8:2+loop3", true},    {"kworker/u8:2-loop3", true},
	    {"kworker/u8:2-loop30", false},  {"kworker/u8:2-loop", false},
	    {"kworker/1:1H-kblockd", false}, {"loop3", false},
	    {"kworker/u8:0", false},	     {"kworker/u8:2-loop4", false},
	};
	add_dev(&st, "loop3p1", "part", -1);
	add_dev(&st, "loop3", "loop", 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (sb_kw_comm_matches(cases[i].comm, &st) != cases[i].ours)
			fail_msg("%s: expected %d", cases[i].comm, cases[i].ours);
}

static void test_kw_stat(void **state)
{
	char comm[64];
	int ppid;
	uint64_t ticks;
	const char *line =
	    "123 (kworker/u8:2-loop0) I 2 0 0 0 -1 69238880 0 0 0 0 17 40 0 0 20 0 1 "
	    "0 100 0 0";
	assert_int_equal(sb_kw_parse_stat(line, comm, sizeof(comm), &ppid, &ticks), 0);
	assert_string_equal(comm, "kworker/u8:2-loop0");
	assert_int_equal(ppid, 2);
	assert_int_equal(ticks, 57);
	/* a name with ") " in it */
	line = "9 (a) b) S 1 0 0 0 -1 0 0 0 0 0 3 4 0 0";
	assert_int_equal(sb_kw_parse_stat(line, comm, sizeof(comm), &ppid, &ticks), 0);
	assert_string_equal(comm, "a) b");
	assert_int_equal(ticks, 7);
	assert_int_equal(sb_kw_parse_stat("9 (x", comm, sizeof(comm), &ppid, &ticks), -EINVAL);
}

static void test_kw_delta(void **state)
{
	struct sb_kwsnap *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	/* 10: ours throughout (+5); 11: turned to us (+3, not its 1000 before);
	 * 12: never ours (+50, not charged); 13: new and ours (7) */
	a->n = 3;
	a->t[0].tid = 10, a->t[0].ours = true, a->t[0].ns = 1000000000;
	a->t[1].tid = 11, a->t[1].ours = false, a->t[1].ns = 10000000000;
	a->t[2].tid = 12, a->t[2].ours = false, a->t[2].ns = 100000000;
	b->n = 4;
	b->t[0].tid = 10, b->t[0].ours = false, b->t[0].ns = 1050000000;
	b->t[1].tid = 11, b->t[1].ours = true, b->t[1].ns = 10030000000;
	b->t[2].tid = 12, b->t[2].ours = false, b->t[2].ns = 600000000;
	b->t[3].tid = 13, b->t[3].ours = true, b->t[3].ns = 70000000;
	assert_float_equal(sb_kw_delta_secs(a, b), 0.15, 1e-9);
	free(a);
	free(b);
}

/* Device trees (name, type, parent index) and the members they
 * give, as indexes (-1 ends; none at all: 0 members). */
static const struct {
	const char *what;
	struct {
		const char *name, *type;
		int parent;
	} dev[8];
	int want[4];
} member_cases[] = {
    {"ext4 on a partition of a loop device: no members",
     {{"loop0p1", "part", -1}, {"loop0", "loop", 0}},
     {-1}},
    {"btrfs on two partitions: the two tops",
     {{"loop0p1", "part", -1}, {"loop0", "loop", 0}, {"loop0p2", "part", -1}},
     {0, 2, -1}},
    {"LVM on md over three loop devices: the md's members",
     {
	 {"dm-0", "dm", -1},
	 {"md0", "md", 0},
	 {"loop1", "loop", 1},
	 {"loop2", "loop", 1},
	 {"loop3", "loop", 1},
     },
     {2, 3, 4, -1}},
    /* not the origin and cache volumes, which named the origin after its
     * first HDD and left the second out */
    {"dm-cache over md RAID1 of two HDDs, its cache volume on the SSD",
     {
	 {"dm-2", "dm", -1},
	 {"dm-1", "dm", 0},
	 {"md127", "md", 1},
	 {"sda", "disk", 2},
	 {"sdc", "disk", 2},
	 {"dm-3", "dm", 0},
	 {"sdb", "disk", 5},
     },
     {3, 4, 6, -1}},
    {"bcache over md with the SSD as its cache",
     {
	 {"bcache0", "bcache", -1},
	 {"md127", "md", 0},
	 {"sda", "disk", 1},
	 {"sdc", "disk", 1},
	 {"sdb", "disk", 0},
     },
     {2, 3, 4, -1}},
    {"md on partitions: the partitions, not their disks",
     {
	 {"md0", "md", -1},
	 {"sda1", "part", 0},
	 {"sda", "disk", 1},
	 {"sdb1", "part", 0},
	 {"sdb", "disk", 3},
     },
     {1, 3, -1}},
    {"one layer over one disk: nothing to share",
     {{"bcache0", "bcache", -1}, {"sda", "disk", 0}},
     {-1}},
};

static void test_members(void **state)
{
	for (size_t c = 0; c < ARRAY_SIZE(member_cases); c++) {
		struct sb_devstack st = {0};
		int idx[8];
		size_t want = 0;
		for (size_t d = 0; d < 8 && member_cases[c].dev[d].name; d++)
			add_dev(&st, member_cases[c].dev[d].name, member_cases[c].dev[d].type,
				member_cases[c].dev[d].parent);
		while (member_cases[c].want[want] >= 0)
			want++;
		size_t n = sb_cost_members(&st, idx, 8);
		if (n != want)
			fail_msg("%s: %zu members, want %zu", member_cases[c].what, n, want);
		for (size_t m = 0; m < n; m++)
			if (idx[m] != member_cases[c].want[m])
				fail_msg("%s: member %zu is device %d, want %d",
					 member_cases[c].what, m, idx[m], member_cases[c].want[m]);
	}
}

static const struct sb_cost_row *find(const struct sb_cost_row *r, size_t n, const char *suffix,
				      const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(r[i].suffix, suffix) == 0 && strcmp(r[i].key, key) == 0)
			return &r[i];
	return NULL;
}

static void test_rows(void **state)
{
	struct sb_cost *k = calloc(1, sizeof(*k));
	struct sb_cost_row rows[SB_COST_ROWS_MAX];
	const struct sb_cost_row *r;
	size_t n;

	/* A write phase of 1000 ops of 64 KiB on btrfs RAID-1 of two members
	 * (one with a role, one without), no flush counters, no perf. */
	k->have_dev = true;
	k->wbytes = 2 * 64000 * 1024ull;
	k->wios = 500;
	k->rios = 12;
	k->n_mem = 2;
	snprintf(k->mem[0].name, 64, "loop0p1");
	snprintf(k->mem[0].cls, 48, "ssd, loop");
	snprintf(k->mem[0].role, 32, "ssd");
	k->mem[0].wbytes = 64000 * 1024ull;
	snprintf(k->mem[1].name, 64, "loop1");
	k->mem[1].wbytes = 64000 * 1024ull;
	k->user_s = 0.01, k->sys_s = 0.03;
	snprintf(k->instr_why, sizeof(k->instr_why), "perf_event_paranoid=3");
	n = sb_cost_rows(k, 1000, 0, 64000 * 1024ull, rows, SB_COST_ROWS_MAX);

	assert_non_null(r = find(rows, n, "dev_w_per_b", ""));
	assert_float_equal(r->value, 2.0, 1e-12);
	assert_null(find(rows, n, "dev_r_per_b", ""));	/* it read nothing */
	assert_null(find(rows, n, "dev_w_per_op", "")); /* it wrote bytes */
	assert_non_null(r = find(rows, n, "ios_per_op", ""));
	assert_float_equal(r->value, 0.512, 1e-12);
	assert_non_null(r = find(rows, n, "req_kib", ""));
	assert_float_equal(r->value, 2 * 64000.0 / 512, 1e-9);
	assert_int_equal(r->better, SB_BETTER_NONE);
	assert_non_null(r = find(rows, n, "cpu_us_per_op", ""));
	assert_float_equal(r->value, 40.0, 1e-9);
	assert_null(find(rows, n, "kcpu_us_per_op", "")); /* no loop devices */
	assert_non_null(r = find(rows, n, "flushes_per_op", ""));
	assert_true(isnan(r->value));
	assert_non_null(strstr(r->why, "unavailable"));
	assert_non_null(r = find(rows, n, "instr_per_op", ""));
	assert_true(isnan(r->value));
	assert_string_equal(r->why, "unavailable: perf_event_paranoid=3");
	/* members: by role when known, else by position; shares sum to 2 */
	assert_non_null(r = find(rows, n, "member_w_per_b", "ssd"));
	assert_float_equal(r->value, 1.0, 1e-12);
	assert_string_equal(r->why, "loop0p1, ssd, loop");
	assert_non_null(r = find(rows, n, "member_w_per_b", "m2"));
	assert_float_equal(r->value, 1.0, 1e-12);
	assert_null(find(rows, n, "member_r_per_b", "ssd"));

	/* Two partitions of one disk share its role: the position tells them apart. */
	snprintf(k->mem[1].role, 32, "ssd");
	n = sb_cost_rows(k, 1000, 0, 64000 * 1024ull, rows, SB_COST_ROWS_MAX);
	assert_non_null(find(rows, n, "member_w_per_b", "ssd#1"));
	assert_non_null(find(rows, n, "member_w_per_b", "ssd#2"));

	/* A metadata phase (no workload bytes): bytes written per op; flushes
	 * and instructions counted. */
	k->have_flush = true;
	k->flushes = 250;
	k->have_instr = true;
	k->instr = 5e6;
	k->n_mem = 0;
	n = sb_cost_rows(k, 1000, 0, 0, rows, SB_COST_ROWS_MAX);
	assert_non_null(r = find(rows, n, "dev_w_per_op", ""));
	assert_float_equal(r->value, 2 * 64000 * 1024.0 / 1000, 1e-9);
	assert_null(find(rows, n, "dev_w_per_b", ""));
	assert_non_null(r = find(rows, n, "flushes_per_op", ""));
	assert_float_equal(r->value, 0.25, 1e-12);
	assert_non_null(r = find(rows, n, "instr_per_op", ""));
	assert_float_equal(r->value, 5000, 1e-9);

	/* No ops at all: NAN, not a division by zero or a zero. */
	n = sb_cost_rows(k, 0, 0, 0, rows, SB_COST_ROWS_MAX);
	assert_non_null(r = find(rows, n, "cpu_us_per_op", ""));
	assert_true(isnan(r->value));
	free(k);
}

static void test_from_snaps(void **state)
{
	struct sb_devstack st = {0};
	struct sb_devsnap *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct sb_cost *k = calloc(1, sizeof(*k));
	add_dev(&st, "md0", "md", -1);
	add_dev(&st, "loop1", "loop", 0);
	add_dev(&st, "loop2", "loop", 0);
	a->n = b->n = 3;
	a->fields = b->fields = 17;
	b->v[0][SB_ST_WRITE_SECTORS] = 2048; /* md: 1 MiB */
	b->v[0][SB_ST_WRITE_IOS] = 8;
	b->v[0][SB_ST_FLUSH_IOS] = 2;
	b->v[1][SB_ST_WRITE_SECTORS] = 2048;
	b->v[2][SB_ST_WRITE_SECTORS] = 2048;
	a->v[2][SB_ST_READ_SECTORS] = 10; /* a counter that went back (a reset): 0 */
	sb_cost_from_snaps(&st, a, b, k);
	assert_true(k->have_dev);
	assert_true(k->have_flush);
	assert_true(k->have_kw);
	assert_int_equal(k->wbytes, 1 << 20); /* the top only */
	assert_int_equal(k->wios, 8);
	assert_int_equal(k->flushes, 2);
	assert_int_equal(k->n_mem, 2);
	assert_string_equal(k->mem[1].name, "loop2");
	assert_int_equal(k->mem[1].wbytes, 1 << 20);
	assert_int_equal(k->mem[1].rbytes, 0);
	b->fields = 15;
	sb_cost_from_snaps(&st, a, b, k);
	assert_false(k->have_flush);
	free(a);
	free(b);
	free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kw_names), cmocka_unit_test(test_kw_stat),
	    cmocka_unit_test(test_kw_delta), cmocka_unit_test(test_members),
	    cmocka_unit_test(test_rows),     cmocka_unit_test(test_from_snaps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
