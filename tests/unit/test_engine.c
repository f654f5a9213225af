/* The I/O engines against a real file: what one engine wrote the other reads
 * back, at every queue depth from 1 to 256, with and without registered
 * buffers and file; short reads at end of file; refusals that say why. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine/engine.h"
#include "util/macro.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BS 4096u
#define NBLK 512u

static int tmpfile_fd(void)
{
	char path[] = "/tmp/sb-engine-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	return fd;
}

static void fill(char *b, unsigned blk, unsigned gen)
{
	for (unsigned i = 0; i < BS; i += 8) {
		uint64_t w = (blk + 1) * 0x9E3779B97F4A7C15ull ^ (i * 0xBF58476D1CE4E5B9ull) ^ gen;
		memcpy(b + i, &w, 8);
	}
}

/* Moves every block once, in a shuffled order, qd in flight at most. */
static void transfer(const struct sb_engine_ops *ops, int fd, unsigned qd, bool fixed,
		     enum sb_io_op op, unsigned gen, char **bufs)
{
	struct sb_engine e;
	struct sb_engine_cfg cfg = {.fd = fd,
				    .qd = qd,
				    .bufs = (void *const *)bufs,
				    .n_bufs = qd,
				    .buf_len = BS,
				    .fixed_bufs = fixed,
				    .fixed_files = fixed};
	char *why = NULL;
	int r = sb_engine_init(&e, ops, &cfg, &why);
	if (r < 0)
		fail_msg("%s qd=%u: init: %s (%s)", ops->name, qd, strerror(-r), why ? why : "");
	struct sb_io *ios = calloc(qd, sizeof(*ios)), **done = calloc(qd, sizeof(*done));
	unsigned *order = calloc(NBLK, sizeof(*order)), *free_slots = calloc(qd, sizeof(unsigned));
	unsigned next = 0, completed = 0, nfree = qd;
	uint64_t rng = 88172645463325252ull + qd;

	for (unsigned i = 0; i < NBLK; i++)
		order[i] = i;
	for (unsigned i = NBLK - 1; i > 0; i--) {
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		unsigned j = (unsigned)(rng % (i + 1)), t = order[i];
		order[i] = order[j], order[j] = t;
	}
	for (unsigned i = 0; i < qd; i++)
		free_slots[i] = i;
	while (completed < NBLK) {
		while (nfree && next < NBLK) {
			unsigned s = free_slots[--nfree], blk = order[next++];
			struct sb_io *io = &ios[s];
			*io = (struct sb_io){.buf = bufs[s], .off = (uint64_t)blk * BS, .len = BS,
					     .buf_index = (uint16_t)s, .op = (uint8_t)op};
			if (op == SB_IO_WRITE)
				fill(bufs[s], blk, gen);
			assert_int_equal(sb_engine_queue(&e, io), 0);
		}
		assert_int_equal(sb_engine_submit(&e), 0);
		int n = sb_engine_reap(&e, 1, done, qd);
		assert_true(n >= 1);
		for (int i = 0; i < n; i++) {
			struct sb_io *io = done[i];
			assert_int_equal(io->res, (int)BS);
			if (op == SB_IO_READ) {
				char want[BS];
				fill(want, (unsigned)(io->off / BS), gen);
				if (memcmp(io->buf, want, BS) != 0)
					fail_msg("%s qd=%u: block %llu read back wrong", ops->name, qd,
						 (unsigned long long)(io->off / BS));
			}
			free_slots[nfree++] = (unsigned)(io - ios);
			completed++;
		}
	}
	assert_int_equal(e.inflight, 0);
	sb_engine_cleanup(&e);
	free(ios), free(done), free(order), free(free_slots), free(why);
}

