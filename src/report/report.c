/* See report.h: building the comparison table from result sets, the format
 * registry, and the labels and number formatting the formats share. */
#include "report/report.h"
#include "util/escape.h"
#include "util/json-get.h"
#include "util/strutil.h"
#include "util/macro.h"
#include "util/suggest.h"
#include "result/describe.h"

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
	free(r);
}

/* The keys that set how long or how big a test runs, not what it measures:
 * the same test with other values of these is one row. */
static const char *const length_keys[] = {"time",    "ops",   "size",	 "timeout",
					  "perchar", "seeks", "seekers", "ramp"};

/* spec without its length keys: "rand:16k,time=60s,direct=1" is
 * "rand:16k,direct=1". */
static char *test_of(const char *spec)
{
	char *out = malloc(strlen(spec) + 1), *copy = strdup(spec), *save = NULL;
	size_t len = 0;

	if (!out || !copy) {
		free(out);
		free(copy);
		return NULL;
	}
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		size_t k = strcspn(w, "=");
		bool drop = false;
		for (size_t i = 0; len && w[k] && i < ARRAY_SIZE(length_keys); i++)
			drop |= strlen(length_keys[i]) == k && strncmp(w, length_keys[i], k) == 0;
		if (!drop)
			len += (size_t)sprintf(out + len, "%s%s", len ? "," : "", w);
	}
	free(copy);
	out[len] = '\0';
	return out;
}

/* The distinct specs of a report, each with its test, and whether that
 * test stays apart. */
struct spec_list {
	char **specs, **tests;
	bool *apart;
	size_t n;
};

static int spec_list_add(struct spec_list *l, const char *spec)
{
	size_t j;

	for (j = 0; j < l->n && strcmp(l->specs[j], spec) != 0; j++)
		;
	if (j < l->n)
		return 0;
	char **ns = realloc(l->specs, (l->n + 1) * sizeof(*ns));
	char **nt = ns ? realloc(l->tests, (l->n + 1) * sizeof(*nt)) : NULL;
	if (ns)
		l->specs = ns;
	if (nt)
		l->tests = nt;
	if (!ns || !nt || !(l->tests[l->n] = test_of(spec)))
		return -ENOMEM;
	/* a copy: the workloads' own specs may change below */
	if (!(l->specs[l->n] = strdup(spec))) {
		free(l->tests[l->n]);
		return -ENOMEM;
	}
	l->n++;
	return 0;
}

/* a test two specs of one run share stays apart */
static int spec_list_mark_apart(struct spec_list *l, const struct sb_repeat *rep)
{
	for (size_t a = 0; a < rep->n_wl; a++)
		for (size_t b = a + 1; b < rep->n_wl; b++) {
			_cleanup_free_ char *ta = test_of(rep->wl[a]->spec);
			_cleanup_free_ char *tb = test_of(rep->wl[b]->spec);
			if (!ta || !tb)
				return -ENOMEM;
			if (strcmp(ta, tb) != 0)
				continue;
			for (size_t j = 0; j < l->n; j++)
				l->apart[j] |= strcmp(l->tests[j], ta) == 0;
		}
	return 0;
}

/* Gives wl the shortest spec of its test, noting the alias for var. */
static int spec_list_align(struct sb_report *r, const struct spec_list *l,
			   const struct sb_variant *var, struct sb_wl_result *wl)
{
	size_t j, to = l->n, others = 0;

	for (j = 0; j < l->n && strcmp(l->specs[j], wl->spec) != 0; j++)
		;
	if (j == l->n || l->apart[j])
		return 0;
	/* the row: the shortest spec of this test */
	for (size_t m = 0; m < l->n; m++)
		if (strcmp(l->tests[m], l->tests[j]) == 0 && m != j) {
			others++;
			if (to == l->n || strlen(l->specs[m]) < strlen(l->specs[to]))
				to = m;
		}
	if (!others || strlen(l->specs[to]) >= strlen(wl->spec))
		return 0;
	struct sb_report_alias *na = realloc(r->aliases, (r->n_aliases + 1) * sizeof(*na));
	if (!na)
		return -ENOMEM;
	r->aliases = na;
	na = &r->aliases[r->n_aliases];
	*na = (struct sb_report_alias){var, strdup(wl->spec), strdup(l->specs[to])};
	if (!na->from || !na->to) {
		free(na->from);
		free(na->to);
		return -ENOMEM;
	}
	r->n_aliases++;
	free(wl->spec);
	if (!(wl->spec = strdup(na->to)))
		return -ENOMEM;
	return 0;
}

/* Puts workloads of different sets that run the same test with other
 * length keys into one row (their spec becomes the shorter one; the
 * change is kept for the notes). Not when one run holds two specs of one
 * test: those stay apart. */
