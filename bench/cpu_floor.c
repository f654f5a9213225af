/* The host's own floor for bench/sensitivity: the same fixed CPU work,
 * about SECS long at full speed, timed 2 * ROUNDS times, one after the
 * other. Each pair (a "round" of two variants that do the same thing)
 * gives one log ratio; their spread is what the host alone puts between two
 * sides of a round at that phase length, whatever the stack.
 *   cpu_floor SECS ROUNDS  -> one line per pair: "t_a t_b" in seconds
 * Integer additions only: no I/O, no memory to speak of, no system call
 * inside the timed part. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double timed(uint64_t iters)
{
	volatile uint64_t x = 0;
	double t0 = now();
	for (uint64_t i = 0; i < iters; i++)
		x += i;
	return now() - t0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: cpu_floor SECS ROUNDS\n");
		return 2;
	}
	double secs = strtod(argv[1], NULL);
	int rounds = atoi(argv[2]);
	if (!(secs > 0 && secs < 60) || rounds < 2 || rounds > 1000) {
		fprintf(stderr, "cpu_floor: SECS in (0, 60), ROUNDS in [2, 1000]\n");
		return 2;
	}
	/* Calibrate on the fastest of a few short runs: the host at full speed. */
	double best = 1e9;
	for (int k = 0; k < 5; k++) {
		double t = timed(2000000);
		if (t < best)
			best = t;
	}
	uint64_t iters = (uint64_t)(secs / best * 2000000);
	for (int r = 0; r < rounds; r++) {
		double a = timed(iters), b = timed(iters);
		printf("%.6f %.6f\n", a, b);
	}
	return 0;
}
