/* See report.h: building the comparison table from result sets, the format
 * registry, and the labels and number formatting the formats share. */
#include "report/report.h"
#include "util/strutil.h"
#include "util/macro.h"
#include "util/suggest.h"

#include <errno.h>
#include <langinfo.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

const struct sb_report_format *const sb_report_formats[] = {
    &sb_report_text, &sb_report_csv, &sb_report_json, &sb_report_html, &sb_report_bonnie, NULL,
};

const struct sb_report_format *sb_report_format_find(const char *name)
{
	for (size_t i = 0; sb_report_formats[i]; i++)
		if (strcmp(sb_report_formats[i]->name, name) == 0)
			return sb_report_formats[i];
	return NULL;
}

char *sb_report_legend(const char *pm)
{
	char *s;
	if (asprintf(
		&s,
		"mean %sci: 95%% confidence interval (Student t) over the repeats;\n"
		"(+x%%): change of the mean against the baseline;\n"
		"*: significantly better (or different, where a metric has no better direction),\n"
		"!: significantly worse: Welch's t-test p < 0.05 with at least 3 repeats a side;\n"
		"-: no value",
		pm) < 0)
		return NULL;
	return s;
}

const char *sb_report_pm(void)
{
	const char *cs = nl_langinfo(CODESET);
	return cs && strcmp(cs, "UTF-8") == 0 ? "±" : "+-";
}

static int fail(char **err, const char *fmt, ...) _printf_(2, 3);
static int fail(char **err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	free(*err);
	*err = sb_vasprintf(fmt, ap);
	va_end(ap);
	return -EINVAL;
}

char *sb_report_set_name(const char *path)
{
	_cleanup_free_ char *p = strdup(path ? path : "result");
	char *base, *slash;
	size_t len;

	if (!p)
		return NULL;
	len = strlen(p);
	while (len > 1 && p[len - 1] == '/')
		p[--len] = '\0';
	slash = strrchr(p, '/');
	base = slash ? slash + 1 : p;
	if (strcmp(base, "result.json") == 0) {
		if (!slash)
			return strdup(".");
		*slash = '\0';
		slash = strrchr(p, '/');
		base = slash ? slash + 1 : p;
		if (!*base)
			base = "/";
	} else if (len > 5 && strcmp(p + len - 5, ".json") == 0 && base != p + len - 5) {
		p[len - 5] = '\0';
	}
	return strdup(base);
}

static const struct {
	const char *workload; /* NULL: any (bonnie++ names are shared with its adapter) */
	const char *metric;
	const char *label;
} labels[] = {
    {NULL, "putc_write", "Sequential Output Per Chr"},
    {NULL, "block_write", "Sequential Output Block"},
    {NULL, "rewrite", "Sequential Output Rewrite"},
    {NULL, "getc_read", "Sequential Input Per Chr"},
    {NULL, "block_read", "Sequential Input Block"},
    {NULL, "seeks", "Random Seeks"},
    {NULL, "seq_create", "Sequential Create Create"},
    {NULL, "seq_stat", "Sequential Create Read"},
    {NULL, "seq_delete", "Sequential Create Delete"},
    {NULL, "rand_create", "Random Create Create"},
    {NULL, "rand_stat", "Random Create Read"},
    {NULL, "rand_delete", "Random Create Delete"},
    {"rand", "read_mbs", "Random Read"},
    {"rand", "read_iops", "Random Read IOPS"},
    {"rand", "write_mbs", "Random Write"},
    {"rand", "write_iops", "Random Write IOPS"},
    {"rand", "read_cpu", "Random Read %CPU"},
    {"rand", "write_cpu", "Random Write %CPU"},
    {"command", "wall", "Wall time"},
    {"command", "user", "User time"},
    {"command", "sys", "System time"},
};

static const char *find_label(const char *workload, const char *metric, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(labels); i++) {
		if (labels[i].workload && (!workload || strcmp(labels[i].workload, workload) != 0))
			continue;
		if (strncmp(labels[i].metric, metric, len) == 0 && labels[i].metric[len] == '\0')
			return labels[i].label;
	}
	return NULL;
}

