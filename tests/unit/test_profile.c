/* Profile parser, overrides and matrix: table-driven. Each broken profile
 * must give its exact message, naming the file and line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "profile/profile.h"
#include "util/strutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BASE "[devices]\nany = 1\n[fs]\ntype = ext4\n"

static void test_broken(void **state)
{
	static const struct {
		const char *text;
		const char *err;
	} cases[] = {
	    {"[device]\nany = 1\n",
	     "p.conf:1: unknown section '[device]' (did you mean '[devices]'?)"},
	    {"[zzz]\n", "p.conf:1: unknown section '[zzz]': expected one of [devices], [queue], "
			"[partition], [md], [bcache], [lvm], [lvmcache], [fs], [mount], [workloads], [scenario], [matrix]"},
	    {"any = 1\n", "p.conf:1: expected a '[section]' before 'any = 1'"},
	    {"[devices\n", "p.conf:1: expected '[section]', got '[devices'"},
	    {"# c\n\n[devices]\nssd\n", "p.conf:4: expected 'key = value', got 'ssd'"},
	    {"[devices]\nsdd = 1\n",
	     "p.conf:2: unknown key 'sdd' in [devices] (did you mean 'ssd'?)"},
	    {"[devices]\nssd = two\n",
	     "p.conf:2: devices.ssd: expected a whole number from 0 to 64, got 'two'"},
	    {"[devices]\nssd =\n", "p.conf:2: devices.ssd: expected a value"},
	    {"[devices]\nssd = 1\nssd = 2\n", "p.conf:3: devices.ssd: already set on line 2"},
	    {"[devices]\nloop.ssd = 2Q\n",
	     "p.conf:2: devices.loop.ssd: expected a size such as 512M or 2G, got '2Q'"},
	    {BASE "[md]\nlevle = 1\n",
	     "p.conf:6: unknown key 'levle' in [md] (did you mean 'level'?)"},
	    {BASE "[md]\nlevel = 3\n",
	     "p.conf:6: md.level: expected one of none, 0, 1, 4, 5, 6, 10, got '3'"},
	    {BASE "[md]\nwrite-mostly = hdds\n",
	     "p.conf:6: md.write-mostly: unknown role 'hdds' (did you mean 'hdd'?)"},
	    {BASE "[md]\nwrite-behind = 20000\n",
	     "p.conf:6: md.write-behind: expected a whole number from 0 to 16383, got '20000'"},
	    {BASE "[md]\nassume-clean = maybe\n",
	     "p.conf:6: md.assume-clean: expected yes or no, got 'maybe'"},
	    {BASE "[partition]\nsizes = 60%,50%\n",
	     "p.conf:6: partition.sizes: percentages add up to 110%, more than 100%"},
	    {BASE "[partition]\nsizes = rest,1G\n",
	     "p.conf:6: partition.sizes: 'rest' must be the last size, got 'rest,1G'"},
	    {BASE "[lvm]\nvg = my vg\n",
	     "p.conf:6: lvm.vg: expected a name of letters, digits and _+.-, got 'my vg'"},
	    {BASE "[workloads]\ntime-limit = soon\n",
	     "p.conf:6: workloads.time-limit: expected a duration such as 30s or 10m, got 'soon'"},
	    {BASE "[matrix]\nfs.tpye = ext4 | xfs\n",
	     "p.conf:6: unknown key 'tpye' in [fs] (did you mean 'type'?)"},
	    {BASE "[matrix]\nfs.type = ext4 | zfs\n",
	     "p.conf:6: fs.type: expected one of ext2, ext3, ext4, xfs, btrfs, got 'zfs'"},
	    {BASE "[matrix]\nfs.type = ext4 | ext4\n", "p.conf:6: value 'ext4' listed twice"},
	    {BASE "[matrix]\ndevices.ssd = 1 | 2\n",
	     "p.conf:6: 'devices.ssd' cannot vary in [matrix]"},
	    {BASE "[matrix]\nfs.type = xfs|ext4\nfs.type = btrfs\n",
	     "p.conf:7: 'fs.type' already in [matrix] on line 6"},
	    {BASE "[matrix]\nfs.type; fs.mkfs = xfs; -K; extra\n",
	     "p.conf:6: value 'xfs; -K; extra' has more parts than the 2 keys"},
	    {BASE "[matrix]\ntype = xfs\n", "p.conf:6: expected 'section.key', got 'type'"},
	    {BASE "[fs]\n", "p.conf:5: section [fs] appears twice (first on line 3)"},
	    /* Whole-variant checks name the key's line. */
	    {"[devices]\nany = 0\n[fs]\ntype = ext4\n",
	     "p.conf: [devices]: the stack needs at least one device (ssd = 1, say)"},
	    {"[devices]\nany = 1\n",
	     "p.conf: [fs]: type is required (ext2, ext3, ext4, xfs or btrfs)"},
	    {BASE "[md]\nlevel = 1\n", "p.conf:6: md.level: RAID1 needs at least 2 members, the "
				       "profile gives 1"},
	    {"[devices]\nssd = 1\nhdd = 1\n[fs]\ntype = xfs\n[md]\nlevel = 1\nchunk = 64k\n",
	     "p.conf:8: md.chunk: RAID1 has no chunk size"},
	    {"[devices]\nssd = 2\n[fs]\ntype = xfs\n[md]\nlevel = 1\nwrite-mostly = hdd\n",
	     "p.conf:7: md.write-mostly: no hdd member in the array"},
	    {"[devices]\nssd = 2\n[fs]\ntype = xfs\n[md]\nlevel = 1\nwrite-behind = 100\n",
	     "p.conf:7: md.write-behind: needs md.write-mostly"},
	    {"[devices]\nssd = 1\nhdd = 1\n[fs]\ntype = xfs\n[md]\nlevel = 1\nwrite-mostly = "
	     "hdd\nwrite-behind = 9\nbitmap = none\n",
	     "p.conf:9: md.write-behind: needs md.bitmap = internal"},
	    {"[devices]\nssd = 4\n[fs]\ntype = xfs\n[md]\nlevel = 6\nmembers = hdd\n",
	     "p.conf:7: md.members: no hdd device in [devices]"},
	    {"[devices]\nssd = 1\n[fs]\ntype = btrfs\ndata = raid1\n",
	     "p.conf:5: fs.data: raid1 needs at least 2 devices, the stack gives 1"},
	    {BASE "data = raid1\n", "p.conf:5: fs.data: only btrfs has data profiles"},
	    {"[devices]\nssd = 2\n[fs]\ntype = xfs\n[md]\nlevel = 0\nbitmap = internal\n",
	     "p.conf:7: md.bitmap: RAID0 has no redundancy to track: use none"},
	    {BASE "[partition]\ncount = 2\nsizes = 1G,rest\n",
	     "p.conf:7: partition: give either count or sizes, not both"},
	    {BASE "[partition]\n", "p.conf: [partition]: needs count or sizes"},
	    {BASE "[lvm]\nstripes = 2\n", "p.conf:6: lvm.stripes: 2 stripes but only 1 PVs"},
	    {BASE "[workloads]\nrun = nosuch:thing\n",
	     "p.conf:6: workloads.run: workload 'nosuch:thing': unknown"},
	    /* workloads.answer: rows of workloads the profile runs. */
	    {BASE "[workloads]\nrun = command:true\nanswer = rand: Random Read\n",
	     "p.conf:7: workloads.answer: 'rand: Random Read': expected WORKLOAD: LABEL, a row "
	     "of a workload this profile runs (command), items separated by ';'"},
	    {BASE "[workloads]\nrun = command:true\nanswer = command: Wall time; command\n",
	     "p.conf:7: workloads.answer: 'command': expected WORKLOAD: LABEL, a row of a "
	     "workload this profile runs (command), items separated by ';'"},
	    /* fs.log: a whole device of its own, for a file system with a log. */
