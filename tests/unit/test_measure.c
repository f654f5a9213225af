/* The measure area's pure parts on captured input: the effective-config
 * parsers (xfs_info, dumpe2fs -h, btrfs dump-super, kernel log matching),
 * the configuration diff between variants (A/A warning, differences nobody
 * asked for) and the per-phase device shares. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/measure.h"
#include "workload/effconf.h"

#include <string.h>

static const char *get(json_object *o, const char *k)
{
	json_object *v;
	return json_object_object_get_ex(o, k, &v) ? json_object_get_string(v) : NULL;
}

static void test_xfs_info(void **state)
{
	static const char text[] =
	    "meta-data=/dev/loop0             isize=512    agcount=4, agsize=65536 blks\n"
	    "         =                       sectsz=512   attr=2, projid32bit=1\n"
	    "         =                       crc=1        finobt=1, sparse=1, rmapbt=0\n"
	    "         =                       reflink=1    bigtime=1 inobtcount=1 nrext64=0\n"
	    "data     =                       bsize=4096   blocks=262144, imaxpct=25\n"
	    "         =                       sunit=0      swidth=0 blks\n"
	    "naming   =version 2              bsize=4096   ascii-ci=0, ftype=1\n"
	    "log      =internal log           bsize=4096   blocks=16384, version=2\n"
	    "         =                       sectsz=512   sunit=0 blks, lazy-count=1\n"
	    "realtime =none                   extsz=4096   blocks=0, rtextents=0\n";
	static const char *const want[][2] = {
	    {"meta-data.isize", "512"}, {"meta-data.agcount", "4"}, {"meta-data.reflink", "1"},
	    {"meta-data.crc", "1"},	{"data.bsize", "4096"},	    {"data.swidth", "0"},
	    {"naming.ftype", "1"},	{"log.blocks", "16384"},    {"log.lazy-count", "1"},
	    {"realtime.extsz", "4096"},
	};
	json_object *o = sb_capture_parse_xfs_info(text);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *v = get(o, want[i][0]);
		if (!v || strcmp(v, want[i][1]) != 0)
			fail_msg("%s: got %s, want %s", want[i][0], v ? v : "(none)", want[i][1]);
	}
	assert_null(get(o, "meta-data./dev/loop0")); /* the device is not geometry */
	json_object_put(o);
	o = sb_capture_parse_xfs_info("");
	assert_int_equal(json_object_object_length(o), 0);
	json_object_put(o);
}

static void test_keys(void **state)
{
	static const char e2[] = "Filesystem UUID:          c8aa4e27-2626-454b-b2b5-a6f996775c30\n"
				 "Filesystem features:      has_journal ext_attr extent 64bit\n"
				 "Block size:               4096\n"
				 "Inode size:\t          256\n"
				 "RAID stride:              16\n";
	static const char *const e2keys[] = {"Filesystem features", "Block size",   "Inode size",
					     "RAID stride",	    "Journal size", NULL};
	static const char bt[] = "csum_type\t\t0 (crc32c)\n"
				 "sectorsize\t\t4096\n"
				 "nodesize\t\t16384\n"
				 "num_devices\t\t2\n"
				 "leafsize (deprecated)\t16384\n";
	static const char *const btkeys[] = {"sectorsize", "nodesize", "num_devices", "csum_type",
					     NULL};
	json_object *o = sb_capture_parse_keys(e2, ':', e2keys);
	assert_string_equal(get(o, "Filesystem features"), "has_journal ext_attr extent 64bit");
	assert_string_equal(get(o, "Block size"), "4096");
	assert_string_equal(get(o, "Inode size"), "256");
	assert_string_equal(get(o, "RAID stride"), "16");
	assert_null(get(o, "Journal size"));
	assert_int_equal(json_object_object_length(o), 4);
	json_object_put(o);
	o = sb_capture_parse_keys(bt, ' ', btkeys);
	assert_string_equal(get(o, "csum_type"), "0 (crc32c)");
	assert_string_equal(get(o, "nodesize"), "16384");
	assert_string_equal(get(o, "num_devices"), "2");
	assert_int_equal(json_object_object_length(o), 4);
	json_object_put(o);
}

