/* The per-member read and write shares chart (src/report/measure.c): an md
 * RAID1 of an SSD and an HDD with write-mostly on the HDD, whose reads all
 * went to the SSD: each member named with its role and class, its shares
 * drawn as stacked bars (90% and 10% of the reads, half of the writes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/measure.h"
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

static const char devstat[] =
    "{\"block read\":{\"workload_read_bytes\":104857600,\"workload_write_bytes\":0,"
    "\"devices\":["
    "{\"name\":\"md0\",\"kind\":\"top\",\"type\":\"md\",\"parent\":null,"
    "\"read_bytes\":104857600,\"write_bytes\":20971520},"
    "{\"name\":\"sdb\",\"kind\":\"member\",\"type\":\"disk\",\"parent\":\"md0\","
    "\"read_bytes\":94371840,\"write_bytes\":20971520},"
    "{\"name\":\"sdc\",\"kind\":\"member\",\"type\":\"disk\",\"parent\":\"md0\","
    "\"read_bytes\":10485760,\"write_bytes\":20971520}]}}";

static void test_shares_chart(void **state)
{
	struct sb_resultset *rs = sb_resultset_new("run");
	json_object_put(rs->devices);
	rs->devices = json_tokener_parse("[{\"name\":\"sdb\",\"role\":\"ssd\",\"class\":\"ssd\"},"
					 "{\"name\":\"sdc\",\"role\":\"hdd\",\"class\":\"hdd\"}]");
	struct sb_variant *v = sb_resultset_variant(rs, "write-mostly", NULL);
	struct sb_wl_result *w = sb_wl_result_new("seq", "seq");
	sb_wl_add_metric(w, "block_read", "KB/s", SB_BETTER_HIGHER, 1000);
	w->extra = json_object_new_object();
	json_object_object_add(w->extra, "devstat", json_tokener_parse(devstat));
	assert_int_equal(sb_variant_add_repeat(v, 0, &w, 1), 0);

	struct sb_report *r = NULL;
	char *err = NULL, *buf = NULL;
	size_t len = 0;
	assert_int_equal(sb_report_build(&rs, 1, NULL, &r, &err), 0);
	FILE *f = open_memstream(&buf, &len);
	sb_measure_shares_html(r, f);
	fclose(f);
	assert_non_null(strstr(buf, "Per-member read and write shares"));
	assert_non_null(strstr(buf, "write-mostly: block read, members of md0"));
	assert_non_null(strstr(buf, "sdb (ssd, ssd): 90%"));
	assert_non_null(strstr(buf, "sdc (hdd, hdd): 10%"));
	assert_non_null(strstr(buf, "sdc (hdd, hdd): 50%"));
	assert_non_null(strstr(buf, ">reads</text>"));
	free(buf);
	sb_report_free(r);
	sb_resultset_free(rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_shares_chart),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
