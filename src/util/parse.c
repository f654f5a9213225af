/* See parse.h. */
#include "util/parse.h"
#include "util/macro.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

int sb_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = {"yes", "true", "on", "1"}, *const no[] = {"no", "false",
										    "off", "0"};
	for (size_t i = 0; s && i < ARRAY_SIZE(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0)
			return *out = true, 0;
		if (strcasecmp(s, no[i]) == 0)
			return *out = false, 0;
	}
	return -EINVAL;
}

int sb_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || !*s)
		return -EINVAL;
	/* Not a number at all is told apart from a number too large. */
	for (const char *c = s; *c; c++)
		if (!isdigit((unsigned char)*c))
			return -EINVAL;
	for (const char *c = s; *c; c++) {
		unsigned d = (unsigned)(*c - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

uint64_t sb_u64_of_double(double d)
{
	if (!(d > 0))
		return 0; /* also NaN */
	if (d >= 18446744073709551616.0)
		return UINT64_MAX;
	return (uint64_t)d;
}

int sb_scheduler_parse(const char *text, char *cur, size_t len, char *names, size_t nlen)
{
	char found[64] = "";
	size_t nwords = 0, off = 0;
	bool bracketed = false;

	if (names && nlen)
		names[0] = '\0';
	if (!text)
		return -EINVAL;
	for (const char *p = text; *p;) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		const char *e = p;
		while (*e && !isspace((unsigned char)*e))
			e++;
		size_t n = (size_t)(e - p);
		bool br = n >= 2 && p[0] == '[' && p[n - 1] == ']';
		const char *w = br ? p + 1 : p;
		size_t wn = br ? n - 2 : n;
		if (!wn || memchr(w, '[', wn) || memchr(w, ']', wn))
			return -EINVAL;
		if (br) {
			if (bracketed)
				return -EINVAL; /* two in use */
			if (wn >= sizeof(found))
				return -ENOBUFS;
			bracketed = true;
			snprintf(found, sizeof(found), "%.*s", (int)wn, w);
		} else if (nwords == 0 && wn < sizeof(found)) {
			snprintf(found, sizeof(found), "%.*s", (int)wn, w);
		}
		if (names && nlen) {
			int k =
			    snprintf(names + off, nlen - off, "%s%.*s", off ? " " : "", (int)wn, w);
			if (k < 0 || (size_t)k >= nlen - off)
				return -ENOBUFS;
			off += (size_t)k;
		}
		nwords++;
		p = e;
	}
	if (nwords == 0 || (!bracketed && nwords > 1))
		return -EINVAL;
	/* the one word, too long to be a scheduler's name */
	if (!found[0] || strlen(found) >= len)
		return -ENOBUFS;
	snprintf(cur, len, "%s", found);
	return 0;
}

bool sb_modules_dep_has_iosched(const char *line, const char *name)
{
	const char *colon = strchr(line, ':');
	size_t n = colon ? (size_t)(colon - line) : 0, nl = strlen(name);
	const char *base = line;
	for (size_t i = 0; i < n; i++)
		if (line[i] == '/')
			base = line + i + 1;
	const char *ko = colon ? memmem(base, (size_t)(colon - base), ".ko", 3) : NULL;
	if (!ko || !nl)
		return false;
	/* ".ko" ends the path or is followed by a compression suffix */
	if (ko + 3 != colon && ko[3] != '.')
		return false;
	size_t stem = (size_t)(ko - base);
	return strncmp(base, name, nl) == 0 &&
	       (stem == nl || (stem == nl + 8 && strncmp(base + nl, "-iosched", 8) == 0));
}

int sb_vpd80_serial(const unsigned char *buf, size_t len, char *out, size_t olen)
{
	size_t n, a = 4;

	if (len < 4 || buf[1] != 0x80)
		return -EINVAL;
	n = (size_t)buf[2] << 8 | buf[3];
	if (n > len - 4)
		return -EINVAL;
	n += 4;
	while (a < n && buf[a] == ' ')
		a++;
	while (n > a && (buf[n - 1] == ' ' || buf[n - 1] == '\0'))
		n--;
	if (a == n)
		return -EINVAL;
	for (size_t i = a; i < n; i++)
		if (buf[i] < 0x20 || buf[i] > 0x7e)
			return -EINVAL;
	if (n - a >= olen)
		return -ENOBUFS;
	memcpy(out, buf + a, n - a);
	out[n - a] = '\0';
	return 0;
}

int sb_vpd80_serial_file(const char *path, char *out, size_t olen)
{
	unsigned char buf[260];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t k;

	if (fd < 0)
		return -errno;
	k = read(fd, buf, sizeof(buf));
	int e = errno;
	close(fd);
	if (k < 0)
		return -e;
	return sb_vpd80_serial(buf, (size_t)k, out, olen);
}
