/* Journal reader (torn and broken records), journal writing and undo from a
 * journal alone, and the SHA-256 used for the profile digest. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stack/stack.h"
#include "util/sha256.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HDR "{\"journal\":\"stackbench\",\"version\":1,\"run\":\"r1\",\"pid\":42}\n"
#define B1 "{\"rec\":\"begin\",\"step\":1,\"kind\":\"loop\",\"args\":{\"file\":\"/x/a.img\"}}\n"
#define D1 "{\"rec\":\"done\",\"step\":1,\"result\":{\"dev\":\"/dev/loop9\"}}\n"
#define B2 "{\"rec\":\"begin\",\"step\":2,\"kind\":\"mkfs\",\"args\":{\"type\":\"xfs\"}}\n"

static void test_parse(void **state)
{
	static const struct {
		const char *text;
		int rc;
		size_t n;      /* records */
		unsigned done; /* bit i: record i has a result */
		unsigned torn;
		unsigned bad_line; /* rc -EBADMSG: the damaged line */
	} cases[] = {
	    {HDR B1 D1, 0, 1, 1, 0, 0},
	    {HDR B1 D1 B2, 0, 2, 1, 0, 0},
	    /* The writer died in the middle of the last line. */
	    {HDR B1 D1 "{\"rec\":\"begin\",\"step\":2,\"ki", 0, 1, 1, 1, 0},
	    {HDR B1 "{\"rec\":\"do", 0, 1, 0, 1, 0},
	    /* A complete line that is not JSON, last: a crash, tolerated. */
	    {HDR B1 "garbage\n", 0, 1, 0, 1, 0},
	    /* ... in the middle: no crash does that; the journal is refused. */
	    {HDR B1 "garbage\n" D1, -EBADMSG, 0, 0, 0, 3},
	    {HDR "garbage\n" B1 D1, -EBADMSG, 0, 0, 0, 2},
	    /* done without begin, begin twice: not trusted, unless last. */
	    {HDR D1, 0, 0, 0, 1, 0},
	    {HDR B1 B1 D1, -EBADMSG, 0, 0, 0, 3},
	    {HDR B1 D1 D1 B2, -EBADMSG, 0, 0, 0, 4},
	    {"", 0, 0, 0, 0, 0},
	    {HDR, 0, 0, 0, 0, 0},
	    {"hello\n", -EBADMSG, 0, 0, 0, 1},
	    {"{\"journal\":\"other\"}\n", -EBADMSG, 0, 0, 0, 1},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sb_jread r;
		int rc = sb_journal_parse(cases[i].text, strlen(cases[i].text), &r);
		if (rc != cases[i].rc)
			fail_msg("case %zu: rc %d, want %d", i, rc, cases[i].rc);
		if (rc < 0) {
			if (r.bad_line != cases[i].bad_line)
				fail_msg("case %zu: bad line %u, want %u", i, r.bad_line,
					 cases[i].bad_line);
			assert_int_equal(r.n, 0);
			continue;
		}
		if (r.n != cases[i].n || r.torn != cases[i].torn)
			fail_msg("case %zu: %zu records %u torn, want %zu and %u", i, r.n, r.torn,
				 cases[i].n, cases[i].torn);
		for (size_t k = 0; k < r.n; k++)
			if (!!r.rec[k].result != !!(cases[i].done & (1u << k)))
				fail_msg("case %zu: record %zu done=%d", i, k, !!r.rec[k].result);
		if (r.n)
			assert_string_equal(r.run_id, "r1");
		sb_jread_free(&r);
	}
}

/* Step 1 begun: a mount of nothing on mnt (its undo removes the mount
 * point, which needs no root when nothing is mounted). */
static void begin_mount(struct sb_journal *j, const char *mnt)
{
	json_object *args = json_object_new_object();
	json_object *devs = json_object_new_array();
	json_object_array_add(devs, json_object_new_string("/dev/nonexistent"));
	json_object_object_add(args, "dir", json_object_new_string(mnt));
	json_object_object_add(args, "devs", devs);
	json_object_object_add(args, "type", json_object_new_string("xfs"));
	assert_int_equal(sb_journal_begin(j, 1, "mount", args, NULL), 0);
	json_object_put(args);
}

