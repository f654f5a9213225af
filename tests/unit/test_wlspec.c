/* Workload specs, the registry, the tree generator and the bonnie++ CSV line:
 * pure logic, table-driven. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "result/bonnie_csv.h"
#include "workload/tree.h"
#include "workload/wl.h"

#include <errno.h>
#include <string.h>

static void test_registry_order(void **state)
{
	static const char *const want[] = {"seq",     "meta", "rand",	  "mixed",
					   "command", "kbuild", "fio",  "bonnie++", "iozone"};
	assert_int_equal(sb_n_workloads, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < sb_n_workloads; i++) {
		assert_string_equal(sb_workloads[i]->name, want[i]);
		assert_non_null(sb_workloads[i]->run);
		assert_non_null(sb_workloads[i]->summary);
	}
}

/* Every workload's own example parses, with and without --quick, so every
 * default in every table is valid too. */
static void test_examples_and_defaults(void **state)
{
	for (size_t i = 0; i < sb_n_workloads; i++)
		for (int q = 0; q < 2; q++) {
			struct sb_wl_spec s;
			char *err = NULL;
			int rc = sb_wl_spec_parse(sb_workloads[i]->example, q, &s, &err);
			if (rc)
				fail_msg("%s: %s", sb_workloads[i]->example, err);
			assert_ptr_equal(s.ops, sb_workloads[i]);
			sb_wl_spec_release(&s);
		}
}

