/* Plans: the md and LVM profiles' step lists against golden files (through
 * the executor's dry-run, the code `plan` and `run` use), and role matching
 * on made-up devices. SB_UPDATE_GOLDEN=1 rewrites the golden files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "probe/probe.h"
#include "profile/profile.h"
#include "stack/roles.h"
#include "stack/stack.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *render(const char *profile, const char *const *ov, bool loop, bool quick,
		    const char *const *devs, size_t n_devs)
{
	struct sb_profile *p = NULL;
	struct sb_pvariant *v = NULL;
	size_t n = 0, len = 0;
	char *err = NULL, *out = NULL;
	FILE *f = open_memstream(&out, &len);

	if (sb_profile_load(profile, &p, &err) < 0)
		fail_msg("%s: %s", profile, err);
	for (size_t i = 0; ov && ov[i]; i++)
		if (sb_profile_override(p, ov[i], &err) < 0)
			fail_msg("%s: %s", ov[i], err);
	if (sb_profile_variants(p, &v, &n, &err) < 0)
		fail_msg("%s: %s", profile, err);
	for (size_t i = 0; i < n; i++) {
		struct sb_plan plan;
		struct sb_plan_in in = {.loop = loop,
					.quick = quick,
					.devs = devs,
					.n_devs = n_devs,
					.loop_dir = "/var/tmp/stackbench"};
		struct sb_slot *slots;
		size_t ns;
		struct sb_exec x;

		assert_int_equal(sb_plan_build(&v[i].cfg, &in, &plan, &err), 0);
		assert_int_equal(sb_plan_slots(&v[i].cfg, &slots, &ns), 0);
		sb_exec_init(&x);
		x.dry_run = true;
		x.out = f;
		for (size_t k = 0; !loop && k < ns; k++)
			sb_exec_set_var(&x, slots[k].name, devs[k]);
		fprintf(f, "variant %zu/%zu: %s\n", i + 1, n, v[i].name);
		assert_int_equal(sb_exec_plan(&x, &plan), 0);
		sb_exec_release(&x);
		sb_plan_free(&plan);
		free(slots);
	}
	fclose(f);
	sb_pvariants_free(v, n);
	sb_profile_free(p);
	return out;
}

static void check_golden(const char *name, const char *got)
{
	char path[256];
	FILE *f;
	char *want = NULL;
	size_t len = 0;

	snprintf(path, sizeof(path), "tests/golden/plan/%s", name);
	if (getenv("SB_UPDATE_GOLDEN")) {
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(got, f);
		fclose(f);
		return;
	}
	f = fopen(path, "r");
	if (!f)
		fail_msg("%s missing (SB_UPDATE_GOLDEN=1 writes it)", path);
	if (getdelim(&want, &len, '\0', f) < 0)
		want = strdup("");
	fclose(f);
	if (strcmp(got, want) != 0)
		fail_msg("%s differs; got:\n%s", path, got);
	free(want);
}

static void test_golden(void **state)
{
	static const char *const ov[] = {"workloads.run=command:true", NULL};
	static const char *const md_devs[] = {"/dev/sdb", "/dev/sdc", "/dev/sdd"};
	static const char *const one_dev[] = {"/dev/sdx"};
	static const char *const nvme[] = {"/dev/nvme0n1"};
	static const char *const log_devs[] = {"/dev/sdb", "/dev/sdc"};
	/* bcache over md RAID1 of the two HDDs, the SSD the cache set. */
	static const char *const bcache_md[] = {"workloads.run=command:true",
						"devices.hdd=2",
						"md.level=1",
						"md.members=hdd",
						"md.assume-clean=yes",
						"matrix.bcache.mode=writeback",
						NULL};
	static const struct {
		const char *golden, *profile;
		bool loop, quick;
		const char *const *devs;
		size_t n;
		const char *const *extra;
	} cases[] = {
	    {"md-raid1-ssd-2hdd.devices.txt", "profiles/md-raid1-ssd-2hdd.conf", false, false,
	     md_devs, 3, NULL},
	    {"md-raid1-ssd-2hdd.loop.txt", "profiles/md-raid1-ssd-2hdd.conf", true, true, NULL, 0,
	     NULL},
	    {"lvm-hwraid6.devices.txt", "profiles/lvm-hwraid6.conf", false, false, one_dev, 1,
	     NULL},
	    {"lvm-hwraid6.loop.txt", "profiles/lvm-hwraid6.conf", true, false, NULL, 0, NULL},
	    {"btrfs-raid1-partitions.devices.txt", "profiles/btrfs-raid1-partitions.conf", false,
	     false, nvme, 1, NULL},
	    {"single-disk.loop.txt", "profiles/single-disk.conf", true, true, NULL, 0, NULL},
	    /* The replications of the four reports: members by partition, the
	     * baselines without the md / LVM layer, their options. */
	    {"md-raid1-ssd-2hdd-partitions.loop.txt", "profiles/md-raid1-ssd-2hdd-partitions.conf",
	     true, false, NULL, 0, NULL},
	    {"md-raid1-ssd-2hdd-partitions.devices.txt",
	     "profiles/md-raid1-ssd-2hdd-partitions.conf", false, false, md_devs, 3, NULL},
	    {"btrfs-raid1-partitions-vs-xfs.loop.txt",
	     "profiles/btrfs-raid1-partitions-vs-xfs.conf", true, false, NULL, 0, NULL},
	    {"btrfs-vs-ext3-single-disk.loop.txt", "profiles/btrfs-vs-ext3-single-disk.conf", true,
	     false, NULL, 0, NULL},
	    {"fsopbench-disk-vs-lvm-raid6.loop.txt", "profiles/fsopbench-disk-vs-lvm-raid6.conf",
	     true, false, NULL, 0, NULL},
	    /* fs.log: the log device in mkfs and mount only, never a data unit. */
	    {"xfs-hdd-log-ssd.loop.txt", "profiles/xfs-hdd-log-ssd.conf", true, true, NULL, 0,
	     NULL},
	    {"xfs-hdd-log-ssd.devices.txt", "profiles/xfs-hdd-log-ssd.conf", false, false, log_devs,
	     2, NULL},
	    /* lvmcache: the SSD a PV of the VG only after the LV, the cachevol on
	     * it alone, every LVM command seeing both PVs. */
	    {"lvmcache-ssd-hdd.devices.txt", "profiles/lvmcache-ssd-hdd.conf", false, false,
	     log_devs, 2, NULL},
	    {"lvmcache-ssd-hdd.loop.txt", "profiles/lvmcache-ssd-hdd.conf", true, true, NULL, 0,
	     NULL},
	    /* one SSD and two HDDs every way: md write-mostly, lvmcache,
	     * dm-writecache and bcache over the HDDs' RAID1, in one matrix */
	    {"ssd-2hdd-hybrids.loop.txt", "profiles/ssd-2hdd-hybrids.conf", true, true, NULL, 0,
	     NULL},
	    /* bcache: the cache device set aside (never the file system's log),
	     * the backing device the one unit below. */
	    {"bcache-ssd-hdd.loop.txt", "profiles/bcache-ssd-hdd.conf", true, true, NULL, 0, NULL},
	    {"bcache-ssd-hdd.devices.txt", "profiles/bcache-ssd-hdd.conf", false, false, log_devs,
	     2, NULL},
	    {"bcache-md-raid1.devices.txt", "profiles/bcache-ssd-hdd.conf", false, false, md_devs,
	     3, bcache_md},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = render(cases[i].profile, cases[i].extra ? cases[i].extra : ov,
				   cases[i].loop, cases[i].quick, cases[i].devs, cases[i].n);
		check_golden(cases[i].golden, got);
		free(got);
	}
}

