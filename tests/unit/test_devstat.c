/* Per-device accounting (src/probe/devstat.c): stat lines as the kernel
 * writes them (17, 15 and 11 fields), the stack under a mount discovered on
 * a captured sysfs tree (md over a partition and a loop device; btrfs with
 * two members) from a captured mountinfo, the per-phase deltas, and that
 * each layer capture reads the device type the tree gives its devices. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "probe/devstat.h"
#include "stack/capture.h"
#include "util/macro.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_parse(void **state)
{
	static const struct {
		const char *line;
		int rc;
		uint64_t reads, rsect, writes, wsect, inflight, discards, flushes;
	} cases[] = {
	    {"    1234       10    56789      300     4321       20    98765      400        2   "
	     "   700     800       5        0      160        9       11       12\n",
	     17, 1234, 56789, 4321, 98765, 2, 5, 11},
	    {"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15", 15, 1, 3, 5, 7, 9, 12, 0},
	    {"1 2 3 4 5 6 7 8 9 10 11", 11, 1, 3, 5, 7, 9, 0, 0},
	    {"1 2 3", -EINVAL, 0, 0, 0, 0, 0, 0, 0},
	    {"1 2 x 4 5 6 7 8 9 10 11", -EINVAL, 0, 0, 0, 0, 0, 0, 0},
	    {"", -EINVAL, 0, 0, 0, 0, 0, 0, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v[SB_ST_N];
		int rc = sb_devstat_parse(cases[i].line, v);
		assert_int_equal(rc, cases[i].rc);
		if (rc < 0)
			continue;
		assert_int_equal(v[SB_ST_READ_IOS], cases[i].reads);
		assert_int_equal(v[SB_ST_READ_SECTORS], cases[i].rsect);
		assert_int_equal(v[SB_ST_WRITE_IOS], cases[i].writes);
		assert_int_equal(v[SB_ST_WRITE_SECTORS], cases[i].wsect);
		assert_int_equal(v[SB_ST_IN_FLIGHT], cases[i].inflight);
		assert_int_equal(v[SB_ST_DISCARD_IOS], cases[i].discards);
		assert_int_equal(v[SB_ST_FLUSH_IOS], cases[i].flushes);
	}
}

static char root[PATH_MAX];

static void put(const char *rel, const char *text)
{
	char p[PATH_MAX * 2], *s;
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	if (text) {
		FILE *f = fopen(p, "w");
		assert_non_null(f);
		fputs(text, f);
		fclose(f);
	} else {
		mkdir(p, 0755);
	}
}

static void link_to(const char *rel, const char *target)
{
	char p[PATH_MAX * 2];
	put(rel, "");
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	unlink(p);
	assert_int_equal(symlink(target, p), 0);
}

/* A capture of what the kernel shows for md127 (RAID1 of sda1 and loop3),
 * a btrfs on loop5 + loop6, and an unrelated sdz. */
