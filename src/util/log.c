/* See log.h. */
#include "util/log.h"

#include <stdarg.h>
#include <string.h>

int sb_log_level = SB_LOG_NORMAL;

static void vlog(const char *prefix, int err, const char *fmt, va_list ap) _printf_(3, 0);
static void vlog(const char *prefix, int err, const char *fmt, va_list ap)
{
	fputs("stackbench: ", stderr);
	if (prefix)
		fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err < 0 ? -err : err));
	fputc('\n', stderr);
}

int sb_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(NULL, 0, fmt, ap);
	va_end(ap);
	return -1;
}

int sb_error_errno(int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(NULL, err, fmt, ap);
	va_end(ap);
	return err < 0 ? err : -err;
}

void sb_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog("warning: ", 0, fmt, ap);
	va_end(ap);
}

#define DEFINE_LEVEL(fn, level)                                                                    \
	void fn(const char *fmt, ...)                                                              \
	{                                                                                          \
		va_list ap;                                                                        \
		if (sb_log_level < (level))                                                        \
			return;                                                                    \
		va_start(ap, fmt);                                                                 \
		vlog(NULL, 0, fmt, ap);                                                            \
		va_end(ap);                                                                        \
	}

DEFINE_LEVEL(sb_info, SB_LOG_NORMAL)
DEFINE_LEVEL(sb_verbose, SB_LOG_VERBOSE)
DEFINE_LEVEL(sb_debug, SB_LOG_DEBUG)