/* Written records read back; a torn tail appended by hand is skipped and
 * undo still undoes the step that began (a mount record: the undo removes
 * the mount point, which needs no root when nothing is mounted). */
static void test_write_and_undo(void **state)
{
	char dir[] = "/tmp/sbjournal-XXXXXX", path[300], mnt[300];
	struct sb_journal *j;
	struct sb_jread r;
	struct sb_exec x;
	struct stat st;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/journal", dir);
	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	assert_int_equal(mkdir(mnt, 0700), 0);
	assert_int_equal(sb_journal_open(path, "run-7", &j), 0);
	begin_mount(j, mnt);
	sb_journal_close(j);
	/* A crash in the middle of the next record. */
	f = fopen(path, "a");
	fputs("{\"rec\":\"done\",\"st", f);
	fclose(f);

	assert_int_equal(sb_journal_read(path, &r), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.torn, 1);
	assert_null(r.rec[0].result);
	assert_string_equal(r.rec[0].kind, "mount");
	assert_string_equal(r.run_id, "run-7");
	sb_jread_free(&r);

	sb_exec_init(&x);
	assert_int_equal(sb_exec_undo_journal(&x, path), 0);
	sb_exec_release(&x);
	assert_int_equal(stat(mnt, &st), -1);  /* undone */
	assert_int_equal(stat(path, &st), -1); /* journal removed when clean */
	/* Twice: nothing to do, still fine. */
	sb_exec_init(&x);
	assert_int_equal(sb_exec_undo_journal(&x, path), 0);
	sb_exec_release(&x);
	assert_int_equal(rmdir(dir), 0);
}

/* What an undo side by side keeps between rounds: the records rewritten
 * from SB_JOURNAL_KEPT_STEP up under a new header (read back as begun and
 * done, args and results whole), the next round's records appended after
 * them by sb_journal_reopen; an undo in keep mode with no image left to
 * keep (a mount record only) removes the journal as any undo does. */
static void test_rewrite_keep(void **state)
{
	char dir[] = "/tmp/sbjournal-XXXXXX", path[300], mnt[300];
	struct sb_jread r, again;
	struct sb_journal *j;
	struct sb_exec x;
	struct stat st;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/journal", dir);
	assert_int_equal(sb_journal_parse(HDR B1 D1 B2, strlen(HDR B1 D1 B2), &r), 0);
	const struct sb_jrec *keep[] = {&r.rec[0]};
	assert_int_equal(sb_journal_rewrite(path, r.run_id, keep, 1), 0);
	assert_int_equal(sb_journal_read(path, &again), 0);
	assert_int_equal(again.n, 1);
	assert_int_equal(again.torn, 0);
	assert_string_equal(again.run_id, "r1");
	assert_int_equal(again.rec[0].step, SB_JOURNAL_KEPT_STEP);
	assert_string_equal(again.rec[0].kind, "loop");
	assert_string_equal(sb_json_str(again.rec[0].args, "file"), "/x/a.img");
	assert_non_null(again.rec[0].result);
	assert_string_equal(sb_json_str(again.rec[0].result, "dev"), "/dev/loop9");
	sb_jread_free(&again);
	sb_jread_free(&r);
	char tmp[320];
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	assert_int_equal(stat(tmp, &st), -1); /* renamed over, not left beside */

	/* the next round appends its steps after the kept ones */
	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	assert_int_equal(mkdir(mnt, 0700), 0);
	assert_int_equal(sb_journal_reopen(path, &j), 0);
	begin_mount(j, mnt);
	sb_journal_close(j);
	assert_int_equal(sb_journal_read(path, &again), 0);
	assert_int_equal(again.n, 2);
	assert_int_equal(again.rec[1].step, 1);
	assert_string_equal(again.rec[1].kind, "mount");
	sb_jread_free(&again);

	/* keep mode changes nothing of the checks: the kept record (a loop
	 * step without its dir, naming a file outside the journal's
	 * directory) is refused, and with it the whole journal */
	sb_exec_init(&x);
	x.keep_images = true;
	assert_int_equal(sb_exec_undo_journal(&x, path), -EBADMSG);
	sb_exec_release(&x);
	assert_int_equal(stat(mnt, &st), 0); /* nothing touched */

	/* a journal of the mount alone: undone, and removed, nothing kept */
	unlink(path);
	assert_int_equal(sb_journal_open(path, "r2", &j), 0);
	begin_mount(j, mnt);
	sb_journal_close(j);
	sb_exec_init(&x);
	x.keep_images = true;
	assert_int_equal(sb_exec_undo_journal(&x, path), 0);
	sb_exec_release(&x);
	assert_int_equal(stat(mnt, &st), -1);
	assert_int_equal(stat(path, &st), -1);
	assert_int_equal(rmdir(dir), 0);
}

