/* scenario.fill: data written before an array loses (btrfs) or regains (md)
 * a member, so that the rebuild has something to copy and, read back after
 * the run, shows whether it survived. O_DIRECT both ways: the read comes
 * from the array, not the page cache. */
#include "stack/scenario.h"
#include "util/macro.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (1u << 20)
#define BLK 4096u

/* The word at byte offset off: splitmix64 of the offset, so any block can
 * be checked on its own and no two blocks are alike (incompressible). */
static uint64_t word_at(uint64_t off)
{
	uint64_t z = off + 0x9e3779b97f4a7c15ULL * 0x5cE11;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void fill_buf(uint64_t *b, uint64_t off, size_t len)
{
	for (size_t i = 0; i < len / 8; i++)
		b[i] = word_at(off + i * 8);
}

static int path_of(const char *dir, char *p, size_t len)
{
	return snprintf(p, len, "%s/%s", dir, SB_SCEN_FILL_NAME) >= (int)len ? -ENAMETOOLONG : 0;
}

int sb_scen_fill_write(const char *dir, uint64_t bytes, volatile sig_atomic_t *stop)
{
	char p[4096];
	_cleanup_free_ uint64_t *buf = NULL;
	_cleanup_close_ int fd = -1;
	int r = path_of(dir, p, sizeof(p));

	if (r < 0)
		return r;
	if (posix_memalign((void **)&buf, BLK, CHUNK) != 0)
		return -ENOMEM;
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	bytes = (bytes + BLK - 1) / BLK * BLK;
	for (uint64_t off = 0; off < bytes; off += CHUNK) {
		size_t n = bytes - off < CHUNK ? (size_t)(bytes - off) : CHUNK;
		if (stop && *stop)
			return -EINTR;
		fill_buf(buf, off, n);
		ssize_t w = pwrite(fd, buf, n, (off_t)off);
		if (w < 0)
			return -errno;
		if ((size_t)w != n)
			return -ENOSPC;
	}
	return fsync(fd) < 0 ? -errno : 0;
}

int sb_scen_fill_verify(const char *dir, uint64_t *bad, uint64_t *checked)
{
	char p[4096];
	_cleanup_free_ uint64_t *buf = NULL, *want = NULL;
	_cleanup_close_ int fd = -1;
	int r = path_of(dir, p, sizeof(p));

	*bad = *checked = 0;
	if (r < 0)
		return r;
	fd = open(p, O_RDONLY | O_DIRECT | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (posix_memalign((void **)&buf, BLK, CHUNK) != 0 || !(want = malloc(CHUNK)))
		return -ENOMEM;
	for (uint64_t off = 0;; off += CHUNK) {
		ssize_t n = pread(fd, buf, CHUNK, (off_t)off);
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		fill_buf(want, off, (size_t)n);
		for (size_t b = 0; b < (size_t)n; b += BLK)
			*bad += memcmp((char *)buf + b, (char *)want + b,
				       (size_t)n - b < BLK ? (size_t)n - b : BLK) != 0;
		*checked += (uint64_t)n;
	}
	return 0;
}
