/* JSON report: the comparison table with every statistic as a number, the
 * raw values per repeat and the averaged latency percentiles (documented in
 * doc/result-format.md, "Report JSON"). */
#include "report/measure.h"
#include "report/report.h"
#include "util/macro.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>

static json_object *num(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static json_object *ref(json_object *o)
{
	return o ? json_object_get(o) : NULL;
}

static json_object *cell_json(const struct sb_report *r, size_t c, const struct sb_report_cell *x)
{
	json_object *o = json_object_new_object(), *vals = json_object_new_array();
	json_object_object_add(o, "variant", json_object_new_string(r->cols[c].label));
	json_object_object_add(o, "n", json_object_new_uint64(x->st.n));
	json_object_object_add(o, "mean", num(x->st.mean));
	json_object_object_add(o, "stdev", num(x->st.stdev));
	json_object_object_add(o, "min", num(x->st.min));
	json_object_object_add(o, "max", num(x->st.max));
	json_object_object_add(o, "ci95", num(x->st.ci95));
	json_object_object_add(o, "rse", num(x->st.rse));
	json_object_object_add(o, "change_pct", num(x->change));
	json_object_object_add(o, "p_value", num(x->w.p));
	json_object_object_add(o, "welch_t", num(x->w.t));
	json_object_object_add(o, "welch_df", num(x->w.df));
	json_object_object_add(o, "p_adjusted", num(x->p_adj));
	json_object_object_add(o, "diff", num(x->diff.diff));
	json_object_object_add(o, "diff_lo", num(x->diff.lo));
	json_object_object_add(o, "diff_hi", num(x->diff.hi));
	json_object_object_add(o, "diff_lo_pct", num(x->change_lo));
	json_object_object_add(o, "diff_hi_pct", num(x->change_hi));
	json_object_object_add(o, "mde", num(x->diff.mde));
	json_object_object_add(o, "mde_pct", num(x->mde_pct));
	json_object_object_add(o, "pooled", num(x->pooled));
	json_object_object_add(o, "baseline",
			       json_object_new_string(r->cols[r->cols[c].base].label));
	json_object_object_add(o, "significant", json_object_new_boolean(x->significant));
	json_object_object_add(o, "verdict", json_object_new_string(sb_verdict_name(x->verdict)));
	json_object_object_add(o, "test", json_object_new_string(sb_test_name(x->cmp.test)));
	json_object_object_add(o, "pairs", json_object_new_uint64(x->cmp.n));
	json_object_object_add(o, "p_t", num(x->cmp.p_t));
	json_object_object_add(o, "p_signed_rank", num(x->cmp.p_rank));
	json_object_object_add(o, "spread_log", num(x->cmp.spread));
	json_object_object_add(o, "mde_welch_pct", num(x->mde_welch));
	json_object_object_add(o, "repeats_needed",
			       x->need ? json_object_new_uint64(x->need) : NULL);
	for (size_t i = 0; i < x->st.n; i++)
		json_object_array_add(vals, json_object_new_double(x->values[i]));
	json_object_object_add(o, "values", vals);
	return o;
}

static json_object *verdict_rows(const struct sb_report *r, size_t c, const size_t *ix, size_t n)
{
	json_object *a = json_object_new_array();
	for (size_t k = 0; k < n; k++) {
		const struct sb_report_row *row = &r->rows[ix[k]];
		const struct sb_report_cell *x = &row->cells[c];
		json_object *o = json_object_new_object();
		json_object_object_add(o, "spec", json_object_new_string(row->spec));
		json_object_object_add(o, "metric", json_object_new_string(row->metric));
		json_object_object_add(o, "label", json_object_new_string(row->label));
		json_object_object_add(o, "verdict",
				       json_object_new_string(sb_verdict_name(x->verdict)));
		json_object_object_add(o, "change_pct", num(x->change));
		json_object_object_add(o, "diff_lo_pct", num(x->change_lo));
		json_object_object_add(o, "diff_hi_pct", num(x->change_hi));
		json_object_object_add(o, "p_adjusted", num(x->p_adj));
		json_object_object_add(o, "test",
				       json_object_new_string(sb_test_name(x->cmp.test)));
		if (x->need)
			json_object_object_add(o, "repeats_needed",
					       json_object_new_uint64(x->need));
		json_object_array_add(a, o);
	}
	return a;
}

/* The rows the profile's question turns on ([workloads] answer), each
 * with its verdict: the in_short's first items as data, for a pipeline. */
static void answer_json(const struct sb_report *r, const struct sb_report_verdict *v,
			json_object *o)
{
	static const char *const state[] = {
	    [SB_ANSWER_NO_ROW] = "no such row", [SB_ANSWER_CHANGED] = "",
	    [SB_ANSWER_EQUAL] = "equal",	[SB_ANSWER_UNRESOLVED] = "not resolved",
	    [SB_ANSWER_UNTESTED] = "untested",	[SB_ANSWER_NO_VALUE] = "no value",
	};
	struct sb_report_answer ans[16];
	size_t n = sb_report_answers(r, v, ans, ARRAY_SIZE(ans));
	char why[160];

	if (!n)
		return;
	json_object *a = json_object_new_array();
	for (size_t k = 0; k < n; k++) {
		json_object *e = json_object_new_object();
		json_object_object_add(e, "workload", json_object_new_string(ans[k].wl));
		json_object_object_add(e, "label", json_object_new_string(ans[k].label));
		if (ans[k].row == SIZE_MAX) {
			json_object_object_add(e, "verdict", json_object_new_string(state[0]));
			json_object_array_add(a, e);
			continue;
		}
		const struct sb_report_row *row = &r->rows[ans[k].row];
		const struct sb_report_cell *x = &row->cells[v->col];
		json_object_object_add(e, "spec", json_object_new_string(row->spec));
		json_object_object_add(e, "verdict",
				       json_object_new_string(ans[k].state == SB_ANSWER_CHANGED
								  ? sb_verdict_name(x->verdict)
								  : state[ans[k].state]));
		if (ans[k].state == SB_ANSWER_UNTESTED) {
			json_object_object_add(e, "why",
					       json_object_new_string(sb_report_untested_why(
						   r, row, v->col, why, sizeof(why))));
		} else if (ans[k].state != SB_ANSWER_NO_VALUE) {
			json_object_object_add(e, "change_pct", num(x->change));
			json_object_object_add(e, "change_lo_pct", num(x->change_lo));
			json_object_object_add(e, "change_hi_pct", num(x->change_hi));
		}
		/* the repeats that would resolve it (SB_CMP_N_MAX + 1: more) */
		if (ans[k].state == SB_ANSWER_UNRESOLVED && x->need)
			json_object_object_add(e, "repeats_needed",
					       json_object_new_int64((int64_t)x->need));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "answer", a);
}

/* The verdict's one line ("in_short", as the text's) and the members'
 * shares of the reads by role, of the column and of its baseline. */
static void short_json(const struct sb_report *r, const struct sb_report_verdict *v, json_object *o)
{
	char *t = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&t, &len);
	if (m) {
		sb_report_verdict_short(r, m, v, "±");
		if (fclose(m) == 0 && t)
			json_object_object_add(o, "in_short", json_object_new_string(t));
		free(t);
	}
	answer_json(r, v, o);
	const size_t cols[2] = {v->col, r->cols[v->col].base};
	const char *key[2] = {"read_shares", "baseline_read_shares"};
	for (int i = 0; i < 2; i++) {
		struct sb_measure_share sh[16];
		size_t n = sb_measure_read_shares(r, cols[i], sh, ARRAY_SIZE(sh));
		if (!n)
			continue;
		json_object *d = json_object_new_object();
		for (size_t k = 0; k < n; k++)
			json_object_object_add(d, sh[k].role, num(sh[k].share));
		json_object_object_add(o, key[i], d);
	}
}

