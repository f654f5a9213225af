/* The effective-configuration notes (src/report/measure.c, issue 20 item
 * 10): a key that follows from a matrix parameter is no surprise. With
 * fs.type the matrix key, ext4 against btrfs differ in mount.fstype, in
 * their default mount options and in geometry: none of those is "asked for
 * by no parameter". A queue setting that differs is still noted, and the
 * same fstype difference without fs.type among the params still is too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/measure.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const char ext4[] = "{\"mount\":{\"fstype\":\"ext4\",\"options\":\"rw,noatime\"},"
			   "\"geometry\":{\"Block size\":\"4096\"},"
			   "\"queue\":{\"loop1\":{\"kind\":\"top\",\"wbt_lat_usec\":\"2000\"}}}";
static const char btrfs[] =
    "{\"mount\":{\"fstype\":\"btrfs\",\"options\":\"rw,noatime,ssd,space_cache=v2\"},"
    "\"geometry\":{\"sectorsize\":\"4096\",\"nodesize\":\"16384\"},"
    "\"queue\":{\"loop2\":{\"kind\":\"top\",\"wbt_lat_usec\":\"0\"}}}";

static char *diff(const char *pa, const char *pb)
{
	struct sb_measure_var v[2] = {
	    {"ext4", json_tokener_parse(ext4), json_tokener_parse(pa)},
	    {"btrfs", json_tokener_parse(btrfs), json_tokener_parse(pb)},
	};
	char *d = sb_measure_config_diff(v, 2, 0);
	for (int i = 0; i < 2; i++) {
		json_object_put(v[i].config);
		json_object_put(v[i].params);
	}
	assert_non_null(d);
	return d;
}

static void test_follows_from_fs_type(void **state)
{
	char *d = diff("{\"fs.type\":\"ext4\"}", "{\"fs.type\":\"btrfs\"}");
	assert_null(strstr(d, "mount.fstype"));
	assert_null(strstr(d, "mount.option.ssd"));
	assert_null(strstr(d, "mount.option.space_cache"));
	assert_null(strstr(d, "geometry."));
	/* not a consequence of the file system type */
	assert_non_null(
	    strstr(d, "queue0.wbt_lat_usec is 2000 vs 0, which no parameter asked for"));
	free(d);
	/* the parameter that differs is another one: the fstype is a surprise */
	d = diff("{\"mount.options\":\"noatime\"}", "{\"mount.options\":\"relatime\"}");
	assert_non_null(strstr(d, "mount.fstype is ext4 vs btrfs, which no parameter asked for"));
	free(d);
	/* fs.mkfs words change the geometry, not the mount options */
	d = diff("{\"fs.mkfs\":\"\"}", "{\"fs.mkfs\":\"-n 16k\"}");
	assert_null(strstr(d, "geometry."));
	assert_non_null(strstr(d, "mount.fstype"));
	free(d);
}

/* scenario.degrade takes a member out: the md state differs and that
 * member's queue is gone, both its consequences; a queue setting that
 * differs on a device both sides have is not. */
static void test_follows_from_degrade(void **state)
{
	static const char healthy[] =
	    "{\"md0\":{\"member_states\":\"in_sync in_sync,write_mostly\"},"
	    "\"queue\":{\"sda\":{\"kind\":\"disk\",\"wbt_lat_usec\":\"75000\"},"
	    "\"sdb\":{\"kind\":\"disk\",\"wbt_lat_usec\":\"75000\"}}}";
	static const char degraded[] =
	    "{\"md0\":{\"member_states\":\"in_sync\"},"
	    "\"queue\":{\"sda\":{\"kind\":\"disk\",\"wbt_lat_usec\":\"2000\"}}}";
	static const char *const params[][2] = {
	    {"{\"scenario.degrade\":\"none\"}", "{\"scenario.degrade\":\"hdd\"}"},
	    {"{\"scenario.rebuild\":\"none\"}", "{\"scenario.rebuild\":\"hdd\"}"},
	    {"{\"mount.options\":\"noatime\"}", "{\"mount.options\":\"relatime\"}"},
	};
	for (size_t i = 0; i < 3; i++) {
		struct sb_measure_var v[2] = {
		    {"healthy", json_tokener_parse(healthy), json_tokener_parse(params[i][0])},
		    {"degraded", json_tokener_parse(degraded), json_tokener_parse(params[i][1])},
		};
		char *d = sb_measure_config_diff(v, 2, 0);
		assert_non_null(d);
		bool scen = i < 2;
		if ((scen && strstr(d, "md0.member_states")) ||
		    (strstr(d, "queue1.kind") == NULL) != scen)
			fail_msg("params %s: %s", params[i][1], d);
		/* a device of both sides whose setting differs: noted either way */
		if (!strstr(d, "queue0.wbt_lat_usec is 75000 vs 2000"))
			fail_msg("params %s: %s", params[i][1], d);
		free(d);
		for (int k = 0; k < 2; k++) {
			json_object_put(v[k].config);
			json_object_put(v[k].params);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_follows_from_fs_type),
	    cmocka_unit_test(test_follows_from_degrade),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
