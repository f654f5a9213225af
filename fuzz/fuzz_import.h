/* The body of the two importer targets (fuzz_import_bonnie, fuzz_import_fio):
 * a file that imports builds a comparison and renders in every format; one
 * that does not says why, and leaves nothing. */
#pragma once

#include "fuzz.h"
#include "report/report.h"

#include <errno.h>

typedef int sb_fuzz_importer(const char *buf, size_t len, const char *name,
			     struct sb_resultset **out, char **err);

static inline int sb_fuzz_import(sb_fuzz_importer *import, const uint8_t *data, size_t size)
{
	static const char *const formats[] = {"text", "csv", "json", "html", "bonnie", "junit"};
	struct sb_resultset *rs = NULL;
	char *err = NULL;
	int r = import((const char *)data, size, "fuzz", &rs, &err);

	if (r < 0) {
		SB_FUZZ_CHECK(rs == NULL);
		SB_FUZZ_CHECK(r != -EINVAL || err != NULL);
		free(err);
		return 0;
	}
	SB_FUZZ_CHECK(rs != NULL && rs->n_var > 0);
	FILE *sink = fopen("/dev/null", "we");
	SB_FUZZ_CHECK(sink);
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		r = sb_report_print(rs, formats[i], sink, &err);
		SB_FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
		free(err);
		err = NULL;
	}
	fclose(sink);
	sb_resultset_free(rs);
	return 0;
}
