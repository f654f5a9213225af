/* bonnie++ CSV report: placeholder until the workload engine's
 * sb_bonnie_csv_line() is merged. */
#include "report/report.h"

#include <errno.h>

static int bonnie_emit(const struct sb_report *r, FILE *f)
{
	return -EINVAL;
}

const struct sb_report_format sb_report_bonnie = {
	.name = "bonnie",
	.help = "bonnie++ 1.98 CSV lines (one per variant and repeat) for bon_csv2html",
	.emit = bonnie_emit,
};
