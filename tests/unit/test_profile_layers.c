/* The layers' own key tables: registered through the layer registry (section,
 * ids, lookups), filled into typed configs through their offsetof, and the
 * layers' captures of effective state on a made-up sysfs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "profile/profile.h"
#include "stack/layers.h"
#include "stack/scenario.h"
#include "util/macro.h"
#include "workload/effconf.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Every registered table is a section of its own, its keys consecutive
 * after the core ones and found by their dotted names. */
static void test_registered(void **state)
{
	bool md_seen = false;
	assert_true(sb_keytab_n >= 1);
	for (size_t t = 0; t < sb_keytab_n; t++) {
		const struct sb_keytab *kt = sb_keytabs[t];
		int base = sb_keytab_base(kt), sec = sb_sec_lookup(kt->section);
		assert_true(base >= SB_KEY_CORE_N);
		assert_true(sec >= 0); /* [devices] is shared with the core keys */
		for (size_t i = 0; i < kt->n; i++) {
			char dotted[96];
			snprintf(dotted, sizeof(dotted), "%s.%s", kt->section, kt->keys[i].name);
			if (sb_key_find(dotted) != base + (int)i)
				fail_msg("%s: id %d, want %d", dotted, sb_key_find(dotted),
					 base + (int)i);
			assert_int_equal(sb_keys[base + i].sec, sec);
			assert_true(kt->keys[i].off < kt->cfg_size);
		}
		md_seen |= kt == &sb_keytab_md;
	}
	assert_true(md_seen);
	assert_int_equal(sb_key_find("md.no-such-key"), -1);
	assert_int_equal(sb_key_find("nosection.level"), -1);
	assert_int_equal(sb_key_find("level"), -1);
}

/* [scenario]'s table is placed as core: its keys right after the core ones,
 * as when they were core keys, so result.json's profile config keeps its
 * order; its rules still run last, after those of the arrays it asks about. */
static void test_placed_as_core(void **state)
{
	static const char *const want[] = {
	    "devices.hdd",
	    "scenario.degrade",
	    "scenario.rebuild",
	    "scenario.rebuild-with",
	    "scenario.rebuild-limit",
	    "scenario.integrity",
	    "scenario.integrity-quick",
	    "scenario.fill",
	    "devices.loop.ssd",
	};
	static const char text[] = "[devices]\nhdd = 2\n[md]\nlevel = 1\n[fs]\ntype = xfs\n"
				   "[scenario]\nfill = 10%\n[workloads]\nrun = command:true\n";
	static const char bad[] = "[devices]\nhdd = 1\n[md]\nlevel = 1\n[fs]\ntype = xfs\n"
				  "[scenario]\ndegrade = hdd\n[workloads]\nrun = command:true\n";
	struct sb_profile *p = NULL;
	struct sb_pvariant *v = NULL;
	char *err = NULL;
	size_t i = 0, n;

	assert_true(sb_keytab_scen.placed_as_core);
	assert_int_equal(sb_keytab_base(&sb_keytab_scen), SB_KEY_CORE_N);
	assert_int_equal(sb_key_find("scenario.degrade"), SB_KEY_CORE_N);
	if (sb_profile_parse("s.conf", text, &p, &err) < 0)
		fail_msg("%s", err);
	json_object *o = sb_config_to_json(&p->base);
	json_object_object_foreach(o, key, val)
	{
		(void)val;
		if (i < ARRAY_SIZE(want) && strcmp(key, want[i]) != 0)
			fail_msg("key %zu of the config is %s, want %s", i, key, want[i]);
		i++;
	}
	assert_true(i > ARRAY_SIZE(want));
	json_object_put(o);
	sb_profile_free(p);

	/* One member: md's rule speaks, not the scenario's. */
	if (sb_profile_parse("s.conf", bad, &p, &err) < 0)
		fail_msg("%s", err);
	assert_int_equal(sb_profile_variants(p, &v, &n, &err), -EINVAL);
	assert_non_null(strstr(err, "md.level: RAID1 needs at least 2 members"));
	free(err);
	sb_profile_free(p);
}

static const struct sb_key *md_key(const char *name, size_t *off)
{
	for (size_t i = 0; i < sb_keytab_md.n; i++)
		if (strcmp(sb_keytab_md.keys[i].name, name) == 0) {
			*off = sb_keytab_md.keys[i].off;
			return &sb_keytab_md.keys[i];
		}
	fail_msg("md has no key %s", name);
	return NULL;
}

