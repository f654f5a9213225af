/* The describer hook (see describe.h). */
#include "result/describe.h"

#include <stddef.h>

static sb_wl_describer *describer;

void sb_result_set_describer(sb_wl_describer *fn)
{
	describer = fn;
}

int sb_result_describe(struct sb_wl_result *r)
{
	return describer ? describer(r) : 0;
}
