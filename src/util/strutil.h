/* Formatting into fresh strings: NULL (not an undefined pointer) on failure. */
#pragma once

#include <stdarg.h>

char *sb_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *sb_vasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* The one way a helper that does not print hands back why it failed: *err
 * (freed first; err may be NULL) set to the message, and r returned, so
 * that `return sb_set_err(err, -EINVAL, "%s: line %zu: ...", ...)` is one
 * statement. *err is NULL when out of memory: the caller says strerror(-r). */
int sb_set_err(char **err, int r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
