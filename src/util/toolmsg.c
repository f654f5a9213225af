/* A tool's stderr as an error message's tail (toolmsg.h). Pure. */
#include "util/toolmsg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *sb_tool_msg(const char *text, size_t len, size_t max, const char *indent)
{
	char *out = NULL;
	size_t n = 0, keep, usage = 0;
	FILE *f = open_memstream(&out, &n);

	if (!f)
		return NULL;
	if (!text)
		len = 0;
	while (len && (text[len - 1] == '\n' || text[len - 1] == ' ' || text[len - 1] == '\r' ||
		       text[len - 1] == '\t'))
		len--;
	/* A usage text after the reason is not the reason: left out. */
	for (size_t i = 0; i + 6 < len; i++)
		if ((i == 0 || text[i - 1] == '\n') && strncmp(text + i, "Usage:", 6) == 0) {
			usage = len - i;
			len = i;
			while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
				len--;
			break;
		}
	keep = len > max ? max : len;
	for (size_t i = 0; i < keep; i++) {
		unsigned char ch = (unsigned char)text[i];
		if (ch == '\n')
			fprintf(f, "\n%s", indent ? indent : "");
		else if (ch == '\t' || (ch >= 0x20 && ch != 0x7f))
			fputc(ch, f);
		else
			fprintf(f, "\\x%02x", ch);
	}
	if (keep < len)
		fprintf(f, "... (%zu more bytes)", len - keep);
	if (usage)
		fprintf(f, "%s(and its usage text, %zu bytes)", keep ? " " : "", usage);
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}
