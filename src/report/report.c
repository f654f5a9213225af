/* See report.h: the format registry, the labels and number formatting the
 * formats share, and sb_report_build, which puts the table together from the
 * columns (report_cols.c), rows (report_rows.c) and decisions (report_decide.c). */
#include "report/report-int.h"
#include "util/escape.h"
#include "util/strutil.h"
#include "util/macro.h"

#include <errno.h>
#include <langinfo.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

const struct sb_report_format *const sb_report_formats[] = {
    &sb_report_text,   &sb_report_csv,	 &sb_report_json,      &sb_report_html,
    &sb_report_bonnie, &sb_report_junit, &sb_report_fsopbench, NULL,
};

const struct sb_report_format *sb_report_format_find(const char *name)
{
	for (size_t i = 0; sb_report_formats[i]; i++)
		if (strcmp(sb_report_formats[i]->name, name) == 0)
			return sb_report_formats[i];
	return NULL;
}

const char *sb_correction_name(enum sb_correction c)
{
	static const char *const names[] = {[SB_CORRECTION_HOLM] = "holm",
					    [SB_CORRECTION_BH] = "bh",
					    [SB_CORRECTION_NONE] = "none"};
	return names[c];
}

int sb_correction_from_name(const char *s, enum sb_correction *out)
{
	for (enum sb_correction c = SB_CORRECTION_HOLM; c <= SB_CORRECTION_NONE; c++)
		if (strcmp(s, sb_correction_name(c)) == 0)
			return *out = c, 0;
	return -EINVAL;
}

