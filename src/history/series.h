/* `history`'s listing (series.c). */
#pragma once

#include "history/history.h"

struct sb_history_filter {
	const char *profile, *variant, *metric; /* NULL: any; metric NULL: the headline ones */
	const char *run_ids;			/* ",3,5,9,": only these runs (NULL: all) */
};

/* {"database", "series": [{profile, variant, spec, metric, label, unit,
 * better, runs: [{id, created, host, labels, n, mean, ci95, change_point}],
 * change_points: [{run_id, index, before, after, change_pct, t, p}]}]}. */
int sb_history_series(struct sb_history *h, const struct sb_history_filter *f, json_object **out);

#include <stdio.h>
/* The same as an HTML page with one SVG trend chart per sequence (trend_html.c). */
int sb_history_html(json_object *doc, FILE *f);
/* The charts alone, headed by <hLEVEL>, for a page of another's (report's). */
int sb_history_html_charts(json_object *doc, FILE *f, int level);
