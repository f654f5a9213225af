/* The io_uring floor for `make bench`: random reads of BS bytes from FILE
 * kept QD in flight through liburing for SECONDS, with registered buffers and
 * file, as fast as the kernel goes: no per-I/O timing, no verify (the clock
 * is read once per 256 completions, only to stop). What ours is measured
 * against to see what the engine and the bookkeeping cost.
 *   uring_floor FILE SECONDS BS QD [direct]
 * Prints "iops cpu_us_per_op". */
#define _GNU_SOURCE
#include <fcntl.h>
#include <liburing.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static uint64_t x = 0x9E3779B97F4A7C15ull;

static uint64_t next_off(uint64_t nb, uint64_t bs)
{
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return (uint64_t)((((unsigned __int128)x * nb) >> 64) * bs);
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct io_uring ring;
	struct io_uring_params p;
	struct rusage ru;
	struct stat st;
	int fd, r;

	if (argc < 5 || argc > 6) {
		fprintf(stderr, "usage: uring_floor FILE SECONDS BS QD [direct]\n");
		return 2;
	}
	double secs = strtod(argv[2], NULL);
	uint64_t bs = strtoull(argv[3], NULL, 10);
	unsigned qd = (unsigned)strtoul(argv[4], NULL, 10);
	bool direct = argc == 6 && strcmp(argv[5], "direct") == 0;
	fd = open(argv[1], O_RDONLY | (direct ? O_DIRECT : 0));
	if (fd < 0 || fstat(fd, &st) < 0 || qd < 1 || qd > 4096 || bs == 0) {
		perror(argv[1]);
		return 1;
	}
	uint64_t nb = st.st_size / bs;
	struct iovec *iov = calloc(qd, sizeof(*iov));
	for (unsigned i = 0; i < qd; i++) {
		iov[i].iov_len = bs;
		if (posix_memalign(&iov[i].iov_base, 4096, bs))
			return 1;
	}
	/* As the engine sets it up: single issuer with deferred task work, the
	 * ring fd registered too. */
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
	if ((r = io_uring_queue_init_params(qd, &ring, &p)) < 0) {
		memset(&p, 0, sizeof(p));
		r = io_uring_queue_init_params(qd, &ring, &p);
	}
	if (r == 0)
		io_uring_register_ring_fd(&ring); /* as the engine: 5.18+, optional */
	if (r < 0 || (r = io_uring_register_buffers(&ring, iov, qd)) < 0 ||
	    (r = io_uring_register_files(&ring, &fd, 1)) < 0) {
		fprintf(stderr, "uring_floor: io_uring setup: %s\n", strerror(-r));
		return 1;
	}
	double t0 = now(), t1 = t0;
	uint64_t done = 0;
	for (unsigned i = 0; i < qd; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		io_uring_prep_read_fixed(sqe, 0, iov[i].iov_base, bs, next_off(nb, bs), i);
		sqe->flags |= IOSQE_FIXED_FILE;
		sqe->user_data = i;
	}
	for (uint64_t tick = 0;; tick++) {
		struct io_uring_cqe *cqe;
		unsigned head, n = 0;
		/* Submit, then wait, in two calls, as fio and the engine do (one
		 * call for both is slower on loop devices here). */
		r = io_uring_submit(&ring);
		if (r >= 0)
			r = io_uring_submit_and_wait(&ring, 1);
		if (r < 0) {
			fprintf(stderr, "uring_floor: submit: %s\n", strerror(-r));
			return 1;
		}
		io_uring_for_each_cqe(&ring, head, cqe)
		{
			unsigned i = (unsigned)cqe->user_data;
			if (cqe->res != (int)bs) {
				fprintf(stderr, "uring_floor: read: %s\n",
					cqe->res < 0 ? strerror(-cqe->res) : "short");
				return 1;
			}
			n++;
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
			io_uring_prep_read_fixed(sqe, 0, iov[i].iov_base, bs, next_off(nb, bs), i);
			sqe->flags |= IOSQE_FIXED_FILE;
			sqe->user_data = i;
		}
		io_uring_cq_advance(&ring, n);
		done += n;
		if ((tick & 255) == 0 && (t1 = now()) - t0 >= secs)
			break;
	}
	/* What is still in flight is neither counted nor waited for. */
	getrusage(RUSAGE_SELF, &ru);
	double cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
		     ru.ru_stime.tv_usec / 1e6;
	printf("%.0f %.3f\n", done / (t1 - t0), cpu * 1e6 / done);
	return 0;
}
