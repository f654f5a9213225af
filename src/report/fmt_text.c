/* Text report: the comparison table through libsmartcols (a tree of
 * workloads and their metrics), then the baseline, notes and legend. */
#include "report/measure.h"
#include "report/report.h"
#include "util/escape.h"
#include "util/macro.h"
#include "util/toolmsg.h"

#include <errno.h>
#include <libsmartcols.h>
#include <stdint.h>
#include <string.h>

static void unref_table(struct libscols_table **t)
{
	scols_unref_table(*t);
}

/* A tool's indented lines as one line: each newline and the indent after
 * it become one space. */
static void join_lines(char *s)
{
	char *o = s;
	if (!s)
		return;
	for (const char *p = s; *p; p++) {
		if (*p != '\n') {
			*o++ = *p;
			continue;
		}
		*o++ = ' ';
		while (p[1] == ' ')
			p++;
	}
	*o = '\0';
}

/* Notes on flagged results (quick, cache-affected...), which must not be
 * read as comparable to full runs without a warning. */
static void print_notes(const struct sb_report *r, FILE *f)
{
	const char *specs[64];
	size_t n = sb_report_specs(r, specs, ARRAY_SIZE(specs));
	for (size_t s = 0; s < r->n_sets; s++) {
		json_object *e;
		if (r->sets[s]->host &&
		    json_object_object_get_ex(r->sets[s]->host, "emulated", &e) &&
		    json_object_get_boolean(e))
			fprintf(f,
				"note: %s: emulated: measured in the VM runner (qemu software "
				"emulation, disks are throttled files), not on hardware\n",
				r->set_names[s]);
	}
	/* A variant that failed (the run went on with the others): its step
	 * and the first line of why, escaped (it holds a tool's words). */
	for (size_t s = 0; s < r->n_sets; s++)
		for (size_t i = 0; i < r->sets[s]->n_var; i++) {
			const struct sb_variant *v = &r->sets[s]->var[i];
			for (size_t k = 0; k < v->n_rep; k++) {
				json_object *fl = v->rep[k].failed, *st;
				if (!fl)
					continue;
				const char *m =
				    json_object_get_string(json_object_object_get(fl, "message"));
				/* one line: the tool's words follow the step's */
				_cleanup_free_ char *why = sb_tool_msg(m, strlen(m), 300, "");
				join_lines(why);
				_cleanup_free_ char *name =
				    sb_tool_msg(v->name, strlen(v->name), 200, "");
				st = json_object_object_get(fl, "step");
				_cleanup_free_ char *step =
				    json_object_is_type(st, json_type_string)
					? sb_tool_msg(json_object_get_string(st),
						      strlen(json_object_get_string(st)), 100, "")
					: NULL;
				fprintf(f, "FAILED: %s: repeat %u%s%s: %s\n", name ? name : "?",
					v->rep[k].index + 1, step ? ", step " : "",
					step ? step : "", why ? why : "?");
			}
		}
	for (size_t c = 0; c < r->n_cols; c++) {
		_cleanup_free_ char *notes = sb_report_col_notes(r, c);
		for (char *p = notes, *nl; p && *p; p = nl ? nl + 1 : p + strlen(p)) {
			nl = strchr(p, '\n');
			fprintf(f, "note: %s: %.*s\n", r->cols[c].label,
				(int)(nl ? (size_t)(nl - p) : strlen(p)), p);
		}
	}
	for (size_t c = 0; c < r->n_cols; c++)
		for (size_t s = 0; s < n; s++) {
			char buf[128];
			unsigned fl = sb_report_col_flags(r, c, specs[s]);
			if (fl)
				fprintf(f, "note: %s: %s: %s\n", r->cols[c].label, specs[s],
					sb_report_flags_str(fl, buf, sizeof(buf)));
		}
}

/* The lines under the table: baseline, repeats, tallies, notes, the
 * measurement sections, the fleet summary, the legend. */
static int text_lines_raw(const struct sb_report *r, FILE *f, const char *pm)
{
	fprintf(f, "\nbaseline: %s%s\nrepeats:", r->cols[r->baseline].label,
		r->baseline_set ? " (the stored baseline set; each variant against its namesake)"
				: "");
	for (size_t c = 0; c < r->n_cols; c++)
		fprintf(f, "%s %s %zu", c ? "," : "", r->cols[c].label, r->cols[c].n_rep);
	fprintf(f, "\n");
	for (size_t c = 0; c < r->n_cols; c++) {
		struct sb_report_tally t;
		if (r->cols[c].base == c)
			continue;
		sb_report_tally(r, c, &t);
		fprintf(f,
			"%s vs %s: %zu row%s tested, %zu marked (%s, alpha %g), %zu not resolved\n",
			r->cols[c].label, r->cols[r->cols[c].base].label, t.tested,
			t.tested == 1 ? "" : "s", t.marked, sb_correction_name(r->correction),
			r->alpha, t.unresolved);
	}
	print_notes(r, f);
	sb_report_scen_text(r, f, false);
	sb_measure_text(r, f);
	sb_report_fleet_summary(r, f);
	_cleanup_free_ char *legend = sb_report_legend(r, pm);
	if (!legend)
		return -ENOMEM;
	fprintf(f, "%s\n", legend);
	return 0;
}