static void make_tree(void)
{
	static const char *const stat0 = "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
	snprintf(root, sizeof(root), "/tmp/sb-test-devstat-%d", (int)getpid());
	mkdir(root, 0755);
	put("devices/virtual/block/md127/stat", stat0);
	put("devices/virtual/block/md127/md/sync_action", "idle\n");
	put("devices/virtual/block/md127/inflight", "       0        0\n");
	put("devices/pci0/block/sda/stat", stat0);
	put("devices/pci0/block/sda/sda1/stat", stat0);
	put("devices/pci0/block/sda/sda1/partition", "1\n");
	put("devices/pci0/block/sdz/stat", stat0);
	put("devices/virtual/block/loop3/stat", stat0);
	put("devices/virtual/block/loop3/loop/backing_file", "/var/tmp/a.img\n");
	put("devices/virtual/block/loop5/stat", stat0);
	put("devices/virtual/block/loop6/stat", stat0);
	put("devices/virtual/block/bcache0/stat", stat0);
	put("devices/virtual/block/bcache0/bcache/cache_mode", "writethrough [writeback]\n");
	put("devices/pci0/block/sdb/stat", stat0);
	put("devices/pci0/block/sdb/bcache/", NULL);
	put("devices/virtual/block/dm-0/stat", stat0);
	put("devices/virtual/block/dm-0/dm/name", "sbvg-sblv\n");
	link_to("devices/virtual/block/bcache0/slaves/sdb", "../../../../pci0/block/sdb");
	link_to("devices/virtual/block/dm-0/slaves/sdz", "../../../../pci0/block/sdz");
	link_to("class/block/bcache0", "../../devices/virtual/block/bcache0");
	link_to("class/block/sdb", "../../devices/pci0/block/sdb");
	link_to("class/block/dm-0", "../../devices/virtual/block/dm-0");
	link_to("devices/virtual/block/md127/slaves/sda1", "../../../../pci0/block/sda/sda1");
	link_to("devices/virtual/block/md127/slaves/loop3", "../../loop3");
	link_to("class/block/md127", "../../devices/virtual/block/md127");
	link_to("class/block/sda", "../../devices/pci0/block/sda");
	link_to("class/block/sda1", "../../devices/pci0/block/sda/sda1");
	link_to("class/block/sdz", "../../devices/pci0/block/sdz");
	link_to("class/block/loop3", "../../devices/virtual/block/loop3");
	link_to("class/block/loop5", "../../devices/virtual/block/loop5");
	link_to("class/block/loop6", "../../devices/virtual/block/loop6");
	link_to("dev/block/9:127", "../../devices/virtual/block/md127");
	link_to("fs/btrfs/0b1e-uuid/devices/loop5", "../../../../devices/virtual/block/loop5");
	link_to("fs/btrfs/0b1e-uuid/devices/loop6", "../../../../devices/virtual/block/loop6");
	put("fs/btrfs/features/", NULL);
	put("mountinfo",
	    "22 1 8:1 / / rw,relatime - ext4 /dev/sdz rw\n"
	    "40 22 9:127 / /mnt/md rw,relatime - xfs /dev/md127 rw,attr2\n"
	    "41 22 0:52 / /mnt/bt rw,relatime - btrfs /dev/loop6 rw,ssd,space_cache=v2\n"
	    "42 22 0:53 / /mnt/shm rw - tmpfs tmpfs rw\n");
}

static void rm_tree(void)
{
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

static void test_stack(void **state)
{
	static const struct {
		const char *dir;
		int rc;
		const char *want; /* name:kind:parent ... */
	} cases[] = {
	    {"/mnt/md/sub/dir", 0, "md127:top:- loop3:loop:md127 sda1:part:md127 sda:disk:sda1"},
	    {"/mnt/bt", 0, "loop5:top:- loop6:top:-"},
	    {"/mnt/shm/x", -ENODEV, ""},
	};
	char mi[PATH_MAX + 16];
	make_tree();
	snprintf(mi, sizeof(mi), "%s/mountinfo", root);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char names[SB_DEVSTACK_MAX][64], got[512] = "";
		const char *tops[SB_DEVSTACK_MAX];
		struct sb_devstack st;
		size_t n = 0;
		int rc = sb_devstack_tops(mi, root, cases[i].dir, names, SB_DEVSTACK_MAX, &n);
		assert_int_equal(rc, cases[i].rc);
		if (rc < 0)
			continue;
		for (size_t k = 0; k < n; k++)
			tops[k] = names[k];
		assert_int_equal(sb_devstack_build(root, tops, n, &st), 0);
		for (size_t k = 0; k < st.n; k++) {
			char one[128];
			snprintf(one, sizeof(one), "%s%s:%s:%s", k ? " " : "", st.dev[k].name,
				 st.dev[k].kind,
				 st.dev[k].parent < 0 ? "-" : st.dev[st.dev[k].parent].name);
			strcat(got, one);
		}
		assert_string_equal(got, cases[i].want);
	}
	rm_tree();
}