/* The verdict block's content: per compared column, its main rows sorted. */
static json_object *verdict_json(const struct sb_report *r)
{
	json_object *a = json_object_new_array();
	for (size_t c = 0; c < r->n_cols; c++) {
		struct sb_report_verdict v;
		if (r->cols[c].base == c || sb_report_verdict_build(r, c, &v) < 0)
			continue;
		json_object *o = json_object_new_object();
		json_object_object_add(o, "variant", json_object_new_string(r->cols[c].label));
		json_object_object_add(o, "baseline",
				       json_object_new_string(r->cols[r->cols[c].base].label));
		json_object_object_add(o, "paired", json_object_new_boolean(v.paired));
		if (!v.paired)
			json_object_object_add(o, "note",
					       json_object_new_string(sb_report_unpaired_note));
		json_object_object_add(o, "equal_within_pct", num(r->resolve_pct));
		short_json(r, &v, o);
		json_object_object_add(o, "changed", verdict_rows(r, c, v.changed, v.n_changed));
		json_object_object_add(o, "equal", verdict_rows(r, c, v.equal, v.n_equal));
		json_object_object_add(o, "unresolved",
				       verdict_rows(r, c, v.unresolved, v.n_unresolved));
		json_object_object_add(o, "untested", verdict_rows(r, c, v.untested, v.n_untested));
		json_object_array_add(a, o);
		sb_report_verdict_free(&v);
	}
	return a;
}

