/* libFuzzer target: the result.json reader behind `report`. Input is the file
 * content; a set that reads must write back to JSON that reads again the same. */
#include "fuzz.h"
/* wrong-typed members, not only broken syntax (json_mutate.h) */
#define SB_FUZZ_JSON_MUTATOR
#include "json_mutate.h"
#include "result/result.h"

#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

/* sb_resultset_read takes a path: a memfd named through /proc/self/fd gives it
 * one without writing files, so the fuzzer runs fast and leaves nothing. */
static int result_read_bytes(const void *buf, size_t len, struct sb_resultset **rs, char **err)
{
	char path[64];
	return sb_resultset_read(sb_fuzz_as_path(buf, len, path, sizeof(path)), rs, err);
}

static char *result_text(const struct sb_resultset *rs)
{
	json_object *o = sb_resultset_to_json(rs);
	char *s;

	SB_FUZZ_CHECK(o);
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	SB_FUZZ_CHECK(s);
	return s;
}

SB_FUZZ_TARGET(result)
{
	struct sb_resultset *rs = NULL, *again = NULL;
	char *err = NULL, *text, *text2;
	int r;

	r = result_read_bytes(data, size, &rs, &err);
	if (r < 0) {
		/* A bad file is reported, never half-returned. */
		SB_FUZZ_CHECK(rs == NULL);
		SB_FUZZ_CHECK(r != -EINVAL || err != NULL);
		free(err);
		return 0;
	}
	SB_FUZZ_CHECK(rs != NULL);
	free(err);
	err = NULL;

	/* What we read we can write, and what we write we read back unchanged. */
	text = result_text(rs);
	r = result_read_bytes(text, strlen(text), &again, &err);
	if (r < 0)
		fprintf(stderr, "re-read of our own output failed: %s\n", err ? err : "?");
	SB_FUZZ_CHECK(r == 0);
	text2 = result_text(again);
	SB_FUZZ_CHECK(strcmp(text, text2) == 0);

	free(text);
	free(text2);
	sb_resultset_free(rs);
	sb_resultset_free(again);
	return 0;
}
