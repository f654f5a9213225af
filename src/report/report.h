/* The comparison table behind every report format: one row per (workload,
 * metric), one column per variant, each cell a summary over the repeats with
 * its change against the baseline column. Formats (one file each) turn it
 * into text, CSV, JSON, HTML or bonnie++ CSV through one ops struct. */
#pragma once

#include "result/crossover.h"
#include "result/result.h"
#include "result/stats.h"

#include <stdbool.h>
#include <stdio.h>

/* How a cell compares with the baseline column. */
enum sb_verdict {
	SB_VERDICT_BASELINE = 0, /* this is the baseline */
	SB_VERDICT_NA,		 /* one side has no value */
	SB_VERDICT_SAME,	 /* no significant difference */
	SB_VERDICT_BETTER,	 /* significant, in the metric's better direction */
	SB_VERDICT_WORSE,	 /* significant, the other way */
	SB_VERDICT_DIFFERENT,	 /* significant, metric without a better direction */
	SB_VERDICT_UNRESOLVED,	 /* not significant, and the run could not have seen a
				    change of resolve_pct (or too few repeats to test) */
};

/* How the p-values of one comparison (one column against its baseline,
 * every row of it) are adjusted for testing many rows at once. */
enum sb_correction {
	SB_CORRECTION_HOLM = 0, /* Holm-Bonferroni: family-wise error <= alpha */
	SB_CORRECTION_BH,	/* Benjamini-Hochberg: false discovery rate <= alpha */
	SB_CORRECTION_NONE,	/* each row at alpha on its own */
};
const char *sb_correction_name(enum sb_correction c);
int sb_correction_from_name(const char *s, enum sb_correction *out);

/* A row without a mark is "not resolved" when the smallest change it could
 * have detected is larger than this, in percent of the baseline. */
#define SB_REPORT_RESOLVE_PCT 5.0
/* --check: a headline row fails when significantly worse by more than this. */
#define SB_REPORT_CHECK_PCT 5.0
/* A column label longer than this becomes a letter with a legend. */
#define SB_REPORT_LABEL_MAX 40
/* The text report fits this many columns unless told (report --width,
 * COLUMNS), and never fewer than SB_REPORT_WIDTH_MIN. */
#define SB_REPORT_WIDTH 120
#define SB_REPORT_WIDTH_MIN 60

/* One variant column; with --merge it pools same-named variants of several sets. */
struct sb_report_col {
	char *label; /* unique and short: the variant name, the keys that differ
			("write-mostly=hdd write-behind=16383"), "set:variant",
			or a letter (A, B...) explained in the legend */
	char *full;  /* what it stands for, in full: "set:variant" */
	const char *variant;
	size_t base; /* the column it is compared with (itself for a baseline) */
	size_t set;  /* index of the (first) result set it comes from */
	const struct sb_variant **vars;
	size_t n_vars;
	size_t n_rep; /* repeats over all pooled variants */
};

struct sb_report_cell {
	double *values; /* one per repeat that produced the metric */
	struct sb_stats st;
	double change; /* percent against the baseline mean; NaN when not defined */
	struct sb_welch w;
	double p_adj;	     /* w.p adjusted over the comparison (NaN: not tested) */
	struct sb_diff diff; /* interval of the difference, smallest detectable change */
	struct sb_cmp cmp;   /* the test used (paired rounds or Welch, on logarithms),
				whose change, interval and mde the fields below carry */
	struct sb_cmp welch; /* Welch's t on the logarithms for the same cells (what
				sets that did not run together would get) */
	double mde_welch;    /* its smallest detectable change, percent, at the same
				alpha as mde_pct */
	size_t need;	     /* unresolved: the repeats that would resolve +-resolve_pct
				(SB_CMP_N_MAX + 1: more than that; 0: not estimated),
				or the change seen when that takes fewer (need_seen) */
	bool need_seen;
	double change_lo, change_hi; /* the interval in percent of the baseline mean */
	double mde_pct;	  /* the smallest change the row could have marked: at 80% power and
			     the alpha the correction asks of one row (Holm's first step),
			     not the unadjusted alpha of the interval */
	double pooled;	  /* latency rows: the percentile of the merged histograms (NaN: none) */
	bool significant; /* p_adj < alpha with at least SB_STATS_MIN_N repeats a side */
	enum sb_verdict verdict;
	unsigned flags; /* union of the SB_RES_* flags of the contributing repeats */
};