static void test_mentions(void **state)
{
	static const char *const names[] = {"loop5", "md127"};
	static const struct {
		const char *msg;
		bool want;
	} cases[] = {
	    {"BTRFS info (device loop5): use zstd compression, level 3", true},
	    {"EXT4-fs (loop50): mounted filesystem", false},
	    {"md/raid1:md127: active with 2 out of 2 mirrors", true},
	    {"loop5: detected capacity change from 0 to 2097152", true},
	    {"xloop5 nothing", false},
	    {"", false},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(sb_effconf_mentions(cases[i].msg, names, 2), cases[i].want);
}

/* What effconf captured for btrfs on a non-rotational loop device: ssd is
 * turned on by the kernel whether asked or not. */
static const char cfg_ssd_auto[] =
    "{\"mount\":{\"source\":\"/dev/loop0\",\"fstype\":\"btrfs\",\"options\":"
    "\"rw,relatime,ssd,discard=async,space_cache=v2,subvolid=5,subvol=/\"},"
    "\"kmsg\":[\"[1.0] BTRFS info (device loop0): enabling ssd optimizations\"],"
    "\"geometry\":{\"sectorsize\":\"4096\",\"nodesize\":\"16384\",\"metadata_uuid\":\"ab\"},"
    "\"queue\":{\"loop0\":{\"kind\":\"top\",\"scheduler\":\"[none] mq-deadline\","
    "\"wbt_lat_usec\":\"2000\",\"rotational\":\"0\"}},"
    "\"sysctl\":{\"vm.dirty_ratio\":\"20\"}}";
/* The same asked for with -o ssd, on another loop device, other UUID. */
static const char cfg_ssd_asked[] =
    "{\"mount\":{\"source\":\"/dev/loop3\",\"fstype\":\"btrfs\",\"options\":"
    "\"rw,relatime,ssd,discard=async,space_cache=v2,subvolid=5,subvol=/\"},"
    "\"kmsg\":[\"[9.0] BTRFS info (device loop3): use ssd allocation scheme\"],"
    "\"geometry\":{\"sectorsize\":\"4096\",\"nodesize\":\"16384\",\"metadata_uuid\":\"cd\"},"
    "\"queue\":{\"loop3\":{\"kind\":\"top\",\"scheduler\":\"[none] mq-deadline\","
    "\"wbt_lat_usec\":\"2000\",\"rotational\":\"0\"}},"
    "\"sysctl\":{\"vm.dirty_ratio\":\"20\"}}";
/* compress=zstd asked: ssd comes along unasked. */
static const char cfg_zstd[] =
    "{\"mount\":{\"source\":\"/dev/loop4\",\"fstype\":\"btrfs\",\"options\":"
    "\"rw,relatime,compress=zstd:3,ssd,discard=async,space_cache=v2,subvolid=5,subvol=/\"},"
    "\"geometry\":{\"sectorsize\":\"4096\",\"nodesize\":\"16384\"},"
    "\"queue\":{\"loop4\":{\"kind\":\"top\",\"scheduler\":\"[none] mq-deadline\","
    "\"wbt_lat_usec\":\"2000\",\"rotational\":\"0\"}},"
    "\"sysctl\":{\"vm.dirty_ratio\":\"20\"}}";
/* nossd asked: ssd gone. */
static const char cfg_nossd[] =
    "{\"mount\":{\"source\":\"/dev/loop5\",\"fstype\":\"btrfs\",\"options\":"
    "\"rw,relatime,nossd,discard=async,space_cache=v2,subvolid=5,subvol=/\"},"
    "\"geometry\":{\"sectorsize\":\"4096\",\"nodesize\":\"16384\"},"
    "\"queue\":{\"loop5\":{\"kind\":\"top\",\"scheduler\":\"[none] mq-deadline\","
    "\"wbt_lat_usec\":\"2000\",\"rotational\":\"0\"}},"
    "\"sysctl\":{\"vm.dirty_ratio\":\"20\"}}";
/* scheduler=bfq asked: bfq turns writeback throttling off. */
static const char cfg_bfq[] =
    "{\"mount\":{\"source\":\"/dev/loop6\",\"fstype\":\"btrfs\",\"options\":"
    "\"rw,relatime,ssd,discard=async,space_cache=v2,subvolid=5,subvol=/\"},"
    "\"geometry\":{\"sectorsize\":\"4096\",\"nodesize\":\"16384\"},"
    "\"queue\":{\"loop6\":{\"kind\":\"top\",\"scheduler\":\"mq-deadline [bfq]\","
    "\"wbt_lat_usec\":\"0\",\"rotational\":\"0\"}},"
    "\"sysctl\":{\"vm.dirty_ratio\":\"20\"}}";

static void test_config_diff(void **state)
{
	static const struct {
		const char *cfg, *label, *params;
	} vars[] = {
	    {cfg_ssd_auto, "default", "{}"},
	    {cfg_ssd_asked, "ssd", "{\"mount.options\":\"ssd\"}"},
	    {cfg_zstd, "zstd", "{\"mount.options\":\"compress=zstd\"}"},
	    {cfg_nossd, "nossd", "{\"mount.options\":\"nossd\"}"},
	    {cfg_bfq, "bfq", "{\"scheduler\":\"bfq\"}"},
	};
	enum { N = sizeof(vars) / sizeof(vars[0]) };
	struct sb_measure_var v[N];
	for (size_t i = 0; i < N; i++) {
		v[i].label = vars[i].label;
		v[i].config = json_tokener_parse(vars[i].cfg);
		v[i].params = json_tokener_parse(vars[i].params);
		assert_non_null(v[i].config);
	}
	char *d = sb_measure_config_diff(v, N, 0);
	assert_non_null(d);
	/* default and ssd: identical once device names, UUIDs and logs are left out */
	assert_non_null(strstr(d, "warning: default and ssd ran with the same effective "
				  "configuration"));
	assert_null(strstr(d, "warning: default and zstd"));
	/* what was asked is not reported */
	assert_null(strstr(d, "mount.option.compress"));
	assert_null(strstr(d, "mount.option.nossd"));
	assert_null(strstr(d, "queue0.scheduler"));
	/* nossd removed ssd, but nobody asked to remove "ssd"... it is the
	 * nossd variant's word */
	assert_null(strstr(d, "default vs nossd: mount.option.ssd"));
	/* bfq turned wbt off: a difference nobody asked for */
	assert_non_null(strstr(d, "note: default vs bfq: queue0.wbt_lat_usec is 2000 vs 0, which "
				  "no parameter asked for"));
	free(d);

	/* compress=zstd vs nossd (the pair), nossd as the base: ssd is
	 * on in the zstd variant, which did not ask for it. */
	struct sb_measure_var pair[2] = {v[3], v[2]};
	pair[1].params = json_tokener_parse("{\"mount.options\":\"compress=zstd\"}");
	pair[0].params = json_tokener_parse("{\"mount.options\":\"compress=no\"}");
	d = sb_measure_config_diff(pair, 2, 0);
	assert_non_null(strstr(d, "nossd vs zstd: mount.option.ssd is (unset) vs on, which no "
				  "parameter asked for"));
	assert_non_null(strstr(d, "mount.option.nossd is on vs (unset)"));
	assert_null(strstr(d, "warning"));
	free(d);
	json_object_put(pair[0].params);
	json_object_put(pair[1].params);
	for (size_t i = 0; i < N; i++) {
		json_object_put(v[i].config);
		json_object_put(v[i].params);
	}
	/* no configs: nothing to say */
	struct sb_measure_var none[2] = {{"a", NULL, NULL}, {"b", NULL, NULL}};
	d = sb_measure_config_diff(none, 2, 0);
	assert_string_equal(d, "");
	free(d);
}

/* A set captured with the layers' rows: the report compares the rows alone
 * (not the raw sections beside them), and names what was asked and did
 * change; a set from before the rows says nothing of what was asked. */
static void test_config_rows(void **state)
{
	static const char wt[] =
	    "{\"lvmcache\":{\"dm-3\":{\"mode\":\"writethrough\"}},"
	    "\"rows\":{\"mount.fstype\":\"xfs\",\"lvmcache0.mode\":\"writethrough\","
	    "\"lvmcache0.policy\":\"smq\",\"queue0.wbt_lat_usec\":\"2000\"}}";
	static const char wb[] =
	    "{\"lvmcache\":{\"dm-4\":{\"mode\":\"writeback\",\"extra\":\"x\"}},"
	    "\"rows\":{\"mount.fstype\":\"xfs\",\"lvmcache0.mode\":\"writeback\","
	    "\"lvmcache0.policy\":\"smq\",\"queue0.wbt_lat_usec\":\"0\"}}";
	static const char md_a[] = "{\"md\":{\"md127\":{\"bitmap_backlog\":\"0\"}}}";
	static const char md_b[] = "{\"md\":{\"md126\":{\"bitmap_backlog\":\"16383\"}}}";
	struct sb_measure_var v[2] = {
	    {"wt", json_tokener_parse(wt),
	     json_tokener_parse("{\"lvmcache.mode\":\"writethrough\"}")},
	    {"wb", json_tokener_parse(wb), json_tokener_parse("{\"lvmcache.mode\":\"writeback\"}")},
	};
	json_object *flat = sb_measure_config_flat(v[1].config);
	assert_int_equal(json_object_object_length(flat), 4);
	assert_string_equal(get(flat, "lvmcache0.mode"), "writeback");
	json_object_put(flat);
	char *d = sb_measure_config_diff(v, 2, 0);
	assert_non_null(d);
	assert_string_equal(d,
			    "changed: wt vs wb: lvmcache0.mode is writethrough vs writeback, "
			    "as asked\n"
			    "note: wt vs wb: queue0.wbt_lat_usec is 2000 vs 0, which no parameter "
			    "asked for\n");
	free(d);
	for (int i = 0; i < 2; i++) {
		json_object_put(v[i].config);
		json_object_put(v[i].params);
	}
	/* before the rows: md's sections flattened as ever, the asked change
	 * left unsaid */
	struct sb_measure_var old[2] = {
	    {"wm", json_tokener_parse(md_a), json_tokener_parse("{\"md.write-behind\":\"0\"}")},
	    {"wb", json_tokener_parse(md_b), json_tokener_parse("{\"md.write-behind\":\"16383\"}")},
	};
	flat = sb_measure_config_flat(old[1].config);
	assert_string_equal(get(flat, "md0.bitmap_backlog"), "16383");
	json_object_put(flat);
	d = sb_measure_config_diff(old, 2, 0);
	assert_string_equal(d, "");
	free(d);
	for (int i = 0; i < 2; i++) {
		json_object_put(old[i].config);
		json_object_put(old[i].params);
	}
}

/* The rules a fresh set carries (extra.config.follows) decide what was
 * asked: another fs.type asks for the mount and geometry rows; a set whose
 * rules leave geometry out gets it noted; a set without rules gets the ones
 * the report always applied. */
static void test_config_follows(void **state)
{
	static const char ext4[] =
	    "{\"rows\":{\"mount.fstype\":\"ext4\",\"mount.option.data\":\"ordered\","
	    "\"geometry.Block size\":\"4096\",\"queue0.scheduler\":\"none\"}%s}";
	static const char xfs[] =
	    "{\"rows\":{\"mount.fstype\":\"xfs\",\"mount.option.attr2\":\"on\","
	    "\"geometry.data.bsize\":\"4096\",\"queue0.scheduler\":\"none\"}%s}";
	static const char all[] =
	    ",\"follows\":{\"mount\":{\"params\":[\"fs.type\"],\"section_word\":false},"
	    "\"geometry\":{\"params\":[\"fs.type\",\"mkfs*\"]}}";
	static const char no_geometry[] =
	    ",\"follows\":{\"mount\":{\"params\":[\"fs.type\"],\"section_word\":false}}";
	static const char *const tails[] = {all, no_geometry, ""};
	char a[512], b[512];

	for (size_t t = 0; t < sizeof(tails) / sizeof(tails[0]); t++) {
		snprintf(a, sizeof(a), ext4, tails[t]);
		snprintf(b, sizeof(b), xfs, tails[t]);
		struct sb_measure_var v[2] = {
		    {"ext4", json_tokener_parse(a), json_tokener_parse("{\"fs.type\":\"ext4\"}")},
		    {"xfs", json_tokener_parse(b), json_tokener_parse("{\"fs.type\":\"xfs\"}")},
		};
		assert_non_null(v[0].config);
		assert_non_null(v[1].config);
		char *d = sb_measure_config_diff(v, 2, 0);
		assert_non_null(d);
		assert_non_null(
		    strstr(d, "changed: ext4 vs xfs: mount.fstype is ext4 vs xfs, as asked"));
		assert_null(strstr(d, "mount.option.data is ordered vs (unset), which no"));
		if (t == 1)
			assert_non_null(strstr(d,
					       "note: ext4 vs xfs: geometry.Block size is 4096 vs "
					       "(unset), which no parameter asked for"));
		else
			assert_null(strstr(d, "geometry.Block size"));
		free(d);
		/* an mkfs option asks for the geometry by the pattern mkfs*,
		 * where the rules have it */
		json_object_object_add(v[0].params, "mkfs.opts", json_object_new_string("-b 1k"));
		json_object_object_add(v[1].params, "fs.type", json_object_new_string("ext4"));
		d = sb_measure_config_diff(v, 2, 0);
		assert_non_null(d);
		assert_true((strstr(d, "note: ext4 vs xfs: geometry.Block size") != NULL) ==
			    (t == 1));
		assert_non_null(strstr(d, "mount.fstype is ext4 vs xfs, which no parameter"));
		free(d);
		for (int i = 0; i < 2; i++) {
			json_object_put(v[i].config);
			json_object_put(v[i].params);
		}
	}
}

/* md RAID1 of an SSD partition and two HDDs (write-mostly), as extra.devstat
 * records it for a random read phase. */
static void test_devshare(void **state)
{
	static const char ds[] =
	    "{\"random read\":{\"workload_read_bytes\":104857600,\"workload_write_bytes\":0,"
	    "\"devices\":["
	    "{\"name\":\"md127\",\"kind\":\"top\",\"parent\":null,\"read_ios\":6400,"
	    "\"read_bytes\":104857600,\"write_ios\":0,\"write_bytes\":0},"
	    "{\"name\":\"sda1\",\"kind\":\"part\",\"parent\":\"md127\",\"read_ios\":5760,"
	    "\"read_bytes\":94371840,\"write_ios\":0,\"write_bytes\":0},"
	    "{\"name\":\"sdb\",\"kind\":\"disk\",\"parent\":\"md127\",\"read_ios\":320,"
	    "\"read_bytes\":5242880,\"write_ios\":0,\"write_bytes\":0},"
	    "{\"name\":\"sdc\",\"kind\":\"disk\",\"parent\":\"md127\",\"read_ios\":320,"
	    "\"read_bytes\":5242880,\"write_ios\":0,\"write_bytes\":0},"
	    "{\"name\":\"sda\",\"kind\":\"disk\",\"parent\":\"sda1\",\"read_ios\":5760,"
	    "\"read_bytes\":94371840,\"write_ios\":0,\"write_bytes\":0}]},"
	    "\"tiny\":{\"workload_read_bytes\":4096,\"devices\":[]}}";
	json_object *o = json_tokener_parse(ds);
	char *t = sb_measure_devstat_text(o, "  ");
	assert_non_null(t);
	assert_non_null(
	    strstr(t, "  random read: top device/workload bytes: read 1.00x write -\n"));
	assert_non_null(strstr(t, "    sda1 under md127: reads 90% of bytes, 90% of IOPS; writes - "
				  "of bytes, - of IOPS\n"));
	assert_non_null(strstr(t, "    sdb under md127: reads 5% of bytes"));
	assert_non_null(strstr(t, "    sda under sda1: reads 100% of bytes"));
	assert_null(strstr(t, "tiny")); /* too little traffic to say anything */
	free(t);
	json_object_put(o);
	t = sb_measure_devstat_text(NULL, "");
	assert_string_equal(t, "");
	free(t);
}

/* A phase begun during an md resync is named with its reason; quiet ones
 * and damaged records say nothing. */
static void test_quiesce_text(void **state)
{
	json_object *o =
	    json_tokener_parse("{\"block write\":{\"wait_ms\":2004,\"dirty_kb\":12,\"busy\":true,"
			       "\"reason\":\"md127: md resync\"},"
			       "\"block read\":{\"wait_ms\":3,\"dirty_kb\":0,\"busy\":false},"
			       "\"odd\":{\"busy\":\"yes\"},\"bad\":7}");
	char *t = sb_measure_quiesce_text(o, "  ");
	assert_non_null(t);
	assert_string_equal(t,
			    "  block write: started busy (md127: md resync) after waiting 2.0 s: "
			    "background work overlaps its figures\n");
	free(t);
	json_object_put(o);
	t = sb_measure_quiesce_text(NULL, "");
	assert_string_equal(t, "");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_xfs_info),	 cmocka_unit_test(test_keys),
	    cmocka_unit_test(test_mentions),	 cmocka_unit_test(test_config_diff),
	    cmocka_unit_test(test_config_rows),	 cmocka_unit_test(test_devshare),
	    cmocka_unit_test(test_quiesce_text), cmocka_unit_test(test_config_follows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
