/* `stackbench report`: read result sets, build the comparison table, and
 * print it in the format asked for. Every input is read and checked before
 * anything is printed, so a bad file never leaves half a report. */
#include "cmd.h"
#include "history/history.h"
#include "report/report.h"
#include "util/log.h"
#include "util/opt.h"
#include "util/suggest.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
	OPT_FORMAT = 'f',
	OPT_BASELINE = 'b',
	OPT_MERGE = 'm',
	OPT_CORRECTION = 256,
	OPT_ALPHA,
	OPT_ROUND_FLOOR,
	OPT_RESOLVE,
	OPT_CHECK,
	OPT_THRESHOLD,
	OPT_BASELINE_SET,
	OPT_FLEET,
	OPT_BY,
	OPT_REQUIRE_RESOLVED,
	OPT_ALL,
	OPT_WIDTH,
};

/* --require-resolved: nothing worse, but a headline row is not resolved. */
#define SB_EXIT_UNRESOLVED 4

struct report_args {
	const struct sb_report_format *fmt;
	struct sb_report_opts opts;
	bool check, require_resolved;
	const char *baseline_set;
	struct sb_history_report hist; /* --history N, --any-host, --db */
};

/* A number in (lo, hi]. */
static int parse_num(const char *opt, const char *arg, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (end == arg || *end || errno || !isfinite(v) || !(v > lo) || v > hi)
		return sb_usage_error("report", "--%s '%s': expected a number above %g, at most %g",
				      opt, arg, lo, hi);
	*out = v;
	return 0;
}

/* A text width: a whole number of columns, SB_REPORT_WIDTH_MIN to 10000;
 * -1 for anything else. */
static int width_num(const char *s)
{
	char *end;
	errno = 0;
	long v = s ? strtol(s, &end, 10) : 0;
	if (!s || end == s || *end || errno || v < SB_REPORT_WIDTH_MIN || v > 10000)
		return -1;
	return (int)v;
}

static int on_opt(int key, const char *arg, void *ud)
{
	struct report_args *a = ud;
	int ret;
	if (sb_history_report_opt(&a->hist, key, arg, &ret))
		return ret;
	switch (key) {
	case OPT_FORMAT: {
		const char *names[16];
		size_t n = 0;
		a->fmt = sb_report_format_find(arg);
		if (a->fmt)
			return 0;
		for (; n < 16 && sb_report_formats[n]; n++)
			names[n] = sb_report_formats[n]->name;
		const char *sug = sb_suggest(arg, names, n);
		if (sug)
			return sb_usage_error("report", "unknown format '%s' (did you mean '%s'?)",
					      arg, sug);
		return sb_usage_error(
		    "report", "unknown format '%s': expected text, csv, json, html or bonnie", arg);
	}
	case OPT_BASELINE:
		a->opts.baseline = arg;
		return 0;
	case OPT_MERGE:
		a->opts.merge = true;
		return 0;
	case OPT_CORRECTION:
		if (sb_correction_from_name(arg, &a->opts.correction) < 0)
			return sb_usage_error("report",
					      "--correction '%s': expected holm, bh or none", arg);
		return 0;
	case OPT_ALPHA:
		return parse_num("alpha", arg, 0, 0.5, &a->opts.alpha);
	case OPT_RESOLVE:
		return parse_num("resolve", arg, 0, 1000, &a->opts.resolve_pct);
	case OPT_ROUND_FLOOR:
		return parse_num("round-floor", arg, 0, 1000, &a->opts.round_floor_pct);
	case OPT_THRESHOLD:
		if (strcmp(arg, "0") == 0) {
			a->opts.check_pct = 1e-9; /* any significant regression */
			return 0;
		}
		return parse_num("threshold", arg, 0, 1000, &a->opts.check_pct);
	case OPT_CHECK:
		a->check = true;
		return 0;
	case OPT_REQUIRE_RESOLVED:
		a->require_resolved = a->check = true;
		return 0;
	case OPT_ALL:
		a->opts.all = true;
		return 0;
	case OPT_WIDTH:
		if (width_num(arg) < 0)
			return sb_usage_error("report",
					      "--width '%s': expected a number of columns "
					      "from %d to 10000",
					      arg, SB_REPORT_WIDTH_MIN);
		a->opts.width = (unsigned)width_num(arg);
		return 0;
	case OPT_BASELINE_SET:
		a->baseline_set = arg;
		a->opts.baseline_set = true;
		return 0;
	case OPT_FLEET:
		a->opts.fleet = true;
		return 0;
	case OPT_BY:
		if (strcmp(arg, "host") == 0) {
			a->opts.by_host = true;
			a->opts.fleet = true;
			return 0;
		}
		if (strcmp(arg, "variant") == 0) {
			a->opts.fleet = true;
			return 0;
		}
		sb_error("report: --by: expected host or variant, got '%s'", arg);
		return 2;
	}
	return 2;
}