/* lvmcache's own keys in lvconvert's words, and the variants it refuses
 * before anything is written, each with its reason. */
static void test_lvmcache(void **state)
{
	(void)state;
	static const char *const devs[] = {"/dev/sdb", "/dev/sdc"};
	static const struct {
		const char *ov[4];
		const char *want; /* in the plan, or in the refusal */
		bool refused;
	} cases[] = {
	    {{"lvmcache.type=cache", "lvmcache.chunk=64k", "lvmcache.policy=smq"},
	     "--type cache --cachevol sbcache --cachemode writeback --cachepolicy smq --chunksize "
	     "64k sbvg_${id}/sblv",
	     false},
	    {{"lvmcache.type=writecache", "lvmcache.block-size=512"},
	     "--type writecache --cachevol sbcache --cachesettings block_size=512 sbvg_${id}/sblv",
	     false},
	    {{"lvmcache.type=cache", "lvmcache.size=256M"},
	     "lvcreate --devices /dev/sdc,/dev/sdb -y -an -Zn -n sbcache -L 268435456b sbvg_${id} "
	     "/dev/sdb",
	     false},
	    {{"lvmcache.type=writecache", "lvmcache.mode=writethrough"},
	     "dm-writecache has no writethrough mode",
	     true},
	    {{"lvmcache.type=writecache", "lvmcache.chunk=64k"}, "has blocks, not chunks", true},
	    {{"lvmcache.type=cache", "lvmcache.chunk=48k"}, "multiples of 32k", true},
	    {{"lvmcache.type=cache", "lvmcache.block-size=4096"},
	     "only dm-writecache has a block size",
	     true},
	    {{"lvmcache.type=cache", "lvm.pvs=all"}, "would also be in the data stack", true},
	    {{"lvmcache.type=cache", "lvm.enable=no"}, "[lvm], which is off", true},
	    {{"lvmcache.type=cache", "lvmcache.device=nvme"}, "no nvme device", true},
	    {{"lvmcache.type=cache", "fs.log=ssd"}, "one device aside", true},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *ov[8] = {"workloads.run=command:true", "lvmcache.enable=yes",
				     "lvmcache.mode=writeback", NULL};
		size_t n = 3;
		for (size_t k = 0; k < 4 && cases[i].ov[k]; k++)
			ov[n++] = cases[i].ov[k];
		ov[n] = NULL;
		if (!cases[i].refused) {
			char *got =
			    render("profiles/lvmcache-ssd-hdd.conf", ov, false, false, devs, 2);
			if (!strstr(got, cases[i].want))
				fail_msg("case %zu: '%s' not in:\n%s", i, cases[i].want, got);
			free(got);
			continue;
		}
		struct sb_profile *p = NULL;
		struct sb_pvariant *v = NULL;
		size_t nv = 0;
		char *err = NULL;
		assert_int_equal(sb_profile_load("profiles/lvmcache-ssd-hdd.conf", &p, &err), 0);
		for (size_t k = 0; ov[k]; k++)
			if (sb_profile_override(p, ov[k], &err) < 0)
				fail_msg("%s: %s", ov[k], err);
		if (sb_profile_variants(p, &v, &nv, &err) == 0)
			fail_msg("case %zu: accepted, want '%s'", i, cases[i].want);
		if (!err || !strstr(err, cases[i].want))
			fail_msg("case %zu: refused with '%s', want '%s'", i, err ? err : "",
				 cases[i].want);
		free(err);
		sb_profile_free(p);
	}
}