/* A journal with any damaged or out-of-place record is refused as a whole
 * before layer code sees it: the journal stays, and nothing is touched
 * (a mount point it names in its own directory still exists, a file
 * outside it too). */
static void test_damaged(void **state)
{
	/* %s: the run directory; %o: a directory outside it. */
	static const struct {
		const char *rec;
		int rc;
		const char *want; /* in errmsg */
	} cases[] = {
	    {"{\"rec\":\"begin\",\"step\":2,\"kind\":\"mount\",\"args\":{\"type\":\"xfs\",\"devs\":"
	     "["
	     "\"/dev/x\"]}}\n",
	     -EBADMSG, "step 2 (mount): damaged record: 'dir': missing"},
	    {"{\"rec\":\"begin\",\"step\":2,\"kind\":\"mkfs\",\"args\":{\"type\":\"xfs\",\"devs\":["
	     "1]}}\n",
	     -EBADMSG, "step 2 (mkfs): damaged record: 'devs': expected a list of strings"},
	    {"{\"rec\":\"begin\",\"step\":2,\"kind\":\"loop\",\"args\":{\"file\":\"%s/a.img\","
	     "\"dir\":\"/x\",\"size\":\"12\",\"var\":\"a\"}}\n",
	     -EBADMSG, "step 2 (loop): damaged record: 'size': expected a number"},
	    {"{\"rec\":\"begin\",\"step\":2,\"kind\":\"mount\",\"args\":{\"type\":\"xfs\",\"dir\":"
	     "\"%s/m\",\"devs\":[\"/dev/x\"],\"evil\":true}}\n",
	     -EBADMSG, "step 2 (mount): damaged record: 'evil': unknown field"},
	    {"{\"rec\":\"begin\",\"step\":2,\"kind\":\"nosuch\",\"args\":{}}\n", -EBADMSG,
	     "step 2: unknown kind 'nosuch'"},
	    /* Paths outside the run directory: a backing file to delete, a
	     * mount point to remove, and ".." to climb out. */
	    {"{\"rec\":\"begin\",\"step\":2,\"kind\":\"loop\",\"args\":{\"file\":\"%o/victim\","
	     "\"dir\":\"/x\",\"size\":12,\"var\":\"a\"}}\n",
	     -EPERM, "step 2 (loop): refused record: 'file' = "},
	    {"{\"rec\":\"begin\",\"step\":2,\"kind\":\"loop\",\"args\":{\"file\":\"%s/../victim\","
	     "\"dir\":\"/x\",\"size\":12,\"var\":\"a\"}}\n",
	     -EPERM, "lies outside the run directory"},
	    {"{\"rec\":\"begin\",\"step\":2,\"kind\":\"mount\",\"args\":{\"type\":\"xfs\",\"dir\":"
	     "\"%o\",\"devs\":[\"/dev/x\"]}}\n",
	     -EPERM, "step 2 (mount): refused record: 'dir' = "},
	    /* A damaged line in the middle, a valid record after it. */
	    {"garbage\n{\"rec\":\"done\",\"step\":1,\"result\":{}}\n", -EBADMSG,
	     "line 3 is damaged (only the last line may be torn): refusing the journal"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char dir[] = "/tmp/sbjournal-XXXXXX", out[] = "/tmp/sboutside-XXXXXX";
		char path[300], mnt[300], victim[300], rdir[PATH_MAX];
		struct sb_exec x;
		struct stat st;
		FILE *f;
		assert_non_null(mkdtemp(dir));
		assert_non_null(mkdtemp(out));
		assert_non_null(realpath(dir, rdir));
		snprintf(path, sizeof(path), "%s/journal", dir);
		snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
		snprintf(victim, sizeof(victim), "%s/victim", out);
		assert_int_equal(mkdir(mnt, 0700), 0);
		f = fopen(victim, "w");
		fputs("precious", f);
		fclose(f);
		f = fopen(path, "w");
		fputs(HDR, f);
		/* step 1: a valid mount record that undo would rmdir */
		fprintf(
		    f,
		    "{\"rec\":\"begin\",\"step\":1,\"kind\":\"mount\",\"args\":{\"type\":\"xfs\","
		    "\"dir\":\"%s\",\"devs\":[\"/dev/nonexistent\"]}}\n",
		    mnt);
		for (const char *c = cases[i].rec; *c; c++) {
			if (c[0] == '%' && c[1] == 's') {
				fputs(rdir, f);
				c++;
			} else if (c[0] == '%' && c[1] == 'o') {
				fputs(out, f);
				c++;
			} else {
				fputc(*c, f);
			}
		}
		fclose(f);
		sb_exec_init(&x);
		int rc = sb_exec_undo_journal(&x, path);
		if (rc != cases[i].rc || !x.errmsg || !strstr(x.errmsg, cases[i].want))
			fail_msg("case %zu: rc %d (want %d), '%s' (want '%s')", i, rc, cases[i].rc,
				 x.errmsg ? x.errmsg : "", cases[i].want);
		assert_non_null(strstr(x.errmsg, "nothing was touched"));
		sb_exec_release(&x);
		assert_int_equal(stat(path, &st), 0);	/* journal kept */
		assert_int_equal(stat(mnt, &st), 0);	/* step 1 not undone */
		assert_int_equal(stat(victim, &st), 0); /* outside: untouched */
		unlink(victim);
		rmdir(out);
		unlink(path);
		rmdir(mnt);
		rmdir(dir);
	}
}

/* Every layer's field table: a record written from typed arguments reads
 * back into the same arguments (and the same record), and each field
 * refuses a value of another type. */
static void fill(const struct sb_field *f, void *args, size_t k)
{
	char *p = (char *)args + f->off, buf[64];
	snprintf(buf, sizeof(buf), "/run/x/%s-%zu", f->name, k);
	switch (f->type) {
	case SB_FT_STR:
	case SB_FT_PATH:
	case SB_FT_DEV:
		*(char **)p = strdup(buf);
		break;
	case SB_FT_U64:
		*(uint64_t *)p = (1ull << 40) + k;
		break;
	case SB_FT_BOOL:
		*(bool *)p = true;
		break;
	case SB_FT_STRV:
	case SB_FT_DEVV:
		sb_list_add((struct sb_list *)p, buf);
		sb_list_add((struct sb_list *)p, "/dev/second");
		break;
	}
}

static void test_fields_roundtrip(void **state)
{
	for (int kind = 0; kind < SB_STEP_KIND_N; kind++) {
		const struct sb_layer *l = sb_layer_get((enum sb_step_kind)kind);
		void *a = sb_layer_args_new(l), *b = sb_layer_args_new(l);
		char *err = NULL;
		assert_non_null(l->fields);
		assert_true(l->n_fields > 0);
		assert_non_null(l->describe);
		assert_non_null(l->run);
		assert_non_null(l->undo);
		assert_ptr_equal(sb_layer_by_name(l->kind), l);
		for (size_t i = 0; i < l->n_fields; i++) {
			assert_true(l->fields[i].off + 1 <= l->args_size);
			fill(&l->fields[i], a, i);
		}
		json_object *ja = sb_fields_to_json(l->fields, l->n_fields, a);
		/* Through text, as the journal stores it. */
		json_object *parsed = json_tokener_parse(json_object_to_json_string(ja));
		if (sb_fields_from_json(l->fields, l->n_fields, b, parsed, &err) < 0)
			fail_msg("%s: %s", l->kind, err);
		json_object *jb = sb_fields_to_json(l->fields, l->n_fields, b);
		assert_string_equal(json_object_to_json_string(ja), json_object_to_json_string(jb));
		for (size_t i = 0; i < l->n_fields; i++) {
			const struct sb_field *f = &l->fields[i];
			const char *pa = (const char *)a + f->off, *pb = (const char *)b + f->off;
			if (f->type == SB_FT_U64)
				assert_int_equal(*(const uint64_t *)pa, *(const uint64_t *)pb);
			else if (f->type == SB_FT_BOOL)
				assert_int_equal(*(const bool *)pa, *(const bool *)pb);
			else if (f->type == SB_FT_STRV || f->type == SB_FT_DEVV) {
				const struct sb_list *va = (const void *)pa, *vb = (const void *)pb;
				assert_int_equal(va->n, vb->n);
				for (size_t k = 0; k < va->n; k++)
					assert_string_equal(va->v[k], vb->v[k]);
			} else
				assert_string_equal(*(char *const *)pa, *(char *const *)pb);
			/* The wrong type for this field, everything else right. */
			json_object *bad = json_tokener_parse(json_object_to_json_string(ja));
			void *c = sb_layer_args_new(l);
			json_object_object_add(bad, f->name,
					       f->type == SB_FT_U64 || f->type == SB_FT_BOOL
						   ? json_object_new_string("1")
						   : json_object_new_int(1));
			char *e2 = NULL;
			if (sb_fields_from_json(l->fields, l->n_fields, c, bad, &e2) != -EINVAL)
				fail_msg("%s.%s: a value of the wrong type was accepted", l->kind,
					 f->name);
			assert_non_null(strstr(e2, f->name));
			free(e2);
			sb_layer_args_free(l, c);
			json_object_put(bad);
		}
		json_object_put(ja);
		json_object_put(jb);
		json_object_put(parsed);
		sb_layer_args_free(l, a);
		sb_layer_args_free(l, b);
	}
}

static void test_path_inside(void **state)
{
	static const struct {
		const char *path, *dir;
		bool in;
	} cases[] = {
	    {"/var/lib/sb/run1/mnt", "/var/lib/sb/run1", true},
	    {"/var/lib/sb/run1/images/a.img", "/var/lib/sb/run1/", true},
	    {"/var/lib/sb/run1", "/var/lib/sb/run1", false},
	    {"/var/lib/sb/run10/mnt", "/var/lib/sb/run1", false},
	    {"/var/lib/sb/run1/../run2/mnt", "/var/lib/sb/run1", false},
	    {"/var/lib/sb/run1/./mnt", "/var/lib/sb/run1", false},
	    {"/var/lib/sb/run1//mnt", "/var/lib/sb/run1", false},
	    {"/var/lib/sb/run1/mnt/..", "/var/lib/sb/run1", false},
	    {"/etc/passwd", "/var/lib/sb/run1", false},
	    {"relative/mnt", "relative", false},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (sb_path_inside(cases[i].path, cases[i].dir) != cases[i].in)
			fail_msg("case %zu: %s in %s: want %d", i, cases[i].path, cases[i].dir,
				 cases[i].in);
}

static void test_sha256(void **state)
{
	static const struct {
		const char *in;
		size_t repeat;
		const char *hex;
	} cases[] = {
	    {"", 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
	    {"abc", 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	    {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
	     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
	    {"a", 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t l = strlen(cases[i].in), n = l * cases[i].repeat;
		char *buf = malloc(n + 1), hex[65];
		for (size_t k = 0; k < cases[i].repeat; k++)
			memcpy(buf + k * l, cases[i].in, l);
		sb_sha256_hex(buf, n, hex);
		assert_string_equal(hex, cases[i].hex);
		free(buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_write_and_undo),
	    cmocka_unit_test(test_rewrite_keep),
	    cmocka_unit_test(test_damaged),
	    cmocka_unit_test(test_fields_roundtrip),
	    cmocka_unit_test(test_path_inside),
	    cmocka_unit_test(test_sha256),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
