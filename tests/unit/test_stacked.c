/* Stacked devices, table-driven: a loop device over a block device takes
 * every refusal of what lies beneath it, recursively; a loop over a file
 * takes none of the file system holding the file; empty and too small
 * devices are refused with their sizes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "probe/probe-internal.h"
#include "probe/probe.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define NDEV 4

struct fake {
	const char *name, *parent;
	unsigned minor;
	unsigned lower; /* minor of the device it reads, 0: a loop over a file */
	int lower_err;
	const char *mounts[2], *holders[2];
	bool swap, root, ro;
	const char *sig;
	uint64_t size; /* 0: 1 GiB */
	bool empty;    /* size 0, detached: no backing file */
};

static void build(struct sb_device *d, const struct fake *f)
{
	memset(d, 0, sizeof(*d));
	d->name = (char *)f->name;
	d->path = (char *)f->name;
	d->parent = (char *)f->parent;
	d->is_partition = f->parent != NULL;
	d->major = 7;
	d->minor = f->minor;
	d->cls = strncmp(f->name, "loop", 4) == 0 ? SB_CLASS_LOOP : SB_CLASS_SSD;
	d->backing_file = (char *)(f->empty ? NULL : "/x.img");
	d->has_lower = f->lower != 0;
	d->lower_major = 7;
	d->lower_minor = f->lower;
	d->lower_err = f->lower_err;
	for (size_t i = 0; i < 2; i++) {
		if (f->mounts[i])
			assert_int_equal(sb_strv_push(&d->mounts, f->mounts[i]), 0);
		if (f->holders[i])
			assert_int_equal(sb_strv_push(&d->holders, f->holders[i]), 0);
	}
	d->swap = f->swap;
	d->holds_root = f->root;
	d->readonly = f->ro;
	d->size = f->empty ? 0 : f->size ? f->size : 1ull << 30;
	d->sigs = calloc(1, sizeof(*d->sigs));
	if (f->sig)
		d->sigs[d->n_sigs++].type = (char *)f->sig;
}

static void test_inherit(void **state)
{
	static const struct {
		const char *what;
		struct fake dev[NDEV];
		unsigned want;
		const char *reasons[4];
	} cases[] = {
	    {"a loop over a file: nothing of the file system holding it",
	     {{.name = "loop0", .minor = 1}, {.name = "sda", .minor = 9, .mounts = {"/var"}}},
	     0,
	     {NULL}},
	    {"a loop over a loop whose ext4 is mounted",
	     {{.name = "loop1", .minor = 1, .lower = 2},
	      {.name = "loop2", .minor = 2, .mounts = {"/mnt"}, .sig = "ext4"}},
	     SB_REFUSE_MOUNTED | SB_REFUSE_SIGNATURES,
	     {"its backing device loop2: mounted on /mnt",
	      "its backing device loop2: carries signatures: ext4"}},
	    {"two levels down: loop1 -> loop2 -> loop3 (read-only, holders)",
	     {{.name = "loop1", .minor = 1, .lower = 2},
	      {.name = "loop2", .minor = 2, .lower = 3},
	      {.name = "loop3", .minor = 3, .ro = true, .holders = {"dm-0"}},
	      {.name = "dm-0", .minor = 40}},
	     SB_REFUSE_HOLDERS | SB_REFUSE_READONLY,
	     {"its backing device loop2: its backing device loop3: has holders: dm-0",
	      "its backing device loop2: its backing device loop3: read-only"}},
	    {"over the root disk: a partition of it holds /",
	     {{.name = "loop1", .minor = 1, .lower = 8},
	      {.name = "sda", .minor = 8},
	      {.name = "sda1", .parent = "sda", .minor = 9, .mounts = {"/"}, .root = true}},
	     SB_REFUSE_ROOT | SB_REFUSE_PARTITIONS,
	     {"its backing device sda: holds the root file system",
	      "its backing device sda: partitions in use: sda1"}},
	    {"over a partition whose disk has another partition mounted",
	     {{.name = "loop1", .minor = 1, .lower = 17},
	      {.name = "sdb1", .parent = "sdb", .minor = 17},
	      {.name = "sdb", .minor = 16},
	      {.name = "sdb2", .parent = "sdb", .minor = 18, .mounts = {"/home"}}},
	     SB_REFUSE_DISK,
	     {"its backing device sdb1: its disk sdb has partitions in use: sdb2"}},
	    {"over active swap",
	     {{.name = "loop1", .minor = 1, .lower = 5}, {.name = "sdc", .minor = 5, .swap = true}},
	     SB_REFUSE_SWAP,
	     {"its backing device sdc: active swap"}},
	    {"a partition of a loop inherits its disk's lower (probe.c copies it)",
	     {{.name = "loop1p1", .parent = "loop1", .minor = 11, .lower = 2},
	      {.name = "loop1", .minor = 1, .lower = 2},
	      {.name = "loop2", .minor = 2, .mounts = {"/m"}}},
	     SB_REFUSE_MOUNTED,
	     {"its backing device loop2: mounted on /m"}},
	    {"an idle, unmounted md array (contrib/vm/replicate's raid6): usable",
	     {{.name = "loop0", .minor = 1, .lower = 127},
	      {.name = "md127", .minor = 127},
	      {.name = "sdb", .minor = 16, .holders = {"md127"}},
	      {.name = "sdc", .minor = 32, .holders = {"md127"}}},
	     0,
	     {NULL}},
	    {"the device beneath is not in the scan",
	     {{.name = "loop1", .minor = 1, .lower = 99}},
	     SB_REFUSE_UNPROBED,
	     {"its backing device 7:99 was not found"}},
	    {"a cycle in bogus facts ends",
	     {{.name = "loop1", .minor = 1, .lower = 2}, {.name = "loop2", .minor = 2, .lower = 1}},
	     SB_REFUSE_UNPROBED,
	     {"its backing device loop2: its backing device loop1: its backing device loop2: "
	      "its backing device loop1: its backing device loop2: its backing device loop1: "
	      "its backing device loop2: its backing device loop1: its backing device 7:2 is "
	      "part of a chain too deep to follow"}},
	    {"what backs it could not be told",
	     {{.name = "loop1", .minor = 1, .lower_err = -EACCES}},
	     SB_REFUSE_UNPROBED,
	     {"what backs it is unknown (file or device): permission denied"}},
	    {"a detached loop device",
	     {{.name = "loop4", .minor = 4, .empty = true}},
	     SB_REFUSE_SMALL,
	     {"empty (0 bytes): a loop device with nothing attached"}},
	    {"below any stack's minimum",
	     {{.name = "sdd", .minor = 48, .size = 4096}},
	     SB_REFUSE_SMALL,
	     {"too small: 4K (4096 bytes), any stack needs at least 1M (1048576 bytes)"}},
	    {"over an empty device: its refusal too",
	     {{.name = "loop1", .minor = 1, .lower = 4, .size = 512},
	      {.name = "loop4", .minor = 4, .size = 512}},
	     SB_REFUSE_SMALL,
	     {"its backing device loop4: too small: 512 (512 bytes), any stack needs at least "
	      "1M (1048576 bytes)",
	      "too small: 512 (512 bytes), any stack needs at least 1M (1048576 bytes)"}},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sb_device devs[NDEV];
		struct sb_probe all = {devs, 0, NULL, 0};
		size_t k;

		for (k = 0; k < NDEV && cases[i].dev[k].name; k++)
			build(&devs[k], &cases[i].dev[k]);
		all.n = k;
		assert_int_equal(sb_device_verdict(&devs[0], &all), 0);
		if (devs[0].refuse != cases[i].want)
			fail_msg("%s: refuse 0x%x, want 0x%x", cases[i].what, devs[0].refuse,
				 cases[i].want);
		size_t ngot = sb_strv_len(devs[0].reasons);
		for (k = 0; k < 4 && (cases[i].reasons[k] || k < ngot); k++) {
			const char *got = k < ngot ? devs[0].reasons[k] : NULL;
			const char *want = cases[i].reasons[k];
			if (!got || !want || strcmp(got, want))
				fail_msg("%s: reason %zu: '%s', want '%s'", cases[i].what, k,
					 got ? got : "(none)", want ? want : "(none)");
		}
		/* the lower device itself is left as it was: judged on a copy */
		if (all.n > 1)
			assert_null(devs[1].reasons);
		for (k = 0; k < all.n; k++) {
			sb_strv_free(devs[k].mounts);
			sb_strv_free(devs[k].holders);
			sb_strv_free(devs[k].reasons);
			free(devs[k].reason_bits);
			free(devs[k].sigs);
		}
	}
}

