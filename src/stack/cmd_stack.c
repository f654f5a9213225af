/* `stackbench plan|run|teardown`. */
#include "cmd.h"
#include "util/log.h"

int cmd_plan(int argc, char **argv)
{
	sb_error("plan: not implemented yet");
	return SB_EXIT_FAILED;
}

int cmd_run(int argc, char **argv)
{
	sb_error("run: not implemented yet");
	return SB_EXIT_FAILED;
}

int cmd_teardown(int argc, char **argv)
{
	sb_error("teardown: not implemented yet");
	return SB_EXIT_FAILED;
}