static void test_specs(void **state)
{
	static const struct {
		const char *spec;
		int rc;
		const char *msg; /* error must contain it */
		const char *arg; /* decoded ARG text */
		uint64_t a0, a1; /* decoded ARG values */
		const char *key; /* one key to check */
		uint64_t val;
	} cases[] = {
	    {"seq", 0, NULL, NULL, 0, 0, "chunk", 8192},
	    {"seq,size=1G,chunk=1m", 0, NULL, NULL, 0, 0, "size", 1ull << 30},
	    {"rand:16k,direct=1", 0, NULL, "16k", 16384, 0, "direct", 1},
	    {"rand:4k,threads=4,time=10s", 0, NULL, "4k", 4096, 0, "time", 10000},
	    {"mixed:3r3w,time=30s", 0, NULL, "3r3w", 3, 3, "time", 30000},
	    {"mixed:1r0w", 0, NULL, "1r0w", 1, 0, "files", 100000},
	    {"meta,files=2,size=4k,dirs=3", 0, NULL, NULL, 0, 0, "dirs", 3},
	    {"command:make -j2", 0, NULL, "make -j2", 0, 0, "timeout", 24 * 3600 * 1000ull},
	    {"command:make -j2,timeout=5m", 0, NULL, "make -j2", 0, 0, "timeout", 300000},
	    {"command:sh -c a,b", 0, NULL, "sh -c a,b", 0, 0, NULL, 0},
	    {"bonnie++", 0, NULL, NULL, 0, 0, NULL, 0},
	    {"bonnie++:-n 4 -s 0", 0, NULL, "-n 4 -s 0", 0, 0, NULL, 0},
	    {"fio:job.fio", 0, NULL, "job.fio", 0, 0, NULL, 0},
	    {"rand:4k,verify=no", 0, NULL, "4k", 4096, 0, "verify", 0},
	    {"seq", 0, NULL, NULL, 0, 0, "min-time", 0}, /* one pass, as before */
	    {"seq,min-time=2s", 0, NULL, NULL, 0, 0, "min-time", 2000},
	    {"seq,min-time=250ms,timeout=1s", 0, NULL, NULL, 0, 0, "min-time", 250},
	    {"seq,min-time=0", 0, NULL, NULL, 0, 0, "min-time", 0},
	    /* errors: name the spec and the expected form */
	    {.spec = "rnd:4k",
	     .rc = -EINVAL,
	     .msg = "workload 'rnd:4k': unknown workload 'rnd' (did you mean 'rand'?)"},
	    {.spec = "frobnicate", .rc = -EINVAL, .msg = "expected NAME[:ARG][,key=value...]"},
	    {.spec = "", .rc = -EINVAL, .msg = "no workload name"},
	    {.spec = "rand",
	     .rc = -EINVAL,
	     .msg = "rand needs BS (expected rand:BS[,key=value...], e.g. rand:16k,direct=1)"},
	    {.spec = "rand:16q", .rc = -EINVAL, .msg = "bad record size '16q'"},
	    {.spec = "rand:100", .rc = -EINVAL, .msg = "a multiple of 512"},
	    {.spec = "rand:4k,thread=2",
	     .rc = -EINVAL,
	     .msg = "unknown key 'thread' (did you mean 'threads'?)"},
	    {.spec = "rand:4k,threads=0", .rc = -EINVAL, .msg = "threads=0 out of range"},
	    {.spec = "rand:4k,direct", .rc = -EINVAL, .msg = "'direct' is not key=value"},
	    {.spec = "rand:4k,direct=maybe",
	     .rc = -EINVAL,
	     .msg = "bad value 'maybe' for direct: expected 0 or 1"},
	    {.spec = "rand:4k,direct=1,direct=0", .rc = -EINVAL, .msg = "key 'direct' given twice"},
	    {.spec = "rand:4k,", .rc = -EINVAL, .msg = "empty key list"},
	    {.spec = "seq:foo",
	     .rc = -EINVAL,
	     .msg = "seq takes no argument (expected seq[,key=value...]"},
	    {.spec = "seq,size=lots", .rc = -EINVAL, .msg = "expected a size such as 4k"},
	    {.spec = "seq,min-time=soon", .rc = -EINVAL, .msg = "expected a duration"},
	    /* the passes would run into the time limit */
	    {.spec = "seq,min-time=5m,timeout=5m",
	     .rc = -EINVAL,
	     .msg = "min-time=300000ms must be shorter than timeout=300000ms"},
	    {.spec = "seq,min_time=1s", .rc = -EINVAL, .msg = "min_time"},
	    {.spec = "meta,files=x",
	     .rc = -EINVAL,
	     .msg = "bad value 'x' for files: expected a number"},
	    {.spec = "mixed:3r", .rc = -EINVAL, .msg = "expected RrWw"},
	    {.spec = "mixed:0r1w", .rc = -EINVAL, .msg = "bad readers/writers '0r1w'"},
	    {.spec = "mixed:3r3w,time=soon", .rc = -EINVAL, .msg = "expected a duration"},
	    {.spec = "command:", .rc = -EINVAL, .msg = "command needs CMD"},
	    {"command:make,bogus=1", 0, NULL, "make,bogus=1", 0, 0, NULL, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sb_wl_spec s;
		char *err = NULL;
		int rc = sb_wl_spec_parse(cases[i].spec, false, &s, &err);
		if (rc != cases[i].rc)
			fail_msg("'%s': rc %d, want %d (%s)", cases[i].spec, rc, cases[i].rc,
				 err ? err : "");
		if (rc) {
			assert_non_null(err);
			if (!strstr(err, cases[i].msg))
				fail_msg("'%s': message '%s' lacks '%s'", cases[i].spec, err,
					 cases[i].msg);
			if (!strstr(err, "workload '"))
				fail_msg("'%s': message does not name the spec: %s", cases[i].spec,
					 err);
			free(err);
			continue;
		}
		if (cases[i].arg)
			assert_string_equal(s.arg, cases[i].arg);
		else
			assert_null(s.arg);
		assert_int_equal(s.a[0], cases[i].a0);
		assert_int_equal(s.a[1], cases[i].a1);
		if (cases[i].key) {
			uint64_t v = sb_wl_opt_u64(&s, cases[i].key, UINT64_MAX);
			assert_true(sb_wl_opt_index(s.ops, cases[i].key) >= 0);
			if (v != cases[i].val)
				fail_msg("'%s': %s=%llu, want %llu", cases[i].spec, cases[i].key,
					 (unsigned long long)v, (unsigned long long)cases[i].val);
		}
		sb_wl_spec_release(&s);
	}
}

static void test_quick_defaults(void **state)
{
	static const struct {
		const char *spec, *key;
		bool quick;
		uint64_t val;
	} cases[] = {
	    {"seq", "size", false, 0}, /* 0: twice the RAM, computed at run time */
	    {"seq", "size", true, 64ull << 20}, {"seq,size=1G", "size", true, 1ull << 30},
	    {"meta", "files", false, 16},	{"meta", "files", true, 4},
	    {"mixed:2r1w", "time", true, 2000},
	    {"seq", "min-time", false, 0},	{"seq", "min-time", true, 500},
	    {"seq,min-time=0", "min-time", true, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sb_wl_spec s;
		char *err = NULL;
		assert_int_equal(sb_wl_spec_parse(cases[i].spec, cases[i].quick, &s, &err), 0);
		uint64_t v = sb_wl_opt_u64(&s, cases[i].key, UINT64_MAX);
		assert_true(sb_wl_opt_index(s.ops, cases[i].key) >= 0);
		if (v != cases[i].val)
			fail_msg("%s quick=%d: %s=%llu want %llu", cases[i].spec, cases[i].quick,
				 cases[i].key, (unsigned long long)v, (unsigned long long)cases[i].val);
		sb_wl_spec_release(&s);
	}
}

/* Every row of every table writes inside its workload's typed struct, in
 * the storage its type says (uint64_t, bool, char *), and no two rows share
 * a place; the typed struct has room for the common part. */
static void test_tables_typed(void **state)
{
	for (size_t i = 0; i < sb_n_workloads; i++) {
		const struct sb_wl_ops *ops = sb_workloads[i];
		assert_true(ops->opts_size >= sizeof(struct sb_wl_common));
		for (int r = 0; ops->opts && ops->opts[r].name; r++) {
			const struct sb_wl_opt *o = &ops->opts[r];
			size_t want = o->type == SB_WO_BOOL	  ? sizeof(bool)
				      : o->type == SB_WO_STRING ? sizeof(char *)
								: sizeof(uint64_t);
			if (o->size != want || o->off + o->size > ops->opts_size)
				fail_msg("%s: %s: size %zu at %zu (want %zu in %zu)", ops->name,
					 o->name, o->size, o->off, want, ops->opts_size);
			for (int q = 0; q < r; q++)
				if (ops->opts[q].off == o->off)
					fail_msg("%s: %s and %s share a place", ops->name,
						 ops->opts[q].name, o->name);
		}
		assert_true(ops->opts == NULL || sb_wl_opt_index(ops, "timeout") >= 0);
	}
}

/* A few parses pinned to their typed values: the common part, the engine's
 * struct and a string, as the workloads read them. */
static void test_typed_values(void **state)
{
	struct sb_wl_spec s;
	char *err = NULL;

	assert_int_equal(sb_wl_spec_parse("rand:8k,threads=3,direct=1,seed=7,timeout=2s,ramp=1s,"
					  "compress=30,engine=io_uring,qd=8,batch_complete=2",
					  false, &s, &err),
			 0);
	const struct sb_wl_common *com = sb_wl_com(&s);
	assert_int_equal(com->timeout, 2000);
	assert_int_equal(com->seed, 7);
	assert_int_equal(com->compress, 30);
	assert_int_equal(com->dedupe, 0);
	assert_int_equal(com->ramp, 1000);
	assert_int_equal(sb_wl_opt_u64(&s, "threads", 0), 3);
	assert_int_equal(sb_wl_opt_u64(&s, "direct", 0), 1);
	assert_int_equal(sb_wl_opt_u64(&s, "qd", 0), 8);
	assert_int_equal(sb_wl_opt_u64(&s, "fixed", 0), 1); /* the default */
	assert_int_equal(sb_wl_opt_u64(&s, "batch_complete", 0), 2);
	assert_true(sb_wl_given(&s, "qd"));
	assert_false(sb_wl_given(&s, "fixed"));
	sb_wl_spec_release(&s);

	/* --quick defaults in the common part */
	assert_int_equal(sb_wl_spec_parse("meta", true, &s, &err), 0);
	assert_int_equal(sb_wl_com(&s)->timeout, 5 * 60 * 1000);
	assert_int_equal(sb_wl_com(&s)->seed, 1);
	sb_wl_spec_release(&s);
	assert_int_equal(sb_wl_spec_parse("command:true", false, &s, &err), 0);
	assert_int_equal(sb_wl_com(&s)->timeout, 24 * 3600 * 1000ull);
	assert_int_equal(sb_wl_com(&s)->seed, 0); /* no seed= row */
	sb_wl_spec_release(&s);
}

static void test_split_words(void **state)
{
	static const struct {
		const char *in;
		size_t n;
		const char *w0, *wlast;
	} cases[] = {
	    {"make -j2", 2, "make", "-j2"},
	    {"  ls\t-l  /tmp ", 3, "ls", "/tmp"},
	    {"", 0, NULL, NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = 99;
		char **v = sb_wl_split_words(cases[i].in, &n);
		assert_non_null(v);
		assert_int_equal(n, cases[i].n);
		if (n) {
			assert_string_equal(v[0], cases[i].w0);
			assert_string_equal(v[n - 1], cases[i].wlast);
		}
		assert_null(v[n]);
		sb_wl_free_words(v);
	}
}

struct tree_stats {
	uint32_t files, dirs, max_depth;
	uint64_t bytes, hash, max_size;
	uint32_t next_index;
	bool index_ok;
};

static int tree_cb(void *ud, const struct sb_tree_entry *e)
{
	struct tree_stats *t = ud;
	for (const char *p = e->path; *p; p++)
		t->hash = t->hash * 131 + (unsigned char)*p;
	t->hash = t->hash * 31 + e->size;
	if (e->depth > t->max_depth)
		t->max_depth = e->depth;
	if (e->dir) {
		t->dirs++;
		return 0;
	}
	if (e->index != t->next_index++ || sb_tree_file_index(e->name) != e->index)
		t->index_ok = false;
	t->files++;
	t->bytes += e->size;
	if (e->size > t->max_size)
		t->max_size = e->size;
	return 0;
}

static void test_tree(void **state)
{
	static const struct {
		uint64_t seed;
		uint32_t files;
		uint64_t maxfile;
	} cases[] = {{1, 1, 4096}, {1, 1000, 1 << 20}, {2, 1000, 1 << 20}, {3, 20000, 16 << 20}};
	uint64_t prev_hash = 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sb_tree_params p = {cases[i].seed, cases[i].files, cases[i].maxfile};
		struct tree_stats a = {.index_ok = true}, b = {.index_ok = true};
		assert_int_equal(sb_tree_generate(&p, tree_cb, &a), 0);
		assert_int_equal(sb_tree_generate(&p, tree_cb, &b), 0);
		assert_int_equal(a.files, cases[i].files);
		assert_true(a.index_ok);
		assert_true(a.max_depth <= SB_TREE_MAX_DEPTH);
		assert_true(a.max_size <= cases[i].maxfile);
		/* deterministic, and the seed matters */
		assert_true(a.hash == b.hash);
		assert_true(a.hash != prev_hash);
		prev_hash = a.hash;
		if (cases[i].files >= 1000) {
			/* home-directory-like: nested directories, mostly small files */
			assert_true(a.dirs > 10);
			assert_true(a.max_depth >= 3);
			assert_true(a.bytes / a.files < cases[i].maxfile / 4);
		}
	}
	assert_int_equal(sb_tree_file_index("f123.txt"), 123);
	assert_int_equal(sb_tree_file_index("g123.txt"), UINT32_MAX);
	assert_int_equal(sb_tree_file_index("f12x"), UINT32_MAX);
}

static int stop_after(void *ud, const struct sb_tree_entry *e)
{
	int *n = ud;
	return --*n == 0 ? 42 : 0;
}

static void test_tree_stop(void **state)
{
	struct sb_tree_params p = {5, 1000, 65536};
	int n = 10;
	assert_int_equal(sb_tree_generate(&p, stop_after, &n), 42);
}

static void test_bonnie_csv(void **state)
{
	struct sb_wl_result *seq = sb_wl_result_new("seq", "seq"),
			    *meta = sb_wl_result_new("meta", "meta");
	static const struct {
		bool is_seq;
		const char *name;
		double v;
		int field; /* 0-based CSV field */
	} m[] = {
	    {1, "putc_write", 1141, 9},	    {1, "putc_write_cpu", 99, 10},
	    {1, "block_write", 512345, 11}, {1, "block_write_cpu", 45, 12},
	    {1, "rewrite", 200000, 13},	    {1, "getc_read", 1338, 15},
	    {1, "block_read", 900000, 17},  {1, "seeks", 4567.4, 19},
	    {1, "seeks_cpu", 12, 20},	    {0, "seq_create", 30000, 26},
	    {0, "seq_stat", 80000, 28},	    {0, "seq_delete", 50000, 30},
	    {0, "rand_create", 31000, 32},  {0, "rand_stat", 81000, 34},
	    {0, "rand_delete", 51000, 36},  {0, "rand_delete_cpu", 77, 37},
	};
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		sb_wl_add_metric(m[i].is_seq ? seq : meta, m[i].name, "x", SB_BETTER_HIGHER,
				 m[i].v);
	struct sb_latency l = {.op = "block write", .max_ms = 8.593};
	sb_wl_add_latency(seq, &l);
	struct sb_latency l2 = {.op = "rand delete", .max_ms = 20.5};
	sb_wl_add_latency(meta, &l2);
	seq->extra = json_object_new_object();
	json_object_object_add(seq->extra, "data_bytes", json_object_new_int64(2048ll << 20));
	json_object_object_add(seq->extra, "chunk", json_object_new_int64(8192));
	json_object_object_add(seq->extra, "seeks", json_object_new_int64(8192));
	json_object_object_add(seq->extra, "seekers", json_object_new_int64(5));
	meta->extra = json_object_new_object();
	json_object_object_add(meta->extra, "files", json_object_new_int64(16384));

	char *line = sb_bonnie_csv_line(seq, meta, "host,a");
	assert_non_null(line);
	char *f[60], *copy = strdup(line), *p = copy;
	int n = 0;
	for (; n < 60; n++) {
		f[n] = p;
		p = strchr(p, ',');
		if (!p) {
			n++;
			break;
		}
		*p++ = '\0';
	}
	assert_int_equal(n, 50);
	assert_string_equal(f[0], "1.98");
	assert_string_equal(f[2], "host_a");
	assert_string_equal(f[5], "2048M");
	assert_string_equal(f[6], ""); /* default chunk left empty, like bonnie++ */
	assert_string_equal(f[21], "16");
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		char want[32];
		snprintf(want, sizeof(want), "%.0f", m[i].v);
		if (strcmp(f[m[i].field], want) != 0)
			fail_msg("field %d: '%s', want '%s' (%s)", m[i].field, f[m[i].field], want,
				 m[i].name);
	}
	assert_string_equal(f[39], "8593us");
	assert_string_equal(f[49], "20ms");
	assert_string_equal(f[38], "");

	/* and back: the adapter's import reads what we write */
	struct sb_wl_result *r = sb_wl_result_new("bonnie++", "bonnie++");
	assert_int_equal(sb_bonnie_csv_import(line, r), 0);
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		const struct sb_metric *got = sb_wl_find_metric(r, m[i].name);
		if (strstr(m[i].name, "_cpu") && !got)
			continue;
		assert_non_null(got);
		assert_true(got->value == (double)(long long)(m[i].v + 0.5));
	}
	assert_int_equal(sb_bonnie_csv_import("1.97,x,y", r), -EINVAL);
	/* bonnie++'s "+++++" (too fast to measure) is left out */
	struct sb_wl_result *r2 = sb_wl_result_new("bonnie++", "bonnie++");
	assert_int_equal(
	    sb_bonnie_csv_import(
		"1.98,2.00a,vm,1,1796029424,64M,,8192,5,1141,99,+++++,+++,+++++,+++,1338,87,+++++,+"
		"++,+++++,+++,1,,,,,+++++,+++,+++++,+++,+++++,+++,+++++,+++,+++++,+++,+++++,+++,"
		"8593us,3033us,194us,20531us,58us,8060us,116us,68us,231us,175us,79us,1183us",
		r2),
	    0);
	assert_non_null(sb_wl_find_metric(r2, "putc_write"));
	assert_null(sb_wl_find_metric(r2, "block_write"));
	assert_true(sb_wl_find_metric(r2, "getc_read")->value == 1338);
	free(copy);
	free(line);
	sb_wl_result_free(r);
	sb_wl_result_free(r2);
	sb_wl_result_free(seq);
	sb_wl_result_free(meta);
}

