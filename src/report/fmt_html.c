/* HTML report: placeholder. */
#include "report/report.h"

#include <errno.h>

static int html_emit(const struct sb_report *r, FILE *f)
{
	return -ENOSYS;
}

const struct sb_report_format sb_report_html = {
	.name = "html",
	.help = "one self-contained HTML file: the table and SVG charts",
	.emit = html_emit,
};