enum sb_lat_stat { SB_LAT_NONE = 0, SB_LAT_P50, SB_LAT_P99, SB_LAT_P999, SB_LAT_MAX };

struct sb_report_row {
	char *spec; /* the workload spec, as run: "rand:16k,direct=1" */
	char *workload;
	char *metric; /* latency rows: "latency:OP:p99" */
	char *label;  /* from result.json (or the workload's table for version 1) */
	char *unit;
	enum sb_better better;
	bool headline;
	bool cost; /* a cost row (write amplification, CPU per op): judged with the headline */
	char *op;  /* latency rows: the operation */
	enum sb_lat_stat lat;	      /* latency rows: which percentile; NONE for a metric */
	struct sb_report_cell *cells; /* n_cols */
};

/* Latency percentiles of one operation over a column's repeats: of the
 * merged histograms (pooled = true), or for version 1 files averaged. */
struct sb_report_latrow {
	char *spec;
	char *op;
	struct sb_latency *cells; /* n_cols; count == 0 where the column has none */
	bool *pooled;		  /* n_cols */
};

struct sb_report {
	struct sb_resultset **sets;
	size_t n_sets;
	char **set_names;
	struct sb_report_col *cols;
	size_t n_cols;
	size_t baseline;
	struct sb_report_row *rows;
	size_t n_rows;
	struct sb_report_latrow *lat;
	size_t n_lat;
	enum sb_correction correction;
	double alpha, resolve_pct, check_pct;
	double round_floor_pct; /* report --round-floor (0: none): floors side by side's
				   round component (result/crossover.h) */
	/* A set whose rounds `run --repeat auto` chose: its last look (the
	 * rounds it ran) of at most seq_max; alpha is then what that look may
	 * spend of alpha_nominal (sb_alpha_spend). seq_look 0: no such set. */
	double alpha_nominal;
	size_t seq_look, seq_first, seq_max;
	size_t
	    family_main; /* largest size of a column's headline family (for the repeats estimate) */
	bool all;	 /* the text and HTML tables show every row (report --all) */
	unsigned width;	 /* the text report's lines fit this many columns (blocks of
			    variant columns, folded lines) */
	bool baseline_set;	  /* sets[0] is a stored baseline: columns compare with its
				     same-named variant */
	bool legend_needed;	  /* some label is not the full name */
	bool fleet;		  /* columns compared within their own set (host) */
	const char *history_html; /* --history's trend charts for the HTML report, or NULL */
	/* Workloads shown in another spec's row: the same test, its length keys
	 * aside (a published "rand:16k" beside "rand:16k,time=60s"). */
	struct sb_report_alias {
		const struct sb_variant *var;
		char *from, *to;
	} * aliases;
	size_t n_aliases;
	struct sb_report_side *side; /* the sets that ran side by side (report_side.c) */
	size_t n_side;
};
/* --fleet: per headline row and variant, the change on each host and how
 * many hosts agree (fleet.c). */
void sb_report_fleet_summary(const struct sb_report *r, FILE *f);
/* The same as one chart per headline metric and variant, a bar per host. */
void sb_report_fleet_html(const struct sb_report *r, FILE *f);

struct sb_report_opts {
	const char *baseline; /* column label or variant name; NULL: the first column */
	bool merge;	      /* pool same-named variants of different sets as repeats */
	bool baseline_set;    /* sets[0] is the baseline set (--baseline-set) */
	bool fleet;	      /* --fleet: each set (a host) compared within itself */
	bool by_host;	      /* --by host: columns by variant, hosts side by side */
	enum sb_correction correction;
	double alpha;		  /* 0: SB_STATS_ALPHA */
	double round_floor_pct;	  /* side by side: the SD of one round's effect that the
				     host's A/A calibration measured, in percent (0: none) */
	double resolve_pct;	  /* 0: SB_REPORT_RESOLVE_PCT */
	double check_pct;	  /* 0: SB_REPORT_CHECK_PCT */
	bool all;		  /* --all: latency and %CPU rows in the tables too */
	unsigned width;		  /* text: columns to fit (0: SB_REPORT_WIDTH) */
	const char *history_html; /* --history: the trend charts (an HTML fragment, borrowed) */
};

