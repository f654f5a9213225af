/* The floor for `make bench`: random preads of BS bytes from FILE with no
 * measurement at all. Prints "iops cpu_us_per_op". */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec a, b;
	struct rusage ru;
	struct stat st;
	uint64_t ops, bs, nb, x = 0x9E3779B97F4A7C15ull;
	char *buf;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: pread_floor FILE OPS BS\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	ops = strtoull(argv[2], NULL, 10);
	bs = strtoull(argv[3], NULL, 10);
	if (fd < 0 || fstat(fd, &st) < 0 || posix_memalign((void **)&buf, 4096, bs)) {
		perror(argv[1]);
		return 1;
	}
	nb = st.st_size / bs;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (uint64_t i = 0; i < ops; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (pread(fd, buf, bs, (off_t)((((unsigned __int128)x * nb) >> 64) * bs)) !=
		    (ssize_t)bs)
			return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	getrusage(RUSAGE_SELF, &ru);
	double secs = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	double cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
		     ru.ru_stime.tv_usec / 1e6;
	printf("%.0f %.3f\n", ops / secs, cpu * 1e6 / ops);
	return 0;
}
