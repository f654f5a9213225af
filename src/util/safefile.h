/* Files written as root, safely (safefile.c): directories opened without
 * following a symlink and checked to be the caller's and writable by no
 * one else; files created inside them through the directory's fd with
 * O_NOFOLLOW|O_EXCL, under a temporary name renamed into place. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Why a directory is not trusted (static text for messages). */
const char *sb_trust_text(int r);

/* Opens path as a directory one component at a time, each with
 * O_NOFOLLOW|O_DIRECTORY from the one before (created when create:
 * parents 0755, the last with mode): no symlink on the way is followed,
 * not only the last (-ELOOP). Returns the fd (O_CLOEXEC) or -errno. */
int sb_dir_open_nofollow(const char *path, bool create, mode_t mode);

/* sb_dir_open_nofollow, and the directory must be owned by the caller
 * (-EPERM) and not writable by group or others (-EACCES). Returns the fd
 * (O_CLOEXEC) or -errno. */
int sb_dir_open_trusted(const char *path, bool create, mode_t mode);

/* Is this file's mode and owner acceptable for a profile a root run
 * follows: not writable by group or others. owner_too: also owned by the
 * caller. 0, -EACCES or -EPERM. */
int sb_file_trusted(const char *path, bool owner_too);

/* Writes data to dfd/name: a temporary file created O_EXCL|O_NOFOLLOW,
 * written, fsynced and renamed over name (a symlink there is replaced,
 * never followed). 0 or -errno. */
int sb_write_at(int dfd, const char *name, const void *data, size_t len, mode_t mode);

/* Creates path as a new regular file for writing, never through a symlink
 * (O_CREAT|O_EXCL|O_NOFOLLOW in its directory, itself reached without
 * following one): an existing file or link there is -EEXIST, never
 * truncated. Returns the fd or -errno. */
int sb_create_new(const char *path, mode_t mode);

/* Opens dfd/name for appending, creating it, never through a symlink.
 * Returns the fd or -errno. */
int sb_open_append_at(int dfd, const char *name, mode_t mode);

/* Reads the regular file path whole, at most max bytes, NUL-terminated
 * (*buf allocated, *len its length). Opened O_NONBLOCK, so that a FIFO or
 * a device (or a symlink to one) is refused at once rather than waited on:
 * -EINVAL when it is not a regular file (*mode says what it is); -EFBIG
 * when it holds more than max bytes, found by reading at most max + 1,
 * whatever its size claims (/proc, a file growing under us). Else 0 or
 * -errno. */
int sb_read_regular(const char *path, size_t max, char **buf, size_t *len, mode_t *mode);
/* "a FIFO", "a character device", "a directory"... for messages. */
const char *sb_file_kind(mode_t mode);
