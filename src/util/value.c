/* See value.h. The texts: each type's expected form as a profile key's
 * error says it and as a workload option's does (both pinned by their
 * tests), side by side in one table. */
#include "util/value.h"
#include "util/macro.h"
#include "util/parse.h"
#include "util/size.h"
#include "util/strutil.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *key; /* after "expected ", before ", got 'x'" */
	const char *opt; /* after "bad value 'x' for NAME: expected " */
} forms[SB_VT_N] = {
    [SB_VT_UINT] = {NULL /* with its bounds */, "a number"},
    [SB_VT_SIZE] = {"a size such as 512M or 2G", "a size such as 4k, 512M, 2G"},
    [SB_VT_DURATION] = {"a duration such as 30s or 10m", "a duration such as 30s, 5m, 250ms"},
    [SB_VT_BOOL] = {"yes or no", "0 or 1"},
    [SB_VT_STRING] = {"text", "text"},
    [SB_VT_SIZEPCT] = {"a size such as 20G or a percentage such as 50%",
		       "a size such as 4k, 512M, 2G or a percentage such as 50%"},
    [SB_VT_SIZES] = {"sizes such as '50%,50%' or '10G,rest'",
		     "sizes such as '50%,50%' or '10G,rest'"},
    [SB_VT_CHOICE] = {NULL /* with its choices */, NULL},
};

/* The index of v among choices "a|b|c", or -1. */
static int choice_index(const char *choices, const char *v)
{
	size_t n = strlen(v);
	int i = 0;
	for (const char *c = choices; c && *c; i++) {
		const char *e = strchrnul(c, '|');
		if ((size_t)(e - c) == n && strncmp(c, v, n) == 0)
			return i;
		c = *e ? e + 1 : e;
	}
	return -1;
}

enum sizes_fault { SIZES_OK, SIZES_REST_NOT_LAST, SIZES_BAD_SIZE, SIZES_OVER_100 };

/* Walks a list of sizes; *bad (when not NULL) gets a copy of the element
 * at fault (SIZES_BAD_SIZE), *pct_sum the percentages' sum. -ENOMEM or the
 * fault. */
static int sizes_walk(const char *v, char **bad, uint64_t *pct_sum)
{
	_cleanup_free_ char *copy = strdup(v);
	char *save = NULL;
	uint64_t u;
	bool rest = false, pct;

	*pct_sum = 0;

	if (!copy)
		return -ENOMEM;
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		w = sb_str_trim(w);
		if (rest)
			return SIZES_REST_NOT_LAST;
		if (strcmp(w, "rest") == 0) {
			rest = true;
			continue;
		}
		if (sb_parse_size(w, &u, true, &pct) < 0 || u == 0) {
			if (bad)
				*bad = strdup(w);
			return SIZES_BAD_SIZE;
		}
		if (pct)
			*pct_sum += u;
	}
	return *pct_sum > 100 ? SIZES_OVER_100 : SIZES_OK;
}

static int parse_typed(const struct sb_vrule *r, const char *text, struct sb_value *out)
{
	uint64_t sum;
	bool b;
	int rc;

	switch (r->type) {
	case SB_VT_UINT:
		return sb_parse_uint(text, 0, UINT64_MAX, &out->u) < 0 ? -EINVAL : 0;
	case SB_VT_SIZE:
		return sb_parse_size(text, &out->u, false, NULL) < 0 ? -EINVAL : 0;
	case SB_VT_SIZEPCT:
		return sb_parse_size(text, &out->u, true, &out->pct) < 0 ? -EINVAL : 0;
	case SB_VT_DURATION:
		return sb_parse_duration_ms(text, &out->u) < 0 ? -EINVAL : 0;
	case SB_VT_BOOL:
		if (sb_parse_bool(text, &b) < 0)
			return -EINVAL;
		out->u = b;
		return 0;
	case SB_VT_CHOICE:
		rc = choice_index(r->choices, text);
		if (rc < 0)
			return -EINVAL;
		out->u = (uint64_t)rc;
		return 0;
	case SB_VT_SIZES:
		rc = sizes_walk(text, NULL, &sum);
		if (rc < 0)
			return rc;
		return rc == SIZES_OK ? 0 : rc == SIZES_OVER_100 ? -ERANGE : -EINVAL;
	case SB_VT_STRING:
		return 0;
	case SB_VT_N:
		break;
	}
	return -EINVAL;
}

