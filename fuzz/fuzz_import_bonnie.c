/* libFuzzer target: the importer of bonnie++ CSV lines (1.03, 1.9x, 1.98) behind `report`
 * (src/report/import.c). A file that imports builds a comparison and
 * renders in every format; one that does not says why, and leaves nothing. */
#include "fuzz.h"
#include "report/report.h"

#include <errno.h>

SB_FUZZ_TARGET(import_bonnie)
{
	static const char *const formats[] = {"text", "csv", "json", "html", "bonnie", "junit"};
	struct sb_resultset *rs = NULL;
	char *err = NULL;
	int r = sb_import_bonnie_csv((const char *)data, size, "fuzz", &rs, &err);

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