static void test_pattern(void **state)
{
	char buf[4096], buf2[4096];
	sb_pattern_fill(buf, 8192, sizeof(buf), 1);
	assert_int_equal(sb_pattern_check(buf, 8192, sizeof(buf), 1), 0);
	assert_int_equal(sb_pattern_check(buf, 8192, sizeof(buf), 2), 8);
	assert_int_equal(sb_pattern_check(buf, 0, sizeof(buf), 1), 8);
	/* stamping moves a filled buffer to another offset */
	memcpy(buf2, buf, sizeof(buf));
	sb_pattern_stamp(buf2, 1 << 20, sizeof(buf2), 1);
	assert_int_equal(sb_pattern_check(buf2, 1 << 20, sizeof(buf2), 1), 0);
	/* but only the tags: the payload is fresh at each offset (data.h) */
	sb_pattern_fill(buf, 1 << 20, sizeof(buf), 1);
	assert_int_equal(sb_pattern_check(buf, 1 << 20, sizeof(buf), 1), 0);
	assert_memory_not_equal(buf + 8, buf2 + 8, SB_SECTOR - 8);
	/* a new generation changes every word */
	sb_pattern_fill(buf2, 1 << 20, sizeof(buf2), 2);
	for (size_t i = 0; i < sizeof(buf); i += 8)
		assert_true(memcmp(buf + i, buf2 + i, 8) != 0);
}