static int verdict_raw(const struct sb_report *r, FILE *f, const char *pm)
{
	sb_report_scen_text(r, f, true); /* integrity errors come first */
	sb_report_verdict_text(r, f, pm);
	sb_report_side_text(r, f);
	return 0;
}

/* Display columns of UTF-8 text: its characters (the escaper leaves no
 * control characters, and a C locale gets no bytes above ASCII). */
static size_t u8_width(const char *s, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	return n;
}

/* How many bytes of the word [w, end) fit room columns (at least one
 * character): up to the last of "_=/,.:-" that fits where there is one, so
 * that perf_event_paranoid=3 parts as perf_event_ and paranoid=3. */
static size_t cut_at(const char *w, const char *end, size_t room)
{
	size_t n = 0, brk = 0, col = 0;

	while (w + n < end) {
		size_t c = 1;
		while (w + n + c < end && ((unsigned char)w[n + c] & 0xc0) == 0x80)
			c++;
		if (n && col + 1 > room)
			break;
		n += c;
		col++;
		if (strchr("_=/,.:-", w[n - 1]))
			brk = n;
	}
	return brk && w + n < end ? brk : n;
}

/* The words of s on f from column col, folded at spaces to fit width:
 * each continuation is cont (of one column a character) and ind spaces.
 * The first word, or a word wider than the room, stays whole on its line;
 * with cut, a word wider than the room parts over lines instead. */
static void fold_words(FILE *f, const char *s, size_t len, size_t col, size_t width,
		       const char *cont, size_t ind, bool cut)
{
	const char *end = s + len, *p = s;
	size_t cw = u8_width(cont, strlen(cont)) + ind;

	for (bool first = true; p < end; first = false) {
		const char *gap = p, *w;
		while (p < end && *p == ' ')
			p++;
		w = p;
		while (p < end && *p != ' ')
			p++;
		size_t gw = (size_t)(w - gap), ww = u8_width(w, (size_t)(p - w));
		if (!ww) /* trailing spaces of a folded line go */
			break;
		if (!first && col + gw + ww > width) {
			fprintf(f, "\n%s%*s", cont, (int)ind, "");
			col = cw;
		} else {
			fwrite(gap, 1, gw, f);
			col += gw;
		}
		while (cut && col + ww > width && col < width) {
			size_t n = cut_at(w, p, width - col);
			fwrite(w, 1, n, f);
			w += n;
			ww = u8_width(w, (size_t)(p - w));
			fprintf(f, "\n%s%*s", cont, (int)ind, "");
			col = cw;
		}
		fwrite(w, 1, (size_t)(p - w), f);
		col += ww;
	}
}

/* One line (no newline) on f, folded at spaces to fit width: each
 * continuation indented two more than the line's own indent. A word wider
 * than that stays whole, on a line of its own. */
static void fold_line(FILE *f, const char *s, size_t len, size_t width)
{
	size_t ind = 0;

	if (u8_width(s, len) <= width) {
		fwrite(s, 1, len, f);
		return;
	}
	while (ind < len && s[ind] == ' ')
		ind++;
	fwrite(s, 1, ind, f);
	fold_words(f, s + ind, len - ind, ind, width, "", ind + 2, false);
}

/* Names in these lines come from the files (variant, host, workload and
 * job names, labels, notes): the lines are written to memory and through
 * one escaper, so that whatever prints into them (the verdict, measure.c,
 * fleet.c, the legend) cannot send a terminal escape sequence or forge a
 * line. The table's cells go through the same escaper (set_safe). Then
 * each line longer than the report's width is folded (fold_line), so that
 * a terminal never wraps one across the next. */
