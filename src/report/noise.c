/* The run's own noise floor, said in the verdict of every format: how much
 * the baseline's rounds varied over its headline rows, and how much the
 * host's CPU speed did (the fixed loop timed before each phase,
 * extra.quiesce.PHASE.host_probe_ms). On a shared VM the second is what
 * sets the first: a change of the host faster than a round is what pairing
 * rounds cannot cancel, and more rounds or a quieter host are then the only
 * remedies, not a setting of the stack. */
#include "report/report.h"
#include "util/macro.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Appends a repeat's host probes to *v (grown as needed). */
static void probes_of(const struct sb_repeat *rep, double **v, size_t *n, size_t *cap)
{
	for (size_t w = 0; w < rep->n_wl; w++) {
		json_object *q, *ms;
		if (!rep->wl[w]->extra ||
		    !json_object_object_get_ex(rep->wl[w]->extra, "quiesce", &q) ||
		    !json_object_is_type(q, json_type_object))
			continue;
		json_object_object_foreach(q, phase, p)
		{
			(void)phase;
			if (!json_object_is_type(p, json_type_object) ||
			    !json_object_object_get_ex(p, "host_probe_ms", &ms) ||
			    !(json_object_is_type(ms, json_type_double) ||
			      json_object_is_type(ms, json_type_int)))
				continue;
			double x = json_object_get_double(ms);
			if (!isfinite(x) || x <= 0)
				continue;
			if (*n == *cap) {
				size_t c2 = *cap ? *cap * 2 : 64;
				double *g = realloc(*v, c2 * sizeof(*g));
				if (!g)
					return;
				*v = g, *cap = c2;
			}
			(*v)[(*n)++] = x;
		}
	}
}

void sb_report_noise(const struct sb_report *r, struct sb_report_noise *out)
{
	struct sb_report_noise n = {0};
	size_t b = r->baseline, cap = 0;
	double *cv = calloc(r->n_rows ? r->n_rows : 1, sizeof(*cv)), *pr = NULL;

	for (size_t i = 0; cv && i < r->n_rows; i++) {
		const struct sb_report_row *row = &r->rows[i];
		const struct sb_stats *st = &row->cells[b].st;
		if (!row->headline || st->n < 2 || !(st->mean > 0) || !isfinite(st->stdev))
			continue;
		cv[n.rows++] = 100 * st->stdev / st->mean;
	}
	if (n.rows) {
		n.cv_med = median_of(cv, n.rows);
		n.cv_min = cv[0];
		n.cv_max = cv[n.rows - 1];
	}
	free(cv);
	for (size_t c = 0; c < r->n_cols; c++)
		for (size_t v = 0; v < r->cols[c].n_vars; v++)
			for (size_t k = 0; k < r->cols[c].vars[v]->n_rep; k++)
				probes_of(&r->cols[c].vars[v]->rep[k], &pr, &n.probes, &cap);
	if (n.probes >= 2) {
		struct sb_stats st;
		sb_stats_compute(pr, n.probes, &st);
		n.probe_cv = 100 * st.stdev / st.mean;
		n.probe_med = median_of(pr, n.probes);
		n.probe_min = pr[0];
		n.probe_max = pr[n.probes - 1];
	} else {
		n.probes = 0;
	}
	free(pr);
	*out = n;
}

char *sb_report_noise_str(const struct sb_report_noise *n, char *buf, size_t size)
{
	size_t len = 0;
	*buf = '\0';
	if (n->rows)
		len = (size_t)snprintf(buf, size,
				       "the baseline's rounds varied by %.1f-%.1f%% (CV, median "
				       "%.1f%%) over %zu headline row%s",
				       n->cv_min, n->cv_max, n->cv_med, n->rows,
				       n->rows == 1 ? "" : "s");
	if (n->probes && len < size)
		snprintf(
		    buf + len, size - len,
		    "%sthe host's CPU speed by %.1f%% (CV of a fixed loop timed before each of "
		    "%zu phases: %.1f-%.1f ms, median %.1f)%s",
		    len ? "; " : "", n->probe_cv, n->probes, n->probe_min, n->probe_max,
		    n->probe_med,
		    n->probe_cv >= SB_REPORT_HOST_NOISY_PCT
			? ": the host changes speed faster than a round, which pairing rounds "
			  "cannot cancel; more rounds or a quieter host narrow the intervals"
			: "");
	return buf;
}