/* The rules a reviewer would check by eye, asserted on the md plan. */
static void test_md_rules(void **state)
{
	static const char *const ov[] = {"workloads.run=command:true", NULL};
	static const char *const devs[] = {"/dev/sdb", "/dev/sdc", "/dev/sdd"};
	char *got = render("profiles/md-raid1-ssd-2hdd.conf", ov, false, false, devs, 3);
	/* Never --chunk for RAID1, always --bitmap, write-mostly before the HDDs. */
	assert_null(strstr(got, "--chunk"));
	assert_non_null(strstr(got, "--bitmap=internal --write-behind=16383 --assume-clean "
				    "/dev/sdb --write-mostly /dev/sdc /dev/sdd"));
	assert_non_null(strstr(got, "mdadm --zero-superblock /dev/sdd"));
	/* A name of the run's own, never a number picked by us. */
	assert_non_null(strstr(got, "mdadm --create /dev/md/sb-${id} --name=sb-${id} --run"));
	assert_null(strstr(got, "/dev/md127"));
	free(got);
}

/* ext4 initialises its inode tables and journal at mkfs time, unless the
 * profile's mkfs words say otherwise; mke2fs keeps only the last -E, so
 * ours joins the profile's. */
static void test_ext4_lazy_init(void **state)
{
	static const struct {
		const char *mkfs; /* fs.mkfs, or NULL */
		const char *want;
	} cases[] = {
	    {NULL, "mkfs.ext4 -F -q -E lazy_itable_init=0,lazy_journal_init=0 ${any}"},
	    {"-E stride=4", "mkfs.ext4 -F -q -E stride=4,lazy_itable_init=0,lazy_journal_init=0 "
			    "${any}"},
	    {"-Estride=4 -m 0", "mkfs.ext4 -F -q -Estride=4,lazy_itable_init=0,lazy_journal_init=0 "
				"-m 0 ${any}"},
	    {"-E lazy_itable_init=1", "mkfs.ext4 -F -q -E lazy_itable_init=1 ${any}"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char mk[128];
		const char *ov[] = {"workloads.run=command:true", "matrix.fs.type=ext4",
				    "mount.options=noatime", NULL, NULL};
		if (cases[i].mkfs) {
			snprintf(mk, sizeof(mk), "fs.mkfs=%s", cases[i].mkfs);
			ov[3] = mk;
		}
		char *got = render("profiles/single-disk.conf", ov, true, true, NULL, 0);
		if (!strstr(got, cases[i].want))
			fail_msg("case %zu: '%s' not in:\n%s", i, cases[i].want, got);
		free(got);
	}
	/* Other file systems are left as they are. */
	const char *ov[] = {"workloads.run=command:true", "matrix.fs.type=xfs", NULL};
	char *got = render("profiles/single-disk.conf", ov, true, true, NULL, 0);
	assert_null(strstr(got, "lazy_itable_init"));
	free(got);
}

/* devices.precondition: a precondition step on every whole device right
 * after it is there (an emulated array's members before the array; not
 * the HDD role's), and mkfs with discard off after it; none leaves the
 * plan as it was. */
static void test_precondition(void **state)
{
	static const struct {
		const char *profile, *mode, *fs, *mkfs;
		const char *want[4]; /* in this order in the plan */
		const char *absent;
	} cases[] = {
	    {"single-disk",
	     "trim",
	     "xfs",
	     NULL,
	     {"  1  loop ", "  2  precondition  blkdiscard ${any}\n", "mkfs.xfs -f -K ${any}"},
	     NULL},
	    {"single-disk",
	     "trim",
	     "ext4",
	     NULL,
	     {"precondition  blkdiscard ${any}",
	      "mkfs.ext4 -F -q -E lazy_itable_init=0,lazy_journal_init=0,nodiscard ${any}"},
	     NULL},
	    {"single-disk",
	     "trim",
	     "ext3",
	     "-E stride=4",
	     {"mkfs.ext3 -F -q -E stride=4,nodiscard ${any}"},
	     NULL},
	    {"single-disk",
	     "steady",
	     "btrfs",
	     NULL,
	     /* --quick: at most 30 s whatever the limit */
	     {"precondition  blkdiscard ${any}; write it past its capacity until steady (SNIA PTS "
	      "window of 5 s), at most 30 s",
	      "mkfs.btrfs -f -K ${any}"},
	     NULL},
	    {"single-disk", "trim", "xfs", "-K", {"mkfs.xfs -f -K ${any}"}, "-K -K"},
	    {"single-disk", "none", "xfs", NULL, {"mkfs.xfs -f ${any}"}, "precondition"},
	    /* HDD-role devices are left alone */
	    {"md-raid1-ssd-2hdd",
	     "trim",
	     NULL,
	     NULL,
	     {"precondition  blkdiscard ${ssd}", "mdadm --create"},
	     "blkdiscard ${hdd"},
	    {"lvm-hwraid6",
	     "trim",
	     NULL,
	     NULL,
	     {"precondition  blkdiscard ${any.m1}", "precondition  blkdiscard ${any.m4}",
	      "mdadm --create"},
	     NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char prof[128], mode[64], fs[64], mk[64];
		const char *ov[6] = {"workloads.run=command:true", mode};
		size_t n = 2;
		snprintf(prof, sizeof(prof), "profiles/%s.conf", cases[i].profile);
		snprintf(mode, sizeof(mode), "devices.precondition=%s", cases[i].mode);
		if (cases[i].fs) {
			snprintf(fs, sizeof(fs), "fs.type=%s", cases[i].fs);
			ov[n++] = fs;
		}
		if (cases[i].mkfs) {
			snprintf(mk, sizeof(mk), "fs.mkfs=%s", cases[i].mkfs);
			ov[n++] = mk;
		}
		char *got = render(prof, ov, true, true, NULL, 0);
		const char *at = got;
		for (size_t k = 0; k < 4 && cases[i].want[k]; k++) {
			const char *f = strstr(at, cases[i].want[k]);
			if (!f)
				fail_msg("case %zu: '%s' not in (or out of order):\n%s", i,
					 cases[i].want[k], got);
			at = f;
		}
		if (cases[i].absent && strstr(got, cases[i].absent))
			fail_msg("case %zu: '%s' in:\n%s", i, cases[i].absent, got);
		free(got);
	}
	/* A discard word in the profile's -E contradicts the precondition. */
	struct sb_profile *p = NULL;
	struct sb_pvariant *v = NULL;
	struct sb_plan plan;
	struct sb_plan_in in = {.loop = true, .quick = true, .loop_dir = "/var/tmp/stackbench"};
	size_t nv = 0;
	char *err = NULL;
	assert_int_equal(sb_profile_load("profiles/single-disk.conf", &p, &err), 0);
	assert_int_equal(sb_profile_override(p, "devices.precondition=trim", &err), 0);
	assert_int_equal(sb_profile_override(p, "fs.type=ext4", &err), 0);
	assert_int_equal(sb_profile_override(p, "fs.mkfs=-E discard", &err), 0);
	assert_int_equal(sb_profile_variants(p, &v, &nv, &err), 0);
	assert_int_equal(sb_plan_build(&v[0].cfg, &in, &plan, &err), -EINVAL);
	assert_non_null(err);
	assert_non_null(strstr(err, "devices.precondition"));
	free(err);
	sb_pvariants_free(v, nv);
	sb_profile_free(p);
}

/* --loop sizes an image the profile does not size from the largest data
 * set of the variant's workloads, on the smallest partition the file
 * system may use; a size the profile gives, and --quick, stay. */
static void test_loop_fit(void **state)
{
	static const struct {
		const char *devices, *partition; /* extra lines of [devices], [partition] */
		uint64_t data;
		bool quick;
		const char *want;
	} cases[] = {
	    {"", "", 0, false, "truncate -s 1G "},	      /* the key's default */
	    {"", "", 100ull << 20, false, "truncate -s 1G "}, /* fits already */
	    {"", "", 3ull << 30, false, "truncate -s 4G "},   /* 3G + 1/8 + 512M */
	    {"", "", 48ull << 30, false, "truncate -s 55G "}, /* 48G + 6G + 512M */
	    {"loop.ssd = 2G\n", "", 48ull << 30, false, "truncate -s 2G "},
	    {"", "", 48ull << 30, true, "truncate -s 320M "},
	    /* 10% holds it: ten times over */
	    {"", "sizes = 10%,rest\n", 3ull << 30, false, "truncate -s 39G "},
	    {"", "count = 2\n", 3ull << 30, false, "truncate -s 8G "},
	    {"", "sizes = 10G,rest\n", 3ull << 30, false, "truncate -s 14G "},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[512], *err = NULL, *out = NULL;
		size_t len = 0, nv = 0;
		struct sb_profile *p = NULL;
		struct sb_pvariant *v = NULL;
		struct sb_plan plan;
		struct sb_plan_in in = {.loop = true,
					.quick = cases[i].quick,
					.loop_dir = "/var/tmp/stackbench",
					.data_bytes = cases[i].data};
		struct sb_exec x;
		snprintf(text, sizeof(text),
			 "[devices]\nssd = 1\n%s%s%s\n[fs]\ntype = xfs\n%s\n[workloads]\nrun = "
			 "command:true\n",
			 cases[i].devices, *cases[i].partition ? "\n[partition]\n" : "",
			 cases[i].partition, *cases[i].partition ? "on = ssd\n" : "");
		if (sb_profile_parse("fit.conf", text, &p, &err) < 0 ||
		    sb_profile_variants(p, &v, &nv, &err) < 0)
			fail_msg("case %zu: %s", i, err);
		assert_int_equal(sb_plan_build(&v[0].cfg, &in, &plan, &err), 0);
		FILE *f = open_memstream(&out, &len);
		sb_exec_init(&x);
		x.dry_run = true;
		x.out = f;
		assert_int_equal(sb_exec_plan(&x, &plan), 0);
		sb_exec_release(&x);
		fclose(f);
		if (!strstr(out, cases[i].want))
			fail_msg("case %zu: '%s' not in:\n%s", i, cases[i].want, out);
		free(out);
		sb_plan_free(&plan);
		sb_pvariants_free(v, nv);
		sb_profile_free(p);
	}
}

static struct sb_device dev(const char *path, enum sb_class c, bool rot)
{
	return (struct sb_device){
	    .path = (char *)path, .name = (char *)path + 5, .cls = c, .rotational = rot};
}

static void test_roles(void **state)
{
	struct sb_device ssd = dev("/dev/sda", SB_CLASS_SSD, false),
			 hdd1 = dev("/dev/sdb", SB_CLASS_HDD, true),
			 hdd2 = dev("/dev/sdc", SB_CLASS_HDD, true),
			 nv = dev("/dev/nvme0n1", SB_CLASS_NVME, false),
			 lrot = dev("/dev/loop1", SB_CLASS_LOOP, true),
			 lssd = dev("/dev/loop2", SB_CLASS_LOOP, false);
	struct sb_slot md[] = {{SB_ROLE_SSD, "ssd"}, {SB_ROLE_HDD, "hdd1"}, {SB_ROLE_HDD, "hdd2"}};
	struct sb_slot one_any[] = {{SB_ROLE_ANY, "any"}};
	const struct {
		int slots; /* 0: md, 1: one any */
		struct sb_device *devs[4];
		size_t n;
		int rc;
		size_t assign[3];
		const char *why;
	} cases[] = {
	    {0, {&ssd, &hdd1, &hdd2}, 3, 0, {0, 1, 2}, NULL},
	    /* Out of order: matched by class, the SSD still plays ssd. */
	    {0, {&hdd1, &hdd2, &ssd}, 3, 0, {2, 0, 1}, NULL},
	    {0, {&lrot, &lssd, &hdd2}, 3, 0, {1, 0, 2}, NULL},
	    /* More devices than roles: the extra one is left alone. */
	    {0, {&nv, &hdd1, &ssd, &hdd2}, 4, 0, {2, 1, 3}, NULL},
	    {0, {&ssd, &hdd1}, 2, -EINVAL, {0}, "the profile needs 3 devices, 2 given"},
	    {0,
	     {&ssd, &hdd1, &lssd},
	     3,
	     -EINVAL,
	     {0},
	     "role 'hdd' needs 2 devices, 1 fits (/dev/sda is ssd, /dev/sdb is hdd, /dev/loop2 is "
	     "non-rotational)"},
	    {1, {&hdd2}, 1, 0, {0}, NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t assign[3] = {0};
		char *why = NULL;
		struct sb_slot *sl = cases[i].slots ? one_any : md;
		size_t ns = cases[i].slots ? 1 : 3;
		int r = sb_match_roles(sl, ns, cases[i].devs, cases[i].n, assign, &why);
		if (r != cases[i].rc)
			fail_msg("case %zu: rc %d, want %d (%s)", i, r, cases[i].rc,
				 why ? why : "");
		if (r == 0) {
			for (size_t k = 0; k < ns; k++)
				if (assign[k] != cases[i].assign[k])
					fail_msg("case %zu: slot %zu got device %zu, want %zu", i,
						 k, assign[k], cases[i].assign[k]);
		} else if (!why || strcmp(why, cases[i].why) != 0) {
			fail_msg("case %zu: why '%s', want '%s'", i, why ? why : "", cases[i].why);
		}
		free(why);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_golden),	   cmocka_unit_test(test_md_rules),
	    cmocka_unit_test(test_ext4_lazy_init), cmocka_unit_test(test_precondition),
	    cmocka_unit_test(test_loop_fit),	   cmocka_unit_test(test_roles),
	    cmocka_unit_test(test_lvmcache),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