static int text_escaped(const struct sb_report *r, FILE *f,
			int (*raw)(const struct sb_report *, FILE *, const char *))
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int ret;

	if (!m)
		return -ENOMEM;
	ret = raw(r, m, sb_report_pm());
	if (fclose(m) != 0 || ret < 0)
		return -ENOMEM;
	/* escaped first, then folded: an escape is as wide as it prints */
	_cleanup_free_ char *ebuf = NULL;
	size_t elen = 0;
	m = open_memstream(&ebuf, &elen);
	if (!m)
		return -ENOMEM;
	ret = sb_escape_write(m, buf, len, SB_ESC_KEEP_NL);
	if (fclose(m) != 0 || ret < 0)
		return -ENOMEM;
	for (const char *p = ebuf, *nl; p < ebuf + elen; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(ebuf + elen - p));
		if (!nl)
			nl = ebuf + elen;
		fold_line(f, p, (size_t)(nl - p), r->width);
		if (nl < ebuf + elen)
			fputc('\n', f);
	}
	return ferror(f) ? -EIO : 0;
}

/* Cells through the same escaper as the lines: libsmartcols's own encoding
 * (turned off below) passes the bidi overrides a UTF-8 locale calls
 * printable, and would escape our escapes again. */
static int set_safe(struct libscols_line *ln, size_t col, const char *s)
{
	_cleanup_free_ char *e = sb_escape(s ? s : "");
	return e && scols_line_set_data(ln, col, e) == 0 ? 0 : -ENOMEM;
}

/* Which columns a table has: the variants' [from, to), and with desc the
 * BETTER column (and with --all the TEST column); METRIC and UNIT always.
 * With fold, METRIC's labels fold at spaces to fit that many columns. */
struct cols {
	size_t from, to;
	bool desc;
	size_t fold;
};

/* A METRIC cell: the escaped label, with fold folded at spaces into lines
 * of a multi-line cell. A metric (depth 1) starts after the tree's two
 * columns, its continuation two further in, under the tree's vertical line
 * while a sibling follows (libsmartcols draws none in a continuation); a
 * workload's continuation is two in. */
static int set_label(struct libscols_line *ln, const char *label, size_t fold, bool metric,
		     bool more)
{
	_cleanup_free_ char *e = sb_escape(label ? label : "");
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	const char *vert = "";
	size_t ind = 2;
	FILE *m;

	if (!e)
		return -ENOMEM;
	if (!fold)
		return scols_line_set_data(ln, 0, e) == 0 ? 0 : -ENOMEM;
	if (metric && more) /* libsmartcols's own choice: UTF-8 or ASCII */
		vert = strcmp(sb_report_pm(), "+-") != 0 ? "\342\224\202" : "|";
	if (metric)
		ind = *vert ? 3 : 4;
	m = open_memstream(&buf, &len);
	if (!m)
		return -ENOMEM;
	fold_words(m, e, strlen(e), metric ? 2 : 0, fold, vert, ind, true);
	if (fclose(m) != 0)
		return -ENOMEM;
	return scols_line_set_data(ln, 0, buf) == 0 ? 0 : -ENOMEM;
}

