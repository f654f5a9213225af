/* `stackbench probe`. */
#include "cmd.h"
#include "util/log.h"

int cmd_probe(int argc, char **argv)
{
	sb_error("probe: not implemented yet");
	return SB_EXIT_FAILED;
}
