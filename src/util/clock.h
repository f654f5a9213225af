/* The monotonic clock in nanoseconds: for durations, never for dates. */
#pragma once

#include <stdint.h>
#include <time.h>

static inline uint64_t sb_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The same in seconds, for durations printed or stored as seconds. */
static inline double sb_mono_s(void)
{
	return (double)sb_mono_ns() / 1e9;
}