/* mixed (FsOpBench-style): PHASE_RATE, e.g. "pRW_write_rate_all_mbs"; the
 * phases named as the workload names them, with R and W from "mixed:RrWw". */
static const char *mixed_label(const char *spec, const char *metric, char *buf, size_t size)
{
	static const struct {
		const char *suffix, *rate;
	} rates[] = {
	    {"read_rate_data_mbs", "read rate (data)"},
	    {"read_rate_all_mbs", "read rate (incl. readdir + open + first byte)"},
	    {"write_rate_data_mbs", "write rate (data)"},
	    {"write_rate_all_mbs", "write rate (incl. open + first byte + mkdir)"},
	};
	unsigned nr = 0, nw = 0;
	char readers[32] = "readers", phase[64];
	const char *rest;

	if (spec && sscanf(spec, "mixed:%ur%uw", &nr, &nw) == 2 && nr > 0) {
		snprintf(readers, sizeof(readers), "%u reader%s", nr, nr > 1 ? "s" : "");
		snprintf(phase, sizeof(phase), "%s + %u writer%s", readers, nw, nw != 1 ? "s" : "");
	} else {
		snprintf(phase, sizeof(phase), "readers + writers");
	}
	if (strncmp(metric, "p1_", 3) == 0)
		rest = metric + 3, snprintf(phase, sizeof(phase), "1 reader");
	else if (strncmp(metric, "pRW_", 4) == 0)
		rest = metric + 4;
	else if (strncmp(metric, "pR_", 3) == 0)
		rest = metric + 3, snprintf(phase, sizeof(phase), "%s", readers);
	else
		return NULL;
	for (size_t r = 0; r < ARRAY_SIZE(rates); r++)
		if (strcmp(rest, rates[r].suffix) == 0) {
			snprintf(buf, size, "%s: %s", phase, rates[r].rate);
			return buf;
		}
	return NULL;
}

const char *sb_report_metric_label(const char *workload, const char *spec, const char *metric,
				   char *buf, size_t size)
{
	size_t len = strlen(metric);
	const char *l = find_label(workload, metric, len);

	if (l) {
		snprintf(buf, size, "%s", l);
		return buf;
	}
	/* the %CPU twin of a labelled metric, named as bonnie++ heads it */
	if (len > 4 && strcmp(metric + len - 4, "_cpu") == 0 &&
	    (l = find_label(workload, metric, len - 4))) {
		snprintf(buf, size, "%s %%CP", l);
		return buf;
	}
	if (workload && strcmp(workload, "mixed") == 0 && mixed_label(spec, metric, buf, size))
		return buf;
	snprintf(buf, size, "%s", metric);
	return buf;
}

const char *sb_verdict_marker(enum sb_verdict v)
{
	switch (v) {
	case SB_VERDICT_BETTER:
	case SB_VERDICT_DIFFERENT:
		return "*";
	case SB_VERDICT_WORSE:
		return "!";
	default:
		return "";
	}
}

const char *sb_verdict_name(enum sb_verdict v)
{
	static const char *const names[] = {
	    [SB_VERDICT_BASELINE] = "baseline", [SB_VERDICT_NA] = "n/a",
	    [SB_VERDICT_SAME] = "same",		[SB_VERDICT_BETTER] = "better",
	    [SB_VERDICT_WORSE] = "worse",	[SB_VERDICT_DIFFERENT] = "different",
	};
	return names[v];
}

char *sb_report_fmt_num(double v, char *buf, size_t size)
{
	double a = fabs(v);
	if (!isfinite(v))
		snprintf(buf, size, "-");
	else if (a >= 1e12 || (a < 0.001 && a > 0))
		snprintf(buf, size, "%.3g", v);
	else if (a >= 100)
		snprintf(buf, size, "%.0f", v);
	else if (a >= 10)
		snprintf(buf, size, "%.1f", v);
	else if (a >= 1)
		snprintf(buf, size, "%.2f", v);
	else if (a == 0)
		snprintf(buf, size, "0");
	else
		snprintf(buf, size, "%.3g", v);
	return buf;
}

