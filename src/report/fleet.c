/* The fleet summary of a report over one result set per host (--fleet):
 * for each headline metric and variant, the change against the host's own
 * baseline on every host, and how many hosts agree. Hosts are never pooled
 * as repeats of each other (that would be pseudo-replication): each host's
 * verdict comes from its own repeats. */
#include "report/report.h"

#include <math.h>
#include <string.h>

static const char *mark(enum sb_verdict v)
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

void sb_report_fleet_summary(const struct sb_report *r, FILE *f)
{
	bool header = false;

	if (!r->fleet || r->n_sets < 2)
		return;
	for (size_t i = 0; i < r->n_rows; i++) {
		const struct sb_report_row *row = &r->rows[i];
		if (!row->headline || row->lat != SB_LAT_NONE)
			continue;
		/* Each variant name once, in column order. */
		for (size_t c = 0; c < r->n_cols; c++) {
			const char *v = r->cols[c].variant;
			bool first = true;
			for (size_t k = 0; k < c; k++)
				first &= strcmp(r->cols[k].variant, v) != 0 || r->cols[k].base == k;
			if (!first || r->cols[c].base == c)
				continue;
			size_t hosts = 0, better = 0, worse = 0, up = 0, down = 0, unresolved = 0;
			char line[2048];
			size_t len = 0;
			for (size_t k = c; k < r->n_cols && len < sizeof(line); k++) {
				const struct sb_report_cell *x = &row->cells[k];
				if (strcmp(r->cols[k].variant, v) != 0 || r->cols[k].base == k)
					continue;
				hosts++;
				better += x->verdict == SB_VERDICT_BETTER;
				worse += x->verdict == SB_VERDICT_WORSE;
				unresolved += x->verdict == SB_VERDICT_UNRESOLVED;
				if (isfinite(x->change)) {
					up += x->change > 0;
					down += x->change < 0;
				}
				len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s ",
							len ? ", " : "", r->set_names[r->cols[k].set]);
				if (len < sizeof(line) && isfinite(x->change))
					len += (size_t)snprintf(line + len, sizeof(line) - len,
								"%+.1f%%%s", x->change, mark(x->verdict));
				else if (len < sizeof(line))
					len += (size_t)snprintf(line + len, sizeof(line) - len, "-");
			}
			if (!header) {
				fprintf(f, "\nfleet: each variant against its own host's baseline (hosts "
					   "are not pooled: each verdict comes from that host's repeats)\n");
				header = true;
			}
			fprintf(f,
				"%s: %s: %s: %s; significantly better on %zu of %zu hosts, worse on "
				"%zu, not resolved on %zu; the mean %s on %zu\n",
				row->spec, row->label ? row->label : row->metric, v, line, better, hosts,
				worse, unresolved, up >= down ? "went up" : "went down",
				up >= down ? up : down);
		}
	}
}
