/* The steady-state test of SNIA's PTS (see precond.h): range and slope of
 * the last measurement window against its mean. Pure. */
#include "stack/precond.h"

#include <math.h>
#include <string.h>

bool sb_steady_check(const double *y, size_t n, size_t window, struct sb_steady *out)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, lo, hi;
	const double *w;

	memset(out, 0, sizeof(*out));
	if (window < 2 || n < window)
		return false;
	w = y + (n - window);
	lo = hi = w[0];
	for (size_t i = 0; i < window; i++) {
		double x = (double)i;
		if (!isfinite(w[i]))
			return false;
		sx += x;
		sy += w[i];
		sxx += x * x;
		sxy += x * w[i];
		lo = w[i] < lo ? w[i] : lo;
		hi = w[i] > hi ? w[i] : hi;
	}
	double k = (double)window;
	out->mean = sy / k;
	out->range = hi - lo;
	/* least squares: slope = (n Sxy - Sx Sy) / (n Sxx - Sx^2); the
	 * denominator is > 0 for window >= 2 distinct x */
	out->slope = (k * sxy - sx * sy) / (k * sxx - sx * sx);
	out->steady = out->mean > 0 && out->range <= SB_STEADY_RANGE * out->mean &&
		      fabs(out->slope) * (k - 1) <= SB_STEADY_SLOPE * out->mean;
	return out->steady;
}