/* Values (and defaults) land in the typed fields their key types say. */
static void test_fill(void **state)
{
	static const char text[] = "[devices]\nssd = 1\nhdd = 2\n"
				   "[md]\nlevel = 1\nwrite-mostly = hdd.p2\nwrite-behind = 16383\n"
				   "bitmap-chunk = 64M\nassume-clean = yes\nmembers = ssd, hdd\n"
				   "[fs]\ntype = xfs\n[workloads]\nrun = command:true\n";
	struct sb_profile *p = NULL;
	char *err = NULL, *cfg;
	size_t off;

	if (sb_profile_parse("f.conf", text, &p, &err) < 0)
		fail_msg("%s", err);
	cfg = calloc(1, sb_keytab_md.cfg_size);
	assert_non_null(cfg);
	sb_keytab_fill(&sb_keytab_md, &p->base, cfg);

	md_key("level", &off);
	assert_string_equal(*(const char **)(cfg + off), "1");
	md_key("write-mostly", &off);
	assert_int_equal(*(int *)(cfg + off), SB_ROLE_HDD);
	md_key("write-behind", &off);
	assert_int_equal(*(uint64_t *)(cfg + off), 16383);
	md_key("bitmap-chunk", &off);
	assert_int_equal(*(uint64_t *)(cfg + off), 64ull << 20);
	md_key("chunk", &off); /* unset, no default */
	assert_int_equal(*(uint64_t *)(cfg + off), 0);
	md_key("assume-clean", &off);
	assert_true(*(bool *)(cfg + off));
	md_key("metadata", &off); /* the default */
	assert_string_equal(*(const char **)(cfg + off), "1.2");
	md_key("members", &off);
	const struct sb_sel *sel = (const struct sb_sel *)(cfg + off);
	assert_false(sel->all);
	assert_int_equal(sel->n, 2);
	assert_int_equal(sel->item[1].role, SB_ROLE_HDD);
	free(cfg);
	sb_profile_free(p);
}

/* A size or percentage, and the section's presence ([lvm] alone builds
 * LVM: its keys all have defaults). */
static void test_fill_lvm(void **state)
{
	static const char *const text[] = {
	    "[devices]\nany = 1\n[lvm]\nlv-size = 20G\n[fs]\ntype = xfs\n",
	    "[devices]\nany = 1\n[lvm]\n[fs]\ntype = xfs\n",
	    "[devices]\nany = 1\n[fs]\ntype = xfs\n",
	};
	static const struct {
		bool present;
		uint64_t v;
		bool pct;
	} want[] = {{true, 20ull << 30, false}, {true, 100, true}, {false, 100, true}};
	const struct sb_keytab *t = &sb_keytab_lvm;
	size_t off = (size_t)-1;

	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->keys[i].name, "lv-size") == 0)
			off = t->keys[i].off;
	assert_true(off < t->cfg_size && t->present);
	for (size_t c = 0; c < sizeof(want) / sizeof(want[0]); c++) {
		struct sb_profile *p = NULL;
		char *err = NULL, *cfg = calloc(1, t->cfg_size);
		assert_non_null(cfg);
		if (sb_profile_parse("l.conf", text[c], &p, &err) < 0)
			fail_msg("%s", err);
		sb_keytab_fill(t, &p->base, cfg);
		const struct sb_size_pct *sp = (const struct sb_size_pct *)(cfg + off);
		if (*(bool *)(cfg + t->present - 1) != want[c].present || sp->v != want[c].v ||
		    sp->pct != want[c].pct)
			fail_msg("case %zu: present %d, %llu%s", c, *(bool *)(cfg + t->present - 1),
				 (unsigned long long)sp->v, sp->pct ? "%" : "");
		free(cfg);
		sb_profile_free(p);
	}
}

static void put(const char *root, const char *rel, const char *text)
{
	char path[512], *slash;
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	return remove(path);
}

