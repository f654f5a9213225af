/* bonnie++ CSV report: the bonnie++ 1.98 CSV line of every variant and
 * repeat that ran seq and/or meta (or imported bonnie++ itself), for
 * bon_csv2html / bon_csv2txt. The line itself comes from the workload
 * engine (sb_bonnie_csv_line), the one place that knows the field order. */
#include "report/report.h"
#include "result/bonnie_csv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int bonnie_emit(const struct sb_report *r, FILE *f)
{
	size_t lines = 0;

	for (size_t c = 0; c < r->n_cols; c++) {
		const struct sb_report_col *col = &r->cols[c];
		for (size_t v = 0; v < col->n_vars; v++)
			for (size_t k = 0; k < col->vars[v]->n_rep; k++) {
				const struct sb_repeat *rep = &col->vars[v]->rep[k];
				const struct sb_wl_result *seq = NULL, *meta = NULL;
				for (size_t w = 0; w < rep->n_wl; w++) {
					const struct sb_wl_result *wl = rep->wl[w];
					/* the bonnie++ adapter's result carries both halves */
					bool both = strcmp(wl->workload, "bonnie++") == 0;
					if (!seq && (both || strcmp(wl->workload, "seq") == 0))
						seq = wl;
					if (!meta && (both || strcmp(wl->workload, "meta") == 0))
						meta = wl;
				}
				if (!seq && !meta)
					continue;
				char *line = sb_bonnie_csv_line(seq, meta, col->full);
				if (!line)
					return -ENOMEM;
				fprintf(f, "%s\n", line);
				free(line);
				lines++;
			}
	}
	if (!lines)
		return -EINVAL;
	return ferror(f) ? -EIO : 0;
}

const struct sb_report_format sb_report_bonnie = {
    .name = "bonnie",
    .help = "bonnie++ 1.98 CSV lines (one per variant and repeat) for bon_csv2html",
    .emit = bonnie_emit,
};
