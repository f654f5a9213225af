/* Journal reader (torn and broken records), journal writing and undo from a
 * journal alone, and the SHA-256 used for the profile digest. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stack/sha256.h"
#include "stack/stack.h"

#include <errno.h>
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
	} cases[] = {
	    {HDR B1 D1, 0, 1, 1, 0},
	    {HDR B1 D1 B2, 0, 2, 1, 0},
	    /* The writer died in the middle of the last line. */
	    {HDR B1 D1 "{\"rec\":\"begin\",\"step\":2,\"ki", 0, 1, 1, 1},
	    {HDR B1 "{\"rec\":\"do", 0, 1, 0, 1},
	    /* A complete line that is not JSON, in the middle: skipped, counted. */
	    {HDR B1 "garbage\n" D1, 0, 1, 1, 1},
	    /* done without begin, begin twice: not trusted. */
	    {HDR D1, 0, 0, 0, 1},
	    {HDR B1 B1 D1, 0, 1, 1, 1},
	    {"", 0, 0, 0, 0},
	    {HDR, 0, 0, 0, 0},
	    {"hello\n", -EBADMSG, 0, 0, 0},
	    {"{\"journal\":\"other\"}\n", -EBADMSG, 0, 0, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sb_jread r;
		int rc = sb_journal_parse(cases[i].text, strlen(cases[i].text), &r);
		if (rc != cases[i].rc)
			fail_msg("case %zu: rc %d, want %d", i, rc, cases[i].rc);
		if (rc < 0)
			continue;
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
	json_object *args = json_object_new_object();
	json_object_object_add(args, "dir", json_object_new_string(mnt));
	json_object_object_add(args, "dev", json_object_new_string("/dev/nonexistent"));
	json_object_object_add(args, "type", json_object_new_string("xfs"));
	assert_int_equal(sb_journal_begin(j, 1, "mount", args), 0);
	json_object_put(args);
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

/* A damaged record is refused before layer code sees it; the journal stays. */
static void test_damaged(void **state)
{
	static const char *const recs[] = {
	    "{\"rec\":\"begin\",\"step\":1,\"kind\":\"mount\",\"args\":{\"type\":\"xfs\"}}\n",
	    "{\"rec\":\"begin\",\"step\":1,\"kind\":\"mkfs\",\"args\":{\"type\":\"xfs\",\"devs\":["
	    "1]}}\n",
	    "{\"rec\":\"begin\",\"step\":1,\"kind\":\"nosuch\",\"args\":{}}\n",
	};
	static const char *const want[] = {
	    "undo of step 1 (mount): damaged record: no valid 'dir'",
	    "undo of step 1 (mkfs): damaged record: no valid 'devs'",
	    "undo of step 1 (nosuch): unknown kind 'nosuch'",
	};
	for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++) {
		char dir[] = "/tmp/sbjournal-XXXXXX", path[300];
		struct sb_exec x;
		struct stat st;
		FILE *f;
		assert_non_null(mkdtemp(dir));
		snprintf(path, sizeof(path), "%s/journal", dir);
		f = fopen(path, "w");
		fputs(HDR, f);
		fputs(recs[i], f);
		fclose(f);
		sb_exec_init(&x);
		assert_int_equal(sb_exec_undo_journal(&x, path), -EINVAL);
		assert_string_equal(x.errmsg, want[i]);
		sb_exec_release(&x);
		assert_int_equal(stat(path, &st), 0);
		unlink(path);
		rmdir(dir);
	}
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
	    cmocka_unit_test(test_damaged),
	    cmocka_unit_test(test_sha256),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
