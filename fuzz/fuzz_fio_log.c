/* libFuzzer target: fio's per-interval log lines (write_iops_log and
 * write_bw_log files the fio adapter reads back into series). Every point
 * parsed has a direction fio knows. */
#include "fuzz.h"
#include "workload/wl.h"

SB_FUZZ_TARGET(fio_log)
{
	struct sb_fio_log_pt *p = NULL;
	size_t n = 0;
	if (sb_fio_log_parse((const char *)data, size, &p, &n) == 0)
		for (size_t i = 0; i < n; i++)
			SB_FUZZ_CHECK(p[i].ddir <= 2);
	free(p);
	return 0;
}
