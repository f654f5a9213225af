/* The pread floor for `make bench`: random preads of BS bytes from FILE for
 * SECONDS with no measurement at all (the clock is read once per 256 reads,
 * only to stop).
 *   pread_floor FILE SECONDS BS [direct]
 * Prints "iops cpu_us_per_op". */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	struct stat st;
	uint64_t bs, nb, x = 0x9E3779B97F4A7C15ull, i;
	char *buf;
	int fd;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: pread_floor FILE SECONDS BS [direct]\n");
		return 2;
	}
	double secs = strtod(argv[2], NULL), t0, t1;
	bs = strtoull(argv[3], NULL, 10);
	fd = open(argv[1], O_RDONLY | (argc == 5 && strcmp(argv[4], "direct") == 0 ? O_DIRECT : 0));
	if (fd < 0 || fstat(fd, &st) < 0 || bs == 0 || posix_memalign((void **)&buf, 4096, bs)) {
		perror(argv[1]);
		return 1;
	}
	nb = st.st_size / bs;
	t0 = t1 = now();
	for (i = 0;; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (pread(fd, buf, bs, (off_t)((((unsigned __int128)x * nb) >> 64) * bs)) !=
		    (ssize_t)bs) {
			perror("pread_floor: pread");
			return 1;
		}
		if ((i & 255) == 255 && (t1 = now()) - t0 >= secs)
			break;
	}
	getrusage(RUSAGE_SELF, &ru);
	double cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
		     ru.ru_stime.tv_usec / 1e6;
	printf("%.0f %.3f\n", (i + 1) / (t1 - t0), cpu * 1e6 / (i + 1));
	return 0;
}
