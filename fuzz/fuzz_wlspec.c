/* libFuzzer target: workload specs (NAME[:ARG][,key=value...]) as they come
 * from profiles and --workload, through the check that `plan` and `run` use. */
#include "fuzz.h"
#include "workload/workload.h"

#include <errno.h>

SB_FUZZ_TARGET(wlspec)
{
	char *spec = sb_fuzz_strndup(data, size), *err = NULL, *err2 = NULL;
	int r, r2;

	r = sb_workload_check(spec, &err);
	SB_FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
	/* A refused spec is explained (the user sees this text, exit 2). */
	if (r == -EINVAL)
		SB_FUZZ_CHECK(err != NULL && err[0] != '\0');
	/* Checking is pure: the same answer twice. */
	r2 = sb_workload_check(spec, &err2);
	SB_FUZZ_CHECK(r2 == r);
	free(err);
	free(err2);
	free(spec);
	return 0;
}