/* The verdict's rows: headline and cost rows (the main rows), at
 * SB_REPORT_MAIN_SHARE of alpha, in two families each with the chosen
 * correction (Holm by default): the headline rows at
 * SB_REPORT_HEADLINE_SHARE, the cost rows at the difference, so that six
 * cost rows a phase do not take the power from the headline. Every other
 * row (latency, %CPU) is a third family (Benjamini-Hochberg) at the rest,
 * so that an A/A report is marked anywhere at most alpha of the time.
 * p_adj is scaled so that p_adj < alpha marks. */
#define SB_REPORT_MAIN_SHARE 0.8
#define SB_REPORT_HEADLINE_SHARE 0.6
bool sb_report_row_main(const struct sb_report_row *row);
/* Whether the cell of a main row is untested against a baseline that has
 * the figure: too few repeats, the metric or workload missing, nothing
 * that pairs, values not finite (the gate fails closed on it). */
bool sb_report_cell_untested(const struct sb_report *r, const struct sb_report_row *row,
			     size_t col);
/* Whether a main row's cell is resolved: marked, or equal within
 * +-resolve_pct (its interval inside). */
bool sb_report_cell_resolved(const struct sb_report_row *row, size_t col);
/* --check: whether the cell of a headline row is significantly worse than
 * its baseline (after the correction) by more than r->check_pct. */
bool sb_report_cell_fails(const struct sb_report *r, const struct sb_report_row *row, size_t col);
/* The number of failing cells over the table. */
size_t sb_report_failures(const struct sb_report *r);
/* One line describing a failing (or any) cell, for --check and JUnit:
 * "seq: Sequential Output Block: xfs 101000 vs ext4 111000 KB/s (-9.0%,
 * interval -12.1..-5.9%, p 0.0003 adjusted 0.002)". Allocated. */
char *sb_report_cell_describe(const struct sb_report *r, const struct sb_report_row *row,
			      size_t col);

/* Builds the table over the sets (borrowed: they must outlive the report).
 * Returns 0, -EINVAL with *err set (unknown or ambiguous baseline, no
 * variants), or -ENOMEM. */
int sb_report_build(struct sb_resultset **sets, size_t n_sets, const struct sb_report_opts *o,
		    struct sb_report **out, char **err);
void sb_report_free(struct sb_report *r);
/* One result set, first variant as baseline, in a format ("text" when
 * NULL): what `run` prints at its end. Returns 0 or -errno (*err set for
 * -EINVAL). */
int sb_report_print(struct sb_resultset *rs, const char *format, FILE *f, char **err);

/* Reads a result set for `report` (src/report/import.c): a result.json (or
 * a directory holding one), a file of bonnie++ CSV lines (1.03, 1.9x, 1.98;
 * a variant per line, named after its machine field) or fio's JSON output
 * (a variant named after the file). Imported sets have command "import" and
 * one repeat per variant. Same contract as sb_resultset_read. */
int sb_report_read_set(const char *path, struct sb_resultset **out, char **err);
/* The parsers behind it, pure functions of the text (name is for messages
 * and the set's path). 0, -EINVAL with *err set, or -ENOMEM. */
int sb_import_bonnie_csv(const char *text, size_t size, const char *name, struct sb_resultset **out,
			 char **err);
int sb_import_fio_json(const char *text, size_t size, const char *name, struct sb_resultset **out,
		       char **err);

/* A short name for a result set, from its path: the directory holding
 * result.json, or the file name without ".json". */
char *sb_report_set_name(const char *path);
/* Counts of one column's comparison: rows tested, marked, not resolved. */
struct sb_report_tally {
	size_t tested, marked, unresolved;
};
void sb_report_tally(const struct sb_report *r, size_t col, struct sb_report_tally *t);
/* Marker after a cell's change: "*" significantly better (or different,
 * when the metric has no better direction), "!" significantly worse, "". */