#define LOGP "[devices]\nhdd = 1\nssd = 1\n[fs]\n"
	    {LOGP "type = xfs\nlog = ssd\n",
	     "p.conf:6: fs.log: the ssd device would also be in the data stack (fs.on = all)"},
	    {LOGP "type = xfs\non = hdd, ssd\nlog = ssd\n",
	     "p.conf:7: fs.log: the ssd device would also be in the data stack (fs.on = hdd, "
	     "ssd)"},
	    {LOGP "type = xfs\nlog = ssd\n[md]\nlevel = 1\n",
	     "p.conf:6: fs.log: the ssd device would also be in the data stack (md.members = "
	     "all)"},
	    {LOGP "type = xfs\nlog = ssd\n[lvm]\npvs = ssd\n",
	     "p.conf:6: fs.log: the ssd device would also be in the data stack (lvm.pvs = ssd)"},
	    {LOGP "type = btrfs\non = hdd\nlog = ssd\n",
	     "p.conf:7: fs.log: btrfs has no external log"},
	    {LOGP "type = ext2\non = hdd\nlog = ssd\n", "p.conf:7: fs.log: ext2 has no journal"},
	    {LOGP "type = xfs\non = hdd\nlog = nvme\n",
	     "p.conf:7: fs.log: no nvme device in [devices]"},
	    {"[devices]\nhdd = 1\nssd = 2\n[fs]\ntype = xfs\non = hdd\nlog = ssd\n",
	     "p.conf:7: fs.log: the log takes exactly one device, [devices] has 2 ssd devices"},
	    {LOGP "type = xfs\non = hdd.p1\nlog = ssd\n[partition]\ncount = 2\n",
	     "p.conf:7: fs.log: the ssd device is partitioned (partition.on = all)"},
	    {LOGP "type = xfs\non = hdd\nlog = sdd\n",
	     "p.conf:7: fs.log: unknown role 'sdd' (did you mean 'ssd'?)"},
	    /* fs.log against the layers that set a device aside too, and
	     * against --loop's emulated arrays (asked of fs and loop by
	     * their typed answers, not by the keys' names). */
	    {"[devices]\nhdd = 1\nssd = 1\nnvme = 1\n[bcache]\ncache = ssd\n[fs]\ntype = "
	     "xfs\nlog = nvme\n",
	     "p.conf:9: fs.log: bcache takes the ssd device for its cache set already, and a "
	     "stack sets one device aside at most"},
	    {"[devices]\nhdd = 1\nssd = 1\nnvme = 1\n[lvm]\npvs = hdd\n[lvmcache]\ntype = "
	     "cache\ndevice = ssd\n[fs]\ntype = xfs\nlog = nvme\n",
	     "p.conf:12: fs.log: the cache already takes a device of its own (lvmcache.device)"},
	    {"[devices]\nhdd = 1\nany = 1\nloop.emulate = raid6\n[fs]\ntype = xfs\non = "
	     "hdd\nlog = any\n",
	     "p.conf:8: fs.log: 'any' devices are emulated arrays with --loop"},
	    {"[devices]\nhdd = 1\nany = 1\nloop.emulate = raid6\n[bcache]\ncache = any\n"
	     "[fs]\ntype = xfs\n",
	     "p.conf:6: bcache.cache: 'any' devices are emulated arrays with --loop"},
