/* A growable NULL-terminated vector of words: a program's argv as the
 * layers build it, and its rendering for plans. */
#include "util/argv.h"
#include "util/spawn.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_vec_add(struct sb_vec *s, const char *str)
{
	char **nv = realloc(s->v, (s->n + 2) * sizeof(*nv));
	if (!nv)
		abort(); /* a few words: out of memory here is not recoverable */
	s->v = nv;
	s->v[s->n] = strdup(str);
	if (!s->v[s->n])
		abort();
	s->v[++s->n] = NULL;
}

void sb_vec_addf(struct sb_vec *s, const char *fmt, ...)
{
	va_list ap;
	char *m;
	va_start(ap, fmt);
	if (vasprintf(&m, fmt, ap) < 0)
		abort();
	va_end(ap);
	sb_vec_add(s, m);
	free(m);
}

void sb_vec_free(struct sb_vec *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	*s = (struct sb_vec){0};
}

/* Like sb_argv_format, but "${ssd}" placeholders of a dry run stay
 * readable instead of being quoted. */
char *sb_vec_format(const struct sb_vec *s)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	for (size_t i = 0; i < s->n; i++) {
		const char *w = s->v[i];
		bool plain = *w != '\0';
		for (const char *c = w; *c; c++)
			plain &=
			    strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				   "-_./=:,+@%${}",
				   *c) != NULL;
		if (plain) {
			fprintf(f, "%s%s", i ? " " : "", w);
		} else {
			const char *one[] = {w, NULL};
			char *q = sb_argv_format(one);
			fprintf(f, "%s%s", i ? " " : "", q ? q : w);
			free(q);
		}
	}
	fclose(f);
	return out;
}