static void test_round_trip(void **state)
{
	static const unsigned qds[] = {1, 2, 8, 32, 128, 256};
	char *why = NULL;
	bool uring = sb_engine_io_uring.probe(&why) == 0;
	char **bufs = calloc(256, sizeof(*bufs));

	if (!uring)
		print_message("io_uring not available here (%s): psync only\n", why);
	free(why);
	for (unsigned i = 0; i < 256; i++)
		assert_int_equal(posix_memalign((void **)&bufs[i], 4096, BS), 0);
	for (size_t q = 0; q < ARRAY_SIZE(qds); q++)
		for (int w = 0; w < 2; w++)
			for (int fixed = 0; fixed < 2; fixed++) {
				const struct sb_engine_ops *wr = w ? &sb_engine_io_uring
								   : &sb_engine_psync,
							   *rd = w ? &sb_engine_psync
								   : &sb_engine_io_uring;
				if (!uring && (w || rd == &sb_engine_io_uring))
					continue;
				if (fixed && wr == &sb_engine_psync && rd == &sb_engine_psync)
					continue;
				int fd = tmpfile_fd();
				unsigned gen = (unsigned)(q * 4 + w * 2 + fixed);
				transfer(wr, fd, qds[q], fixed, SB_IO_WRITE, gen, bufs);
				transfer(rd, fd, qds[q], fixed, SB_IO_READ, gen, bufs);
				close(fd);
			}
	for (unsigned i = 0; i < 256; i++)
		free(bufs[i]);
	free(bufs);
}

/* A read past the end of the file completes short, it does not spin. */
static void test_short_read(void **state)
{
	for (size_t k = 0; k < sb_n_engines; k++) {
		const struct sb_engine_ops *ops = sb_engines[k];
		char *why = NULL;
		if (ops->probe(&why) < 0) {
			free(why);
			continue;
		}
		int fd = tmpfile_fd();
		char buf[8192], data[10240];
		memset(data, 'x', sizeof(data));
		assert_int_equal(pwrite(fd, data, sizeof(data), 0), (ssize_t)sizeof(data));
		void *bufs[] = {buf};
		struct sb_engine e;
		struct sb_engine_cfg cfg = {.fd = fd, .qd = 4, .bufs = bufs, .n_bufs = 1,
					    .buf_len = sizeof(buf)};
		assert_int_equal(sb_engine_init(&e, ops, &cfg, &why), 0);
		struct sb_io io = {.buf = buf, .off = 8192, .len = 8192, .op = SB_IO_READ}, *d[4];
		assert_int_equal(sb_engine_queue(&e, &io), 0);
		assert_int_equal(sb_engine_submit(&e), 0);
		assert_int_equal(sb_engine_reap(&e, 1, d, 4), 1);
		assert_ptr_equal(d[0], &io);
		assert_int_equal(io.res, 2048);
		/* Entirely past the end: 0 bytes. */
		io = (struct sb_io){.buf = buf, .off = 65536, .len = 4096, .op = SB_IO_READ};
		assert_int_equal(sb_engine_queue(&e, &io), 0);
		assert_int_equal(sb_engine_submit(&e), 0);
		assert_int_equal(sb_engine_reap(&e, 1, d, 4), 1);
		assert_int_equal(io.res, 0);
		/* Nothing in flight: reap returns at once. */
		assert_int_equal(sb_engine_reap(&e, 1, d, 4), 0);
		sb_engine_cleanup(&e);
		close(fd);
		free(why);
	}
}

static uint64_t mono_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* reap_wait, the open loop's wait: with nothing in flight it returns at once;
 * a completion ends the wait early; with an I/O that cannot complete (a read
 * of an empty pipe) it gives up after the timeout, and the I/O is still
 * reaped when it does complete. */
