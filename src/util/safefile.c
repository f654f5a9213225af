/* Safe files for a process running as root: nothing is opened through a
 * symlink another user could have planted, and directories another user
 * can write (and so plant one in) are refused. */
#include "util/safefile.h"
#include "util/macro.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *sb_trust_text(int r)
{
	switch (r) {
	case -ELOOP:
		return "is a symbolic link, or a path through one (refused: give the real "
		       "directory)";
	case -EPERM:
		return "is owned by another user (refused: it could be changed under us)";
	case -EACCES:
		return "is writable by group or others (refused: chmod go-w it)";
	case -ENOTDIR:
		return "is not a directory";
	}
	return strerror(-r);
}

static int check_owner_mode(const struct stat *st, bool owner_too)
{
	if (owner_too && st->st_uid != geteuid())
		return -EPERM;
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return -EACCES;
	return 0;
}

int sb_dir_open_nofollow(const char *path, bool create, mode_t mode)
{
	_cleanup_free_ char *p = strdup(path);
	char *save = NULL, *next;
	struct stat st;
	int fd, r;

	if (!p)
		return -ENOMEM;
	if (!*path)
		return -ENOENT;
	fd = open(*path == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return negerrno();
	for (char *c = strtok_r(p, "/", &save); c; c = next) {
		next = strtok_r(NULL, "/", &save);
		if (create && strcmp(c, ".") != 0 && strcmp(c, "..") != 0 &&
		    mkdirat(fd, c, next ? 0755 : mode) < 0 && errno != EEXIST) {
			r = negerrno();
			close(fd);
			return r;
		}
		int sub = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			r = negerrno();
			/* O_NOFOLLOW on a symlink to a directory: ENOTDIR (with
			 * O_DIRECTORY) or ELOOP; say which it is. */
			if ((r == -ENOTDIR || r == -ELOOP) &&
			    fstatat(fd, c, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
				r = -ELOOP;
			close(fd);
			return r;
		}
		close(fd);
		fd = sub;
	}
	return fd;
}

int sb_dir_open_trusted(const char *path, bool create, mode_t mode)
{
	struct stat st;
	int r = 0;
	int fd = sb_dir_open_nofollow(path, create, mode);

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		r = negerrno();
	else
		r = check_owner_mode(&st, true);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

int sb_file_trusted(const char *path, bool owner_too)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return negerrno();
	return check_owner_mode(&st, owner_too);
}

int sb_write_at(int dfd, const char *name, const void *data, size_t len, mode_t mode)
{
	char tmp[300];
	int r = 0;

	snprintf(tmp, sizeof(tmp), ".%s.%d.tmp", name, (int)getpid());
	unlinkat(dfd, tmp, 0); /* our own leftover from a killed run with our pid */
	_cleanup_close_ int fd =
	    openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return negerrno();
	for (size_t off = 0; off < len;) {
		ssize_t n = write(fd, (const char *)data + off, len - off);
		if (n < 0) {
			r = negerrno();
			break;
		}
		off += (size_t)n;
	}
	if (r == 0 && fsync(fd) < 0)
		r = negerrno();
	if (r == 0 && renameat(dfd, tmp, dfd, name) < 0)
		r = negerrno();
	if (r < 0)
		unlinkat(dfd, tmp, 0);
	return r;
}

int sb_open_append_at(int dfd, const char *name, mode_t mode)
{
	int fd = openat(dfd, name,
			O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, mode);
	struct stat st;
	if (fd < 0)
		return negerrno();
	/* Not a device or fifo someone left there under that name. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

int sb_create_new(const char *path, mode_t mode)
{
	_cleanup_free_ char *dir = strdup(path);
	char *slash = dir ? strrchr(dir, '/') : NULL;
	const char *base = slash ? slash + 1 : path;
	int dfd, fd;

	if (!dir)
		return -ENOMEM;
	if (!*base)
		return -EISDIR;
	if (slash)
		slash[slash == dir ? 1 : 0] = '\0';
	dfd = sb_dir_open_nofollow(slash ? dir : ".", false, 0);
	if (dfd < 0)
		return dfd;
	fd = openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		fd = negerrno();
	close(dfd);
	return fd;
}

const char *sb_file_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return "a regular file";
	case S_IFDIR:
		return "a directory";
	case S_IFIFO:
		return "a FIFO";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFSOCK:
		return "a socket";
	case S_IFLNK:
		return "a symbolic link";
	}
	return "not a regular file";
}

int sb_read_regular(const char *path, size_t max, char **buf, size_t *len, mode_t *mode)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	_cleanup_free_ char *b = NULL;
	struct stat st;
	size_t n = 0, cap, alloc = 0;

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return negerrno();
	if (fstat(fd, &st) < 0)
		return negerrno();
	if (mode)
		*mode = st.st_mode;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	/* st_size is a hint for the first allocation, never the bound */
	cap = st.st_size > 0 && (size_t)st.st_size < max ? (size_t)st.st_size + 1 : 65536;
	if (cap > max + 1)
		cap = max + 1;
	for (;;) {
		if (n == cap) {
			if (n > max)
				return -EFBIG;
			cap = cap > (max + 1) / 2 ? max + 1 : cap * 2;
		}
		if (cap + 1 > alloc) {
			char *nb = realloc(b, cap + 1);
			if (!nb)
				return -ENOMEM;
			b = nb;
			alloc = cap + 1;
		}
		ssize_t k = read(fd, b + n, cap - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return negerrno();
		if (k == 0)
			break;
		n += (size_t)k;
	}
	if (n > max)
		return -EFBIG;
	b[n] = '\0';
	*buf = TAKE_PTR(b);
	*len = n;
	return 0;
}
