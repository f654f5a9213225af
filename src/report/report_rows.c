/* The comparison table's rows: one per metric and latency figure of every
 * workload spec, and the values and statistics of each cell. */
#include "report/report-int.h"
#include "util/macro.h"
#include "util/strutil.h"
#include "result/describe.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static const struct sb_wl_result *find_wl(const struct sb_repeat *rep, const char *spec)
{
	for (size_t w = 0; w < rep->n_wl; w++)
		if (strcmp(rep->wl[w]->spec, spec) == 0)
			return rep->wl[w];
	return NULL;
}

static struct sb_report_row *new_row(struct sb_report *r)
{
	struct sb_report_row *row = realloc(r->rows, (r->n_rows + 1) * sizeof(*row));
	if (!row)
		return NULL;
	r->rows = row;
	row = &r->rows[r->n_rows++];
	*row = (struct sb_report_row){.cells = calloc(r->n_cols, sizeof(struct sb_report_cell))};
	return row;
}

static int add_row(struct sb_report *r, const struct sb_wl_result *wl, const struct sb_metric *m)
{
	struct sb_report_row *row;

	for (size_t i = 0; i < r->n_rows; i++)
		if (strcmp(r->rows[i].spec, wl->spec) == 0 &&
		    strcmp(r->rows[i].metric, m->name) == 0)
			return 0;
	row = new_row(r);
	if (!row)
		return -ENOMEM;
	row->spec = strdup(wl->spec);
	row->workload = strdup(wl->workload);
	row->metric = strdup(m->name);
	row->label = strdup(m->label ? m->label : m->name);
	row->unit = strdup(m->unit);
	row->better = m->better;
	row->headline = sb_metric_is_headline(wl, m);
	row->cost = m->cost;
	if (!row->spec || !row->workload || !row->metric || !row->label || !row->unit ||
	    !row->cells)
		return -ENOMEM;
	return 0;
}

static const char *const lat_names[] = {
    [SB_LAT_P50] = "p50", [SB_LAT_P99] = "p99", [SB_LAT_P999] = "p99.9", [SB_LAT_MAX] = "max"};

/* Was op a paced phase (rate=: extra.paced names it)? Its throughput is
 * the schedule's; its p99 is the figure that tells the stacks apart. */
static bool paced_op(const struct sb_wl_result *wl, const char *op)
{
	json_object *a;
	if (!wl->extra || !json_object_object_get_ex(wl->extra, "paced", &a) ||
	    !json_object_is_type(a, json_type_array))
		return false;
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *v = json_object_array_get_idx(a, i);
		if (json_object_is_type(v, json_type_string) &&
		    strcmp(json_object_get_string(v), op) == 0)
			return true;
	}
	return false;
}

/* A paced phase's p99 row becomes a headline row, labelled so: in one
 * place, whichever column first says the phase was paced. */
static int paced_headline(struct sb_report *r, const char *spec, const char *op)
{
	for (size_t k = 0; k < r->n_rows; k++) {
		struct sb_report_row *row = &r->rows[k];
		if (row->lat != SB_LAT_P99 || row->headline || strcmp(row->spec, spec) != 0 ||
		    strcmp(row->op, op) != 0)
			continue;
		char *label = sb_asprintf("%s (paced: the headline)", row->label);
		if (!label)
			return -ENOMEM;
		free(row->label);
		row->label = label;
		row->headline = true;
	}
	return 0;
}

/* p50, p99, p99.9 and max of an operation: rows like the metrics (lower is
 * better), so that they get intervals, tests and marks too; a paced
 * phase's p99 is a headline row. */
