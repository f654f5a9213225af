/* `stackbench bench DIR`: workloads on an existing directory. */
#include "cmd.h"
#include "util/log.h"

int cmd_bench(int argc, char **argv)
{
	sb_error("bench: not implemented yet");
	return SB_EXIT_FAILED;
}
