#include "workload/wl.h"
static int nr(struct sb_wl_ctx *c) { return sb_wl_fail(c, 0, "not yet"); }
const struct sb_wl_ops sb_wl_mixed = {.name = "mixed", .arg="RrWw", .example="mixed:3r3w", .run = nr};
const struct sb_wl_ops sb_wl_fio = {.name = "fio", .arg="JOBFILE", .example="fio:x.fio", .run = nr};
const struct sb_wl_ops sb_wl_bonnie = {.name = "bonnie++", .example="bonnie++", .run = nr};
const struct sb_wl_ops sb_wl_iozone = {.name = "iozone", .example="iozone", .run = nr};