/* md's capture reads its array's attributes and each member's state. */
static void test_md_capture(void **state)
{
	const struct sb_capture *caps[16], *md = NULL;
	size_t n = sb_layer_captures(caps, 16);
	char root[64];
	json_object *o, *v;

	for (size_t i = 0; i < n; i++)
		if (strcmp(caps[i]->key, "md") == 0)
			md = caps[i];
	assert_non_null(md);
	assert_string_equal(md->type, "md");
	snprintf(root, sizeof(root), "/tmp/sb-test-layers-%d", (int)getpid());
	mkdir(root, 0755);
	put(root, "class/block/md127/md/level", "raid1\n");
	put(root, "class/block/md127/md/bitmap/backlog", "16383\n");
	put(root, "class/block/md127/md/dev-sdb/state", "in_sync,write_mostly\n");
	put(root, "class/block/md127/md/dev-sda/state", "in_sync\n");
	static struct sb_devstack st = {.n = 1};
	snprintf(st.sysroot, sizeof(st.sysroot), "%s", root);
	snprintf(st.dev[0].name, sizeof(st.dev[0].name), "md127");
	snprintf(st.dev[0].type, sizeof(st.dev[0].type), "md");
	json_object *all = json_object_new_object();
	md->fn(all, &st, 0, -1);
	o = json_object_object_get(all, "md127");
	assert_non_null(o);
	assert_string_equal(json_object_get_string(json_object_object_get(o, "level")), "raid1");
	assert_string_equal(json_object_get_string(json_object_object_get(o, "bitmap_backlog")),
			    "16383");
	assert_null(json_object_object_get(o, "chunk_size")); /* not there: left out */
	assert_true(json_object_object_get_ex(o, "members", &v));
	assert_string_equal(json_object_get_string(json_object_object_get(v, "sdb")),
			    "in_sync,write_mostly");
	assert_string_equal(json_object_get_string(json_object_object_get(v, "sda")), "in_sync");
	/* its rows: by the array's place, the members' states sorted */
	json_object *rows = json_object_new_object();
	md->rows(rows, md, all);
	assert_string_equal(json_object_get_string(json_object_object_get(rows, "md0.level")),
			    "raid1");
	assert_string_equal(
	    json_object_get_string(json_object_object_get(rows, "md0.member_states")),
	    "in_sync in_sync,write_mostly");
	assert_null(json_object_object_get(rows, "md0.members"));
	json_object_put(rows);
	json_object_put(all);
	assert_int_equal(nftw(root, rm_one, 8, FTW_DEPTH | FTW_PHYS), 0);
}

/* The captures' order is the rows' order in the report: the mounted file
 * system first, every device's queue last; the queue reads every device,
 * its trailing newline and blanks dropped. */
static void test_capture_order(void **state)
{
	const struct sb_capture *caps[16], *q;
	size_t n = sb_layer_captures(caps, 16);
	char root[64];

	assert_true(n >= 4);
	assert_string_equal(caps[0]->key, "mount");
	assert_non_null(caps[0]->mounted);
	assert_string_equal(caps[1]->key, "geometry");
	assert_non_null(caps[1]->mounted);
	q = caps[n - 1];
	assert_string_equal(q->key, "queue");
	assert_null(q->type);
	snprintf(root, sizeof(root), "/tmp/sb-test-queue-%d", (int)getpid());
	mkdir(root, 0755);
	put(root, "class/block/loop5/queue/scheduler", "[none] mq-deadline \n");
	put(root, "class/block/loop5/queue/nr_requests", "256\n");
	static struct sb_devstack st = {.n = 1};
	snprintf(st.sysroot, sizeof(st.sysroot), "%s", root);
	snprintf(st.dev[0].name, sizeof(st.dev[0].name), "loop5");
	snprintf(st.dev[0].kind, sizeof(st.dev[0].kind), "disk");
	json_object *all = json_object_new_object(), *o;
	q->fn(all, &st, 0, -1);
	o = json_object_object_get(all, "loop5");
	assert_non_null(o);
	assert_string_equal(json_object_get_string(json_object_object_get(o, "kind")), "disk");
	assert_string_equal(json_object_get_string(json_object_object_get(o, "scheduler")),
			    "[none] mq-deadline");
	assert_string_equal(json_object_get_string(json_object_object_get(o, "nr_requests")),
			    "256");
	assert_null(json_object_object_get(o, "io_opt")); /* not there: left out */
	json_object_put(all);
	assert_int_equal(nftw(root, rm_one, 8, FTW_DEPTH | FTW_PHYS), 0);
}

/* Every layer's rows of what its capture read: keyed by the device's place,
 * numbers as text, what changes from run to run left out. */