static int add_latrow(struct sb_report *r, const char *spec, const char *workload, const char *op,
		      bool paced)
{
	struct sb_report_latrow *l;

	for (size_t i = 0; i < r->n_lat; i++)
		if (strcmp(r->lat[i].spec, spec) == 0 && strcmp(r->lat[i].op, op) == 0)
			return paced ? paced_headline(r, spec, op) : 0;
	l = realloc(r->lat, (r->n_lat + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	r->lat = l;
	l = &r->lat[r->n_lat++];
	*l = (struct sb_report_latrow){strdup(spec), strdup(op),
				       calloc(r->n_cols, sizeof(struct sb_latency)),
				       calloc(r->n_cols, sizeof(bool))};
	if (!l->spec || !l->op || !l->cells || !l->pooled)
		return -ENOMEM;
	for (enum sb_lat_stat k = SB_LAT_P50; k <= SB_LAT_MAX; k++) {
		struct sb_report_row *row = new_row(r);
		if (!row)
			return -ENOMEM;
		row->spec = strdup(spec);
		row->workload = strdup(workload);
		row->metric = sb_asprintf("latency:%s:%s", op, lat_names[k]);
		row->label = sb_asprintf("%s %s", op, lat_names[k]);
		row->unit = strdup("ms");
		row->better = SB_BETTER_LOWER;
		row->op = strdup(op);
		row->lat = k;
		if (!row->spec || !row->workload || !row->metric || !row->label || !row->unit ||
		    !row->op || !row->cells)
			return -ENOMEM;
	}
	return paced ? paced_headline(r, spec, op) : 0;
}

static const struct sb_latency *find_lat(const struct sb_wl_result *wl, const char *op)
{
	for (size_t i = 0; wl && i < wl->n_lat; i++)
		if (strcmp(wl->lat[i].op, op) == 0)
			return &wl->lat[i];
	return NULL;
}

static double lat_value(const struct sb_latency *l, enum sb_lat_stat k)
{
	static const double q[] = {[SB_LAT_P50] = 0.5, [SB_LAT_P99] = 0.99, [SB_LAT_P999] = 0.999};
	if (!l->count)
		return NAN;
	if (k == SB_LAT_MAX)
		return l->max_ms;
	if (l->hist)
		return sb_hist_percentile(l->hist, q[k]) / 1e6;
	return k == SB_LAT_P50 ? l->p50_ms : k == SB_LAT_P99 ? l->p99_ms : l->p999_ms;
}

int sb_rep_fill_cell(const struct sb_report_col *c, const struct sb_report_row *row,
		     struct sb_report_cell *cell)
{
	struct sb_hist *pool = NULL;
	bool poolable = row->lat != SB_LAT_NONE;

	cell->values = calloc(c->n_rep ? c->n_rep : 1, sizeof(double));
	if (!cell->values)
		return -ENOMEM;
	if (poolable && !(pool = malloc(sizeof(*pool)))) {
		free(cell->values);
		cell->values = NULL;
		return -ENOMEM;
	}
	if (pool)
		sb_hist_init(pool);
	size_t n = 0;
	for (size_t v = 0; v < c->n_vars; v++)
		for (size_t k = 0; k < c->vars[v]->n_rep; k++) {
			const struct sb_wl_result *wl = find_wl(&c->vars[v]->rep[k], row->spec);
			double x;
			if (row->lat) {
				const struct sb_latency *l = find_lat(wl, row->op);
				if (!l || !isfinite(x = lat_value(l, row->lat)))
					continue;
				if (l->hist)
					sb_hist_merge(pool, l->hist);
				else
					poolable = false;
			} else {
				const struct sb_metric *m =
				    wl ? sb_wl_find_metric(wl, row->metric) : NULL;
				if (!m || !isfinite(m->value))
					continue;
				x = m->value;
			}
			cell->flags |= wl->flags;
			cell->values[n++] = x;
		}
	sb_stats_compute(cell->values, n, &cell->st);
	cell->change = cell->change_lo = cell->change_hi = cell->mde_pct = NAN;
	cell->p_adj = NAN;
	cell->mde_welch = NAN;
	cell->pooled = NAN;
	cell->w = (struct sb_welch){NAN, NAN, NAN};
	cell->diff = (struct sb_diff){NAN, NAN, NAN, NAN};
	if (poolable && n && pool->count) {
		static const double q[] = {[SB_LAT_P50] = 0.5,
					   [SB_LAT_P99] = 0.99,
					   [SB_LAT_P999] = 0.999,
					   [SB_LAT_MAX] = 1};
		cell->pooled = sb_hist_percentile(pool, q[row->lat]) / 1e6;
	}
	free(pool);
	return 0;
}

double sb_rep_rep_value(const struct sb_repeat *rep, const struct sb_report_row *row)
{
	const struct sb_wl_result *wl = find_wl(rep, row->spec);
	if (row->lat) {
		const struct sb_latency *l = find_lat(wl, row->op);
		return l ? lat_value(l, row->lat) : NAN;
	}
	const struct sb_metric *m = wl ? sb_wl_find_metric(wl, row->metric) : NULL;
	return m && isfinite(m->value) ? m->value : NAN;
}

int sb_rep_fill_lat(const struct sb_report_col *c, const struct sb_report_latrow *l,
		    struct sb_latency *out, bool *pooled)
{
	struct sb_hist *h = malloc(sizeof(*h));
	size_t n = 0;
	bool all = true;

	if (!h)
		return -ENOMEM;
	sb_hist_init(h);
	*out = (struct sb_latency){.min_ms = INFINITY, .max_ms = -INFINITY};
	for (size_t v = 0; v < c->n_vars; v++)
		for (size_t k = 0; k < c->vars[v]->n_rep; k++) {
			const struct sb_latency *x =
			    find_lat(find_wl(&c->vars[v]->rep[k], l->spec), l->op);
			if (!x)
				continue;
			n++;
			if (x->hist)
				sb_hist_merge(h, x->hist);
			else
				all = false;
			out->count += x->count;
			out->min_ms = fmin(out->min_ms, x->min_ms);
			out->max_ms = fmax(out->max_ms, x->max_ms);
			out->mean_ms += x->mean_ms;
			out->stdev_ms += x->stdev_ms;
			out->p50_ms += x->p50_ms;
			out->p90_ms += x->p90_ms;
			out->p99_ms += x->p99_ms;
			out->p999_ms += x->p999_ms;
		}
	*pooled = false;
	if (n == 0) {
		*out = (struct sb_latency){0};
	} else if (all && h->count) {
		sb_latency_from_hist(out, h);
		*pooled = true;
	} else {
		out->mean_ms /= (double)n;
		out->stdev_ms /= (double)n;
		out->p50_ms /= (double)n;
		out->p90_ms /= (double)n;
		out->p99_ms /= (double)n;
		out->p999_ms /= (double)n;
	}
	free(h);
	return 0;
}

int sb_rep_describe_sets(struct sb_resultset **sets, size_t n_sets)
{
	for (size_t s = 0; s < n_sets; s++)
		for (size_t v = 0; v < sets[s]->n_var; v++)
			for (size_t k = 0; k < sets[s]->var[v].n_rep; k++)
				for (size_t w = 0; w < sets[s]->var[v].rep[k].n_wl; w++) {
					int ret = sb_result_describe(sets[s]->var[v].rep[k].wl[w]);
					if (ret < 0)
						return ret;
				}
	return 0;
}

/* The rows one workload result brings: its metrics, or (lat) its latency
 * records. */
static int add_rows_of(struct sb_report *r, const struct sb_wl_result *wl, bool lat)
{
	int ret = 0;

	for (size_t m = 0; !lat && ret >= 0 && m < wl->n_metrics; m++)
		ret = add_row(r, wl, &wl->metrics[m]);
	for (size_t l = 0; lat && ret >= 0 && l < wl->n_lat; l++)
		ret = add_latrow(r, wl->spec, wl->workload, wl->lat[l].op,
				 paced_op(wl, wl->lat[l].op));
	return ret < 0 ? ret : 0;
}

int sb_rep_add_rows(struct sb_report *r)
{
	/* Every metric row first, then the latency rows, over every result. */
	for (int lat = 0; lat < 2; lat++)
		for (size_t c = 0; c < r->n_cols; c++)
			for (size_t v = 0; v < r->cols[c].n_vars; v++)
				for (size_t k = 0; k < r->cols[c].vars[v]->n_rep; k++) {
					const struct sb_repeat *rep = &r->cols[c].vars[v]->rep[k];
					for (size_t w = 0; w < rep->n_wl; w++) {
						int ret = add_rows_of(r, rep->wl[w], lat);
						if (ret < 0)
							return ret;
					}
				}
	return 0;
}

int sb_rep_group_rows_by_spec(struct sb_report *r)
{
	const char *specs[256];
	size_t n_specs = 0, at = 0;
	struct sb_report_row *sorted = malloc((r->n_rows ? r->n_rows : 1) * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	for (size_t i = 0; i < r->n_rows; i++) {
		size_t k;
		for (k = 0; k < n_specs; k++)
			if (strcmp(specs[k], r->rows[i].spec) == 0)
				break;
		if (k == n_specs && n_specs < ARRAY_SIZE(specs))
			specs[n_specs++] = r->rows[i].spec;
	}
	for (size_t k = 0; k < n_specs; k++)
		for (int lat = 0; lat < 2; lat++)
			for (size_t i = 0; i < r->n_rows; i++)
				if (strcmp(r->rows[i].spec, specs[k]) == 0 &&
				    (r->rows[i].lat != SB_LAT_NONE) == lat)
					sorted[at++] = r->rows[i];
	if (at && at == r->n_rows)
		memcpy(r->rows, sorted, at * sizeof(*sorted));
	free(sorted);
	return 0;
}
