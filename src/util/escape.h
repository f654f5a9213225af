/* Text from outside (variant, host, workload and job names, labels, notes)
 * made safe to print on a terminal: control characters, C1 controls, bidi
 * overrides and bytes that are not UTF-8 (in a single-byte locale such as
 * C, every byte above ASCII) become \xHH, as libsmartcols prints them in
 * table cells, so that a name cannot move the cursor, clear
 * the screen, forge a line or reorder what follows it (escape.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum {
	SB_ESC_KEEP_NL = 1 << 0, /* keep '\n' (and '\t'): for whole lines of a report */
};

/* Writes s[0..len) to f escaped. Returns 0 or -EIO. */
int sb_escape_write(FILE *f, const char *s, size_t len, unsigned flags);
/* s escaped, newlines too, allocated; NULL when out of memory. NULL in is
 * "(null)" out. */
char *sb_escape(const char *s);
/* Whether s needs no escaping (flags as above). */
bool sb_escape_clean(const char *s, size_t len, unsigned flags);

/* Text as HTML/XML character data or attribute value (&<>" escaped; C0
 * controls other than tab and newlines, which XML 1.0 has no place for, as
 * '?'): the one escaper of the HTML, JUnit, fleet and history outputs. */
void sb_escape_html(FILE *f, const char *s);