const char *sb_verdict_marker(enum sb_verdict v);
const char *sb_verdict_name(enum sb_verdict v);
/* Readable number: about four significant digits, no exponent for
 * ordinary magnitudes. */
char *sb_report_fmt_num(double v, char *buf, size_t size);
/* The text cell "mean ±ci (+change%)*" (pm: "±", or "+-" where the
 * terminal is not UTF-8); "-" when the cell has no values. */
char *sb_report_fmt_cell(const struct sb_report *r, size_t col, const struct sb_report_cell *c,
			 const char *pm, char *buf, size_t size);
/* "±" when the locale's character set is UTF-8, else "+-". */
const char *sb_report_pm(void);
/* A unit as the locale can show it: where the character set is not UTF-8,
 * a leading "µ" (the metric tables' micro, "µs/op") becomes "u", so that
 * the tool's own units print as "us/op" rather than escaped bytes; any
 * other byte is left to the escaper. unit itself, or buf. */
const char *sb_report_unit(const char *unit, char *buf, size_t size);
/* Unique workload specs, in row order (for per-workload sections). */
size_t sb_report_specs(const struct sb_report *r, const char **specs, size_t max);

/* "quick, cache-affected" from SB_RES_* flags; "" when none. */
char *sb_report_flags_str(unsigned flags, char *buf, size_t size);
/* The notes on a column that a reader must see beside its figures: that it
 * was imported from another tool (n = 1, no statistics), and the errors its
 * workloads recorded (why a result is incomplete, bonnie++'s +++++). One
 * note per line, "\n"-joined, without the column label; NULL when none
 * (and when out of memory). */
char *sb_report_col_notes(const struct sb_report *r, size_t col);
/* The flags of every repeat of a column's workload spec, ORed. */
unsigned sb_report_col_flags(const struct sb_report *r, size_t col, const char *spec);

struct sb_report_format {
	const char *name;
	const char *help;
	int (*emit)(const struct sb_report *r, FILE *f); /* 0 or -errno */
};

extern const struct sb_report_format sb_report_text, sb_report_csv, sb_report_json, sb_report_html,
    sb_report_bonnie, sb_report_junit, sb_report_fsopbench;
/* The registry, in the order --help lists them; NULL-terminated. */
extern const struct sb_report_format *const sb_report_formats[];
const struct sb_report_format *sb_report_format_find(const char *name);
/* One mixed result in FsOpBench's layout (fmt_fsopbench.c), under a title. */
void sb_fsopbench_print(FILE *f, const char *title, const struct sb_wl_result *w);

/* The legend printed under text tables and in HTML, lines joined by "\n"
 * (allocated; NULL when out of memory): the marks, the test, the
 * correction, and what each short column label stands for. */
char *sb_report_legend(const struct sb_report *r, const char *pm);

/* The verdict of one column against its baseline (verdict.c): the main
 * rows (headline and cost) sorted into resolved changes (largest first),
 * rows equal within +-resolve_pct, and rows not resolved, with the
 * repeats each would need. Row indexes into r->rows. */
struct sb_report_verdict {
	size_t col;
	size_t *changed, n_changed;
	size_t *equal, n_equal;
	size_t *unresolved, n_unresolved;
	size_t *untested, n_untested; /* the baseline has the figure, the column not */
	bool paired;		      /* every tested main row paired rounds */
	bool crossover;		      /* some: by the crossover fit (side by side) */
};
int sb_report_verdict_build(const struct sb_report *r, size_t col, struct sb_report_verdict *v);
/* How the column's rows were compared, for its heading: "rounds paired"... */
const char *sb_report_pairing_str(const struct sb_report_verdict *v);
/* The verdict in one line, no newline ("in short" in the text and HTML):
 * where the stack has members, the role that served most of the reads
 * against the baseline's share; then of the headline rows the largest
 * change each way, how many are equal, not resolved (the repeats that
 * would resolve them, and the row nearest to it) and untested. pm: "±". */