static void test_deltas(void **state)
{
	struct sb_devstack st;
	struct sb_devsnap a, b;
	char why[128];
	const char *tops[] = {"md127"};
	make_tree();
	assert_int_equal(sb_devstack_build(root, tops, 1, &st), 0);
	assert_int_equal(st.n, 4);
	sb_devstack_snap(&st, &a);
	assert_false(sb_devstack_busy(&st, why, sizeof(why)));
	/* md read 100 MiB, wrote 10 MiB; sda1 served 3/4 of the reads */
	put("devices/virtual/block/md127/stat",
	    "100 0 204800 50 10 0 20480 5 1 60 70 2 0 8 1 3 1\n");
	put("devices/pci0/block/sda/sda1/stat",
	    "75 1 153600 40 10 0 20480 5 0 50 60 0 0 0 0 0 0\n");
	put("devices/virtual/block/md127/md/sync_action", "resync\n");
	sb_devstack_snap(&st, &b);
	assert_true(sb_devstack_busy(&st, why, sizeof(why)));
	assert_string_equal(why, "md127: md resync");
	assert_int_equal(sb_devstat_top_bytes(&st, &a, &b, false), 100u << 20);
	assert_int_equal(sb_devstat_top_bytes(&st, &a, &b, true), 10u << 20);
	json_object *o = sb_devstat_json(&st, &a, &b, 200u << 20, 10u << 20), *devs, *d0, *d2, *v;
	assert_true(json_object_object_get_ex(o, "devices", &devs));
	assert_int_equal(json_object_array_length(devs), 4);
	d0 = json_object_array_get_idx(devs, 0);
	d2 = json_object_array_get_idx(devs, 2);
	assert_true(json_object_object_get_ex(d0, "read_bytes", &v));
	assert_int_equal(json_object_get_int64(v), 100 << 20);
	assert_true(json_object_object_get_ex(d0, "parent", &v));
	assert_null(v);
	assert_true(json_object_object_get_ex(d0, "discard_bytes", &v));
	assert_int_equal(json_object_get_int64(v), 8 * 512);
	assert_true(json_object_object_get_ex(d2, "name", &v));
	assert_string_equal(json_object_get_string(v), "sda1");
	assert_true(json_object_object_get_ex(d2, "read_bytes", &v));
	assert_int_equal(json_object_get_int64(v), 75 << 20);
	assert_true(json_object_object_get_ex(d2, "parent", &v));
	assert_string_equal(json_object_get_string(v), "md127");
	assert_true(json_object_object_get_ex(o, "workload_read_bytes", &v));
	assert_int_equal(json_object_get_int64(v), 200 << 20);
	json_object_put(o);
	rm_tree();
}

/* Each layer's capture reads the devices of the type the device tree gives
 * its devices: a capture keyed to another type reads nothing, silently
 * (bcache's read "disk" after bcacheN became a type of its own, and
 * extra.config lost its bcache object). A new layer with a capture names
 * its device here. */
static void test_capture_types(void **state)
{
	static const struct {
		const char *key, *dev;
	} own[] = {
	    {"md", "md127"},
	    {"lvm", "dm-0"},
	    {"lvmcache", "dm-0"},
	    {"bcache", "bcache0"},
	};
	const char *tops[] = {"md127", "bcache0", "dm-0"};
	const struct sb_capture *caps[16];
	struct sb_devstack st;
	size_t n = sb_layer_captures(caps, ARRAY_SIZE(caps));

	(void)state;
	make_tree();
	assert_int_equal(sb_devstack_build(root, tops, ARRAY_SIZE(tops), &st), 0);
	assert_true(n >= 4);
	for (size_t c = 0; c < n; c++) {
		const char *dev = NULL;
		if (!caps[c]->type) /* the mounted file system's, or every device's */
			continue;
		for (size_t k = 0; k < ARRAY_SIZE(own); k++)
			if (strcmp(own[k].key, caps[c]->key) == 0)
				dev = own[k].dev;
		if (!dev)
			fail_msg("capture %s: no device for it in this test's tree", caps[c]->key);
		size_t i = 0;
		while (i < st.n && strcmp(st.dev[i].name, dev) != 0)
			i++;
		assert_true(i < st.n);
		if (strcmp(st.dev[i].type, caps[c]->type) != 0)
			fail_msg("capture %s reads type %s; %s is %s", caps[c]->key, caps[c]->type,
				 dev, st.dev[i].type);
	}
	rm_tree();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_stack),
	    cmocka_unit_test(test_deltas),
	    cmocka_unit_test(test_capture_types),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