/* {"min", "median", "max"} of one of the noise floor's figures. */
static json_object *span_json(double min, double med, double max)
{
	json_object *x = json_object_new_object();
	json_object_object_add(x, "min", num(min));
	json_object_object_add(x, "median", num(med));
	json_object_object_add(x, "max", num(max));
	return x;
}

/* The run's noise floor: {"baseline_rows", "baseline_cv_pct": {min, median,
 * max}, "host_probes", "host_probe_ms": {min, median, max}, "host_cv_pct",
 * "text"}, the parts without data left out. */
static json_object *noise_json(const struct sb_report *r)
{
	struct sb_report_noise n;
	char text[640];
	json_object *o = json_object_new_object();
	sb_report_noise(r, &n);
	json_object_object_add(o, "baseline_rows", json_object_new_int64((int64_t)n.rows));
	if (n.rows) {
		json_object_object_add(o, "baseline_cv_pct",
				       span_json(n.cv_min, n.cv_med, n.cv_max));
	}
	json_object_object_add(o, "host_probes", json_object_new_int64((int64_t)n.probes));
	if (n.probes) {
		json_object_object_add(o, "host_probe_ms",
				       span_json(n.probe_min, n.probe_med, n.probe_max));
		json_object_object_add(o, "host_cv_pct", num(n.probe_cv));
	}
	json_object_object_add(o, "text",
			       json_object_new_string(sb_report_noise_str(&n, text, sizeof(text))));
	return o;
}

/* The result sets compared: name, path, command, when, tool version, host. */
static json_object *sets_json(const struct sb_report *r)
{
	json_object *sets = json_object_new_array();

	for (size_t s = 0; s < r->n_sets; s++) {
		const struct sb_resultset *rs = r->sets[s];
		json_object *so = json_object_new_object();
		json_object_object_add(so, "name", json_object_new_string(r->set_names[s]));
		json_object_object_add(so, "path",
				       rs->path ? json_object_new_string(rs->path) : NULL);
		json_object_object_add(so, "command", json_object_new_string(rs->command));
		json_object_object_add(so, "created", json_object_new_string(rs->created));
		json_object_object_add(so, "tool_version",
				       json_object_new_string(rs->tool_version));
		json_object_object_add(so, "host", ref(rs->host));
		json_object_array_add(sets, so);
	}
	return sets;
}

/* The columns: label, full name, variant, set, repeats, params, scenario. */
static json_object *variants_json(const struct sb_report *r)
{
	json_object *vars = json_object_new_array();

	for (size_t c = 0; c < r->n_cols; c++) {
		const struct sb_report_col *col = &r->cols[c];
		json_object *vo = json_object_new_object();
		json_object_object_add(vo, "label", json_object_new_string(col->label));
		json_object_object_add(vo, "name", json_object_new_string(col->full));
		json_object_object_add(vo, "variant", json_object_new_string(col->variant));
		json_object_object_add(vo, "set", json_object_new_string(r->set_names[col->set]));
		json_object_object_add(vo, "repeats", json_object_new_uint64(col->n_rep));
		json_object_object_add(vo, "params", ref(col->vars[0]->params));
		json_object *sc = sb_report_scen_json(col);
		if (sc)
			json_object_object_add(vo, "scenario", sc);
		json_object_array_add(vars, vo);
	}
	return vars;
}

/* The rows: what each measures, and its cells (cell_json). */
static json_object *rows_json(const struct sb_report *r)
{
	json_object *rows = json_object_new_array();

	for (size_t i = 0; i < r->n_rows; i++) {
		const struct sb_report_row *row = &r->rows[i];
		json_object *ro = json_object_new_object(), *cells = json_object_new_array();
		json_object_object_add(ro, "workload", json_object_new_string(row->workload));
		json_object_object_add(ro, "spec", json_object_new_string(row->spec));
		json_object_object_add(ro, "metric", json_object_new_string(row->metric));
		json_object_object_add(ro, "label", json_object_new_string(row->label));
		json_object_object_add(ro, "headline", json_object_new_boolean(row->headline));
		json_object_object_add(ro, "cost", json_object_new_boolean(row->cost));
		if (row->op)
			json_object_object_add(ro, "op", json_object_new_string(row->op));
		json_object_object_add(ro, "unit", json_object_new_string(row->unit));
		json_object_object_add(ro, "better",
				       json_object_new_string(sb_better_name(row->better)));
		for (size_t c = 0; c < r->n_cols; c++)
			json_object_array_add(cells, cell_json(r, c, &row->cells[c]));
		json_object_object_add(ro, "cells", cells);
		json_object_array_add(rows, ro);
	}
	return rows;
}