/* iozone's table as iozone 3.4 prints it for -i 0 -i 1 -i 2 -s 64m -r 4k. */
static void test_iozone_import(void **state)
{
	static const char out[] =
	    "\tIozone: Performance Test of File I/O\n"
	    "\tFile size set to 65536 kB\n\tRecord Size 4 kB\n"
	    "                                                              random    random "
	    "    bkwd    record    stride\n"
	    "              kB  reclen    write  rewrite    read    reread    read     write  "
	    "   read   rewrite      read   fwrite frewrite    fread  freread\n"
	    "           65536       4   812345  1234567  3456789  3567890  2345678   987654\n"
	    "\niozone test complete.\n";
	static const struct {
		const char *name;
		double v;
	} want[] = {{"r4k_write", 812345},	  {"r4k_rewrite", 1234567},
		    {"r4k_read", 3456789},	  {"r4k_reread", 3567890},
		    {"r4k_random_read", 2345678}, {"r4k_random_write", 987654}};
	struct sb_wl_result *r = sb_wl_result_new("iozone", "iozone");
	assert_int_equal(sb_iozone_import(r, out), 6);
	assert_int_equal(r->n_metrics, 6);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct sb_metric *m = sb_wl_find_metric(r, want[i].name);
		assert_non_null(m);
		assert_true(m->value == want[i].v);
	}
	assert_int_equal(sb_iozone_import(r, "no table here\n"), -EINVAL);
	sb_wl_result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_registry_order), cmocka_unit_test(test_examples_and_defaults),
	    cmocka_unit_test(test_specs),	   cmocka_unit_test(test_quick_defaults),
	    cmocka_unit_test(test_tables_typed),
	    cmocka_unit_test(test_typed_values),
	    cmocka_unit_test(test_split_words),	   cmocka_unit_test(test_tree),
	    cmocka_unit_test(test_tree_stop),	   cmocka_unit_test(test_bonnie_csv),
	    cmocka_unit_test(test_pattern),	   cmocka_unit_test(test_iozone_import),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