static void test_capture_rows(void **state)
{
	static const struct {
		const char *key, *captured, *rows;
	} cases[] = {
	    {"lvmcache", "{\"dm-3\":{\"type\":\"cache\",\"mode\":\"writeback\",\"chunk\":65536}}",
	     "{\"lvmcache0.type\":\"cache\",\"lvmcache0.mode\":\"writeback\","
	     "\"lvmcache0.chunk\":\"65536\"}"},
	    {"bcache",
	     "{\"bcache0\":{\"cache_mode\":\"writeback\",\"writeback_percent\":10,"
	     "\"dirty_data\":4096,\"state\":\"dirty\",\"cache_set\":\"1f0e\"}}",
	     "{\"bcache0.cache_mode\":\"writeback\",\"bcache0.writeback_percent\":\"10\"}"},
	    {"lvm", "{\"pe_start\":{\"sdc\":1048576,\"sdb\":1048576}}",
	     "{\"lvm0.pe_start\":\"1048576\",\"lvm1.pe_start\":\"1048576\"}"},
	    {"md", "{\"md127\":{\"level\":\"raid0\"},\"md126\":{\"level\":\"raid1\"}}",
	     "{\"md0.level\":\"raid0\",\"md1.level\":\"raid1\"}"},
	    {"mount",
	     "{\"fstype\":\"xfs\",\"source\":\"/dev/loop5\",\"options\":\"rw,noatime,logbufs=8\"}",
	     "{\"mount.fstype\":\"xfs\",\"mount.option.rw\":\"on\",\"mount.option.noatime\":\"on\","
	     "\"mount.option.logbufs\":\"8\"}"},
	    {"geometry",
	     "{\"data.bsize\":\"4096\",\"Filesystem UUID\":\"1f0e\",\"incompat_flags\":\"0x141\","
	     "\"Journal device\":\"/dev/loop6\"}",
	     "{\"geometry.data.bsize\":\"4096\"}"},
	    {"queue",
	     "{\"dm-0\":{\"kind\":\"top\",\"scheduler\":\"none\"},\"loop5\":{\"kind\":\"disk\","
	     "\"nr_requests\":\"256\"}}",
	     "{\"queue0.kind\":\"top\",\"queue0.scheduler\":\"none\",\"queue1.kind\":\"disk\","
	     "\"queue1.nr_requests\":\"256\"}"},
	};
	const struct sb_capture *caps[16];
	size_t n = sb_layer_captures(caps, 16);

	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		const struct sb_capture *cap = NULL;
		for (size_t i = 0; i < n; i++)
			if (strcmp(caps[i]->key, cases[c].key) == 0)
				cap = caps[i];
		assert_non_null(cap);
		json_object *in = json_tokener_parse(cases[c].captured);
		json_object *want = json_tokener_parse(cases[c].rows);
		json_object *rows = json_object_new_object();
		assert_non_null(in);
		assert_non_null(want);
		if (cap->rows)
			cap->rows(rows, cap, in);
		else
			sb_capture_rows(rows, cap, in);
		if (!json_object_equal(rows, want))
			fail_msg("%s: rows %s, want %s", cases[c].key,
				 json_object_to_json_string(rows), cases[c].rows);
		json_object_put(rows);
		json_object_put(want);
		json_object_put(in);
	}
}

/* What the layers say their rows follow, as a fresh set's
 * extra.config.follows holds it: the layers without a rule say nothing. */
static void test_capture_follows(void **state)
{
	const struct sb_capture *caps[16];
	size_t n = sb_layer_captures(caps, 16);
	json_object *follows = json_object_new_object();
	json_object *want = json_tokener_parse(
	    "{\"mount\":{\"params\":[\"fs.type\"],\"gone_only\":false,\"section_word\":false},"
	    "\"geometry\":{\"params\":[\"fs.type\",\"fs.mkfs\",\"mkfs*\"],\"gone_only\":false,"
	    "\"section_word\":true},"
	    "\"md\":{\"params\":[\"scenario.degrade\",\"scenario.rebuild\",\"md*\"],"
	    "\"gone_only\":false,\"section_word\":true},"
	    "\"queue\":{\"params\":[\"scenario.degrade\",\"scenario.rebuild\"],"
	    "\"gone_only\":true,\"section_word\":true}}");

	assert_non_null(want);
	for (size_t i = 0; i < n; i++)
		sb_capture_follows(follows, caps[i]);
	if (!json_object_equal(follows, want))
		fail_msg("follows %s", json_object_to_json_string(follows));
	json_object_put(follows);
	json_object_put(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_registered),	   cmocka_unit_test(test_fill),
	    cmocka_unit_test(test_fill_lvm),	   cmocka_unit_test(test_md_capture),
	    cmocka_unit_test(test_capture_rows),   cmocka_unit_test(test_capture_order),
	    cmocka_unit_test(test_placed_as_core), cmocka_unit_test(test_capture_follows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
