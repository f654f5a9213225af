/* NULL-terminated string vectors for holders, mount points and reasons. */
#include "util/strv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

size_t sb_strv_len(char *const *v)
{
	size_t n = 0;
	while (v && v[n])
		n++;
	return n;
}

int sb_strv_push(char ***v, const char *s)
{
	size_t n = sb_strv_len(*v);
	char *c = strdup(s);
	char **nv;

	if (!c)
		return -ENOMEM;
	nv = realloc(*v, (n + 2) * sizeof(char *));
	if (!nv) {
		free(c);
		return -ENOMEM;
	}
	nv[n] = c;
	nv[n + 1] = NULL;
	*v = nv;
	return 0;
}

bool sb_strv_contains(char *const *v, const char *s)
{
	for (size_t i = 0; v && v[i]; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

void sb_strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

char *sb_strv_join(char *const *v, const char *sep)
{
	size_t len = 1, sl = strlen(sep);
	char *s, *p;

	for (size_t i = 0; v && v[i]; i++)
		len += strlen(v[i]) + sl;
	s = p = malloc(len);
	if (!s)
		return NULL;
	*p = 0;
	for (size_t i = 0; v && v[i]; i++) {
		if (i)
			p = stpcpy(p, sep);
		p = stpcpy(p, v[i]);
	}
	return s;
}
