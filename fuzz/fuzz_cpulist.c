/* libFuzzer target: --cpus lists (taskset's form) and the /proc/PID/stat
 * lines the cost rows read for the loop devices' kernel workers. A list
 * accepted prints as a list that parses to the same set; a stat line
 * accepted gives a comm inside the line. */
#include "fuzz.h"
#include "workload/cost.h"
#include "workload/cpulist.h"

#include <errno.h>

SB_FUZZ_TARGET(cpulist)
{
	char *s = sb_fuzz_strndup(data, size), *why = NULL, out[8192], comm[64];
	cpu_set_t a, b;
	uint64_t ticks;
	int ppid, r = sb_cpulist_parse(s, &a, &why);

	SB_FUZZ_CHECK(r == 0 || r == -EINVAL);
	SB_FUZZ_CHECK((r == 0) == (why == NULL));
	free(why);
	if (r == 0) {
		sb_cpulist_format(&a, out, sizeof(out));
		SB_FUZZ_CHECK(sb_cpulist_parse(out, &b, &why) == 0);
		SB_FUZZ_CHECK(CPU_EQUAL(&a, &b));
	}
	r = sb_kw_parse_stat(s, comm, sizeof(comm), &ppid, &ticks);
	SB_FUZZ_CHECK(r == 0 || r == -EINVAL);
	if (r == 0)
		SB_FUZZ_CHECK(strlen(comm) < sizeof(comm) && strchr(s, '(') != NULL);
	free(s);
	return 0;
}