#undef LOGP
	    /* Every combination of a matrix impossible: the first reason. */
	    {"[devices]\nssd = 1\n[fs]\ntype = btrfs\n[matrix]\nfs.data = raid1 | raid0\n",
	     "p.conf:6: variant fs.data=raid1: fs.data: raid1 needs at least 2 devices, the "
	     "stack gives 1"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sb_profile *p = NULL;
		struct sb_pvariant *v = NULL;
		size_t n = 0;
		char *err = NULL;
		int r = sb_profile_parse("p.conf", cases[i].text, &p, &err);
		if (r == 0) {
			r = sb_profile_variants(p, &v, &n, &err);
			sb_pvariants_free(v, n);
		}
		if (r != -EINVAL || !err)
			fail_msg("case %zu: rc %d, want -EINVAL (err %s)", i, r,
				 err ? err : "none");
		/* Workload messages come from the workload engine: compare their start. */
		if (strncmp(err, cases[i].err, strlen(cases[i].err)) != 0)
			fail_msg("case %zu:\n got: %s\nwant: %s", i, err, cases[i].err);
		free(err);
		sb_profile_free(p);
	}
}

/* workloads.answer: its items split as the report splits them, and a
 * valid one recorded with the variants' values. */
static void test_answer(void **state)
{
	char list[] = " rand: Random Read ;; mixed: 4 readers: read rate (data);command";
	char *s = list, *wl, *label;
	struct sb_profile *p = NULL;
	struct sb_pvariant *v = NULL;
	size_t n = 0;
	char *err = NULL;

	assert_true(sb_answer_next(&s, &wl, &label));
	assert_string_equal(wl, "rand");
	assert_string_equal(label, "Random Read");
	assert_true(sb_answer_next(&s, &wl, &label));
	assert_string_equal(wl, "mixed");
	assert_string_equal(label, "4 readers: read rate (data)");
	assert_true(sb_answer_next(&s, &wl, &label));
	assert_string_equal(wl, "command");
	assert_null(label);
	assert_false(sb_answer_next(&s, &wl, &label));

	assert_int_equal(sb_profile_parse("p.conf",
					  BASE "[workloads]\nrun = rand:4k\nrun = command:true\n"
					       "answer = rand: Random Read; command: Wall time\n",
					  &p, &err),
			 0);
	assert_int_equal(sb_profile_variants(p, &v, &n, &err), 0);
	assert_int_equal(n, 1);
	json_object *o = sb_config_to_json(&v[0].cfg), *a = NULL;
	assert_true(json_object_object_get_ex(o, "workloads.answer", &a));
	assert_string_equal(json_object_get_string(a), "rand: Random Read; command: Wall time");
	json_object_put(o);
	sb_pvariants_free(v, n);
	sb_profile_free(p);
}

