/* See strutil.h. */
#include "util/strutil.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

char *sb_str_trim(char *s)
{
	char *e;
	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

bool sb_answer_next(char **s, char **wl, char **label)
{
	char *item = *s, *semi, *colon;

	while (*item == ';' || isspace((unsigned char)*item))
		item++;
	if (!*item)
		return false;
	semi = strchr(item, ';');
	*s = semi ? semi + 1 : item + strlen(item);
	if (semi)
		*semi = '\0';
	colon = strstr(item, ": ");
	*label = NULL;
	if (colon) {
		*colon = '\0';
		*label = sb_str_trim(colon + 2);
	}
	*wl = sb_str_trim(item);
	return true;
}

int sb_read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ssize_t n;
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	int e = errno;
	close(fd);
	if (n < 0)
		return -e;
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return (int)n;
}