/* Baseline columns that no column is compared with (a stored baseline's
 * variant the candidate does not have; a set of one variant). */
static size_t unmatched_baselines(const struct sb_report *r)
{
	size_t n = 0;
	for (size_t b = 0; b < r->n_cols; b++) {
		bool judged = false, is_base = r->cols[b].base == b;
		for (size_t c = 0; c < r->n_cols; c++)
			judged |= c != b && r->cols[c].base == b;
		if (!is_base || judged || (r->baseline_set && r->cols[b].set != 0))
			continue;
		fprintf(stderr,
			"stackbench: check: untested: baseline %s: no variant is compared "
			"with it\n",
			r->cols[b].label);
		n++;
	}
	return n;
}

static size_t print_unresolved(const struct sb_report *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n_rows; i++)
		for (size_t c = 0; c < r->n_cols; c++) {
			const struct sb_report_row *row = &r->rows[i];
			char need[48];
			if (r->cols[c].base == c || !row->headline ||
			    sb_report_cell_resolved(row, c))
				continue;
			char what[48], ch[96];
			sb_report_need_str(&row->cells[c], need, sizeof(need));
			fprintf(stderr,
				"stackbench: check: not resolved: %s: %s: %s (%s, %s): %s would "
				"resolve %s\n",
				row->spec, row->label, r->cols[c].label,
				sb_report_change_str(&row->cells[c], ch, sizeof(ch)),
				sb_test_name(row->cells[c].cmp.test), need,
				sb_report_need_what(r, &row->cells[c], "+-", what, sizeof(what)));
			n++;
		}
	return n;
}

/* --check: exit 1 for a headline row significantly worse beyond the
 * threshold, and for one the candidate gives nothing to test against
 * (silence must not pass); --require-resolved: 4 for one not resolved. */
/* Integrity errors after a run (md mismatch_cnt, scrub, data read back) in
 * any column: data not as written fails the gate whatever the figures say. */
static size_t integrity_failures(const struct sb_report *rep)
{
	size_t n = 0;

	for (size_t c = 0; c < rep->n_cols; c++) {
		struct sb_report_scen s;
		sb_report_scen_sum(&rep->cols[c], &s);
		if (!s.errors)
			continue;
		fprintf(stderr, "stackbench: check: integrity: %s: %lld error(s) after the run\n",
			rep->cols[c].label, (long long)s.errors);
		n++;
	}
	return n;
}

static int check_gate(const struct sb_report *rep, bool require_resolved)
{
	size_t bad = sb_report_failures(rep), untested = unmatched_baselines(rep);
	size_t broken = integrity_failures(rep);
	char why[160];

	for (size_t i = 0; i < rep->n_rows; i++)
		for (size_t c = 0; c < rep->n_cols; c++) {
			const struct sb_report_row *row = &rep->rows[i];
			if (row->headline && sb_report_cell_untested(rep, row, c)) {
				fprintf(stderr, "stackbench: check: untested: %s: %s: %s: %s\n",
					row->spec, row->label, rep->cols[c].label,
					sb_report_untested_why(rep, row, c, why, sizeof(why)));
				untested++;
			}
			if (!sb_report_cell_fails(rep, row, c))
				continue;
			char *d = sb_report_cell_describe(rep, row, c);
			fprintf(stderr, "stackbench: check: worse: %s\n", d ? d : "?");
			free(d);
		}
	if (bad)
		fprintf(stderr,
			"stackbench: check: %zu headline figure%s significantly worse than the "
			"baseline by more than %g%%\n",
			bad, bad > 1 ? "s" : "", rep->check_pct);
	if (untested)
		fprintf(stderr,
			"stackbench: check: %zu headline figure%s of the baseline not tested: the "
			"gate fails closed\n",
			untested, untested > 1 ? "s" : "");
	if (broken)
		fprintf(stderr,
			"stackbench: check: %zu variant%s with integrity errors: the gate fails\n",
			broken, broken > 1 ? "s" : "");
	if (bad || untested || broken)
		return SB_EXIT_FAILED;
	fprintf(stderr,
		"stackbench: check: no headline figure significantly worse than the baseline by "
		"more than %g%%\n",
		rep->check_pct);
	if (!require_resolved)
		return SB_EXIT_OK;
	size_t unres = print_unresolved(rep);
	if (!unres)
		return SB_EXIT_OK;
	fprintf(stderr,
		"stackbench: check: %zu headline figure%s not resolved (--require-resolved)\n",
		unres, unres > 1 ? "s" : "");
	return SB_EXIT_UNRESOLVED;
}

