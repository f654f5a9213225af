/* Issue 24: every member of a valid result.json and of fio's JSON output,
 * replaced in turn by each other JSON type (fuzz/json_mutate.h), goes
 * through the reader and, when it reads, through every report format: an
 * error or a success, never a crash (run under `make SANITIZE=1
 * check-unit`). NaN and Infinity are refused wherever they are, and
 * "jobname": null (a crash: strcmp of NULL) is an error naming the member. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../fuzz/fuzz_result.c"
#include "../../fuzz/fuzz_report.c"
#include "../../fuzz/fuzz_import_fio.c"
#include "../../fuzz/json_mutate.h"
#include "util/macro.h"
#include "util/safefile.h"

static char *load(const char *rel)
{
	const char *top = getenv("SB_TOP") ? getenv("SB_TOP") : ".";
	char path[4096];
	char *buf = NULL;
	size_t len;
	snprintf(path, sizeof(path), "%s/%s", top, rel);
	if (sb_read_regular(path, 1 << 20, &buf, &len, NULL) < 0)
		fail_msg("%s: cannot read (run from the source tree or set SB_TOP)", path);
	return buf;
}

typedef int reader_fn(const char *text, struct sb_resultset **rs, char **err);

static int read_result(const char *text, struct sb_resultset **rs, char **err)
{
	return sb_resultset_parse(text, strlen(text), "t.json", rs, err);
}

static int read_fio(const char *text, struct sb_resultset **rs, char **err)
{
	return sb_import_fio_json(text, strlen(text), "t.json", rs, err);
}

/* Each slot by each kind: the reader's contract, then the targets (every
 * format of what reads). Returns how many were refused. */
static size_t walk_all(const char *file, reader_fn *rd, int (*target)(const uint8_t *, size_t))
{
	char *text = load(file);
	json_object *doc = json_tokener_parse(text);
	size_t n, refused = 0;
	struct sb_resultset *rs = NULL;
	char *err = NULL;

	assert_non_null(doc);
	/* the file itself reads: the walk below starts from a valid document */
	if (rd(text, &rs, &err) != 0)
		fail_msg("%s: %s", file, err ? err : "?");
	sb_resultset_free(rs);
	n = sb_jmut_count(doc);
	json_object_put(doc);
	assert_true(n > 20);
	for (size_t slot = 0; slot < n; slot++)
		for (size_t k = 0; k < SB_JMUT_KINDS; k++) {
			char *m = sb_jmut_text(text, slot, k);
			int r;
			assert_non_null(m);
			rs = NULL;
			err = NULL;
			r = rd(m, &rs, &err);
			if (r < 0) {
				assert_int_equal(r, -EINVAL);
				assert_non_null(err);
				assert_null(rs);
				refused++;
			} else if (sb_jmut_nonfinite(k)) {
				fail_msg("%s: value %zu as %s was not refused", file, slot,
					 sb_jmut_kind_names[k]);
			}
			free(err);
			sb_resultset_free(rs);
			/* what reads goes on through the formats (the target reads again) */
			if (r == 0)
				target((const uint8_t *)m, strlen(m));
			free(m);
		}
	fprintf(stderr, "%s: %zu values x %zu kinds, %zu refused\n", file, n, SB_JMUT_KINDS,
		refused);
	free(text);
	return refused;
}

static void test_result_members(void **state)
{
	assert_true(walk_all("fuzz/corpus/result/v2-hist.json", read_result, sb_fuzz_report) > 0);
	assert_true(
	    walk_all("fuzz/corpus/result/run-two-variants.json", read_result, sb_fuzz_result) > 0);
}

static void test_fio_members(void **state)
{
	assert_true(
	    walk_all("fuzz/corpus/import_fio/typed-small.json", read_fio, sb_fuzz_import_fio) > 0);
}

