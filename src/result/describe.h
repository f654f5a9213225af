/* Labels for the metrics of version 1 result files, which carry none: the
 * workloads' metric tables (workload/metrics.c) give them. The tables are
 * workload/'s facts, and result/ and report/ do not reach up into
 * workload/: workload/ registers its describer here and the readers call
 * through it. */
#pragma once

#include "result/result.h"

/* Fills the labels, headline, cost and phase of r's metrics that have none;
 * 0 or -errno. */
typedef int sb_wl_describer(struct sb_wl_result *r);

/* Registers the describer (workload/metrics.c, before main). */
void sb_result_set_describer(sb_wl_describer *fn);
/* Describes r through the registered describer; 0 when none is. */
int sb_result_describe(struct sb_wl_result *r);