static void test_reap_wait(void **state)
{
	for (size_t k = 0; k < sb_n_engines; k++) {
		const struct sb_engine_ops *ops = sb_engines[k];
		char *why = NULL;
		if (ops->probe(&why) < 0) {
			free(why);
			continue;
		}
		int fd = tmpfile_fd();
		char buf[4096];
		memset(buf, 'y', sizeof(buf));
		assert_int_equal(pwrite(fd, buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
		void *bufs[] = {buf};
		struct sb_engine e;
		struct sb_engine_cfg cfg = {.fd = fd, .qd = 2, .bufs = bufs, .n_bufs = 1,
					    .buf_len = sizeof(buf)};
		struct sb_io io = {.buf = buf, .len = 4096, .op = SB_IO_READ}, *d[2];
		assert_int_equal(sb_engine_init(&e, ops, &cfg, &why), 0);
		uint64_t t0 = mono_ms();
		assert_int_equal(sb_engine_reap_wait(&e, 5000000000ull, d, 2), 0);
		assert_true(mono_ms() - t0 < 1000);
		assert_int_equal(sb_engine_queue(&e, &io), 0);
		t0 = mono_ms();
		assert_int_equal(sb_engine_reap_wait(&e, 10000000000ull, d, 2), 1);
		assert_true(mono_ms() - t0 < 5000);
		assert_ptr_equal(d[0], &io);
		assert_int_equal(io.res, 4096);
		assert_int_equal(e.inflight, 0);
		sb_engine_cleanup(&e);
		close(fd);
		free(why);
	}
	char *why = NULL;
	if (sb_engine_io_uring.probe(&why) < 0) {
		free(why);
		return;
	}
	int p[2];
	char buf[64];
	assert_int_equal(pipe(p), 0);
	void *bufs[] = {buf};
	struct sb_engine e;
	struct sb_engine_cfg cfg = {.fd = p[0], .qd = 2, .bufs = bufs, .n_bufs = 1,
				    .buf_len = sizeof(buf)};
	struct sb_io io = {.buf = buf, .len = 1, .op = SB_IO_READ}, *d[2];
	assert_int_equal(sb_engine_init(&e, &sb_engine_io_uring, &cfg, &why), 0);
	assert_int_equal(sb_engine_queue(&e, &io), 0);
	uint64_t t0 = mono_ms();
	assert_int_equal(sb_engine_reap_wait(&e, 100000000ull, d, 2), 0);
	uint64_t waited = mono_ms() - t0;
	assert_true(waited >= 90 && waited < 5000);
	assert_int_equal(e.inflight, 1);
	assert_int_equal(write(p[1], "z", 1), 1);
	assert_int_equal(sb_engine_reap_wait(&e, 10000000000ull, d, 2), 1);
	assert_int_equal(io.res, 1);
	assert_int_equal(buf[0], 'z');
	sb_engine_cleanup(&e);
	close(p[0]);
	close(p[1]);
	free(why);
}

static void test_refusals(void **state)
{
	char *why = NULL;
	if (sb_engine_io_uring.probe(&why) < 0) {
		free(why);
		skip();
	}
	int fd = tmpfile_fd();
	struct sb_engine e;
	struct sb_engine_cfg cfg = {.fd = fd, .qd = 4, .hipri = true};
	/* Completion polling without O_DIRECT. */
	assert_int_equal(sb_engine_init(&e, &sb_engine_io_uring, &cfg, &why), -EINVAL);
	assert_non_null(why);
	assert_non_null(strstr(why, "direct=1"));
	free(why);
	/* Bad arguments. */
	cfg = (struct sb_engine_cfg){.fd = fd, .qd = 0};
	assert_int_equal(sb_engine_init(&e, &sb_engine_psync, &cfg, &why), -EINVAL);
	cfg = (struct sb_engine_cfg){.fd = fd, .qd = 4, .fixed_bufs = true};
	assert_int_equal(sb_engine_init(&e, &sb_engine_io_uring, &cfg, &why), -EINVAL);
	close(fd);
	assert_ptr_equal(sb_engine_find("io_uring"), &sb_engine_io_uring);
	assert_ptr_equal(sb_engine_find("psync"), &sb_engine_psync);
	assert_null(sb_engine_find("libaio"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_short_read),
	    cmocka_unit_test(test_reap_wait),
	    cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