static void test_overrides(void **state)
{
	static const char *text = "[devices]\nany = 1\n[partition]\ncount = 2\n[fs]\ntype = "
				  "ext4\n[mount]\noptions = noatime\n"
				  "[workloads]\nrun = command:true\n[matrix]\n"
				  "fs.type; fs.mkfs = btrfs | btrfs; -n 4k | ext4 | xfs\n";
	static const struct {
		const char *ov[3];
		const char *err;      /* NULL: ok */
		const char *names[5]; /* expected variant names */
	} cases[] = {
	    {{NULL},
	     NULL,
	     {"fs.type=btrfs", "fs.type=btrfs,fs.mkfs=-n 4k", "fs.type=ext4", "fs.type=xfs"}},
	    {{"fs.type=ext4"}, NULL, {"default"}},
	    {{"fs.type=btrfs"}, NULL, {"default", "fs.mkfs=-n 4k"}},
	    {{"matrix.fs.type=ext4|xfs"}, NULL, {"fs.type=ext4", "fs.type=xfs"}},
	    {{"fs.type=xfs", "matrix.mount.options=noatime|relatime"},
	     NULL,
	     {"mount.options=noatime", "mount.options=relatime"}},
	    {{"fs.typo=xfs"},
	     "-o 'fs.typo=xfs': unknown key 'typo' in [fs] (did you mean 'type'?)",
	     {NULL}},
	    {{"fss.type=xfs"},
	     "-o 'fss.type=xfs': unknown section '[fss]' (did you mean '[fs]'?)",
	     {NULL}},
	    {{"fs.type"}, "-o 'fs.type': expected section.key=value", {NULL}},
	    {{"fs.type=zfs"},
	     "-o 'fs.type=zfs': fs.type: expected one of ext2, ext3, ext4, xfs, btrfs, got 'zfs'",
	     {NULL}},
	    {{"fs.type=ext4", "md.level=6"},
	     "p.conf: -o md.level: md.level: RAID6 needs at least 4 members, the profile gives 2",
	     {NULL}},
	    /* -o switches between partition count and sizes. */
	    {{"fs.type=xfs", "partition.sizes=1G,rest"}, NULL, {"default"}},
	    {{"fs.type=xfs", "partition.sizes=1G,2G,rest", "md.level=5"}, NULL, {"default"}},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sb_profile *p = NULL;
		struct sb_pvariant *v = NULL;
		size_t n = 0;
		char *err = NULL;
		int r = sb_profile_parse("p.conf", text, &p, &err);
		assert_int_equal(r, 0);
		for (size_t k = 0; r == 0 && k < 3 && cases[i].ov[k]; k++)
			r = sb_profile_override(p, cases[i].ov[k], &err);
		if (r == 0)
			r = sb_profile_variants(p, &v, &n, &err);
		if (cases[i].err) {
			if (r == 0 || !err || strcmp(err, cases[i].err) != 0)
				fail_msg("case %zu: got %s, want %s", i, err ? err : "success",
					 cases[i].err);
		} else {
			if (r != 0)
				fail_msg("case %zu: %s", i, err ? err : "error");
			size_t want = 0;
			while (want < 5 && cases[i].names[want])
				want++;
			if (n != want)
				fail_msg("case %zu: %zu variants, want %zu", i, n, want);
			for (size_t k = 0; k < n; k++)
				if (strcmp(v[k].name, cases[i].names[k]) != 0)
					fail_msg("case %zu: variant %zu is '%s', want '%s'", i, k,
						 v[k].name, cases[i].names[k]);
		}
		free(err);
		sb_pvariants_free(v, n);
		sb_profile_free(p);
	}
}