static bool numeric(enum sb_vtype t)
{
	return t == SB_VT_UINT || t == SB_VT_SIZE || t == SB_VT_SIZEPCT || t == SB_VT_DURATION ||
	       t == SB_VT_BOOL;
}

int sb_value_parse(const struct sb_vrule *r, const char *text, struct sb_value *out)
{
	int rc;

	*out = (struct sb_value){0};
	if (!text || (!*text && r->type != SB_VT_STRING))
		return -EINVAL;
	rc = parse_typed(r, text, out);
	if (rc < 0) {
		*out = (struct sb_value){0};
		return rc;
	}
	if (numeric(r->type) && (out->u < r->min || (r->max && out->u > r->max)))
		return -ERANGE;
	return 0;
}

char *sb_value_choices_text(const char *choices)
{
	size_t n = 0;
	for (const char *c = choices; *c; c++)
		n += *c == '|';
	/* "a|b|c" -> "a, b, c" needs one more byte per separator. */
	char *out = malloc(strlen(choices) + n + 1), *o = out;
	if (!out)
		return NULL;
	for (const char *c = choices; *c; c++) {
		if (*c == '|') {
			*o++ = ',';
			*o++ = ' ';
		} else {
			*o++ = *c;
		}
	}
	*o = '\0';
	return out;
}

/* A list of sizes' error names what is wrong in it. */
static char *sizes_error(const char *text)
{
	_cleanup_free_ char *bad = NULL;
	uint64_t sum;

	switch (sizes_walk(text, &bad, &sum)) {
	case SIZES_REST_NOT_LAST:
		return sb_asprintf("'rest' must be the last size, got '%s'", text);
	case SIZES_BAD_SIZE:
		return bad ? sb_asprintf("expected %s, got '%s'", forms[SB_VT_SIZES].key, bad)
			   : NULL;
	case SIZES_OVER_100:
		return sb_asprintf("percentages add up to %llu%%, more than 100%%",
				   (unsigned long long)sum);
	default:
		return sb_asprintf("expected %s, got '%s'", forms[SB_VT_SIZES].key, text);
	}
}

static char *key_error(const struct sb_vrule *r, const char *text)
{
	_cleanup_free_ char *c = NULL;

	switch (r->type) {
	case SB_VT_UINT:
		return sb_asprintf("expected a whole number from %llu to %llu, got '%s'",
				   (unsigned long long)r->min,
				   (unsigned long long)(r->max ? r->max : UINT64_MAX), text);
	case SB_VT_CHOICE:
		c = sb_value_choices_text(r->choices);
		return c ? sb_asprintf("expected one of %s, got '%s'", c, text) : NULL;
	case SB_VT_SIZES:
		return sizes_error(text);
	default:
		return sb_asprintf("expected %s, got '%s'", forms[r->type].key, text);
	}
}

char *sb_value_error(const struct sb_vrule *r, enum sb_vstyle style, const char *name,
		     const char *text, int rc)
{
	_cleanup_free_ char *c = NULL;

	if (r->type >= SB_VT_N)
		return sb_asprintf("no such value type %d", (int)r->type);
	if (style == SB_VSTYLE_KEY)
		return key_error(r, text);
	if (rc == -ERANGE && numeric(r->type))
		return sb_asprintf("%s=%s out of range", name, text);
	if (r->type == SB_VT_CHOICE) {
		c = sb_value_choices_text(r->choices);
		return c ? sb_asprintf("bad value '%s' for %s: expected one of %s", text, name, c)
			 : NULL;
	}
	return sb_asprintf("bad value '%s' for %s: expected %s", text, name, forms[r->type].opt);
}