char *sb_report_fmt_cell(const struct sb_report *r, size_t col, const struct sb_report_cell *c,
			 const char *pm, char *buf, size_t size)
{
	char m[32], ci[40] = "", ch[40] = "";

	if (c->st.n == 0) {
		snprintf(buf, size, "-");
		return buf;
	}
	sb_report_fmt_num(c->st.mean, m, sizeof(m));
	if (isfinite(c->st.ci95)) {
		char tmp[32];
		snprintf(ci, sizeof(ci), " %s%s", pm,
			 sb_report_fmt_num(c->st.ci95, tmp, sizeof(tmp)));
	}
	if (col != r->baseline && isfinite(c->change))
		snprintf(ch, sizeof(ch), " (%+.1f%%)%s", c->change, sb_verdict_marker(c->verdict));
	snprintf(buf, size, "%s%s%s", m, ci, ch);
	return buf;
}

size_t sb_report_specs(const struct sb_report *r, const char **specs, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n_rows; i++) {
		size_t k;
		for (k = 0; k < n; k++)
			if (strcmp(specs[k], r->rows[i].spec) == 0)
				break;
		if (k == n && n < max)
			specs[n++] = r->rows[i].spec;
	}
	for (size_t i = 0; i < r->n_lat; i++) {
		size_t k;
		for (k = 0; k < n; k++)
			if (strcmp(specs[k], r->lat[i].spec) == 0)
				break;
		if (k == n && n < max)
			specs[n++] = r->lat[i].spec;
	}
	return n;
}

void sb_report_free(struct sb_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_sets; i++)
		free(r->set_names ? r->set_names[i] : NULL);
	free(r->set_names);
	for (size_t i = 0; i < r->n_cols; i++) {
		free(r->cols[i].label);
		free(r->cols[i].vars);
	}
	free(r->cols);
	for (size_t i = 0; i < r->n_rows; i++) {
		for (size_t c = 0; c < r->n_cols && r->rows[i].cells; c++)
			free(r->rows[i].cells[c].values);
		free(r->rows[i].cells);
		free(r->rows[i].spec);
		free(r->rows[i].workload);
		free(r->rows[i].metric);
		free(r->rows[i].unit);
	}
	free(r->rows);
	for (size_t i = 0; i < r->n_lat; i++) {
		free(r->lat[i].spec);
		free(r->lat[i].op);
		free(r->lat[i].cells);
	}
	free(r->lat);
	free(r);
}

static int add_col(struct sb_report *r, size_t set, const struct sb_variant *v, bool merge)
{
	struct sb_report_col *c = NULL;
	const struct sb_variant **vars;

	if (merge)
		for (size_t i = 0; i < r->n_cols; i++)
			if (strcmp(r->cols[i].variant, v->name) == 0)
				c = &r->cols[i];
	if (!c) {
		c = realloc(r->cols, (r->n_cols + 1) * sizeof(*c));
		if (!c)
			return -ENOMEM;
		r->cols = c;
		c = &r->cols[r->n_cols++];
		*c = (struct sb_report_col){.variant = v->name, .set = set};
	}
	vars = realloc(c->vars, (c->n_vars + 1) * sizeof(*vars));
	if (!vars)
		return -ENOMEM;
	c->vars = vars;
	c->vars[c->n_vars++] = v;
	c->n_rep += v->n_rep;
	return 0;
}

static int label_cols(struct sb_report *r)
{
	for (size_t i = 0; i < r->n_cols; i++) {
		struct sb_report_col *c = &r->cols[i];
		size_t same = 0;
		for (size_t k = 0; k < r->n_cols; k++)
			same += strcmp(r->cols[k].variant, c->variant) == 0;
		if (same > 1) {
			if (asprintf(&c->label, "%s:%s", r->set_names[c->set], c->variant) < 0)
				c->label = NULL;
		} else {
			c->label = strdup(c->variant);
		}
		if (!c->label)
			return -ENOMEM;
	}
	return 0;
}