static int align_specs(struct sb_report *r)
{
	struct spec_list l = {0};
	int ret = 0;

	/* every distinct spec, with its test */
	for (size_t i = 0; i < r->n_sets && !ret; i++)
		for (size_t v = 0; v < r->sets[i]->n_var && !ret; v++)
			for (size_t k = 0; k < r->sets[i]->var[v].n_rep && !ret; k++) {
				const struct sb_repeat *rep = &r->sets[i]->var[v].rep[k];
				for (size_t w = 0; w < rep->n_wl && !ret; w++)
					ret = spec_list_add(&l, rep->wl[w]->spec);
			}
	if (ret || l.n < 2)
		goto out;
	l.apart = calloc(l.n, sizeof(*l.apart));
	if (!l.apart) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < r->n_sets && !ret; i++)
		for (size_t v = 0; v < r->sets[i]->n_var && !ret; v++)
			for (size_t k = 0; k < r->sets[i]->var[v].n_rep && !ret; k++)
				ret = spec_list_mark_apart(&l, &r->sets[i]->var[v].rep[k]);
	for (size_t i = 0; i < r->n_sets && !ret; i++)
		for (size_t v = 0; v < r->sets[i]->n_var && !ret; v++)
			for (size_t k = 0; k < r->sets[i]->var[v].n_rep && !ret; k++) {
				struct sb_repeat *rep = &r->sets[i]->var[v].rep[k];
				for (size_t w = 0; w < rep->n_wl && !ret; w++)
					ret =
					    spec_list_align(r, &l, &r->sets[i]->var[v], rep->wl[w]);
			}
out:
	for (size_t j = 0; j < l.n; j++) {
		free(l.tests[j]);
		free(l.specs[j]);
	}
	free(l.tests);
	free(l.specs);
	free(l.apart);
	return ret;
}

