/* Formatting into fresh strings: NULL (not an undefined pointer) on failure. */
#pragma once

#include <stdarg.h>

char *sb_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *sb_vasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
