/* A tool's own words (mkfs's stderr) fit to go into an error message: the
 * whole text, not its last line, bounded and with control bytes escaped. */
#pragma once

#include <stddef.h>

/* At most this many bytes of the tool's text are kept. */
#define SB_TOOL_MSG_MAX 4096

/* text[0..len) with trailing blank lines dropped, every line after the
 * first indented by indent, control bytes other than newline and tab as
 * \xNN (a terminal sees no escape sequences), cut at max bytes of input
 * with "... (N more bytes)"; a usage text (from a line "Usage:" on) is
 * left out, and said to be (malloc'ed; NULL only when out of memory). */
char *sb_tool_msg(const char *text, size_t len, size_t max, const char *indent);
