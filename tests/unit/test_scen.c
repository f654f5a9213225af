/* Scenarios (degrade, rebuild, integrity): the refusal rules with their
 * file:line messages, where the plan puts the steps, and the parsers of what
 * md and btrfs report. Table-driven. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "profile/profile.h"
#include "report/report.h"
#include "stack/scenario.h"

#include <json-c/json.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MD1 "[devices]\nssd = 1\nhdd = 2\n[md]\nlevel = 1\n[fs]\ntype = xfs\n"
#define BTR                                                                                        \
	"[devices]\nssd = 1\n[partition]\ncount = 2\n[fs]\ntype = btrfs\ndata = raid1\nmetadata "  \
	"= "                                                                                       \
	"raid1\n"

/* The variants of text, or the error (NULL when it parses). */
static char *variants_err(const char *text, struct sb_pvariant **v, size_t *n)
{
	struct sb_profile *p = NULL;
	char *err = NULL;
	*v = NULL;
	*n = 0;
	if (sb_profile_parse("p.conf", text, &p, &err) < 0)
		return err;
	if (sb_profile_variants(p, v, n, &err) < 0) {
		sb_profile_free(p);
		return err;
	}
	sb_pvariants_free(*v, *n);
	*v = NULL;
	sb_profile_free(p);
	return NULL;
}

