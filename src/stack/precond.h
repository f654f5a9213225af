/* Preconditioning (devices.precondition): the SNIA PTS steady-state test on
 * a per-second series, pure so that it is unit-tested on synthetic series;
 * the step that discards and writes the devices is precond.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* SNIA SSS PTS 2.0.2, section 2.1.24: a measurement window of 5 rounds is
 * steady when the range of its values (max - min) is within 20% of their
 * mean, and the best-fit line's own excursion across the window
 * (|slope| * (rounds - 1)) within 10% of that mean. */
#define SB_STEADY_WINDOW 5
#define SB_STEADY_RANGE 0.20
#define SB_STEADY_SLOPE 0.10

struct sb_steady {
	double mean, range, slope; /* of the last window; slope per round */
	bool steady;
};

/* Applies the test to the last `window` values of y[0..n) (fewer: not
 * steady). A window whose mean is not above zero is not steady (a stalled
 * device is not a steady state). Returns out->steady. */
bool sb_steady_check(const double *y, size_t n, size_t window, struct sb_steady *out);