static int add_row(const struct sb_report *r, struct libscols_table *tb,
		   struct libscols_line *parent, const struct sb_report_row *row, struct cols k,
		   bool more)
{
	struct libscols_line *ln = scols_table_new_line(tb, parent);
	char tests[96], unit[64];
	size_t i = 2;

	if (!ln || set_label(ln, row->label, k.fold, true, more) < 0 ||
	    set_safe(ln, 1, sb_report_unit(row->unit, unit, sizeof(unit))) < 0)
		return -ENOMEM;
	if (k.desc)
		scols_line_set_data(
		    ln, i++, row->better == SB_BETTER_NONE ? "" : sb_better_name(row->better));
	if (k.desc && r->all)
		scols_line_set_data(ln, i++, sb_report_row_tests(r, row, tests, sizeof(tests)));
	for (size_t c = k.from; c < k.to; c++) {
		char cell[160];
		sb_report_fmt_cell(r, c, &row->cells[c], sb_report_pm(), cell, sizeof(cell));
		if (set_safe(ln, i++, cell) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The next shown row after i, or n_rows. */
static size_t next_shown(const struct sb_report *r, size_t i)
{
	while (++i < r->n_rows && !sb_report_row_shown(r, &r->rows[i]))
		;
	return i;
}

static int add_rows(const struct sb_report *r, struct libscols_table *tb, struct cols k)
{
	struct libscols_line *parent = NULL;
	const char *spec = NULL;

	for (size_t i = 0; i < r->n_rows; i++) {
		const struct sb_report_row *row = &r->rows[i];
		if (!sb_report_row_shown(r, row))
			continue;
		if (!spec || strcmp(spec, row->spec) != 0) {
			spec = row->spec;
			parent = scols_table_new_line(tb, NULL);
			if (!parent || set_label(parent, spec, k.fold, false, false) < 0)
				return -ENOMEM;
		}
		size_t nx = next_shown(r, i);
		bool more = nx < r->n_rows && strcmp(r->rows[nx].spec, spec) == 0;
		if (add_row(r, tb, parent, row, k, more) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* A table on f of the columns k, with every shown row. */
static int new_table(const struct sb_report *r, FILE *f, struct cols k, struct libscols_table **out)
{
	struct libscols_table *tb = scols_new_table();

	*out = tb;
	if (!tb)
		return -ENOMEM;
	scols_table_set_stream(tb, f);
	scols_table_enable_noencoding(tb, 1);
	/* the same on a terminal as in a pipe: the blocks fit, nothing cut */
	scols_table_set_termforce(tb, SCOLS_TERMFORCE_NEVER);
	struct libscols_column *metric =
	    scols_table_new_column(tb, "METRIC", 0.3, SCOLS_FL_TREE | (k.fold ? SCOLS_FL_WRAP : 0));
	/* a folded label's lines, each a line of the cell */
	if (!metric ||
	    (k.fold && scols_column_set_wrapfunc(metric, scols_wrapnl_chunksize,
						 scols_wrapnl_nextchunk, NULL) < 0) ||
	    !scols_table_new_column(tb, "UNIT", 0, 0) ||
	    (k.desc && !scols_table_new_column(tb, "BETTER", 0, 0)) ||
	    (k.desc && r->all && !scols_table_new_column(tb, "TEST", 0, 0)))
		return -ENOMEM;
	for (size_t c = k.from; c < k.to; c++) {
		_cleanup_free_ char *e = sb_escape(r->cols[c].label);
		if (!e || !scols_table_new_column(tb, e, 0, SCOLS_FL_RIGHT))
			return -ENOMEM;
	}
	return add_rows(r, tb, k);
}

/* The widest line of a table of the columns k, in characters; 0 when out
 * of memory. */
static size_t table_width(const struct sb_report *r, struct cols k)
{
	_cleanup_(unref_table) struct libscols_table *tb = NULL;
	_cleanup_free_ char *s = NULL;
	size_t w = 0;

	if (new_table(r, NULL, k, &tb) < 0 || scols_print_table_to_string(tb, &s) < 0 || !s)
		return 0;
	for (const char *p = s, *nl; *p; p = *nl ? nl + 1 : nl) {
		nl = strchrnul(p, '\n');
		size_t lw = u8_width(p, (size_t)(nl - p));
		w = lw > w ? lw : w;
	}
	return w;
}

/* A variant column's width: its widest cell or header, in characters. */
static size_t col_width(const struct sb_report *r, size_t c)
{
	_cleanup_free_ char *e = sb_escape(r->cols[c].label);
	size_t w = e ? u8_width(e, strlen(e)) : 0;

	for (size_t i = 0; i < r->n_rows; i++) {
		char cell[160];
		if (!sb_report_row_shown(r, &r->rows[i]))
			continue;
		sb_report_fmt_cell(r, c, &r->rows[i].cells[c], sb_report_pm(), cell, sizeof(cell));
		_cleanup_free_ char *ce = sb_escape(cell);
		size_t cw = ce ? u8_width(ce, strlen(ce)) : 0;
		w = cw > w ? cw : w;
	}
	return w;
}

static int print_block(const struct sb_report *r, FILE *f, struct cols k, bool first)
{
	_cleanup_(unref_table) struct libscols_table *tb = NULL;

	if (new_table(r, f, k, &tb) < 0)
		return -ENOMEM;
	if (!first)
		fputc('\n', f);
	return scols_print_table(tb) < 0 ? -EIO : 0;
}

/* METRIC's natural width: its header, workloads and (after the tree's
 * two columns) metric labels, unfolded. */
static size_t metric_width(const struct sb_report *r)
{
	size_t w = strlen("METRIC");

	for (size_t i = 0; i < r->n_rows; i++) {
		const struct sb_report_row *row = &r->rows[i];
		_cleanup_free_ char *s = sb_escape(row->spec), *l = sb_escape(row->label);
		if (!sb_report_row_shown(r, row))
			continue;
		size_t sw = s ? u8_width(s, strlen(s)) : 0, lw = l ? 2 + u8_width(l, strlen(l)) : 0;
		w = sw > w ? sw : w;
		w = lw > w ? lw : w;
	}
	return w;
}

enum { METRIC_MIN = 16 };

/* The fold that brings the widest variant column wcol within the width:
 * with desc, BETTER (and TEST) beside it; else beside METRIC and UNIT
 * alone, and BETTER too. METRIC narrows by what is over, to no less than
 * METRIC_MIN columns; 0 when it fits unfolded. fixed gets the first
 * columns' widths as printed, without and with BETTER. */
static size_t fold_to(const struct sb_report *r, size_t wcol, size_t fixed[2], bool desc)
{
	size_t fold = 0, mw = metric_width(r), prev = SIZE_MAX;

	for (int i = 0; i < 4; i++) {
		fixed[0] = table_width(r, (struct cols){0, 0, false, fold});
		fixed[1] = table_width(r, (struct cols){0, 0, true, fold});
		size_t over = desc			   ? fixed[1] + wcol
			      : fixed[0] + wcol > fixed[1] ? fixed[0] + wcol
							   : fixed[1];
		/* folded, the column can come out wider than fold (a
		 * workload's name is one word): narrower again while that
		 * helps */
		if (over <= r->width || over >= prev || mw <= METRIC_MIN)
			break;
		prev = over;
		over -= r->width;
		mw = mw > METRIC_MIN + over ? mw - over : METRIC_MIN;
		fold = mw;
	}
	return fold;
}

/* METRIC's labels fold (a label's words on continuation lines of its cell)
 * only where a variant column or BETTER beside METRIC and UNIT would not
 * fit the width otherwise: a table that fits prints as it did. Folded,
 * BETTER comes beside each column where a METRIC of METRIC_MIN allows,
 * else in a block of its own. Returns the fold, 0 for none; fixed as
 * fold_to's. */
static size_t fit_metric(const struct sb_report *r, size_t wcol, size_t fixed[2])
{
	size_t alone[2], fold = fold_to(r, wcol, alone, false), beside;

	if (fold) {
		beside = fold_to(r, wcol, fixed, true);
		if (fixed[1] + wcol <= r->width)
			return beside;
	}
	fixed[0] = alone[0];
	fixed[1] = alone[1];
	return fold;
}

/* The table in blocks of variant columns that fit the width, each with the
 * METRIC and UNIT columns, and BETTER (TEST with --all) where they fit too:
 * a terminal's width, never a line wrapped across the columns. A column
 * too wide even alone prints anyway; where BETTER fits beside no column,
 * a block of its own comes first (or, too wide itself, it goes into the
 * first block): no value is lost. */
static int print_blocks(const struct sb_report *r, FILE *f)
{
	_cleanup_free_ struct cols *b = calloc(r->n_cols + 1, sizeof(*b));
	_cleanup_free_ size_t *w = calloc(r->n_cols + 1, sizeof(*w));
	/* the first columns as printed (the tree's branches in METRIC), then
	 * each variant column and the space before it */
	size_t n = 0, fixed[2], wcol = 0, fold;
	bool any = false;
	int ret = 0;

	if (!b || !w)
		return -ENOMEM;
	for (size_t c = 0; c < r->n_cols; c++) {
		w[c] = 1 + col_width(r, c);
		wcol = w[c] > wcol ? w[c] : wcol;
	}
	fold = fit_metric(r, wcol, fixed);
	for (size_t from = 0; from < r->n_cols; from = b[n++].to) {
		bool desc = fixed[1] + w[from] <= r->width;
		size_t sum = fixed[desc] + w[from], to = from + 1;
		for (; to < r->n_cols && sum + w[to] <= r->width; to++)
			sum += w[to];
		b[n] = (struct cols){from, to, desc, fold};
		any |= desc;
	}
	if (!any && fixed[1] > r->width)
		any = b[0].desc = true; /* too wide even alone: not twice */
	else if (!any)
		ret = print_block(r, f, (struct cols){0, 0, true, fold}, true);
	for (size_t i = 0; i < n && ret == 0; i++)
		ret = print_block(r, f, b[i], any && i == 0);
	return ret;
}

static int text_emit(const struct sb_report *r, FILE *f)
{
	size_t hidden = 0;
	int ret;

	if ((ret = text_escaped(r, f, verdict_raw)) < 0)
		return ret;
	for (size_t i = 0; i < r->n_rows; i++)
		hidden += !sb_report_row_shown(r, &r->rows[i]);
	if (r->n_rows == hidden)
		fprintf(f, "(no %smetrics)\n", hidden ? "headline or cost " : "");
	else if ((ret = print_blocks(r, f)) < 0)
		return ret;
	if (hidden)
		fprintf(f, "(%zu latency and %%CPU row%s not shown: report --all)\n", hidden,
			hidden == 1 ? "" : "s");
	return text_escaped(r, f, text_lines_raw);
}

const struct sb_report_format sb_report_text = {
    .name = "text",
    .help = "a table for people: mean ±CI (change%) with significance marks",
    .emit = text_emit,
};