static int name_sets(struct sb_report *r)
{
	r->set_names = calloc(r->n_sets ? r->n_sets : 1, sizeof(char *));
	if (!r->set_names)
		return -ENOMEM;
	for (size_t i = 0; i < r->n_sets; i++) {
		_cleanup_free_ char *base = sb_report_set_name(r->sets[i]->path);
		size_t same = 0;
		if (!base)
			return -ENOMEM;
		for (size_t k = 0; k < i; k++) {
			_cleanup_free_ char *other = sb_report_set_name(r->sets[k]->path);
			same += other && strcmp(other, base) == 0;
		}
		/* Two sets from directories of the same name still need
		 * telling apart: number the later ones. */
		if (same) {
			if (asprintf(&r->set_names[i], "%s#%zu", base, same + 1) < 0)
				r->set_names[i] = NULL;
		} else {
			r->set_names[i] = TAKE_PTR(base);
		}
		if (!r->set_names[i])
			return -ENOMEM;
	}
	return 0;
}

static const struct sb_wl_result *find_wl(const struct sb_repeat *rep, const char *spec)
{
	for (size_t w = 0; w < rep->n_wl; w++)
		if (strcmp(rep->wl[w]->spec, spec) == 0)
			return rep->wl[w];
	return NULL;
}

static int add_row(struct sb_report *r, const struct sb_wl_result *wl, const struct sb_metric *m)
{
	struct sb_report_row *row;

	for (size_t i = 0; i < r->n_rows; i++)
		if (strcmp(r->rows[i].spec, wl->spec) == 0 &&
		    strcmp(r->rows[i].metric, m->name) == 0)
			return 0;
	row = realloc(r->rows, (r->n_rows + 1) * sizeof(*row));
	if (!row)
		return -ENOMEM;
	r->rows = row;
	row = &r->rows[r->n_rows];
	*row = (struct sb_report_row){
	    .spec = strdup(wl->spec),
	    .workload = strdup(wl->workload),
	    .metric = strdup(m->name),
	    .unit = strdup(m->unit),
	    .better = m->better,
	    .cells = calloc(r->n_cols, sizeof(struct sb_report_cell)),
	};
	r->n_rows++;
	if (!row->spec || !row->workload || !row->metric || !row->unit || !row->cells)
		return -ENOMEM;
	return 0;
}

