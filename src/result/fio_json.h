/* fio's JSON output, parsed into a workload result: each job's bandwidth,
 * IOPS and completion-latency percentiles (with its json+ histogram), its
 * version and the JSON itself in extra. Both sides read it: the fio
 * workload (workload/fio.c) and 'report' importing a fio JSON file
 * (report/import.c), so it lives in result/, below both. */
#pragma once

#include "result/result.h"

/* Adds text's jobs to res (0, or -EINVAL with *err naming what is wrong,
 * "jobs[3].read.iops: expected a number, got null", allocated, when err is
 * not NULL; -ENOMEM). fio may print notes before the JSON. */
int sb_fio_json_parse(struct sb_wl_result *res, const char *text, char **err);
