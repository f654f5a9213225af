/* The value types option tables are made of, profile keys and workload spec
 * options alike: one parser per type, and the error texts of each type in
 * one place (value.c). A table's own types (a profile's roles, a workload
 * spec) are checked by its owner on top of these. Pure. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

enum sb_vtype {
	SB_VT_UINT,	/* decimal digits, min..max */
	SB_VT_SIZE,	/* "2G", in bytes */
	SB_VT_DURATION, /* "30s", "10m", "250ms", in milliseconds */
	SB_VT_BOOL,	/* yes/no, true/false, on/off, 1/0 */
	SB_VT_STRING,	/* any text, as it is */
	SB_VT_SIZEPCT,	/* "2G" or "50%" */
	SB_VT_SIZES,	/* a list: "50%,50%" or "10G,rest" ("rest" last) */
	SB_VT_CHOICE,	/* one of the rule's choices ("a|b|c") */
	SB_VT_N,
};

/* What a value must be: its type and, for the numbers (sizes and durations
 * too), the bounds of the parsed value (max 0: no upper bound). */
struct sb_vrule {
	enum sb_vtype type;
	uint64_t min, max;
	const char *choices; /* SB_VT_CHOICE */
};

/* A parsed value. u: the number (UINT), bytes (SIZE, SIZEPCT), ms
 * (DURATION), 0 or 1 (BOOL), the choice's index (CHOICE); pct: SIZEPCT's
 * u is a percentage. STRING and SIZES leave it zero (the text is the value). */
struct sb_value {
	uint64_t u;
	bool pct;
};

/* 0; -EINVAL when text is not of the type (empty text is not, but for
 * STRING; a number too large for 64 bits is not); -ERANGE when it is but
 * lies outside min..max (SIZES: percentages above 100 in all); then *out
 * holds the value read, so the caller may say which. -ENOMEM. */
int sb_value_parse(const struct sb_vrule *r, const char *text, struct sb_value *out);

/* How an error is worded: a profile key's ("expected a size such as 512M or
 * 2G, got 'x'") or a workload option's ("bad value 'x' for size: expected
 * a size such as 4k, 512M, 2G", "threads=0 out of range"). */
enum sb_vstyle { SB_VSTYLE_KEY, SB_VSTYLE_OPT };

/* The message for text, refused by sb_value_parse with rc, of the value
 * named name (SB_VSTYLE_OPT's key). malloc'ed; NULL when out of memory. */
char *sb_value_error(const struct sb_vrule *r, enum sb_vstyle style, const char *name,
		     const char *text, int rc);

/* "a|b|c" -> "a, b, c", malloc'ed (NULL when out of memory). */
char *sb_value_choices_text(const char *choices);