/* The --help text of --format, from the registry itself. */
static void format_help_fill(char *buf, size_t size)
{
	size_t len = (size_t)snprintf(buf, size, "output format (default text):");
	for (size_t i = 0; sb_report_formats[i] && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "\n%32s%-7s %s", "",
					sb_report_formats[i]->name, sb_report_formats[i]->help);
}

/* Every result set, read and checked before anything is printed: the
 * history's baseline (--history N), --baseline-set, then the arguments.
 * *sets (allocated even on failure, for the caller to free) holds *n_sets
 * of them. 0, or the exit code after reporting. */
static int read_sets(struct report_args *a, char **rest, int n, struct sb_resultset ***sets,
		     size_t *n_sets)
{
	struct sb_resultset **s = calloc((size_t)n + 1, sizeof(*s));
	char *err = NULL;
	int r, code;

	*sets = s;
	if (!s)
		return sb_error_errno(-ENOMEM, "report"), SB_EXIT_FAILED;
	/* --history N: the baseline set comes from the history database. */
	if (a->hist.n && (a->baseline_set || n != 1))
		return sb_usage_error("report", "--history takes one result set and no "
						"--baseline-set");
	if (a->hist.n) {
		code = sb_history_baseline(&a->hist, rest[0], &s[*n_sets]);
		if (code)
			return code;
		(*n_sets)++;
		a->opts.baseline_set = true;
	}
	/* --fleet without RESULTS: each host's latest run in the database. */
	if (n == 0 && (code = sb_history_fleet(&a->hist, sets, n_sets)))
		return code;
	s = *sets;
	a->opts.history_html = a->hist.html;
	for (int i = a->baseline_set ? -1 : 0; i < n; i++) {
		const char *path = i < 0 ? a->baseline_set : rest[i];
		r = sb_report_read_set(path, &s[*n_sets], &err);
		if (r < 0) {
			if (err)
				sb_error("%s", err);
			else
				sb_error_errno(r, "%s", path);
			free(err);
			return r == -ENOMEM ? SB_EXIT_FAILED : SB_EXIT_USAGE;
		}
		(*n_sets)++;
	}
	return SB_EXIT_OK;
}