static int add_col(struct sb_report *r, size_t set, const struct sb_variant *v, bool merge)
{
	struct sb_report_col *c = NULL;
	const struct sb_variant **vars;

	/* a stored baseline set is never pooled with the sets it judges */
	if (merge && !(r->baseline_set && set == 0))
		for (size_t i = 0; i < r->n_cols; i++)
			if (strcmp(r->cols[i].variant, v->name) == 0 &&
			    !(r->baseline_set && r->cols[i].set == 0))
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

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted, not pairwise: a report of 4000 imported columns (issue 24). */
static bool labels_unique(const struct sb_report *r, char **labels)
{
	_cleanup_free_ char **s = malloc((r->n_cols ? r->n_cols : 1) * sizeof(*s));
	if (!s)
		return false;
	for (size_t i = 0; i < r->n_cols; i++) {
		if (!labels[i] || !*labels[i] || strlen(labels[i]) > SB_REPORT_LABEL_MAX)
			return false;
		s[i] = labels[i];
	}
	qsort(s, r->n_cols, sizeof(*s), cmp_strp);
	for (size_t i = 1; i < r->n_cols; i++)
		if (strcmp(s[i - 1], s[i]) == 0)
			return false;
	return true;
}

static const char *param(const struct sb_report_col *c, const char *key)
{
	json_object *v;
	json_object *p = c->vars[0]->params;
	if (!p || !json_object_object_get_ex(p, key, &v))
		return NULL;
	return json_object_get_string(v);
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* "write-mostly=hdd write-behind=16383": the params whose values differ
 * between the columns, each key shortened to its last dotted part unless
 * that would make two keys alike. */
static char **differing_labels(const struct sb_report *r)
{
	const char *keys[64];
	size_t n_keys = 0;
	char **out = calloc(r->n_cols, sizeof(*out));

	if (!out)
		return NULL;
	for (size_t c = 0; c < r->n_cols; c++) {
		json_object *p = r->cols[c].vars[0]->params;
		if (!p || !json_object_is_type(p, json_type_object))
			continue;
		json_object_object_foreach(p, key, val)
		{
			(void)val;
			bool differs = false, known = false;
			for (size_t k = 0; k < n_keys; k++)
				known |= strcmp(keys[k], key) == 0;
			for (size_t o = 0; o < r->n_cols && !known; o++)
				differs |=
				    !same_str(param(&r->cols[o], key), param(&r->cols[c], key));
			if (differs && !known && n_keys < ARRAY_SIZE(keys))
				keys[n_keys++] = key;
		}
	}
	for (size_t c = 0; c < r->n_cols; c++) {
		char *s = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&s, &len);
		if (!f)
			continue;
		for (size_t k = 0, first = 1; k < n_keys; k++) {
			const char *v = param(&r->cols[c], keys[k]), *dot = strrchr(keys[k], '.');
			const char *shown = dot ? dot + 1 : keys[k];
			for (size_t o = 0; o < n_keys; o++) {
				const char *od = strrchr(keys[o], '.');
				if (o != k && strcmp(od ? od + 1 : keys[o], shown) == 0)
					shown = keys[k];
			}
			if (!v)
				continue;
			fprintf(f, "%s%s=%s", first ? "" : " ", shown, v);
			first = 0;
		}
		if (fclose(f) == 0)
			out[c] = s;
		else
			free(s);
	}
	return out;
}

static void free_labels(char **l, size_t n)
{
	for (size_t i = 0; l && i < n; i++)
		free(l[i]);
	free(l);
}

/* Short unique labels, never cut: the variant names when short and unique;
 * else the keys that differ; else SET:VARIANT; else letters A, B... with the
 * full names in the legend. */
static int label_cols(struct sb_report *r)
{
	char **cand = calloc(r->n_cols, sizeof(*cand));
	int ret = 0;

	if (!cand)
		return -ENOMEM;
	/* which variant names more than one column has: sorted, not pairwise */
	_cleanup_free_ const char **byname = malloc(r->n_cols * sizeof(*byname));
	if (!byname) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < r->n_cols; i++)
		byname[i] = r->cols[i].variant;
	qsort(byname, r->n_cols, sizeof(*byname), cmp_strp);
	for (size_t i = 0; i < r->n_cols; i++) {
		struct sb_report_col *c = &r->cols[i];
		const char **at =
		    bsearch(&c->variant, byname, r->n_cols, sizeof(*byname), cmp_strp);
		bool same = (at > byname && strcmp(at[-1], c->variant) == 0) ||
			    (at + 1 < byname + r->n_cols && strcmp(at[1], c->variant) == 0);
		if (same)
			c->full = sb_asprintf("%s:%s", r->set_names[c->set], c->variant);
		else
			c->full = strdup(c->variant);
		cand[i] = strdup(c->variant);
		if (!c->full || !cand[i]) {
			ret = -ENOMEM;
			goto out;
		}
	}
	if (!labels_unique(r, cand)) {
		char **d = differing_labels(r);
		if (d && labels_unique(r, d)) {
			free_labels(cand, r->n_cols);
			cand = d;
		} else {
			free_labels(d, r->n_cols);
			for (size_t i = 0; i < r->n_cols; i++) {
				free(cand[i]);
				cand[i] = strdup(r->cols[i].full);
			}
		}
	}
	if (!labels_unique(r, cand))
		for (size_t i = 0; i < r->n_cols; i++) {
			free(cand[i]);
			cand[i] = i < 26 ? sb_asprintf("%c", (char)('A' + i))
					 : sb_asprintf("%c%zu", (char)('A' + i % 26), i / 26);
		}
	for (size_t i = 0; i < r->n_cols; i++) {
		if (!cand[i]) {
			ret = -ENOMEM;
			goto out;
		}
		r->cols[i].label = TAKE_PTR(cand[i]);
		if (strcmp(r->cols[i].label, r->cols[i].full) != 0)
			r->legend_needed = true;
	}
out:
	free_labels(cand, r->n_cols);
	return ret;
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

static int fill_cell(const struct sb_report_col *c, const struct sb_report_row *row,
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

/* The value of a row in one repeat (NaN: none there). */
static double rep_value(const struct sb_repeat *rep, const struct sb_report_row *row)
{
	const struct sb_wl_result *wl = find_wl(rep, row->spec);
	if (row->lat) {
		const struct sb_latency *l = find_lat(wl, row->op);
		return l ? lat_value(l, row->lat) : NAN;
	}
	const struct sb_metric *m = wl ? sb_wl_find_metric(wl, row->metric) : NULL;
	return m && isfinite(m->value) ? m->value : NAN;
}

/* Rounds pair when both columns are one variant each of the same result
 * set, run interleaved (a stored baseline, --merge and --fleet compare sets
 * that did not run together: Welch). The values of the rounds both have,
 * in a and b; the number of pairs. */
static size_t pair_rounds(const struct sb_report *r, size_t bc, size_t c,
			  const struct sb_report_row *row, double *a, double *b)
{
	const struct sb_report_col *B = &r->cols[bc], *C = &r->cols[c];
	size_t n = 0;

	if (r->fleet || r->baseline_set || B->set != C->set || B->n_vars != 1 || C->n_vars != 1)
		return 0;
	for (size_t i = 0; i < B->vars[0]->n_rep; i++)
		for (size_t k = 0; k < C->vars[0]->n_rep; k++) {
			if (C->vars[0]->rep[k].index != B->vars[0]->rep[i].index)
				continue;
			a[n] = rep_value(&B->vars[0]->rep[i], row);
			b[n] = rep_value(&C->vars[0]->rep[k], row);
			n += isfinite(a[n]) && isfinite(b[n]);
			break;
		}
	return n;
}

/* The test of one cell against its baseline; the verdict waits for the
 * correction over the column (decide). */
static void compare(const struct sb_report *r, size_t c, const struct sb_report_row *row)
{
	const struct sb_report_cell *base = &row->cells[r->cols[c].base];
	struct sb_report_cell *cell = &row->cells[c];
	size_t nb = r->cols[r->cols[c].base].n_rep;
	double a[nb ? nb : 1], b[nb ? nb : 1];

	cell->verdict = SB_VERDICT_NA;
	sb_cmp_clear(&cell->cmp);
	cell->welch = cell->cmp;
	cell->mde_welch = NAN;
	if (cell->st.n == 0 || base->st.n == 0)
		return;
	size_t np = pair_rounds(r, r->cols[c].base, c, row, a, b);
	/* paired where every repeat of both sides has its partner */
	sb_cmp_welch(base->values, base->st.n, cell->values, cell->st.n, r->alpha, SB_STATS_POWER,
		     &cell->welch);
	cell->mde_welch = cell->welch.mde;
	if (np >= 2 && np == base->st.n && np == cell->st.n)
		sb_cmp_paired(a, b, np, r->alpha, SB_STATS_POWER, &cell->cmp);
	else
		cell->cmp = cell->welch;
	sb_welch_test(&base->st, &cell->st, &cell->w);
	cell->w.p = cell->cmp.p;
	cell->change = isfinite(cell->cmp.change) ? cell->cmp.change
						  : sb_rel_change(base->st.mean, cell->st.mean);
	cell->change_lo = cell->cmp.lo;
	cell->change_hi = cell->cmp.hi;
	cell->mde_pct = cell->cmp.mde;
	double m = fabs(base->st.mean);
	cell->diff = (struct sb_diff){cell->st.mean - base->st.mean, cell->change_lo * m / 100,
				      cell->change_hi * m / 100, cell->mde_pct * m / 100};
}

static bool testable(const struct sb_report_cell *base, const struct sb_report_cell *cell)
{
	return base->st.n >= SB_STATS_MIN_N && cell->st.n >= SB_STATS_MIN_N &&
	       cell->cmp.n >= SB_STATS_MIN_N && !isnan(cell->w.p);
}

bool sb_report_row_main(const struct sb_report_row *row)
{
	return (row->headline || row->cost) && (row->lat == SB_LAT_NONE || row->headline);
}

static void decide(const struct sb_report *r, const struct sb_report_row *row,
		   const struct sb_report_cell *base, struct sb_report_cell *cell, double alpha_row)
{
	if (cell->verdict == SB_VERDICT_NA && (cell->st.n == 0 || base->st.n == 0))
		return;
	/* The smallest change the row could have marked is the one at the
	 * alpha its correction asks (of 86 main rows, Holm's first step is
	 * alpha / 86): at the unadjusted alpha it named changes the verdict
	 * would never mark. */
	if (isfinite(cell->cmp.se)) {
		cell->mde_pct = sb_cmp_mde(&cell->cmp, alpha_row, SB_STATS_POWER);
		cell->diff.mde = cell->mde_pct * fabs(base->st.mean) / 100;
	}
	if (isfinite(cell->welch.se))
		cell->mde_welch = sb_cmp_mde(&cell->welch, alpha_row, SB_STATS_POWER);
	cell->significant = testable(base, cell) && cell->p_adj < r->alpha;
	if (!cell->significant) {
		/* equal: the whole interval inside +-resolve_pct */
		bool equal = testable(base, cell) && cell->change_lo > -r->resolve_pct &&
			     cell->change_hi < r->resolve_pct;
		cell->verdict = equal ? SB_VERDICT_SAME : SB_VERDICT_UNRESOLVED;
		if (!equal) {
			cell->need = sb_cmp_repeats_needed(&cell->cmp, r->resolve_pct, alpha_row,
							   SB_STATS_POWER);
			/* A change well beyond +-X% (at least 2X) whose interval
			 * is clear of zero, so that only the correction held it
			 * back (a 5x slowdown seen in 3 noisy rounds), is marked
			 * with far fewer repeats than +-X% takes to show: the
			 * fewer of the two, named. An A/A's noisy +40% [-26, +170]
			 * keeps the +-X% figure. The change seen may be an
			 * overestimate; the repeats are a first guess, which
			 * --repeat auto refines. */
			double seen = fabs(log1p(cell->change / 100));
			bool sign_known = cell->change_lo > 0 || cell->change_hi < 0;
			if (sign_known && isfinite(seen) &&
			    seen > log1p(2 * r->resolve_pct / 100)) {
				size_t n = sb_cmp_repeats_needed(&cell->cmp, expm1(seen) * 100,
								 alpha_row, SB_STATS_POWER);
				if (n < cell->need) {
					cell->need = n;
					cell->need_seen = true;
				}
			}
		}
	} else if (row->better == SB_BETTER_NONE)
		cell->verdict = SB_VERDICT_DIFFERENT;
	else if ((cell->change > 0) == (row->better == SB_BETTER_HIGHER))
		cell->verdict = SB_VERDICT_BETTER;
	else
		cell->verdict = SB_VERDICT_WORSE;
}

/* Three families per column, each with its share of alpha (sum 1, so an
 * A/A report is marked anywhere at most alpha of the time): the headline
 * rows and the cost rows, each with the chosen correction, and the others
 * (latency, %CPU) with Benjamini-Hochberg. The 14 headline rows of the
 * quick single-disk profile came with 72 cost rows; in one Holm family the
 * cost rows took 6/7 of the power from the rows a user looks at, as 28
 * latency rows did before. */
enum { FAM_HEADLINE, FAM_COST, FAM_OTHER, FAM_N };
static const double fam_share[FAM_N] = {
    [FAM_HEADLINE] = SB_REPORT_HEADLINE_SHARE,
    [FAM_COST] = SB_REPORT_MAIN_SHARE - SB_REPORT_HEADLINE_SHARE,
    [FAM_OTHER] = 1 - SB_REPORT_MAIN_SHARE,
};

static int row_family(const struct sb_report_row *row)
{
	if (!sb_report_row_main(row))
		return FAM_OTHER;
	return row->headline ? FAM_HEADLINE : FAM_COST;
}

static int correct(struct sb_report *r, size_t c)
{
	double *p = calloc(r->n_rows ? r->n_rows : 1, sizeof(*p));
	double *adj = calloc(r->n_rows ? r->n_rows : 1, sizeof(*adj));
	int ret = 0;

	if (!p || !adj) {
		ret = -ENOMEM;
		goto out;
	}
	/* A main family with no tested row (a run with no cost rows) leaves
	 * its share to the other: the shares are fixed before any p is seen. */
	size_t tested[FAM_N] = {0};
	for (size_t i = 0; i < r->n_rows; i++)
		tested[row_family(&r->rows[i])] +=
		    testable(&r->rows[i].cells[r->cols[c].base], &r->rows[i].cells[c]);
	double shares[FAM_N];
	memcpy(shares, fam_share, sizeof(shares));
	if (!tested[FAM_COST] || !tested[FAM_HEADLINE]) {
		shares[FAM_HEADLINE] = tested[FAM_HEADLINE] ? SB_REPORT_MAIN_SHARE : 0;
		shares[FAM_COST] = tested[FAM_COST] ? SB_REPORT_MAIN_SHARE : 0;
	}
	for (int fam = 0; fam < FAM_N && ret == 0; fam++) {
		size_t m = 0;
		enum sb_correction how = fam != FAM_OTHER || r->correction == SB_CORRECTION_NONE
					     ? r->correction
					     : SB_CORRECTION_BH;
		for (size_t i = 0; i < r->n_rows; i++) {
			const struct sb_report_cell *b = &r->rows[i].cells[r->cols[c].base];
			const struct sb_report_cell *x = &r->rows[i].cells[c];
			bool in = row_family(&r->rows[i]) == fam;
			p[i] = in && testable(b, x) ? x->w.p : NAN;
			m += !isnan(p[i]);
		}
		if (how == SB_CORRECTION_HOLM)
			ret = sb_p_adjust_holm(p, r->n_rows, adj);
		else if (how == SB_CORRECTION_BH)
			ret = sb_p_adjust_bh(p, r->n_rows, adj);
		else
			memcpy(adj, p, r->n_rows * sizeof(*adj));
		if (fam == FAM_HEADLINE && m > r->family_main)
			r->family_main = m;
		/* the repeats estimate at the alpha the correction asks of a row
		 * (Holm's first step; BH's last) */
		double alpha_row =
		    how == SB_CORRECTION_HOLM && m > 1 ? r->alpha / (double)m : r->alpha;
		double share = r->correction == SB_CORRECTION_NONE ? 1 : shares[fam];
		if (!(share > 0))
			share = fam_share[fam]; /* untested rows: p_adj stays NaN */
		alpha_row *= share;
		for (size_t i = 0; ret == 0 && i < r->n_rows; i++) {
			if (row_family(&r->rows[i]) != fam)
				continue;
			r->rows[i].cells[c].p_adj = isnan(adj[i]) ? NAN : fmin(1, adj[i] / share);
			decide(r, &r->rows[i], &r->rows[i].cells[r->cols[c].base],
			       &r->rows[i].cells[c], alpha_row);
		}
	}
out:
	free(p);
	free(adj);
	return ret;
}

/* Percentiles of the merged histograms where every repeat has one; else
 * (version 1 files) the repeats' percentiles averaged. Counts summed,
 * min/max are extremes. */
static int fill_lat(const struct sb_report_col *c, const struct sb_report_latrow *l,
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
		if (r->baseline_set && r->cols[i].set != 0)
			continue;
		if (strcmp(r->cols[i].label, name) == 0 || strcmp(r->cols[i].full, name) == 0) {
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
		return sb_set_err(
		    err, -EINVAL,
		    "baseline '%s' is ambiguous: it is in several result sets; name one "
		    "as SET:VARIANT (e.g. '%s')",
		    name, r->cols[hit].full);
	const char *sug = sb_suggest(name, labels_, r->n_cols);
	if (sug)
		return sb_set_err(err, -EINVAL,
				  "unknown baseline variant '%s' (did you mean '%s'?)", name, sug);
	return sb_set_err(err, -EINVAL, "unknown baseline variant '%s'", name);
}

/* Which column each column is compared with: the baseline; with a stored
 * baseline set, the same-named variant of that set when there is one. */
static void pick_bases(struct sb_report *r, const char *baseline)
{
	/* A fleet: hosts are not repeats of each other, so each variant is
	 * compared with the baseline variant of its own host. */
	if (r->fleet) {
		for (size_t c = 0; c < r->n_cols; c++) {
			size_t first = SIZE_MAX, named = SIZE_MAX;
			for (size_t b = 0; b < r->n_cols; b++) {
				if (r->cols[b].set != r->cols[c].set)
					continue;
				if (first == SIZE_MAX)
					first = b;
				if (baseline && named == SIZE_MAX &&
				    strcmp(r->cols[b].variant, baseline) == 0)
					named = b;
			}
			r->cols[c].base = named != SIZE_MAX ? named : first;
		}
		return;
	}
	for (size_t c = 0; c < r->n_cols; c++) {
		r->cols[c].base = r->baseline;
		if (!r->baseline_set)
			continue;
		if (r->cols[c].set == 0) {
			r->cols[c].base = c;
			continue;
		}
		for (size_t b = 0; b < r->n_cols; b++)
			if (r->cols[b].set == 0 &&
			    strcmp(r->cols[b].variant, r->cols[c].variant) == 0)
				r->cols[c].base = b;
	}
	r->cols[r->baseline].base = r->baseline;
}

/* A set whose rounds `run --repeat auto` chose records, in
 * profile.schedule, the looks it could take (auto: {first, max}) and the
 * rounds it ran: the report takes its verdict at the alpha that last look
 * may spend, the smallest over such sets, so that looking after every
 * round and stopping once rows resolve keeps the false alarms at alpha. */
/* The looks of one set: 0 with *first and *max set, 1 when it has none. */
static int set_looks(const struct sb_resultset *rs, size_t *look, int64_t *first, int64_t *max,
		     char **why)
{
	json_object *sched = NULL, *a = NULL, *rounds = NULL;
	if (!rs->profile ||
	    sb_jm_object(rs->profile, "profile", "schedule", SB_J_OPT, &sched, why) != 0 ||
	    sb_jm_object(sched, "profile.schedule", "auto", SB_J_OPT, &a, why) != 0)
		return *why ? -EINVAL : 1;
	if (sb_jm_int(a, "profile.schedule.auto", "first", SB_J_REQ, 1, 1000, first, why) < 0 ||
	    sb_jm_int(a, "profile.schedule.auto", "max", SB_J_REQ, *first, 1000, max, why) < 0 ||
	    sb_jm_array(sched, "profile.schedule", "rounds", SB_J_REQ, &rounds, why) < 0)
		return -EINVAL;
	*look = json_object_array_length(rounds);
	return 0;
}

static int sequential_alpha(struct sb_report *r, char **err)
{
	r->alpha_nominal = r->alpha;
	for (size_t s = 0; s < r->n_sets; s++) {
		size_t look = 0;
		int64_t first = 0, max = 0;
		char *why = NULL;
		int ret = set_looks(r->sets[s], &look, &first, &max, &why);
		if (ret < 0) {
			ret = sb_set_err(err, -EINVAL, "%s: %s",
					 r->sets[s]->path ? r->sets[s]->path : "result set", why);
			free(why);
			return ret;
		}
		/* a run stopped (failed) before its first look took no look */
		if (ret > 0 || look < (size_t)first)
			continue;
		double spend = sb_alpha_spend(r->alpha_nominal, look, (size_t)first, (size_t)max);
		if (!r->seq_look || spend < r->alpha) {
			r->alpha = spend;
			r->seq_look = look;
			r->seq_first = (size_t)first;
			r->seq_max = (size_t)max;
		}
	}
	return 0;
}

/* Version 1 files carry no labels: the workloads' tables give them,
 * through the describer workload/ registers (result/describe.h). */
static int describe_sets(struct sb_resultset **sets, size_t n_sets)
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

/* Variant-major: one variant's hosts side by side. */
static int sort_cols_by_host(struct sb_report *r)
{
	struct sb_report_col *sorted = malloc(r->n_cols * sizeof(*sorted));
	size_t at = 0;
	if (!sorted)
		return -ENOMEM;
	bool *used = calloc(r->n_cols, sizeof(*used));
	for (size_t c = 0; used && c < r->n_cols; c++) {
		if (used[c])
			continue;
		for (size_t k = c; k < r->n_cols; k++)
			if (!used[k] && strcmp(r->cols[k].variant, r->cols[c].variant) == 0) {
				sorted[at++] = r->cols[k];
				used[k] = true;
			}
	}
	if (used && at == r->n_cols)
		memcpy(r->cols, sorted, at * sizeof(*sorted));
	free(used);
	free(sorted);
	return 0;
}

/* Rows in order of first appearance, so that the report follows the
 * order the workloads ran in; each workload's latency rows after its
 * metrics. */
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

static int add_rows(struct sb_report *r)
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

/* metrics and latency rows of one spec next to each other */
static int group_rows_by_spec(struct sb_report *r)
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
	r->all = o && o->all;
	r->history_html = o ? o->history_html : NULL;
	r->baseline_set = o && o->baseline_set && n_sets > 1;
	r->fleet = o && (o->fleet || o->by_host) && !r->baseline_set;
	ret = describe_sets(sets, n_sets);
	if (ret < 0)
		goto out;
	ret = sequential_alpha(r, err);
	if (ret < 0)
		goto out;
	ret = align_specs(r);
	if (ret < 0)
		goto out;
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
		ret = sb_set_err(err, -EINVAL, "%s: no variants to compare",
				 n_sets == 1 && sets[0]->path ? sets[0]->path : "result sets");
		goto out;
	}
	ret = label_cols(r);
	if (ret < 0)
		goto out;
	if (r->fleet && o && o->by_host) {
		if ((ret = sort_cols_by_host(r)) < 0)
			goto out;
	}
	if (r->fleet && o && o->baseline) {
		/* In a fleet the baseline is a variant name, found in every host. */
		ret = 0;
		r->baseline = 0;
	} else {
		ret = pick_baseline(r, o ? o->baseline : NULL, err);
	}
	if (ret < 0)
		goto out;
	pick_bases(r, o ? o->baseline : NULL);
	if (r->fleet)
		r->baseline = r->cols[0].base;

	if ((ret = add_rows(r)) < 0)
		goto out;
	if ((ret = group_rows_by_spec(r)) < 0)
		goto out;
	for (size_t i = 0; i < r->n_rows; i++)
		for (size_t c = 0; c < r->n_cols; c++)
			if ((ret = fill_cell(&r->cols[c], &r->rows[i], &r->rows[i].cells[c])) < 0)
				goto out;
	for (size_t c = 0; c < r->n_cols; c++) {
		if (r->cols[c].base == c)
			continue;
		for (size_t i = 0; i < r->n_rows; i++)
			compare(r, c, &r->rows[i]);
		if ((ret = correct(r, c)) < 0)
			goto out;
	}
	for (size_t i = 0; i < r->n_lat; i++)
		for (size_t c = 0; c < r->n_cols; c++)
			if ((ret = fill_lat(&r->cols[c], &r->lat[i], &r->lat[i].cells[c],
					    &r->lat[i].pooled[c])) < 0)
				goto out;
	*out = TAKE_PTR(r);
	ret = 0;
out:
	sb_report_free(r);
	return ret;
}

void sb_report_tally(const struct sb_report *r, size_t col, struct sb_report_tally *t)
{
	*t = (struct sb_report_tally){0};
	for (size_t i = 0; i < r->n_rows && r->cols[col].base != col; i++) {
		const struct sb_report_cell *x = &r->rows[i].cells[col];
		t->tested += !isnan(x->p_adj);
		t->marked += x->significant;
		t->unresolved += x->verdict == SB_VERDICT_UNRESOLVED;
	}
}

bool sb_report_cell_fails(const struct sb_report *r, const struct sb_report_row *row, size_t col)
{
	const struct sb_report_cell *x = &row->cells[col];
	return r->cols[col].base != col && sb_report_row_main(row) &&
	       x->verdict == SB_VERDICT_WORSE && isfinite(x->change) &&
	       fabs(x->change) > r->check_pct;
}

bool sb_report_cell_untested(const struct sb_report *r, const struct sb_report_row *row, size_t col)
{
	const struct sb_report_cell *b = &row->cells[r->cols[col].base];
	return r->cols[col].base != col && sb_report_row_main(row) && b->st.n > 0 &&
	       !testable(b, &row->cells[col]);
}

bool sb_report_cell_resolved(const struct sb_report_row *row, size_t col)
{
	enum sb_verdict v = row->cells[col].verdict;
	return v == SB_VERDICT_BETTER || v == SB_VERDICT_WORSE || v == SB_VERDICT_DIFFERENT ||
	       v == SB_VERDICT_SAME;
}

size_t sb_report_failures(const struct sb_report *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n_rows; i++)
		for (size_t c = 0; c < r->n_cols; c++)
			n += sb_report_cell_fails(r, &r->rows[i], c);
	return n;
}