void sb_report_verdict_short(const struct sb_report *r, FILE *f, const struct sb_report_verdict *v,
			     const char *pm);
/* The rows a profile's question turns on ([workloads] answer, as the
 * first set that has one recorded it), each as the verdict of column
 * v->col has it. */
enum sb_answer_state {
	SB_ANSWER_NO_ROW, /* no workload recorded that label */
	SB_ANSWER_CHANGED,
	SB_ANSWER_EQUAL,
	SB_ANSWER_UNRESOLVED,
	SB_ANSWER_UNTESTED,
	SB_ANSWER_NO_VALUE,
};
struct sb_report_answer {
	char wl[64], label[160]; /* as the profile names it (the row's own label when found) */
	size_t row;		 /* into r->rows; SIZE_MAX with SB_ANSWER_NO_ROW */
	enum sb_answer_state state;
};
size_t sb_report_answers(const struct sb_report *r, const struct sb_report_verdict *v,
			 struct sb_report_answer *out, size_t max);
/* What an unpaired verdict cannot see, said under its heading in every
 * format (a text line, an HTML note, the JSON verdict's "note"). */
extern const char sb_report_unpaired_note[];
void sb_report_verdict_free(struct sb_report_verdict *v);
/* "+1.2% [+0.4, +2.0]": a cell's change and interval, with two significant
 * digits where both ends are within +-0.05% (buf returned). */
const char *sb_report_change_str(const struct sb_report_cell *x, char *buf, size_t len);
/* The same of any change in percent and its interval. */
const char *sb_report_pct_str(double ch, double lo, double hi, char *buf, size_t len);
/* The run's noise floor (noise.c): the CV of the baseline's rounds over
 * its headline rows, and of the host probes (extra.quiesce.*.host_probe_ms,
 * a fixed CPU loop timed before each phase) of every column; rows and
 * probes 0 when there is none. */
struct sb_report_noise {
	size_t rows;
	double cv_min, cv_med, cv_max; /* percent */
	size_t probes;
	double probe_min, probe_med, probe_max; /* ms */
	double probe_cv;			/* percent */
};
/* The text table shows a smallest detectable change above this as ">1000%". */
#define SB_REPORT_MDE_SHOWN 1000.0
/* A host whose probes vary by this much (CV, percent) is said to be noisy. */
#define SB_REPORT_HOST_NOISY_PCT 5.0
void sb_report_noise(const struct sb_report *r, struct sb_report_noise *n);
/* "the baseline's rounds varied by ...; the host's CPU speed by ...", or "". */
char *sb_report_noise_str(const struct sb_report_noise *n, char *buf, size_t size);
/* The text block headed "verdict" that opens the text report. */
void sb_report_verdict_text(const struct sb_report *r, FILE *f, const char *pm);
/* Why a main row's cell is untested (sb_report_cell_untested). */
const char *sb_report_untested_why(const struct sb_report *r, const struct sb_report_row *row,
				   size_t c, char *buf, size_t size);
/* "about 12 repeats" / "more than 1000 repeats" for a cell's estimate. */
char *sb_report_need_str(const struct sb_report_cell *x, char *buf, size_t size);
/* What those repeats resolve: "+-5%" or "the change seen". */
const char *sb_report_need_what(const struct sb_report *r, const struct sb_report_cell *x,
				const char *pm, char *buf, size_t size);
/* The tests a row's compared cells used, "/"-joined ("paired-t-log",
 * "paired-t-log/welch-log"); "-" when none was tested. */
char *sb_report_row_tests(const struct sb_report *r, const struct sb_report_row *row, char *buf,
			  size_t size);
/* Whether a table shows the row: main rows always, the rest with --all. */
bool sb_report_row_shown(const struct sb_report *r, const struct sb_report_row *row);

/* run --repeat auto with several variants: after `rounds` whole rounds,
 * whether another is needed, from the paired comparison of each variant
 * with the first: not before SB_REPEAT_AUTO_MIN rounds, never at or past
 * max, and not once every headline row is resolved (marked, or equal
 * within +-SB_REPORT_RESOLVE_PCT). When it stops, says on log which of the
 * two happened, row by row (verdict.c). */
