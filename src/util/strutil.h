/* Formatting into fresh strings: NULL (not an undefined pointer) on failure. */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

char *sb_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *sb_vasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* The one way a helper that does not print hands back why it failed: *err
 * (freed first; err may be NULL) set to the message, and r returned, so
 * that `return sb_set_err(err, -EINVAL, "%s: line %zu: ...", ...)` is one
 * statement. *err is NULL when out of memory: the caller says strerror(-r). */
int sb_set_err(char **err, int r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* s without its leading and trailing blanks (isspace): the end cut in
 * place, a pointer into s returned. */
char *sb_str_trim(char *s);
/* A small file (sysfs, procfs) into buf as text, trailing newlines and
 * spaces dropped: the length, or -errno. */
int sb_read_small(const char *path, char *buf, size_t len);
/* The next item of a "WORKLOAD: LABEL; WORKLOAD: LABEL" list (a profile's
 * workloads.answer): the item from *s to the next ';' cut in place, its
 * workload (before the first ": ") and label trimmed, *s moved past it.
 * *label is NULL where the item has no ": ". false at the list's end. */
bool sb_answer_next(char **s, char **wl, char **label);