/* "%+.1f" or "-" for a figure that is not defined. */
static const char *pct_str(double v, char *buf, size_t size)
{
	if (isfinite(v))
		snprintf(buf, size, "%+.1f", v);
	else
		snprintf(buf, size, "-");
	return buf;
}

static const char *p_str(double v, char *buf, size_t size)
{
	if (isfinite(v))
		snprintf(buf, size, "%.3g", v);
	else
		snprintf(buf, size, "-");
	return buf;
}

char *sb_report_cell_describe(const struct sb_report *r, const struct sb_report_row *row,
			      size_t col)
{
	const struct sb_report_cell *x = &row->cells[col];
	const struct sb_report_cell *b = &row->cells[r->cols[col].base];
	char m1[32], m2[32], ch[32], lo[32], hi[32], p[32], pa[32];
	return sb_asprintf(
	    "%s: %s: %s %s vs %s %s %s (%s%%, interval %s..%s%%, %s p %s, adjusted "
	    "%s, n %zu vs %zu)",
	    row->spec, row->label, r->cols[col].label,
	    sb_report_fmt_num(x->st.mean, m1, sizeof(m1)), r->cols[r->cols[col].base].label,
	    sb_report_fmt_num(b->st.mean, m2, sizeof(m2)), row->unit,
	    pct_str(x->change, ch, sizeof(ch)), pct_str(x->change_lo, lo, sizeof(lo)),
	    pct_str(x->change_hi, hi, sizeof(hi)), sb_test_name(x->cmp.test),
	    p_str(x->w.p, p, sizeof(p)), p_str(x->p_adj, pa, sizeof(pa)), x->st.n, b->st.n);
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
	    {SB_RES_FRESH, "fresh (non-rotational, no devices.precondition)"},
	};
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if ((flags & names[i].flag) && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
						names[i].name);
	return buf;
}

