/* `stackbench plan`: every step a run would take, with its undo, for every
 * variant; the executor's dry-run, touching nothing. */
#include "cmd/stack-cmd.h"

static const struct sb_opt plan_opts[] = {
    OPT_DEVICES_ROW, OPT_LOOP_ROW, OPT_LOOP_DIR_ROW, OPT_O_ROW, OPT_QUICK_ROW, OPT_WIPE_ROW, {0},
};

int cmd_plan(int argc, char **argv)
{
	struct ctx c = {.o = {.cmd = "plan", .repeat = 1}};
	struct sb_cmdline cl = {
	    "plan",
	    "PROFILE [--devices A,B,C | --loop] [-o SECTION.KEY=VALUE]...",
	    "Print every step a run would take, with its undo, for every variant. "
	    "Touches nothing.",
	    plan_opts,
	    sb_cmd_on_opt,
	    &c.o};
	int r = sb_ctx_setup(&c, &cl, argc, argv, false);
	if (r == 0)
		sb_ctx_print_plans(&c, stdout);
	sb_ctx_free(&c);
	return r < 0 ? 0 : r;
}
