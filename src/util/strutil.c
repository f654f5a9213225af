/* See strutil.h. */
#include "util/strutil.h"

#include <stdio.h>

char *sb_vasprintf(const char *fmt, va_list ap)
{
	char *s;
	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	return s;
}

char *sb_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	s = sb_vasprintf(fmt, ap);
	va_end(ap);
	return s;
}
