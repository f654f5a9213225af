/* The boot's kept answers (answers.h): one file per answer in
 * STACKBENCH_ANSWERS_DIR (default /run/stackbench-answers: tmpfs, gone at
 * the next boot), named by the SHA-256 of its key, written to a temporary
 * name and renamed, mode 0600 in a 0700 directory that must be ours and
 * not a link. A file that is not, or is too long, counts as no answer. */
#include "stack/answers.h"
#include "util/macro.h"
#include "util/sha256.h"
#include "util/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ANSWER_MAX 4096

static const char *answers_dir(void)
{
	const char *d = getenv("STACKBENCH_ANSWERS_DIR");
	return d && *d == '/' ? d : "/run/stackbench-answers";
}

/* The directory, made if missing, and only if it is ours, 0700, no link. */
static int dir_fd(void)
{
	const char *d = answers_dir();
	struct stat st;
	if (mkdir(d, 0700) < 0 && errno != EEXIST)
		return -1;
	int fd = open(d, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077)) {
		close(fd);
		return -1;
	}
	return fd;
}

char *sb_answer_key(const char *prog, const char *const *words, size_t n)
{
	_cleanup_free_ char *path = sb_program_path(prog);
	_cleanup_free_ char *real = path ? realpath(path, NULL) : NULL;
	struct stat st;
	char *key = NULL;
	size_t len = 0;
	FILE *f;

	if (!real || stat(real, &st) < 0 || !(f = open_memstream(&key, &len)))
		return NULL;
	fprintf(f, "%s\n%llu:%llu %lld %lld.%09ld %lld.%09ld\n", real,
		(unsigned long long)st.st_dev, (unsigned long long)st.st_ino, (long long)st.st_size,
		(long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec,
		st.st_ctim.tv_nsec);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s\n", words[i]);
	if (fclose(f) != 0) {
		free(key);
		return NULL;
	}
	return key;
}

static void name_of(const char *key, char name[65])
{
	sb_sha256_hex(key, strlen(key), name);
}

char *sb_answer_get(const char *key)
{
	char name[65], *buf;
	struct stat st;
	int dfd, fd;
	ssize_t got;

	if (!key || (dfd = dir_fd()) < 0)
		return NULL;
	name_of(key, name);
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	close(dfd);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_size <= 0 || st.st_size > ANSWER_MAX || !(buf = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return NULL;
	}
	got = read(fd, buf, (size_t)st.st_size);
	close(fd);
	if (got != st.st_size || memchr(buf, '\0', (size_t)got)) {
		free(buf);
		return NULL;
	}
	buf[got] = '\0';
	return buf;
}

void sb_answer_put(const char *key, const char *answer)
{
	char name[65], tmp[80];
	size_t len = answer ? strlen(answer) : 0;
	int dfd, fd;

	if (!key || !len || len > ANSWER_MAX || (dfd = dir_fd()) < 0)
		return;
	name_of(key, name);
	snprintf(tmp, sizeof(tmp), ".%.16s.%ld", name, (long)getpid());
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0) {
		bool ok = write(fd, answer, len) == (ssize_t)len;
		ok = close(fd) == 0 && ok;
		if (!ok || renameat(dfd, tmp, dfd, name) < 0)
			unlinkat(dfd, tmp, 0);
	}
	close(dfd);
}