/* What the labels do not say (workload.c records it): an "hdd" that is a
 * loop device with the rotational flag, a phase whose O_DIRECT got the page
 * cache. Once per workload spec of a column. */
static bool label_notes(FILE *f, const struct sb_wl_result *wl, bool any)
{
	json_object *ds = NULL, *fb = NULL;
	bool emu = false, said = false;
	if (wl->extra && json_object_object_get_ex(wl->extra, "devstat", &ds)) {
		json_object_object_foreach(ds, ph, o)
		{
			json_object *devs = json_object_object_get(o, "devices");
			(void)ph;
			for (size_t i = 0; i < json_object_array_length(devs); i++)
				emu |= json_object_object_get(json_object_array_get_idx(devs, i),
							      "emulated") != NULL;
		}
	}
	if (emu)
		fprintf(
		    f,
		    "%s%s: its hdd is a loop device with the rotational flag set, not a slow disk",
		    any ? "\n" : "", wl->spec);
	said = emu;
	if (wl->extra && json_object_object_get_ex(wl->extra, "direct_fallback_phases", &fb)) {
		json_object_object_foreach(fb, ph, why)
		{
			(void)why;
			fprintf(f, "%s%s: %s: asked for O_DIRECT and got buffered I/O",
				any || said ? "\n" : "", wl->spec, ph);
			said = true;
		}
	}
	return said;
}

