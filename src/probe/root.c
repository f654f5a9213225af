/* The directory that stands in for / (STACKBENCH_PROBE_ROOT, golden
 * tests): every collector reads its paths under it. */
#include "probe/probe-internal.h"

#include <stdlib.h>

const char *sb_probe_root(void)
{
	const char *r = getenv("STACKBENCH_PROBE_ROOT");
	return r ? r : "";
}
