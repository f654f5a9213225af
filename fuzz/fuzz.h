/* Shared by the libFuzzer targets (fuzz/fuzz_*.c) and their replay test
 * (tests/unit/test_fuzz_replay.c): each target is one entry function. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