/* The cartesian product, last key fastest; impossible cells left out. */
static void test_matrix(void **state)
{
	static const char *text =
	    "[devices]\nssd = 1\nhdd = 2\n[md]\nlevel = 1\nwrite-mostly = hdd\n[fs]\ntype = xfs\n"
	    "[matrix]\nmd.write-mostly = none | hdd\nmd.write-behind = 0 | 16383\n";
	static const char *const want[] = {"md.write-mostly=none,md.write-behind=0",
					   "md.write-mostly=hdd,md.write-behind=0",
					   "md.write-mostly=hdd,md.write-behind=16383"};
	struct sb_profile *p = NULL;
	struct sb_pvariant *v = NULL;
	size_t n = 0;
	char *err = NULL;

	assert_int_equal(sb_profile_parse("m.conf", text, &p, &err), 0);
	assert_int_equal(sb_profile_variants(p, &v, &n, &err), 0);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(v[i].name, want[i]);
	assert_int_equal(p->n_dropped, 1);
	assert_string_equal(p->dropped[0],
			    "m.conf:11: variant md.write-mostly=none,md.write-behind=16383: "
			    "md.write-behind: needs md.write-mostly");
	assert_string_equal(sb_cfg_str(&v[2].cfg, sb_key_find("md.write-behind")), "16383");
	assert_string_equal(
	    json_object_get_string(json_object_object_get(v[2].params, "md.write-behind")),
	    "16383");
	/* Defaults come from the key table. */
	assert_string_equal(sb_cfg_str(&v[0].cfg, sb_key_find("md.bitmap")), "internal");
	assert_int_equal(sb_cfg_role_count(&v[0].cfg, SB_ROLE_HDD), 2);
	sb_pvariants_free(v, n);
	sb_profile_free(p);
}

/* Every key of the table is documented, with the table's own words (the
 * rows are printed by SB_PRINT_KEY_ROWS=1 build/tests/test_profile). */
static void test_keys_documented(void **state)
{
	FILE *f = fopen("doc/profile-format.md", "r");
	char *doc = NULL;
	size_t len = 0;
	assert_non_null(f);
	assert_true(getdelim(&doc, &len, '\0', f) > 0);
	fclose(f);
	for (int k = 0; k < (int)sb_key_n; k++) {
		char *row = sb_key_doc_row(k);
		if (!strstr(doc, row))
			fail_msg(
			    "doc/profile-format.md lacks (or has an old version of) the row\n%s",
			    row);
		free(row);
	}
	free(doc);
}

/* The shipped profiles parse (workloads replaced: they belong to the
 * workload engine's tests). */
static void test_shipped(void **state)
{
	static const char *const names[] = {"md-raid1-ssd-2hdd", "btrfs-raid1-partitions",
					    "lvm-hwraid6", "single-disk", "mount-options-xfs",
					    "xfs-hdd-log-ssd"};
	static const size_t nvar[] = {3, 3, 4, 4, 4, 4};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *path = sb_profile_find(names[i]), *err = NULL;
		struct sb_profile *p = NULL;
		struct sb_pvariant *v = NULL;
		size_t n = 0;
		assert_non_null(path);
		if (sb_profile_load(path, &p, &err) < 0 ||
		    sb_profile_override(p, "workloads.run=command:true", &err) < 0 ||
		    sb_profile_variants(p, &v, &n, &err) < 0)
			fail_msg("%s: %s", names[i], err);
		if (n != nvar[i])
			fail_msg("%s: %zu variants, want %zu", names[i], n, nvar[i]);
		sb_pvariants_free(v, n);
		sb_profile_free(p);
		free(path);
	}
}