/* The latency records: per spec and op, each column's percentiles (pooled from the
 * histograms, or averaged over the repeats). */
static json_object *latency_json(const struct sb_report *r)
{
	json_object *lat = json_object_new_array();

	for (size_t i = 0; i < r->n_lat; i++) {
		json_object *lo = json_object_new_object(), *cells = json_object_new_array();
		json_object_object_add(lo, "spec", json_object_new_string(r->lat[i].spec));
		json_object_object_add(lo, "op", json_object_new_string(r->lat[i].op));
		for (size_t c = 0; c < r->n_cols; c++) {
			const struct sb_latency *l = &r->lat[i].cells[c];
			json_object *co = json_object_new_object();
			json_object_object_add(co, "variant",
					       json_object_new_string(r->cols[c].label));
			json_object_object_add(co, "count", json_object_new_uint64(l->count));
			json_object_object_add(co, "pooled",
					       json_object_new_boolean(r->lat[i].pooled[c]));
			if (l->count) {
				json_object_object_add(co, "min_ms", num(l->min_ms));
				json_object_object_add(co, "mean_ms", num(l->mean_ms));
				json_object_object_add(co, "stdev_ms", num(l->stdev_ms));
				json_object_object_add(co, "p50_ms", num(l->p50_ms));
				json_object_object_add(co, "p90_ms", num(l->p90_ms));
				json_object_object_add(co, "p99_ms", num(l->p99_ms));
				json_object_object_add(co, "p999_ms", num(l->p999_ms));
				json_object_object_add(co, "max_ms", num(l->max_ms));
			}
			json_object_array_add(cells, co);
		}
		json_object_object_add(lo, "cells", cells);
		json_object_array_add(lat, lo);
	}
	return lat;
}

static int json_emit(const struct sb_report *r, FILE *f)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "format", json_object_new_string("stackbench-report"));
	json_object_object_add(o, "version", json_object_new_int(2));
	json_object_object_add(o, "baseline", json_object_new_string(r->cols[r->baseline].label));
	json_object_object_add(o, "alpha", json_object_new_double(r->alpha));
	if (r->seq_look) {
		json_object *q = json_object_new_object();
		json_object_object_add(q, "alpha", json_object_new_double(r->alpha_nominal));
		json_object_object_add(q, "spending", json_object_new_string("pocock"));
		json_object_object_add(q, "look", json_object_new_uint64(r->seq_look));
		json_object_object_add(q, "first", json_object_new_uint64(r->seq_first));
		json_object_object_add(q, "max", json_object_new_uint64(r->seq_max));
		json_object_object_add(o, "sequential", q);
	}
	json_object_object_add(o, "min_n", json_object_new_int(SB_STATS_MIN_N));
	json_object_object_add(o, "correction",
			       json_object_new_string(sb_correction_name(r->correction)));
	json_object_object_add(o, "power", json_object_new_double(SB_STATS_POWER));
	json_object_object_add(o, "resolve_pct", json_object_new_double(r->resolve_pct));
	json_object_object_add(o, "baseline_set", json_object_new_boolean(r->baseline_set));
	json_object_object_add(o, "sets", sets_json(r));
	json_object_object_add(o, "variants", variants_json(r));
	json_object_object_add(o, "rows", rows_json(r));
	json_object_object_add(o, "verdict", verdict_json(r));
	json_object *side = sb_report_side_json(r);
	if (side) /* only for sets that ran side by side: older reports stay as they were */
		json_object_object_add(o, "side_by_side", side);
	json_object_object_add(o, "noise", noise_json(r));
	json_object_object_add(o, "latency", latency_json(r));

	fprintf(f, "%s\n",
		json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						      JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return ferror(f) ? -EIO : 0;
}

const struct sb_report_format sb_report_json = {
    .name = "json",
    .help = "the same table with every statistic and raw value, as JSON",
    .emit = json_emit,
};
