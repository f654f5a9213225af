/* A growable NULL-terminated vector of words (argv.c): a program's argv,
 * built a word or a formatted word at a time. Out of memory aborts: a few
 * words are not worth a recovery path. */
#pragma once

#include <stddef.h>

struct sb_vec {
	char **v;
	size_t n;
};
void sb_vec_add(struct sb_vec *s, const char *str);
void sb_vec_addf(struct sb_vec *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vec_free(struct sb_vec *s);
/* Renders argv for plans ("mdadm --create ..."); malloc'ed, NULL on
 * -ENOMEM. */
char *sb_vec_format(const struct sb_vec *s);
