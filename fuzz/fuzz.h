/* Shared by the libFuzzer targets (fuzz/fuzz_*.c) and their replay test
 * (tests/unit/test_fuzz_replay.c): each target is one entry function. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Built for libFuzzer, a target's entry function is libFuzzer's; built into
 * the replay test, it is sb_fuzz_NAME so that all targets can live in one
 * binary without libFuzzer. */
#ifdef SB_FUZZ_LIBFUZZER
#define SB_FUZZ_TARGET(name) int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
#else
#define SB_FUZZ_TARGET(name) int sb_fuzz_##name(const uint8_t *data, size_t size)
#endif

/* A broken invariant is a finding like a crash: abort, so that libFuzzer saves
 * the input and the replay test fails on it. */
#define SB_FUZZ_CHECK(cond)                                                                        \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__,       \
				#cond);                                                            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* The parsers take C strings: the input up to its first NUL, terminated. */
static inline char *sb_fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* Readers that take a path (sb_resultset_read) get the input as a memfd named
 * through /proc/self/fd: no files written, fast, nothing left behind. Fills
 * path (at least 64 bytes) and returns it. */
static inline const char *sb_fuzz_as_path(const void *buf, size_t len, char *path, size_t plen)
{
	static int fd = -1;

	if (fd < 0)
		fd = memfd_create("fuzz-input", MFD_CLOEXEC);
	SB_FUZZ_CHECK(fd >= 0);
	SB_FUZZ_CHECK(ftruncate(fd, 0) == 0);
	SB_FUZZ_CHECK(pwrite(fd, buf, len, 0) == (ssize_t)len);
	snprintf(path, plen, "/proc/self/fd/%d", fd);
	return path;
}
