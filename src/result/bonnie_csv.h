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
 * measure) are left out. Returns 0 or -EINVAL (a figure that is not a
 * plain decimal: see sb_bonnie_figure), or -ENOMEM. */
int sb_bonnie_csv_import(const char *line, struct sb_wl_result *r);

/* The largest figure taken from a CSV line: beyond it the line is broken. */
#define SB_BONNIE_MAX 1e15
/* A rate or %CPU field: 0 with *v, 1 when empty or +++++ (no figure),
 * -EINVAL when not a plain decimal of at most SB_BONNIE_MAX (no sign, no
 * exponent, no nan or inf, which strtod would take). */
int sb_bonnie_figure(const char *s, double *v);
/* A latency field ("8593us", "20ms", "3s"): 0 with *ms, 1 when empty,
 * -EINVAL otherwise. */
int sb_bonnie_latency(const char *s, double *ms);