/* The report on stdout in its format, checked to have reached it. */
static int emit(const struct sb_report_format *fmt, const struct sb_report *rep)
{
	int r = fmt->emit(rep, stdout);

	if (r == -EINVAL) {
		/* A format that cannot show these results (bonnie without seq or meta). */
		sb_error("report: %s format: %s", fmt->name,
			 "no seq or meta workload results to write as bonnie++ CSV");
		return SB_EXIT_USAGE;
	}
	if (r < 0) {
		sb_error_errno(r, "report: %s format", fmt->name);
		return SB_EXIT_FAILED;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		sb_error_errno(-EIO, "report: stdout");
		return SB_EXIT_FAILED;
	}
	return SB_EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
	static char format_help[1024];
	static const struct sb_opt opts_tmpl[] = {
	    {"format", OPT_FORMAT, "FORMAT", format_help},
	    {"baseline", OPT_BASELINE, "VARIANT",
	     "compare against this variant (SET:VARIANT when ambiguous; default: the first)"},
	    {"merge", OPT_MERGE, NULL,
	     "pool same-named variants of different result sets as more repeats"},
	    {"baseline-set", OPT_BASELINE_SET, "DIR",
	     "a stored result set as the baseline: each variant is compared with its namesake "
	     "there (else with its first variant, or --baseline)"},
	    {"fleet", OPT_FLEET, NULL,
	     "one result set per host (results/HOST/): compare each variant with the "
	     "baseline of its own host, never across hosts, and add a fleet summary; without "
	     "RESULTS, each host's latest run in the history database"},
	    {"by", OPT_BY, "host|variant",
	     "with a fleet: 'host' puts one variant's hosts side by side (variant "
	     "columns otherwise)"},
	    {"correction", OPT_CORRECTION, "METHOD",
	     "holm (default: family-wise error), bh (false discovery rate) or none, over the "
	     "rows of each comparison"},
	    {"alpha", OPT_ALPHA, "P", "significance level (default 0.05)"},
	    {"equal", OPT_RESOLVE, "PCT",
	     "call an unmarked row equal when its whole interval lies within +-PCT% (default "
	     "5), else 'not resolved', with the repeats that would resolve it"},
	    {"resolve", OPT_RESOLVE, "PCT", "the same as --equal"},
	    {"round-floor", OPT_ROUND_FLOOR, "PCT",
	     "side by side: one round's effect varies by at least PCT% (SD) on this host, as "
	     "its A/A calibration measured (bench/aa-calibration.py prints it); with few "
	     "rounds, no interval is narrower"},
	    {"all", OPT_ALL, NULL,
	     "tables show every row (latency, %CPU), not only the headline and cost rows"},
	    {"width", OPT_WIDTH, "N",
	     "the text report fits N columns (at least 60; default: COLUMNS when set, else "
	     "120): variant columns in blocks, long lines folded"},
	    {"check", OPT_CHECK, NULL,
	     "exit 1 when a headline metric of any variant is significantly worse than its "
	     "baseline by more than the threshold; print those rows on stderr"},
	    {"threshold", OPT_THRESHOLD, "PCT", "--check's threshold in percent (default 5)"},
	    SB_HISTORY_REPORT_OPTS,
	    {"require-resolved", OPT_REQUIRE_RESOLVED, NULL,
	     "with --check: exit 4 when nothing is worse but a headline row is not resolved, "
	     "naming the rows and the repeats they need"},
	    {0},
	};
	struct report_args a = {.fmt = &sb_report_text};
	struct sb_cmdline cl = {
	    "report",
	    "[--format FORMAT] [--baseline VARIANT] [--baseline-set DIR] [--all] [--check "
	    "[--threshold PCT] [--require-resolved]] RESULTS...",
	    "Compare result sets (result.json files or directories holding one): "
	    "a verdict per variant,\nthen one row per metric, one column per variant, with "
	    "95% intervals: rounds of one\nrun paired (log ratios), other sets by Welch's t "
	    "on logarithms.",
	    opts_tmpl,
	    on_opt,
	    &a};
	struct sb_resultset **sets = NULL;
	struct sb_report *rep = NULL;
	char **rest, *err = NULL;
	int n, r, code;
	size_t n_sets = 0;

	format_help_fill(format_help, sizeof(format_help));
	r = sb_opt_parse(&cl, argc, argv, &rest, &n);
	if (r)
		return r < 0 ? 0 : r;
	if (n < 1 && !a.opts.fleet)
		return sb_usage_error("report", "expected at least one result set");
	/* a terminal's width, where the shell exports it */
	if (!a.opts.width && width_num(getenv("COLUMNS")) > 0)
		a.opts.width = (unsigned)width_num(getenv("COLUMNS"));
	setlocale(LC_CTYPE, "");

	code = read_sets(&a, rest, n, &sets, &n_sets);
	if (code == SB_EXIT_OK && (r = sb_report_build(sets, n_sets, &a.opts, &rep, &err)) < 0) {
		if (err)
			sb_error("report: %s", err);
		else
			sb_error_errno(r, "report");
		code = r == -EINVAL ? SB_EXIT_USAGE : SB_EXIT_FAILED;
	}
	if (code == SB_EXIT_OK)
		code = emit(a.fmt, rep);
	if (code == SB_EXIT_OK && a.check)
		code = check_gate(rep, a.require_resolved);
	free(err);
	free(a.hist.html);
	sb_report_free(rep);
	for (size_t i = 0; i < n_sets; i++)
		sb_resultset_free(sets[i]);
	free(sets);
	return code;
}
