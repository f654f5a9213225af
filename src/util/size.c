/* See size.h. Pure functions, unit-tested in tests/unit/test_size.c. */
#include "util/size.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int sb_parse_size(const char *s, uint64_t *out, bool percent_ok, bool *is_percent)
{
	char *end;
	double v;
	uint64_t mult = 1;

	if (is_percent)
		*is_percent = false;
	if (!s)
		return -EINVAL;
	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s) && *s != '.')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return -EINVAL;
	while (isspace((unsigned char)*end))
		end++;

	if (*end == '%') {
		if (!percent_ok || end[1] != '\0' || v > 100)
			return -EINVAL;
		if (is_percent)
			*is_percent = true;
		*out = (uint64_t)v;
		return 0;
	}

	switch (toupper((unsigned char)*end)) {
	case '\0':
		break;
	case 'B':
		end++;
		break;
	case 'K':
		mult = 1ULL << 10;
		end++;
		break;
	case 'M':
		mult = 1ULL << 20;
		end++;
		break;
	case 'G':
		mult = 1ULL << 30;
		end++;
		break;
	case 'T':
		mult = 1ULL << 40;
		end++;
		break;
	case 'P':
		mult = 1ULL << 50;
		end++;
		break;
	default:
		return -EINVAL;
	}
	/* Accept "KiB", "KB", "K". */
	if (mult > 1) {
		if (*end == 'i' || *end == 'I')
			end++;
		if (*end == 'b' || *end == 'B')
			end++;
	}
	if (*end != '\0')
		return -EINVAL;
	if (v * (double)mult >= 18446744073709551615.0)
		return -ERANGE;
	if (mult == 1 && v != floor(v))
		return -EINVAL;
	/* not llround(): it gives garbage from LLONG_MAX to 2^64 (fuzz/fuzz_size.c) */
	*out = (uint64_t)round(v * (double)mult);
	return 0;
}

const char *sb_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "BKMGTP";
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu", (unsigned long long)bytes);
	else if (v == floor(v))
		snprintf(buf, len, "%.0f%c", v, units[u]);
	else
		snprintf(buf, len, "%.1f%c", v, units[u]);
	return buf;
}

int sb_parse_duration_ms(const char *s, uint64_t *out_ms)
{
	char *end;
	double v, mult = 1000;

	if (!s || !(isdigit((unsigned char)*s) || *s == '.'))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return -EINVAL;
	if (*end == '\0' || strcmp(end, "s") == 0)
		mult = 1000;
	else if (strcmp(end, "ms") == 0)
		mult = 1;
	else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
		mult = 60 * 1000;
	else if (strcmp(end, "h") == 0)
		mult = 3600 * 1000;
	else
		return -EINVAL;
	/* llround() past LLONG_MAX gives garbage, not an error (found by fuzz/fuzz_size.c) */
	v *= mult;
	if (v >= 18446744073709551615.0)
		return -ERANGE;
	*out_ms = (uint64_t)round(v);
	return 0;
}