bool sb_report_auto_more(struct sb_resultset *set, size_t rounds, size_t max, FILE *log);
/* run --budget, its time spent after `rounds` rounds: says on log which
 * headline rows are resolved, which not, with the repeats and the time at
 * secs_per_round that would resolve them. The rows not resolved. */
size_t sb_report_budget_note(struct sb_resultset *set, size_t rounds, double secs_per_round,
			     FILE *log);

/* scen_report.c: integrity and rebuild facts of a column's repeats. */
struct sb_report_scen {
	unsigned checked, rebuilds, finished, outlasted, n_rate;
	unsigned md_checks, md_partial, md_unfinished; /* md checks: of a span, cut by time */
	int64_t errors, md_mismatch, scrub_errors, data_errors;
	int64_t md_span, md_span_max, md_walk; /* bytes: the partial checks' least and largest
						  span, and their largest array */
	double seconds, under, rate;
};
void sb_report_scen_sum(const struct sb_report_col *col, struct sb_report_scen *s);
/* loud: only the integrity errors (the report's first lines); else the
 * rebuild figures and the clean checks (among the notes). */
void sb_report_scen_text(const struct sb_report *r, FILE *f, bool loud);
/* {"integrity": {...}, "rebuild": {...}} or NULL when the column has neither. */
json_object *sb_report_scen_json(const struct sb_report_col *col);

/* report_side.c: a set that ran its variants side by side
 * (profile.schedule.side_by_side) gets the crossover fit (result/crossover.h)
 * of each headline row against the report's baseline, built with the table;
 * the text and JSON formats print it. */
enum sb_side_why {
	SB_SIDE_FITTED = 0,
	SB_SIDE_NO_BASELINE, /* the baseline has no figure of the row here */
	SB_SIDE_ALONE,	     /* no other variant has one */
	SB_SIDE_NO_FIGURES,  /* this variant has none (it failed, or lacks the row) */
	SB_SIDE_FEW_ROUNDS,  /* too few rounds hold it and the baseline for an interval */
	SB_SIDE_CONFOUNDED,  /* the design cannot tell it from the rounds */
};

struct sb_report_side_var {
	size_t col; /* the variant's column */
	enum sb_side_why why;
	struct sb_xo_effect eff; /* SB_SIDE_FITTED (and the rounds it had otherwise) */
};

struct sb_report_side_row {
	size_t row;			/* into r->rows */
	enum sb_side_why why;		/* FITTED, NO_BASELINE or ALONE */
	size_t rounds;			/* rounds with a figure of the row */
	struct sb_xo_fit fit;		/* empty unless fitted */
	struct sb_report_side_var *var; /* the set's other variants, in its order */
	size_t n_var;
	double floor_pct; /* the round floor its fit took (per cent; 0: none) */
};

struct sb_report_side {
	size_t set;
	size_t stacks, rounds; /* rounds: those run side by side */
	const char *order;     /* "abba", "williams" (borrowed from the set), or NULL */
	bool crossover;
	bool has_base;	 /* the set has a variant of the baseline's name */
	size_t base_col; /* its column */
	struct sb_report_side_row *rows;
	size_t n_rows;
	/* run --turn: the turns' length, and each phase that ran in turns
	 * with its stacks' I/O in their own turns and in the others' */
	double turn_ms;
	struct sb_report_side_turned {
		const char *phase; /* borrowed from the set */
		uint64_t ios, outside;
	} * turned;
	size_t n_turned;
	json_object
	    *whole; /* the set's side_by_side.whole (borrowed): phases turned whole, and why */
	/* the set's side_by_side.round_floor (borrowed, result/floor.h): the
	 * host's floor that run recorded; NULL: none. --round-floor wins. */
	json_object *floor;
};

/* The block after the verdict: a line per set and one per headline row,
 * nothing when no set ran side by side. */
void sb_report_side_text(const struct sb_report *r, FILE *f);
/* [{"set", "stacks", "rounds", ..., "rows": [...]}] (doc/result-format.md),
 * or NULL when no set ran side by side. */
json_object *sb_report_side_json(const struct sb_report *r);
