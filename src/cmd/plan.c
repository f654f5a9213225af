/* `stackbench plan`: every step a run would take, with its undo, for every
 * variant; the executor's dry-run, touching nothing. Then every variant's
 * mount options and mkfs words judged by the kernel and by mkfs's dry run,
 * as `run` does before its first variant (src/stack/wordcheck.c). */
#include "cmd/stack-cmd.h"
#include "stack/wordcheck.h"
#include "util/log.h"

static const struct sb_opt plan_opts[] = {
    OPT_DEVICES_ROW,
    OPT_LOOP_ROW,
    OPT_LOOP_DIR_ROW,
    OPT_O_ROW,
    OPT_QUICK_ROW,
    OPT_WIPE_ROW,
    OPT_ROUNDS_ROW,
    OPT_TURN_ROW,
    {"seed", OPT_SEED, "N",
     "side by side: show the first crossover cycle's stacks and order of turns as run --seed N "
     "would draw them"},
    {0},
};

int sb_ctx_check_words(struct ctx *c, volatile sig_atomic_t *stop, FILE *notes)
{
	const char *vars[65];
	uint64_t sizes[65];
	size_t n = 0;
	int r;

	for (size_t k = 0; c->dev && k < c->n_slots && n < 64; k++, n++) {
		vars[n] = c->slots[k].name;
		sizes[n] = c->dev[k]->size;
	}
	r = sb_wordcheck_variants(c->prof->path, c->var, c->plans, c->n_var, vars, sizes, n, stop,
				  notes);
	if (r == -EINTR)
		return SB_EXIT_INTERRUPTED;
	if (r < 0)
		sb_error_errno(r, "%s: cannot check the mount options and mkfs words",
			       c->prof->path);
	return r == 1 ? SB_EXIT_USAGE : r < 0 ? SB_EXIT_FAILED : 0;
}

int cmd_plan(int argc, char **argv)
{
	struct ctx c = {.o = {.cmd = "plan", .repeat = 1}};
	struct sb_cmdline cl = {
	    "plan",
	    "PROFILE [--devices A,B,C | --loop] [-o SECTION.KEY=VALUE]...",
	    "Print every step a run would take, with its undo, for every variant, and check "
	    "every variant's mount options and mkfs words. Touches nothing.",
	    plan_opts,
	    sb_cmd_on_opt,
	    &c.o};
	int r = sb_ctx_setup(&c, &cl, argc, argv, false);
	if (r == 0) {
		sb_ctx_print_plans(&c, stdout);
		r = sb_ctx_check_words(&c, NULL, stdout);
	}
	sb_ctx_free(&c);
	return r < 0 ? 0 : r;
}
