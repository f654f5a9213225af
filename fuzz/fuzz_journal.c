/* libFuzzer target: the run journal reader behind `teardown` (the journal
 * is all teardown has after a crash). Also checks that a torn last record,
 * as a crash mid-write leaves it, is skipped without losing the others. */
#include "fuzz.h"
#include "stack/stack.h"

#include <errno.h>

SB_FUZZ_TARGET(journal)
{
	struct sb_jread jr, jt;
	char *torn;
	int r, rt;

	/* The parser gets the exact bytes (no terminating NUL), as read(2)
	 * returned them: ASan sees any read past the end. */
	r = sb_journal_parse((const char *)data, size, &jr);
	SB_FUZZ_CHECK(r == 0 || r == -EBADMSG || r == -ENOMEM);
	/* A refused journal says where, and holds nothing. */
	SB_FUZZ_CHECK(r != -EBADMSG || (jr.bad_line > 0 && jr.n == 0));
	/* A crash while the header was written leaves one partial line and
	 * nothing done: that must read as "nothing to undo", not as an
	 * unreadable journal that teardown keeps failing on. */
	if (size > 0 && !memchr(data, '\n', size))
		SB_FUZZ_CHECK(r == 0 && jr.n == 0 && jr.torn == 1);
	if (r < 0)
		return 0;
	for (size_t i = 0; i < jr.n; i++) {
		SB_FUZZ_CHECK(jr.rec[i].kind != NULL);
		/* Each record through its layer's field table, as teardown reads
		 * it before undoing anything. */
		const struct sb_layer *l = sb_layer_by_name(jr.rec[i].kind);
		if (!l)
			continue;
		void *a = sb_layer_args_new(l);
		char *err = NULL;
		SB_FUZZ_CHECK(a);
		int fr = sb_fields_from_json(l->fields, l->n_fields, a, jr.rec[i].args, &err);
		SB_FUZZ_CHECK(fr == 0 || fr == -EINVAL || fr == -ENOMEM);
		SB_FUZZ_CHECK(fr == 0 || fr == -ENOMEM || err);
		if (fr == 0) {
			int pr = sb_fields_check_paths(l->fields, l->n_fields, a, "/run/sb/r1", NULL);
			SB_FUZZ_CHECK(pr == 0 || pr == -EPERM);
		}
		free(err);
		sb_layer_args_free(l, a);
	}

	/* Complete lines followed by half a record: the same records, one
	 * more torn (unless the last complete line was the torn one: it is
	 * then in the middle, and the journal refused). */
	if (size == 0 || data[size - 1] != '\n' || jr.torn) {
		sb_jread_free(&jr);
		return 0;
	}
	torn = malloc(size + 16);
	SB_FUZZ_CHECK(torn);
	memcpy(torn, data, size);
	memcpy(torn + size, "{\"rec\":\"beg", 11);
	rt = sb_journal_parse(torn, size + 11, &jt);
	SB_FUZZ_CHECK(rt == 0);
	SB_FUZZ_CHECK(jt.n == jr.n);
	SB_FUZZ_CHECK(jt.torn == jr.torn + 1);
	for (size_t i = 0; i < jr.n; i++) {
		SB_FUZZ_CHECK(jt.rec[i].step == jr.rec[i].step);
		SB_FUZZ_CHECK((jt.rec[i].result == NULL) == (jr.rec[i].result == NULL));
	}
	sb_jread_free(&jt);
	sb_jread_free(&jr);
	free(torn);
	return 0;
}
