/* The bonnie++ 1.98 CSV line (what bonnie++ 2.00 writes and bon_csv2txt /
 * bon_csv2html read) from the results of our seq and meta workloads. */
#pragma once

#include "result/result.h"

/* seq or meta may be NULL (their fields stay empty). Returns a malloc'ed
 * line without newline, or NULL when out of memory. */
char *sb_bonnie_csv_line(const struct sb_wl_result *seq, const struct sb_wl_result *meta,
			 const char *name);

/* The other way: fills r with seq and meta metrics from a bonnie++ CSV line
 * (the bonnie++ adapter). Fields bonnie++ prints as "+++++" (too fast to
 * measure) are left out. Returns 0 or -EINVAL. */
int sb_bonnie_csv_import(const char *line, struct sb_wl_result *r);