/* The crash of issue 24 and its neighbours, with the message they get. */
static void test_fio_wrong_types(void **state)
{
	static const struct {
		const char *json, *msg;
	} cases[] = {
	    {"{\"fio version\":\"fio-3.33\",\"jobs\":[{\"jobname\":null,\"read\":{\"total_ios\":1,"
	     "\"iops\":5}}]}",
	     "t.json: not fio JSON output with results: jobs[0].jobname: expected a value, got "
	     "null"},
	    {"{\"jobs\":[{\"jobname\":\"a\",\"read\":{\"total_ios\":1,\"iops\":null}}]}",
	     "jobs[0].read.iops: expected a value, got null"},
	    {"{\"jobs\":[{\"jobname\":\"a\",\"read\":{\"total_ios\":1,\"iops\":\"5\"}}]}",
	     "jobs[0].read.iops: expected a number, got a string"},
	    {"{\"jobs\":[{\"jobname\":\"a\",\"read\":{\"total_ios\":1,\"iops\":NaN}}]}",
	     "jobs[0].read.iops: NaN is not a number JSON has"},
	    {"{\"jobs\":[{\"jobname\":\"a\",\"read\":{\"total_ios\":1,\"iops\":1e999}}]}",
	     "jobs[0].read.iops: Infinity is not a number JSON has"},
	    {"{\"jobs\":[{\"jobname\":\"a\",\"write\":{\"total_ios\":1,\"bw_bytes\":-Infinity}}]}",
	     "jobs[0].write.bw_bytes: -Infinity is not a number JSON has"},
	    {"{\"jobs\":[{\"jobname\":\"a\",\"read\":[1]}]}",
	     "jobs[0].read: expected an object, got an array"},
	    {"{\"jobs\":[{\"jobname\":\"a\",\"read\":{\"total_ios\":1,\"clat_ns\":{\"bins\":"
	     "{\"5\":1.5}}}}]}",
	     "jobs[0].read.clat_ns.bins.5: expected an integer, got a number"},
	    {"{\"jobs\":{}}", "jobs: expected an array, got an object"},
	    {"{\"jobs\":[7]}", "jobs[0]: expected an object, got an integer"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct sb_resultset *rs = NULL;
		char *err = NULL;
		int r = read_fio(cases[i].json, &rs, &err);
		if (r != -EINVAL || !err || !strstr(err, cases[i].msg))
			fail_msg("case %zu: %d '%s', expected '%s'", i, r, err ? err : "",
				 cases[i].msg);
		assert_null(rs);
		free(err);
	}
}

/* result.json: non-finite figures, wrong types, out-of-range values and
 * duplicate variant names, each refused naming the member. */
static void test_result_refusals(void **state)
{
#define HEAD "{\"format\":\"stackbench-result\",\"version\":2,\"variants\":["
#define WL(m)                                                                                      \
	"{\"name\":\"a\",\"repeats\":[{\"workloads\":[{\"workload\":\"seq\",\"metrics\":[" m       \
	"]}]}]}"
	static const struct {
		const char *json, *msg;
	} cases[] = {
	    {HEAD WL("{\"name\":\"m\",\"unit\":\"MB/s\",\"value\":NaN}") "]}",
	     "t.json: variants[0].repeats[0].workloads[0].metrics[0].value: NaN is not a number "
	     "JSON has"},
	    {HEAD WL("{\"name\":\"m\",\"unit\":\"MB/s\",\"value\":Infinity}") "]}",
	     "metrics[0].value: Infinity is not"},
	    {HEAD WL("{\"name\":\"m\",\"unit\":\"MB/s\",\"value\":-1e999}") "]}",
	     "metrics[0].value: -Infinity is not"},
	    {HEAD WL("{\"name\":\"m\",\"unit\":\"MB/s\",\"value\":1e300}") "]}",
	     "metrics[0].value: 1e+300 out of range"},
	    {HEAD WL("{\"name\":\"m\",\"unit\":\"MB/s\",\"value\":\"5\"}") "]}",
	     "metrics[0].value: expected a number, got a string"},
	    {HEAD WL("{\"name\":\"m\",\"unit\":\"MB/s\",\"better\":\"up\"}") "]}",
	     "metrics[0].better: expected \"higher\", \"lower\" or \"none\", got \"up\""},
	    {HEAD WL("{\"name\":\"m\",\"unit\":\"MB/s\",\"headline\":1}") "]}",
	     "metrics[0].headline: expected true or false, got an integer"},
	    {HEAD WL("{\"name\":7,\"unit\":\"MB/s\"}") "]}",
	     "metrics[0].name: expected a string, got an integer"},
	    {HEAD WL("{\"name\":\"m\",\"unit\":\"s\"}") "," WL("") "]}",
	     "variants[0] and variants[1] are both named 'a'"},
	    {HEAD "],"
		  "\"host\":{\"emulated\":\"yes\"}}",
	     "host.emulated: expected true or false"},
	    {HEAD "],"
		  "\"host\":[]}",
	     "host: expected an object, got an array"},
	    {HEAD "{\"name\":\"a\",\"params\":{\"k\":[1]},\"repeats\":[]}]}",
	     "variants[0].params.k: expected a string, got an array"},
	    {HEAD "{\"name\":\"a\",\"repeats\":[{\"index\":-1,\"workloads\":[]}]}]}",
	     "variants[0].repeats[0].index: -1 out of range"},
	    {HEAD
	     "{\"name\":\"a\",\"repeats\":[{\"workloads\":[{\"workload\":\"seq\",\"metrics\":[],"
	     "\"latency\":[{\"op\":\"r\",\"max_ms\":-5}]}]}]}]}",
	     "workloads[0].latency[0].max_ms: -5 out of range"},
	    {HEAD
	     "{\"name\":\"a\",\"repeats\":[{\"workloads\":[{\"workload\":\"seq\",\"metrics\":[],"
	     "\"extra\":{\"chunk\":\"big\"}}]}]}]}",
	     "workloads[0].extra.chunk: expected an integer, got a string"},
	    {HEAD
	     "{\"name\":\"a\",\"repeats\":[{\"workloads\":[{\"workload\":\"seq\",\"metrics\":[],"
	     "\"extra\":{\"series\":{\"p\":{\"t\":[\"x\"]}}}}]}]}]}",
	     "workloads[0].extra.series.p.t[0]: expected a number, got a string"},
	    {HEAD
	     "{\"name\":\"a\",\"repeats\":[{\"workloads\":[{\"workload\":\"seq\",\"metrics\":[],"
	     "\"extra\":{\"devstat\":{\"p\":{\"devices\":[{\"read_bytes\":\"1\"}]}}}}]}]}]}",
	     "workloads[0].extra.devstat.p.devices[0].read_bytes: expected an integer, got a "
	     "string"},
	    {HEAD
	     "{\"name\":\"a\",\"repeats\":[{\"workloads\":[{\"workload\":\"seq\",\"metrics\":[],"
	     "\"extra\":{\"quiesce\":{\"p\":{\"busy\":1}}}}]}]}]}",
	     "workloads[0].extra.quiesce.p.busy: expected true or false, got an integer"},
	    {"{\"format\":\"stackbench-result\",\"version\":\"2\",\"variants\":[]}",
	     "t.json: version: expected an integer, got a string"},
	    {"{\"format\":\"stackbench-result\",\"version\":99999999999999999999,\"variants\":[]}",
	     "t.json: version:"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct sb_resultset *rs = NULL;
		char *err = NULL;
		int r = read_result(cases[i].json, &rs, &err);
		if (r != -EINVAL || !err || !strstr(err, cases[i].msg))
			fail_msg("case %zu: %d '%s', expected '%s'", i, r, err ? err : "",
				 cases[i].msg);
		assert_null(rs);
		free(err);
	}
	/* null is what we write for "not measured": it reads, as no value */
	struct sb_resultset *rs = NULL;
	char *err = NULL;
	assert_int_equal(
	    read_result(HEAD WL("{\"name\":\"m\",\"unit\":\"s\",\"value\":null}") "]}", &rs, &err),
	    0);
	assert_int_equal(sb_variant_metric_finite(&rs->var[0], "seq", "m"), 0);
	sb_resultset_free(rs);
	assert_int_equal(
	    read_result(HEAD WL("{\"name\":\"m\",\"unit\":\"s\",\"value\":3}") "]}", &rs, &err), 0);
	assert_int_equal(sb_variant_metric_finite(&rs->var[0], "seq", "m"), 1);
	assert_int_equal(sb_variant_metric_finite(&rs->var[0], "seq", "other"), 0);
	sb_resultset_free(rs);
}

/* A NaN kept in memory (a workload's extra) is written as null, never as
 * the NaN the reader would refuse: what we write we read back. */
static void test_write_nonfinite_extra(void **state)
{
	struct sb_resultset *rs = sb_resultset_new("bench"), *back = NULL;
	struct sb_wl_result *wl = sb_wl_result_new("seq", "seq");
	char *err = NULL;

	assert_non_null(rs);
	assert_non_null(wl);
	wl->extra = json_object_new_object();
	json_object_object_add(wl->extra, "x", json_object_new_double(NAN));
	json_object *arr = json_object_new_array();
	json_object_array_add(arr, json_object_new_double(INFINITY));
	json_object_object_add(wl->extra, "y", arr);
	assert_int_equal(sb_wl_add_metric(wl, "m", "s", SB_BETTER_LOWER, NAN), 0);
	struct sb_variant *v = sb_resultset_variant(rs, "a", NULL);
	assert_int_equal(sb_variant_add_repeat(v, 0, &wl, 1), 0);
	json_object *o = sb_resultset_to_json(rs);
	const char *text = json_object_to_json_string(o);
	assert_null(strstr(text, "NaN"));
	assert_null(strstr(text, "Infinity"));
	if (sb_resultset_parse(text, strlen(text), "t.json", &back, &err) != 0)
		fail_msg("%s", err ? err : "?");
	json_object_put(o);
	sb_resultset_free(back);
	sb_resultset_free(rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_result_members),	  cmocka_unit_test(test_fio_members),
	    cmocka_unit_test(test_fio_wrong_types),	  cmocka_unit_test(test_result_refusals),
	    cmocka_unit_test(test_write_nonfinite_extra),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