char *sb_report_legend(const struct sb_report *r, const char *pm)
{
	static const char *const how[] = {
	    [SB_CORRECTION_HOLM] = "Holm-Bonferroni (family-wise error)",
	    [SB_CORRECTION_BH] = "Benjamini-Hochberg (false discovery rate)",
	    [SB_CORRECTION_NONE] = "no correction: each row on its own",
	};
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	if (!f)
		return NULL;
	fprintf(
	    f,
	    "mean %sci: %g%% confidence interval (Student t) over the repeats;\n"
	    "(+x%% [lo, hi] mde y%%): change against the baseline with its %g%% interval (not "
	    "adjusted) and, where unmarked, the smallest change the run could have detected "
	    "(%g%% power). Rates and times change by factors: rounds of one run are paired "
	    "(paired-t-log: a t interval on the per-round log ratios, so a slow stretch of the "
	    "host cancels; signed-rank-log where those ratios are far from normal), sets that "
	    "did not run together (--baseline-set, --merge, --fleet) use Welch's t on the "
	    "logarithms (welch-log); values that are not all positive, the raw values;\n"
	    "*: significantly better (or different, where a metric has no better direction), "
	    "!: significantly worse: at least %d repeats a side and adjusted p < %g. Three "
	    "families per comparison: the headline rows and the cost rows, which the verdict "
	    "and --check are about (each %s, at %g%% and %g%% of alpha; a family with no "
	    "tested row leaves its share to the other), and the latency and "
	    "%%CPU rows (Benjamini-Hochberg, false discovery rate, at the other %g%%), so that "
	    "many secondary rows never take the power from a headline row and an A/A report "
	    "is marked anywhere at most alpha of the time; mde is at the alpha the correction "
	    "asks of one row;\n"
	    "equal: unmarked, its whole interval within %s%g%%;\n"
	    "?: not resolved: neither marked nor shown equal (or too few repeats): no mark does "
	    "not mean no difference; the verdict names the repeats that would resolve it, "
	    "n ~ 16 (CV / delta)^2 a side (half that paired), at the alpha of the correction;\n"
	    "-: no value",
	    pm, 100 * (1 - r->alpha), 100 * (1 - r->alpha), 100 * SB_STATS_POWER, SB_STATS_MIN_N,
	    r->alpha, how[r->correction],
	    r->correction == SB_CORRECTION_NONE ? 100 : 100 * SB_REPORT_HEADLINE_SHARE,
	    r->correction == SB_CORRECTION_NONE
		? 100
		: 100 * (SB_REPORT_MAIN_SHARE - SB_REPORT_HEADLINE_SHARE),
	    r->correction == SB_CORRECTION_NONE ? 100 : 100 * (1 - SB_REPORT_MAIN_SHARE), pm,
	    r->resolve_pct);
	if (r->seq_look)
		fprintf(
		    f,
		    ";\nsequential: --repeat auto looked after each round from %zu to at most "
		    "%zu and stopped after round %zu; this look's alpha is %.4g of %g (Lan-DeMets "
		    "Pocock-type spending; the looks' alphas sum to at most %g), so that stopping "
		    "once the rows resolve keeps an A/A run's false alarms at %g",
		    r->seq_first, r->seq_max, r->seq_look, r->alpha, r->alpha_nominal,
		    r->alpha_nominal, r->alpha_nominal);
	if (r->legend_needed)
		for (size_t c = 0; c < r->n_cols; c++)
			if (strcmp(r->cols[c].label, r->cols[c].full) != 0)
				fprintf(f, "\n%s = %s", r->cols[c].label, r->cols[c].full);
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

const char *sb_report_pm(void)
{
	const char *cs = nl_langinfo(CODESET);
	return cs && strcmp(cs, "UTF-8") == 0 ? "±" : "+-";
}

const char *sb_report_unit(const char *unit, char *buf, size_t size)
{
	static const char micro[] = "µ";
	const char *cs = nl_langinfo(CODESET);

	if (!unit || (cs && strcmp(cs, "UTF-8") == 0) ||
	    strncmp(unit, micro, sizeof(micro) - 1) != 0)
		return unit;
	snprintf(buf, size, "u%s", unit + sizeof(micro) - 1);
	return buf;
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

const char *sb_verdict_marker(enum sb_verdict v)
{
	switch (v) {
	case SB_VERDICT_BETTER:
	case SB_VERDICT_DIFFERENT:
		return "*";
	case SB_VERDICT_WORSE:
		return "!";
	case SB_VERDICT_UNRESOLVED:
		return "?";
	default:
		return "";
	}
}

const char *sb_verdict_name(enum sb_verdict v)
{
	static const char *const names[] = {
	    [SB_VERDICT_BASELINE] = "baseline",
	    [SB_VERDICT_NA] = "n/a",
	    [SB_VERDICT_SAME] = "same",
	    [SB_VERDICT_BETTER] = "better",
	    [SB_VERDICT_WORSE] = "worse",
	    [SB_VERDICT_DIFFERENT] = "different",
	    [SB_VERDICT_UNRESOLVED] = "not resolved",
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
	char m[32], ci[40] = "", ch[96] = "";

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
	if (r->cols[col].base != col && isfinite(c->change)) {
		/* unmarked: how small a change the run could have seen */
		char mde[32] = "";
		/* Past 1000% a figure says nothing more than "no change this run
		 * could see" (loop workers' CPU per op, near-zero times, reached
		 * 396639291%): said so. */
		if (!c->significant && isfinite(c->mde_pct) && c->mde_pct > SB_REPORT_MDE_SHOWN)
			snprintf(mde, sizeof(mde), " mde >%.0f%%", SB_REPORT_MDE_SHOWN);
		else if (!c->significant && isfinite(c->mde_pct))
			snprintf(mde, sizeof(mde), " mde %.*f%%", c->mde_pct < 10 ? 1 : 0,
				 c->mde_pct);
		if (isfinite(c->change_lo))
			snprintf(ch, sizeof(ch), " (%+.1f%% [%+.0f, %+.0f]%s)%s", c->change,
				 c->change_lo, c->change_hi, mde, sb_verdict_marker(c->verdict));
		else
			snprintf(ch, sizeof(ch), " (%+.1f%%)%s", c->change,
				 sb_verdict_marker(c->verdict));
	} else if (r->cols[col].base != col && c->verdict == SB_VERDICT_UNRESOLVED) {
		snprintf(ch, sizeof(ch), " ?");
	}
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
		free(r->cols[i].full);
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
		free(r->rows[i].label);
		free(r->rows[i].unit);
		free(r->rows[i].op);
	}
	free(r->rows);
	for (size_t i = 0; i < r->n_lat; i++) {
		free(r->lat[i].spec);
		free(r->lat[i].op);
		free(r->lat[i].cells);
		free(r->lat[i].pooled);
	}
	free(r->lat);
	for (size_t i = 0; i < r->n_aliases; i++) {
		free(r->aliases[i].from);
		free(r->aliases[i].to);
	}
	free(r->aliases);
	sb_rep_side_free(r);
	free(r);
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
	r->correction = o ? o->correction : SB_CORRECTION_HOLM;
	r->alpha = o && o->alpha > 0 ? o->alpha : SB_STATS_ALPHA;
	r->resolve_pct = o && o->resolve_pct > 0 ? o->resolve_pct : SB_REPORT_RESOLVE_PCT;
	r->check_pct = o && o->check_pct > 0 ? o->check_pct : SB_REPORT_CHECK_PCT;
	r->round_floor_pct = o && o->round_floor_pct > 0 ? o->round_floor_pct : 0;
	r->all = o && o->all;
	r->width = o && o->width ? o->width : SB_REPORT_WIDTH;
	r->history_html = o ? o->history_html : NULL;
	r->baseline_set = o && o->baseline_set && n_sets > 1;
	r->fleet = o && (o->fleet || o->by_host) && !r->baseline_set;
	ret = sb_rep_describe_sets(sets, n_sets);
	if (ret < 0)
		goto out;
	ret = sb_rep_sequential_alpha(r, err);
	if (ret < 0)
		goto out;
	ret = sb_rep_align_specs(r);
	if (ret < 0)
		goto out;
	ret = sb_rep_name_sets(r);
	if (ret < 0)
		goto out;
	for (size_t s = 0; s < n_sets; s++)
		for (size_t v = 0; v < sets[s]->n_var; v++) {
			ret = sb_rep_add_col(r, s, &sets[s]->var[v], o && o->merge);
			if (ret < 0)
				goto out;
		}
	if (r->n_cols == 0) {
		ret = sb_set_err(err, -EINVAL, "%s: no variants to compare",
				 n_sets == 1 && sets[0]->path ? sets[0]->path : "result sets");
		goto out;
	}
	ret = sb_rep_label_cols(r);
	if (ret < 0)
		goto out;
	if (r->fleet && o && o->by_host) {
		if ((ret = sb_rep_sort_cols_by_host(r)) < 0)
			goto out;
	}
	if (r->fleet && o && o->baseline) {
		/* In a fleet the baseline is a variant name, found in every host. */
		ret = 0;
		r->baseline = 0;
	} else {
		ret = sb_rep_pick_baseline(r, o ? o->baseline : NULL, err);
	}
	if (ret < 0)
		goto out;
	sb_rep_pick_bases(r, o ? o->baseline : NULL);
	if (r->fleet)
		r->baseline = r->cols[0].base;

	if ((ret = sb_rep_add_rows(r)) < 0)
		goto out;
	if ((ret = sb_rep_group_rows_by_spec(r)) < 0)
		goto out;
	for (size_t i = 0; i < r->n_rows; i++)
		for (size_t c = 0; c < r->n_cols; c++)
			if ((ret = sb_rep_fill_cell(&r->cols[c], &r->rows[i],
						    &r->rows[i].cells[c])) < 0)
				goto out;
	/* the crossover fits first: a headline row's effect side by side is
	 * its comparison (sb_rep_compare) */
	if ((ret = sb_rep_side_build(r, err)) < 0)
		goto out;
	for (size_t c = 0; c < r->n_cols; c++) {
		if (r->cols[c].base == c)
			continue;
		for (size_t i = 0; i < r->n_rows; i++)
			sb_rep_compare(r, c, &r->rows[i]);
		if ((ret = sb_rep_correct(r, c)) < 0)
			goto out;
	}
	for (size_t i = 0; i < r->n_lat; i++)
		for (size_t c = 0; c < r->n_cols; c++)
			if ((ret = sb_rep_fill_lat(&r->cols[c], &r->lat[i], &r->lat[i].cells[c],
						   &r->lat[i].pooled[c])) < 0)
				goto out;
	*out = TAKE_PTR(r);
	ret = 0;
out:
	sb_report_free(r);
	return ret;
}

int sb_report_print(struct sb_resultset *rs, const char *format, FILE *f, char **err)
{
	const struct sb_report_format *fmt = sb_report_format_find(format ? format : "text");
	struct sb_report *r = NULL;
	int ret;

	if (!fmt)
		return sb_set_err(err, -EINVAL, "unknown report format '%s'", format);
	ret = sb_report_build(&rs, 1, NULL, &r, err);
	if (ret < 0)
		return ret;
	ret = fmt->emit(r, f);
	sb_report_free(r);
	if (ret == -EINVAL)
		return sb_set_err(err, -EINVAL, "%s format: no results this format can show",
				  fmt->name);
	return ret;
}
