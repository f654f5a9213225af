/* See escape.h. */
#include "util/escape.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* The length of the valid UTF-8 sequence at s (1 for ASCII), 0 when the
 * bytes there are not one (overlong, surrogate, past U+10FFFF, cut). *cp is
 * the code point. */
static size_t utf8_seq(const unsigned char *s, size_t len, uint32_t *cp)
{
	size_t n;
	uint32_t c = s[0], min;

	if (c < 0x80)
		return *cp = c, 1;
	if ((c & 0xe0) == 0xc0)
		n = 2, c &= 0x1f, min = 0x80;
	else if ((c & 0xf0) == 0xe0)
		n = 3, c &= 0x0f, min = 0x800;
	else if ((c & 0xf8) == 0xf0)
		n = 4, c &= 0x07, min = 0x10000;
	else
		return 0;
	if (n > len)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/* Code points a terminal acts on instead of showing. */
static bool unsafe_cp(uint32_t c, unsigned flags)
{
	if ((c == '\n' || c == '\t') && (flags & SB_ESC_KEEP_NL))
		return false;
	return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) || /* C0, DEL, C1 (CSI is 0x9b) */
	       (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || /* bidi */
	       c == 0x200e || c == 0x200f || c == 0x061c;
}

/* Writes the runs of safe bytes and the escapes to f; with clean set, only
 * says whether there is anything to escape. */
static int walk(const char *str, size_t len, unsigned flags, FILE *f, bool *clean)
{
	const unsigned char *s = (const unsigned char *)str;
	/* A single-byte locale (C, POSIX) shows no UTF-8: every byte above
	 * ASCII is escaped there (libsmartcols loops on them otherwise). */
	bool ascii = MB_CUR_MAX == 1;
	size_t i = 0, run = 0;

	while (i < len) {
		uint32_t cp;
		size_t n = utf8_seq(s + i, len - i, &cp);
		/* and a code point the locale cannot print (unassigned,
		 * surrogate-like, non-characters): wcwidth says -1 */
		if (n && !unsafe_cp(cp, flags) &&
		    (cp < 0x80 || (!ascii && wcwidth((wchar_t)cp) >= 0))) {
			i += n;
			continue;
		}
		if (clean) {
			*clean = false;
			return 0;
		}
		if (i > run && fwrite(s + run, 1, i - run, f) != i - run)
			return -EIO;
		/* an unsafe code point: each of its bytes; a broken sequence: one byte */
		for (size_t k = 0; k < (n ? n : 1); k++)
			fprintf(f, "\\x%02x", s[i + k]);
		i += n ? n : 1;
		run = i;
	}
	if (clean)
		return 0;
	if (i > run && fwrite(s + run, 1, i - run, f) != i - run)
		return -EIO;
	return ferror(f) ? -EIO : 0;
}

int sb_escape_write(FILE *f, const char *s, size_t len, unsigned flags)
{
	return walk(s, len, flags, f, NULL);
}

bool sb_escape_clean(const char *s, size_t len, unsigned flags)
{
	bool clean = true;
	walk(s, len, flags, NULL, &clean);
	return clean;
}

char *sb_escape(const char *s)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	if (!s)
		return strdup("(null)");
	f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	if (sb_escape_write(f, s, strlen(s), 0) < 0) {
		fclose(f);
		free(out);
		return NULL;
	}
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

void sb_escape_html(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;
		switch (ch) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r' ? '?' : ch, f);
		}
	}
}
