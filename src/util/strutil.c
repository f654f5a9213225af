/* See strutil.h. */
#include "util/strutil.h"

#include <stdio.h>
#include <stdlib.h>

char *sb_vasprintf(const char *fmt, va_list ap)
{
	char *s;
	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	return s;
}

int sb_set_err(char **err, int r, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return r;
	free(*err);
	va_start(ap, fmt);
	*err = sb_vasprintf(fmt, ap);
	va_end(ap);
	return r;
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
