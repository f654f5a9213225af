/* What the loop layer asks of a loop device (loop_dev.c): attached to a
 * file, direct I/O on it, and what an earlier user left on the node. */
#pragma once
#include "stack/stack.h"

#include <stdbool.h>
#include <stddef.h>

/* A new loop device's read-ahead (VM_READAHEAD_PAGES: 32 pages of 4 KiB) */
#define SB_LOOP_READ_AHEAD_KB "128"

/* A free loop device attached to file_fd (LOOP_CONFIGURE, partition
 * scanning, direct I/O when dio): its node in dev; 0 or -errno. */
int sb_loop_attach(int file_fd, bool dio, char *dev, size_t len);
/* Direct I/O is on (sysfs loop/dio). */
bool sb_loop_dio(const char *dev);
/* One aligned O_DIRECT read works: 0 or -errno. */
int sb_loop_dio_works(const char *dev);
/* A read-only flag an earlier user left, cleared (run.log says so). */
int sb_loop_clear_stale_ro(struct sb_exec *x, const char *dev);
/* A read-ahead an earlier user left, set back to a new device's. */
int sb_loop_reset_read_ahead(struct sb_exec *x, const char *dev);
