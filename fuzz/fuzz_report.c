/* libFuzzer target: `stackbench report` end to end on one result.json: read
 * it, build the comparison table, render every format. Nothing may crash,
 * leak or print garbage for any file that reads. */
#include "fuzz.h"
/* wrong-typed members, not only broken syntax (json_mutate.h) */
#define SB_FUZZ_JSON_MUTATOR
#include "json_mutate.h"
#include "report/report.h"
#include "result/result.h"

#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

static int report_read_bytes(const void *buf, size_t len, struct sb_resultset **rs, char **err)
{
	char path[64];
	return sb_resultset_read(sb_fuzz_as_path(buf, len, path, sizeof(path)), rs, err);
}

SB_FUZZ_TARGET(report)
{
	static const char *const formats[] = {"text", "csv", "json", "html", "bonnie"};
	struct sb_resultset *rs = NULL;
	char *err = NULL;
	FILE *sink;

	if (report_read_bytes(data, size, &rs, &err) < 0) {
		free(err);
		return 0;
	}
	/* opened per input, so that valgrind sees nothing left at exit */
	sink = fopen("/dev/null", "we");
	SB_FUZZ_CHECK(sink);
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		int r = sb_report_print(rs, formats[i], sink, &err);
		SB_FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
		if (r == -EINVAL)
			SB_FUZZ_CHECK(err != NULL);
		free(err);
		err = NULL;
	}
	fclose(sink);
	sb_resultset_free(rs);
	return 0;
}
