/* `stackbench report`: compare result sets. */
#include "cmd.h"
#include "util/log.h"

int cmd_report(int argc, char **argv)
{
	sb_error("report: not implemented yet");
	return SB_EXIT_FAILED;
}