/* Named together, an upper and its lower are one disk; two loops over one
 * device too; a loop over a file and that file system's disk are not. */
static void test_same_disk_lower(void **state)
{
	static const struct {
		struct fake a, b;
		bool want;
	} cases[] = {
	    {{.name = "loop1", .minor = 1, .lower = 2}, {.name = "loop2", .minor = 2}, true},
	    {{.name = "loop2", .minor = 2}, {.name = "loop1", .minor = 1, .lower = 2}, true},
	    {{.name = "loop1", .minor = 1, .lower = 5},
	     {.name = "loop3", .minor = 3, .lower = 5},
	     true},
	    {{.name = "loop1", .minor = 1}, {.name = "sda", .minor = 8}, false},
	    {{.name = "loop1", .minor = 1, .lower = 5},
	     {.name = "loop3", .minor = 3, .lower = 6},
	     false},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sb_device a, b;
		build(&a, &cases[i].a);
		build(&b, &cases[i].b);
		if (sb_device_same_disk(&a, &b) != cases[i].want)
			fail_msg("case %zu: %s/%s same disk: want %d", i, a.name, b.name,
				 cases[i].want);
		free(a.sigs);
		free(b.sigs);
	}
}

static void test_refuse_small(void **state)
{
	static const struct {
		uint64_t size, min;
		int want;
		const char *reason;
	} cases[] = {
	    {300ull << 20, 300ull << 20, 0, NULL},
	    {299ull << 20, 300ull << 20, 1,
	     "too small: 299M (313524224 bytes), xfs needs at least 300M (314572800 bytes)"},
	    {0, 1, 1, "empty (0 bytes)"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sb_device d = {.name = "sdb", .size = cases[i].size, .backing_file = "/x"};
		assert_int_equal(sb_device_refuse_small(&d, cases[i].min, "xfs"), cases[i].want);
		if (cases[i].reason)
			assert_string_equal(d.reasons[0], cases[i].reason);
		else
			assert_null(d.reasons);
		assert_int_equal(d.refuse, cases[i].want ? SB_REFUSE_SMALL : 0);
		sb_strv_free(d.reasons);
		free(d.reason_bits);
	}
	assert_string_equal(sb_refuse_name(SB_REFUSE_SMALL), "small");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_inherit),
	    cmocka_unit_test(test_same_disk_lower),
	    cmocka_unit_test(test_refuse_small),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
