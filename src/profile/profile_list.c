/* `stackbench list profiles`. */
#include "cmd.h"
#include "util/log.h"

int sb_list_profiles(void)
{
	sb_error("list profiles: not implemented yet");
	return SB_EXIT_FAILED;
}
