/* `history`'s listing (series.c). */
#pragma once

#include "history/history.h"

struct sb_history_filter {
	const char *profile, *variant, *metric; /* NULL: any; metric NULL: the headline ones */
};

/* {"database", "series": [{profile, variant, spec, metric, label, unit,
 * better, runs: [{id, created, host, labels, n, mean, ci95, change_point}],
 * change_points: [{run_id, index, before, after, change_pct, t, p}]}]}. */
int sb_history_series(struct sb_history *h, const struct sb_history_filter *f, json_object **out);

#include <stdio.h>
/* The same as an HTML page with one SVG trend chart per sequence (trend_html.c). */
int sb_history_html(json_object *doc, FILE *f);