static void test_refusals(void **state)
{
	static const struct {
		const char *text, *err; /* err NULL: accepted */
	} cases[] = {
	    {MD1 "[scenario]\ndegrade = hdd\n", NULL},
	    /* Every md level but 0 lets a member go (md's own answer). */
	    {"[devices]\nhdd = 4\n[md]\nlevel = 4\n[fs]\ntype = xfs\n[scenario]\ndegrade = hdd2\n",
	     NULL},
	    {"[devices]\nhdd = 4\n[md]\nlevel = 5\n[fs]\ntype = xfs\n[scenario]\ndegrade = hdd2\n",
	     NULL},
	    {"[devices]\nhdd = 4\n[md]\nlevel = 6\n[fs]\ntype = xfs\n[scenario]\ndegrade = hdd2\n",
	     NULL},
	    {"[devices]\nhdd = 4\n[md]\nlevel = 10\n[fs]\ntype = xfs\n[scenario]\ndegrade = hdd2\n",
	     NULL},
	    /* btrfs on the first fs.devices units only (fs's answer). */
	    {"[devices]\nhdd = 3\n[fs]\ntype = btrfs\ndata = raid1\nmetadata = raid1\ndevices = 2\n"
	     "[scenario]\ndegrade = hdd3\n",
	     "p.conf:9: scenario.degrade: hdd3 is not in the array (its members: hdd1, hdd2)"},
	    {"[devices]\nhdd = 3\n[fs]\ntype = btrfs\ndata = raid1c3\nmetadata = raid1\n"
	     "[scenario]\ndegrade = hdd3\n",
	     NULL},
	    {MD1 "[scenario]\nrebuild = hdd2\nrebuild-with = add\n", NULL},
	    {MD1 "[scenario]\nrebuild = ssd\n", NULL}, /* bitmap internal: re-add */
	    {BTR "[scenario]\nrebuild = ssd.p2\n", NULL},
	    {BTR "[scenario]\ndegrade = ssd\n", NULL}, /* its first partition */
	    {"[devices]\nssd = 1\nhdd = 2\n[md]\nlevel = 0\nbitmap = none\n[fs]\ntype = xfs\n"
	     "[scenario]\ndegrade = hdd\n",
	     "p.conf:10: scenario.degrade: RAID0 has no redundancy: without one member the array "
	     "is gone"},
	    {MD1 "[scenario]\ndegrade = nvme\n",
	     "p.conf:9: scenario.degrade: nvme is not in the array (its members: ssd, hdd1, hdd2)"},
	    {MD1 "[scenario]\ndegrade = hdd3\n",
	     "p.conf:9: scenario.degrade: hdd3 is not in the array (its members: ssd, hdd1, hdd2)"},
	    {"[devices]\nssd = 1\nhdd = 2\n[md]\nlevel = 1\nmembers = hdd\n[fs]\ntype = xfs\n"
	     "[scenario]\ndegrade = ssd\n",
	     "p.conf:10: scenario.degrade: ssd is not in the array (its members: hdd1, hdd2)"},
	    {MD1 "[scenario]\ndegrade = hdd.x\n",
	     "p.conf:9: scenario.degrade: 'hdd.x': expected 'none', a role (ssd, hdd, nvme, any), "
	     "a device of one (hdd2) or a partition (ssd.p2)"},
	    {MD1 "[scenario]\ndegrade = hdd1\nrebuild = hdd2\n",
	     "p.conf:10: scenario.rebuild: names hdd2 but scenario.degrade names hdd1: a rebuild "
	     "adds back the member it took out (give one of them)"},
	    {MD1 "[scenario]\nrebuild = hdd\nrebuild-with = replace\n",
	     "p.conf:10: scenario.rebuild-with: replace is btrfs's: md rebuilds with re-add or "
	     "add"},
	    {"[devices]\nssd = 1\nhdd = 1\n[md]\nlevel = 1\nbitmap = none\n[fs]\ntype = xfs\n"
	     "[scenario]\nrebuild = hdd\nrebuild-with = re-add\n",
	     "p.conf:11: scenario.rebuild-with: re-add needs md.bitmap = internal (without a "
	     "bitmap "
	     "md cannot tell what changed: use add)"},
	    {"[devices]\nssd = 1\n[fs]\ntype = xfs\n[scenario]\ndegrade = ssd\n",
	     "p.conf:6: scenario.degrade: only md arrays and btrfs RAID have members to take out "
	     "(the stack has neither)"},
	    {"[devices]\nssd = 2\n[fs]\ntype = btrfs\ndata = single\nmetadata = raid1\n"
	     "[scenario]\ndegrade = ssd\n",
	     "p.conf:8: scenario.degrade: btrfs keeps one copy of some blocks here (fs.data and "
	     "fs.metadata must both be raid1, raid1c3, raid1c4, raid10, raid5 or raid6)"},
	    {BTR "[scenario]\nrebuild = ssd.p2\nrebuild-with = add\n",
	     "p.conf:11: scenario.rebuild-with: btrfs rebuilds with replace"},
	    {BTR "[scenario]\ndegrade = ssd.p3\n",
	     "p.conf:10: scenario.degrade: ssd.p3 is not in the array (its members: ssd.p1, "
	     "ssd.p2)"},
	    {"[devices]\nssd = 1\nhdd = 1\n[lvm]\nenable = yes\n[fs]\ntype = ext4\n"
	     "[scenario]\ndegrade = hdd\n",
	     "p.conf:9: scenario.degrade: LVM without md has no redundancy to lose a member from"},
	    {"[devices]\nssd = 1\n[fs]\ntype = ext4\n[scenario]\nintegrity = yes\n",
	     "p.conf:6: scenario.integrity: yes needs an md array with redundancy or btrfs "
	     "(nothing here can be checked against a second copy)"},
	    /* a matrix keeps the variants that make sense, drops the others */
	    {"[devices]\nssd = 1\nhdd = 2\n[md]\nlevel = 1\n[fs]\ntype = xfs\n[matrix]\n"
	     "scenario.degrade = none | hdd | nvme\n",
	     NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sb_pvariant *v;
		size_t n;
		char *err = variants_err(cases[i].text, &v, &n);
		if (!cases[i].err && err)
			fail_msg("case %zu: refused: %s", i, err);
		if (cases[i].err && (!err || strcmp(err, cases[i].err) != 0))
			fail_msg("case %zu:\n got  %s\n want %s", i, err ? err : "(accepted)",
				 cases[i].err);
		free(err);
	}
}

/* Where the plan puts the scenario steps: md's degrade right after the
 * array, btrfs's after the mount, every rebuild after the mount. */
static void test_plan_places(void **state)
{
	static const struct {
		const char *text;
		const char *kinds; /* the plan's step kinds, in order */
		const char *member, *with;
	} cases[] = {
	    {MD1 "[scenario]\ndegrade = hdd2\n", "loop loop loop mdadm-create scenario mkfs mount",
	     "${hdd2}", NULL},
	    {MD1 "[scenario]\nrebuild = hdd\n",
	     "loop loop loop mdadm-create scenario mkfs mount scenario", "${hdd1}", "re-add"},
	    {MD1 "[scenario]\nrebuild = hdd\nrebuild-with = add\n",
	     "loop loop loop mdadm-create scenario mkfs mount scenario", "${hdd1}", "add"},
	    {BTR "[scenario]\nrebuild = ssd.p2\n", "loop partition mkfs mount scenario scenario",
	     "${ssd.p2}", "replace"},
	    {MD1, "loop loop loop mdadm-create mkfs mount", NULL, NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sb_profile *p = NULL;
		struct sb_pvariant *v = NULL;
		struct sb_plan plan;
		struct sb_plan_in in = {.loop = true, .quick = true};
		char *err = NULL, kinds[256] = "";
		size_t n = 0, o = 0;
		assert_int_equal(sb_profile_parse("p.conf", cases[i].text, &p, &err), 0);
		assert_int_equal(sb_profile_variants(p, &v, &n, &err), 0);
		assert_int_equal(sb_plan_build(&v[0].cfg, &in, &plan, &err), 0);
		const struct sb_scen_args *last = NULL;
		for (size_t k = 0; k < plan.n; k++) {
			o += (size_t)snprintf(kinds + o, sizeof(kinds) - o, "%s%s", k ? " " : "",
					      sb_layer_get(plan.steps[k].kind)->kind);
			if (plan.steps[k].kind == SB_STEP_SCEN)
				last = plan.steps[k].args;
		}
		assert_string_equal(kinds, cases[i].kinds);
		if (cases[i].member) {
			assert_non_null(last);
			assert_string_equal(last->member, cases[i].member);
			if (cases[i].with)
				assert_string_equal(last->with, cases[i].with);
			if (strcmp(last->kind, "btrfs") == 0)
				assert_int_equal(last->devid, 2);
		}
		sb_plan_free(&plan);
		sb_pvariants_free(v, n);
		sb_profile_free(p);
	}
}

static void test_sync_completed(void **state)
{
	static const struct {
		const char *in;
		int r;
		uint64_t done, total;
	} cases[] = {
	    {"none\n", 1, 0, 0},
	    {"none", 1, 0, 0},
	    {"1024 / 2097152\n", 0, 1024, 2097152},
	    {"0 / 8\n", 0, 0, 8},
	    {"9 / 8\n", -EINVAL, 0, 0},
	    {"12 /\n", -EINVAL, 0, 0},
	    {"", -EINVAL, 0, 0},
	    {"12 / 34 x\n", -EINVAL, 0, 0},
	    {"nonex", -EINVAL, 0, 0},
	    {"-1 / 5", -EINVAL, 0, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t d = 0, t = 0;
		int r = sb_md_parse_sync_completed(cases[i].in, &d, &t);
		if (r != cases[i].r)
			fail_msg("case %zu '%s': %d, want %d", i, cases[i].in, r, cases[i].r);
		if (r == 0) {
			assert_int_equal(d, cases[i].done);
			assert_int_equal(t, cases[i].total);
		}
	}
}

static void test_scrub(void **state)
{
	/* btrfs-progs 6.2's -R output (one device's lines shown) */
	static const char clean[] =
	    "scrub done for 0b3a4c51-1111-2222-3333-444455556666\n"
	    "Scrub started:    Wed Dec  2 04:21:52 2026\n"
	    "Status:           finished\n"
	    "Duration:         0:00:00\n"
	    "\tdata_extents_scrubbed: 1032\n\ttree_extents_scrubbed: 17\n"
	    "\tdata_bytes_scrubbed: 67371008\n\ttree_bytes_scrubbed: 278528\n"
	    "\tread_errors: 0\n\tcsum_errors: 0\n\tverify_errors: 0\n\tno_csum: 0\n"
	    "\tcsum_discards: 0\n\tsuper_errors: 0\n\tmalloc_errors: 0\n"
	    "\tuncorrectable_errors: 0\n\tunverified_errors: 0\n\tcorrected_errors: 0\n"
	    "\tlast_physical: 336592896\n";
	static const char bad[] =
	    "\tdata_bytes_scrubbed: 4096\n\tread_errors: 2\n\tcsum_errors: 7\n"
	    "\tuncorrectable_errors: 1\n\tcorrected_errors: 8\n";
	struct sb_scrub_counts c;
	assert_int_equal(sb_btrfs_parse_scrub(clean, &c), 0);
	assert_int_equal(c.errors, 0);
	assert_int_equal(c.bytes, 67371008 + 278528);
	assert_true(c.seen >= 10);
	assert_int_equal(sb_btrfs_parse_scrub(bad, &c), 0);
	assert_int_equal(c.errors, 10); /* read + csum + uncorrectable */
	assert_int_equal(c.uncorrectable, 1);
	assert_int_equal(c.corrected, 8);
	assert_int_equal(sb_btrfs_parse_scrub("ERROR: not a btrfs filesystem\n", &c), -EINVAL);
	assert_int_equal(sb_btrfs_parse_scrub("", &c), -EINVAL);
	assert_int_equal(sb_btrfs_parse_scrub("csum_errors: lots\n", &c), -EINVAL);
}

static void test_mdstat(void **state)
{
	static const char st[] =
	    "Personalities : [raid1]\n"
	    "md126 : active raid1 sdc[1] sdb[0]\n"
	    "      1046528 blocks super 1.2 [2/2] [UU]\n"
	    "      \n"
	    "md127 : active raid1 sdd[3] sda[0] sdb[1]\n"
	    "      1046528 blocks super 1.2 [3/2] [UU_]\n"
	    "      [=>...................]  recovery = 12.5% (131072/1046528) finish=0.7min "
	    "speed=20480K/sec\n"
	    "      bitmap: 0/1 pages [0KB], 65536KB chunk\n\n"
	    "unused devices: <none>\n";
	unsigned pm = 0;
	uint64_t kbps = 0;
	assert_int_equal(sb_mdstat_progress(st, "md127", &pm, &kbps), 0);
	assert_int_equal(pm, 125);
	assert_int_equal(kbps, 20480);
	assert_int_equal(sb_mdstat_progress(st, "md126", &pm, &kbps), 1);
	assert_int_equal(sb_mdstat_progress(st, "md12", &pm, &kbps), -ENOENT);
	assert_int_equal(sb_mdstat_progress(st, "md1", &pm, &kbps), -ENOENT);
	assert_int_equal(sb_mdstat_progress("md0 : x\n   y = 120% (1/2)\n", "md0", &pm, &kbps),
			 -EINVAL);
}

/* The report's sum of a column's md checks: partial checks of different
 * spans (pooled repeats) give the least and the largest span, not the last
 * one read; a check cut by the rebuild limit is counted apart. */
static void test_scen_sum_spans(void **state)
{
	(void)state;
	static const char *in[] = {
	    "{\"md\":{\"mismatch_cnt\":0,\"span_bytes\":134217728,\"walk_bytes\":536870912}}",
	    "{\"md\":{\"mismatch_cnt\":0,\"span_bytes\":67108864,\"walk_bytes\":268435456}}",
	    "{\"md\":{\"mismatch_cnt\":3,\"finished\":false}}",
	    "{\"md\":{\"mismatch_cnt\":0,\"span_bytes\":134217728,\"walk_bytes\":536870912}}",
	};
	struct sb_repeat rep[4] = {0};
	for (size_t i = 0; i < 4; i++)
		assert_non_null(rep[i].integrity = json_tokener_parse(in[i]));
	struct sb_variant var = {.rep = rep, .n_rep = 4};
	const struct sb_variant *vars[] = {&var};
	struct sb_report_col col = {.vars = vars, .n_vars = 1};
	struct sb_report_scen s;
	sb_report_scen_sum(&col, &s);
	assert_int_equal(s.md_checks, 4);
	assert_int_equal(s.md_partial, 3);
	assert_int_equal(s.md_unfinished, 1);
	assert_int_equal(s.md_span, 67108864);
	assert_int_equal(s.md_span_max, 134217728);
	assert_int_equal(s.md_walk, 536870912);
	assert_int_equal(s.md_mismatch, 3);
	for (size_t i = 0; i < 4; i++)
		json_object_put(rep[i].integrity);
}

static void test_target(void **state)
{
	struct sb_scen_target t;
	char *why = NULL;
	assert_int_equal(sb_scen_target_parse("hdd2.p3", &t, &why), 0);
	assert_int_equal(t.role, SB_ROLE_HDD);
	assert_int_equal(t.slot, 2);
	assert_int_equal(t.part, 3);
	static const char *const bad[] = {"",	   "hdd0",  "hdd.p0",	 "hd",	  "ssd.q1",
					  "ssd.p", "hdd2x", "ssd.p1.p2", "nvme65"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (sb_scen_target_parse(bad[i], &t, &why) != -EINVAL)
			fail_msg("'%s' accepted", bad[i]);
		assert_non_null(why);
		free(why);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_refusals),	   cmocka_unit_test(test_plan_places),
	    cmocka_unit_test(test_sync_completed), cmocka_unit_test(test_scrub),
	    cmocka_unit_test(test_mdstat),	   cmocka_unit_test(test_target),
	    cmocka_unit_test(test_scen_sum_spans),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