char *sb_report_col_notes(const struct sb_report *r, size_t col)
{
	const struct sb_report_col *c = &r->cols[col];
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	bool any = false;

	if (!f)
		return NULL;
	for (size_t v = 0; v < c->n_vars; v++) {
		const struct sb_variant *var = c->vars[v];
		const struct sb_resultset *set = NULL;
		for (size_t k = 0; k < r->n_sets && !set; k++)
			if (var >= r->sets[k]->var && var < r->sets[k]->var + r->sets[k]->n_var)
				set = r->sets[k];
		if (set && strcmp(set->command, "import") == 0) {
			json_object *src = NULL;
			if (var->params)
				json_object_object_get_ex(var->params, "source", &src);
			fprintf(f,
				"%simported from %s: one figure each (n = %zu), no interval and "
				"no test",
				any ? "\n" : "", src ? json_object_get_string(src) : set->path,
				var->n_rep);
			any = true;
		}
		for (size_t a = 0; a < r->n_aliases; a++) {
			bool seen = false;
			if (r->aliases[a].var != var)
				continue;
			for (size_t b = 0; b < a && !seen; b++)
				seen = r->aliases[b].var == var &&
				       strcmp(r->aliases[b].from, r->aliases[a].from) == 0;
			if (seen)
				continue;
			fprintf(f, "%sran %s, shown in the rows of %s (the same test; ",
				any ? "\n" : "", r->aliases[a].from, r->aliases[a].to);
			for (size_t i = 0; i < ARRAY_SIZE(length_keys); i++)
				fprintf(f, "%s%s", i ? ", " : "", length_keys[i]);
			fputs(" set only its length)", f);
			any = true;
		}
		for (size_t w = 0; var->n_rep && w < var->rep[0].n_wl; w++)
			any |= label_notes(f, var->rep[0].wl[w], any);
		for (size_t k = 0; k < var->n_rep; k++)
			for (size_t w = 0; w < var->rep[k].n_wl; w++) {
				const struct sb_wl_result *wl = var->rep[k].wl[w];
				if (!wl->error)
					continue;
				fprintf(f, "%s%s: %s", any ? "\n" : "", wl->spec, wl->error);
				if (var->n_rep > 1)
					fprintf(f, " (repeat %zu)", k + 1);
				any = true;
			}
	}
	if (fclose(f) != 0 || !any) {
		free(s);
		return NULL;
	}
	return s;
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