/* The first -o workloads.run replaces the profile's list, later ones add. */
/* Free text never names a device (freetext.c): NULL want = accepted. */
static void test_free_text(void **state)
{
	static const struct {
		const char *key; /* section.key */
		const char *value, *want;
	} cases[] = {
	    {"fs.mkfs", "-n 4k", NULL},
	    {"fs.mkfs", "-i size=512 -m 1 -E lazy_itable_init=0", NULL},
	    {"fs.mkfs", "-f -L bench --csum xxhash", NULL},
	    {"fs.mkfs", "-O ^has_journal", NULL},
	    {"fs.mkfs", "-l size=32m,lazy-count=1", NULL},
	    {"fs.mkfs", "/dev/sdb", "'/dev/sdb' names a block device"},
	    {"fs.mkfs", "-f /dev/disk/by-id/x", "names a block device"},
	    {"fs.mkfs", "-n 4k extra", "'extra' is a positional argument"},
	    {"fs.mkfs", "-f extra", "'extra' is a positional argument"},
	    {"fs.mkfs", "-l logdev=/x", "'logdev=' names another device"},
	    {"fs.mkfs", "-llogdev=/x", "'-llogdev=' names another device"},
	    {"fs.mkfs", "-r rtdev=/x,size=1g", "'rtdev=' names another device"},
	    {"fs.mkfs", "-d name=/x", "'name=' names another device"},
	    {"fs.mkfs", "-J size=64,device=LABEL=j", "'device=' names another device"},
	    {"fs.mkfs", "-O journal_dev", "'journal_dev' makes an external journal device"},
	    {"fs.mkfs", "-E offset=0,root_owner=/dev/x", "'/dev/x' names a block device"},
	    {"mount.options", "noatime,logbufs=8,logbsize=256k", NULL},
	    {"mount.options", "ssd,compress=zstd", NULL},
	    {"mount.options", "noatime,logdev=/dev/sdc", "'logdev=' names another device"},
	    {"mount.options", "device=/dev/sdc", "'device=' names another device"},
	    {"mount.options", "journal_path=/j", "'journal_path=' names another device"},
	    /* a name in a mount option is no positional */
	    {"mount.options", "name=x", NULL},
	    {"mount.options", "noatime,loop",
	     "mount option 'loop' makes libmount set up a loop device"},
	    {"mount.options", "OFFSET=4096", "mount option 'OFFSET' is a loop option"},
	    {"mount.options", "ssd,helper=udisks2", "runs a mount helper program"},
	    {"mount.options", "noatime,loopback_x=1", NULL},
	    {"fs.devices", "all", NULL},
	    {"fs.devices", "/dev/sdb", "names a block device"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int k = sb_key_find(cases[i].key);
		assert_true(k >= 0);
		char *m = sb_key_check_value(k, cases[i].value);
		if (!cases[i].want != !m || (m && !strstr(m, cases[i].want)))
			fail_msg("case %zu '%s': got '%s', want '%s'", i, cases[i].value,
				 m ? m : "(accepted)", cases[i].want ? cases[i].want : "(accepted)");
		free(m);
	}
}

static void test_workload_overrides(void **state)
{
	static const char text[] = "[fs]\ntype = ext4\n[workloads]\nrun = command:a\nrun = command:b\n";
	static const struct {
		const char *o[3];
		size_t n;
		const char *want[3];
	} cases[] = {
		{{NULL}, 2, {"command:a", "command:b"}},
		{{"workloads.run=command:x"}, 1, {"command:x"}},
		{{"workloads.run=command:x", "workloads.run=command:y"}, 2, {"command:x", "command:y"}},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sb_profile *p = NULL;
		char *err = NULL;
		if (sb_profile_parse("p.conf", text, &p, &err) < 0)
			fail_msg("case %zu: %s", i, err);
		for (size_t k = 0; k < 3 && cases[i].o[k]; k++)
			if (sb_profile_override(p, cases[i].o[k], &err) < 0)
				fail_msg("case %zu: %s", i, err);
		if (p->base.n_workloads != cases[i].n)
			fail_msg("case %zu: %zu workloads, want %zu", i, p->base.n_workloads,
				 cases[i].n);
		for (size_t k = 0; k < cases[i].n; k++)
			assert_string_equal(p->base.workloads[k], cases[i].want[k]);
		sb_profile_free(p);
	}
}

int main(void)
{
	if (getenv("SB_PRINT_KEY_ROWS")) {
		for (int k = 0; k < (int)sb_key_n; k++) {
			char *row = sb_key_doc_row(k);
			printf("%s\n", row);
			free(row);
		}
		return 0;
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_broken),  cmocka_unit_test(test_answer),
	    cmocka_unit_test(test_overrides),
	    cmocka_unit_test(test_matrix),  cmocka_unit_test(test_keys_documented),
	    cmocka_unit_test(test_shipped), cmocka_unit_test(test_workload_overrides),
	    cmocka_unit_test(test_free_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