static int add_latrow(struct sb_report *r, const char *spec, const char *op)
{
	struct sb_report_latrow *l;

	for (size_t i = 0; i < r->n_lat; i++)
		if (strcmp(r->lat[i].spec, spec) == 0 && strcmp(r->lat[i].op, op) == 0)
			return 0;
	l = realloc(r->lat, (r->n_lat + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	r->lat = l;
	l = &r->lat[r->n_lat++];
	*l = (struct sb_report_latrow){strdup(spec), strdup(op),
				       calloc(r->n_cols, sizeof(struct sb_latency))};
	if (!l->spec || !l->op || !l->cells)
		return -ENOMEM;
	return 0;
}

static int fill_cell(const struct sb_report_col *c, const struct sb_report_row *row,
		     struct sb_report_cell *cell)
{
	cell->values = calloc(c->n_rep ? c->n_rep : 1, sizeof(double));
	if (!cell->values)
		return -ENOMEM;
	size_t n = 0;
	for (size_t v = 0; v < c->n_vars; v++)
		for (size_t k = 0; k < c->vars[v]->n_rep; k++) {
			const struct sb_wl_result *wl = find_wl(&c->vars[v]->rep[k], row->spec);
			const struct sb_metric *m = wl ? sb_wl_find_metric(wl, row->metric) : NULL;
			if (!m || !isfinite(m->value))
				continue;
			cell->flags |= wl->flags;
			cell->values[n++] = m->value;
		}
	sb_stats_compute(cell->values, n, &cell->st);
	cell->change = NAN;
	cell->w = (struct sb_welch){NAN, NAN, NAN};
	return 0;
}

static void compare(const struct sb_report_row *row, const struct sb_report_cell *base,
		    struct sb_report_cell *cell)
{
	if (cell->st.n == 0 || base->st.n == 0) {
		cell->verdict = SB_VERDICT_NA;
		return;
	}
	cell->change = sb_rel_change(base->st.mean, cell->st.mean);
	sb_welch_test(&base->st, &cell->st, &cell->w);
	cell->significant = sb_stats_significant(&base->st, &cell->st, &cell->w);
	if (!cell->significant)
		cell->verdict = SB_VERDICT_SAME;
	else if (row->better == SB_BETTER_NONE)
		cell->verdict = SB_VERDICT_DIFFERENT;
	else if ((cell->st.mean > base->st.mean) == (row->better == SB_BETTER_HIGHER))
		cell->verdict = SB_VERDICT_BETTER;
	else
		cell->verdict = SB_VERDICT_WORSE;
}

/* Latency summaries of the repeats, averaged: the percentiles of different
 * repeats cannot be merged exactly without their histograms, and their mean
 * is what a reader compares anyway. Counts are summed, min/max are extremes. */
static void fill_lat(const struct sb_report_col *c, const struct sb_report_latrow *l,
		     struct sb_latency *out)
{
	size_t n = 0;
	*out = (struct sb_latency){.min_ms = INFINITY, .max_ms = -INFINITY};
	for (size_t v = 0; v < c->n_vars; v++)
		for (size_t k = 0; k < c->vars[v]->n_rep; k++) {
			const struct sb_wl_result *wl = find_wl(&c->vars[v]->rep[k], l->spec);
			for (size_t i = 0; wl && i < wl->n_lat; i++) {
				const struct sb_latency *x = &wl->lat[i];
				if (strcmp(x->op, l->op) != 0)
					continue;
				n++;
				out->count += x->count;
				out->min_ms = fmin(out->min_ms, x->min_ms);
				out->max_ms = fmax(out->max_ms, x->max_ms);
				out->mean_ms += x->mean_ms;
				out->stdev_ms += x->stdev_ms;
				out->p50_ms += x->p50_ms;
				out->p90_ms += x->p90_ms;
				out->p99_ms += x->p99_ms;
				out->p999_ms += x->p999_ms;
				break;
			}
		}
	if (n == 0) {
		*out = (struct sb_latency){0};
		return;
	}
	out->mean_ms /= (double)n;
	out->stdev_ms /= (double)n;
	out->p50_ms /= (double)n;
	out->p90_ms /= (double)n;
	out->p99_ms /= (double)n;
	out->p999_ms /= (double)n;
}

static int pick_baseline(struct sb_report *r, const char *name, char **err)
{
	size_t hits = 0, hit = 0;
	const char *labels_[r->n_cols];

	if (!name) {
		r->baseline = 0;
		return 0;
	}
	for (size_t i = 0; i < r->n_cols; i++) {
		labels_[i] = r->cols[i].label;
		if (strcmp(r->cols[i].label, name) == 0) {
			r->baseline = i;
			return 0;
		}
		if (strcmp(r->cols[i].variant, name) == 0) {
			hits++;
			hit = i;
		}
	}
	if (hits == 1) {
		r->baseline = hit;
		return 0;
	}
	if (hits > 1)
		return fail(err,
			    "baseline '%s' is ambiguous: it is in several result sets; name one "
			    "as SET:VARIANT (e.g. '%s')",
			    name, r->cols[hit].label);
	const char *sug = sb_suggest(name, labels_, r->n_cols);
	if (sug)
		return fail(err, "unknown baseline variant '%s' (did you mean '%s'?)", name, sug);
	return fail(err, "unknown baseline variant '%s'", name);
}

int sb_report_build(struct sb_resultset **sets, size_t n_sets, const struct sb_report_opts *o,
		    struct sb_report **out, char **err)
{
	struct sb_report *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return -ENOMEM;
	r->sets = sets;
	r->n_sets = n_sets;
	ret = name_sets(r);
	if (ret < 0)
		goto out;
	for (size_t s = 0; s < n_sets; s++)
		for (size_t v = 0; v < sets[s]->n_var; v++) {
			ret = add_col(r, s, &sets[s]->var[v], o && o->merge);
			if (ret < 0)
				goto out;
		}
	if (r->n_cols == 0) {
		ret = fail(err, "%s: no variants to compare",
			   n_sets == 1 && sets[0]->path ? sets[0]->path : "result sets");
		goto out;
	}
	ret = label_cols(r);
	if (ret < 0)
		goto out;
	ret = pick_baseline(r, o ? o->baseline : NULL, err);
	if (ret < 0)
		goto out;

	/* Rows in order of first appearance, so that the report follows the
	 * order the workloads ran in. */
	for (size_t c = 0; c < r->n_cols; c++)
		for (size_t v = 0; v < r->cols[c].n_vars; v++)
			for (size_t k = 0; k < r->cols[c].vars[v]->n_rep; k++) {
				const struct sb_repeat *rep = &r->cols[c].vars[v]->rep[k];
				for (size_t w = 0; w < rep->n_wl; w++) {
					const struct sb_wl_result *wl = rep->wl[w];
					for (size_t m = 0; m < wl->n_metrics; m++)
						if ((ret = add_row(r, wl, &wl->metrics[m])) < 0)
							goto out;
					for (size_t l = 0; l < wl->n_lat; l++)
						if ((ret = add_latrow(r, wl->spec, wl->lat[l].op)) <
						    0)
							goto out;
				}
			}
	for (size_t i = 0; i < r->n_rows; i++)
		for (size_t c = 0; c < r->n_cols; c++)
			if ((ret = fill_cell(&r->cols[c], &r->rows[i], &r->rows[i].cells[c])) < 0)
				goto out;
	for (size_t i = 0; i < r->n_rows; i++)
		for (size_t c = 0; c < r->n_cols; c++)
			if (c != r->baseline)
				compare(&r->rows[i], &r->rows[i].cells[r->baseline],
					&r->rows[i].cells[c]);
	for (size_t i = 0; i < r->n_lat; i++)
		for (size_t c = 0; c < r->n_cols; c++)
			fill_lat(&r->cols[c], &r->lat[i], &r->lat[i].cells[c]);
	*out = TAKE_PTR(r);
	ret = 0;
out:
	sb_report_free(r);
	return ret;
}

char *sb_report_flags_str(unsigned flags, char *buf, size_t size)
{
	static const struct {
		unsigned flag;
		const char *name;
	} names[] = {
	    {SB_RES_QUICK, "quick"},
	    {SB_RES_CACHE_AFFECTED, "cache-affected"},
	    {SB_RES_INCOMPLETE, "incomplete"},
	    {SB_RES_FAILED, "failed"},
	};
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if ((flags & names[i].flag) && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
						names[i].name);
	return buf;
}

unsigned sb_report_col_flags(const struct sb_report *r, size_t col, const char *spec)
{
	unsigned f = 0;
	for (size_t i = 0; i < r->n_rows; i++)
		if (strcmp(r->rows[i].spec, spec) == 0)
			f |= r->rows[i].cells[col].flags;
	return f;
}

int sb_report_print(struct sb_resultset *rs, const char *format, FILE *f, char **err)
{
	const struct sb_report_format *fmt = sb_report_format_find(format ? format : "text");
	struct sb_report *r = NULL;
	int ret;

	if (!fmt)
		return fail(err, "unknown report format '%s'", format);
	ret = sb_report_build(&rs, 1, NULL, &r, err);
	if (ret < 0)
		return ret;
	ret = fmt->emit(r, f);
	sb_report_free(r);
	if (ret == -EINVAL)
		return fail(err, "%s format: no results this format can show", fmt->name);
	return ret;
}
