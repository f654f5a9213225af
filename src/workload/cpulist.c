/* taskset's CPU lists (cpulist.h). */
#include "workload/cpulist.h"
#include "util/strutil.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A CPU number at *p (digits only), advancing *p. -1 when there is none or
 * it is out of range. */
static long number(const char **p)
{
	long v = 0;
	if (!isdigit((unsigned char)**p))
		return -1;
	for (; isdigit((unsigned char)**p); (*p)++) {
		v = v * 10 + (**p - '0');
		if (v >= CPU_SETSIZE)
			return -2;
	}
	return v;
}

static int bad(char **why, const char *list, const char *at, const char *what)
{
	*why = sb_asprintf("--cpus '%s': %s at '%s' (expected a list such as 0-3,6 or 0-7:2, CPUs "
			   "below %d)",
			   list, what, at, CPU_SETSIZE);
	return -EINVAL;
}

int sb_cpulist_parse(const char *list, cpu_set_t *set, char **why)
{
	const char *p = list;

	*why = NULL;
	CPU_ZERO(set);
	for (;;) {
		const char *item = p;
		long a = number(&p), b, s = 1;
		if (a < 0)
			return bad(why, list, item,
				   a == -2 ? "CPU number too large" : "no CPU number");
		b = a;
		if (*p == '-') {
			p++;
			if ((b = number(&p)) < 0)
				return bad(why, list, item, "bad range end");
			if (b < a)
				return bad(why, list, item, "range backwards");
			if (*p == ':') {
				p++;
				if ((s = number(&p)) <= 0)
					return bad(why, list, item, "bad stride");
			}
		}
		for (long c = a; c <= b; c += s)
			CPU_SET((int)c, set);
		if (*p == '\0')
			return 0;
		if (*p != ',')
			return bad(why, list, p, "unexpected character");
		p++;
	}
}

void sb_cpulist_format(const cpu_set_t *set, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE && n < len; c++) {
		int e = c;
		if (!CPU_ISSET(c, set))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		n += (size_t)snprintf(buf + n, len - n, e > c ? "%s%d-%d" : "%s%d", n ? "," : "", c,
				      e);
		c = e;
	}
}

int sb_cpulist_check(const char *list, char **why)
{
	cpu_set_t want, may;
	char out[256];
	int rc = sb_cpulist_parse(list, &want, why);
	if (rc < 0)
		return rc;
	if (sched_getaffinity(0, sizeof(may), &may) < 0)
		CPU_ZERO(&may);
	CPU_AND(&may, &want, &may);
	if (!CPU_EQUAL(&may, &want)) {
		CPU_XOR(&want, &want, &may);
		sb_cpulist_format(&want, out, sizeof(out));
		*why = sb_asprintf("--cpus '%s': CPU %s not online or not allowed for this process",
				   list, out);
		return -EINVAL;
	}
	return 0;
}
