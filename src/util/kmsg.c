/* Reading the kernel log since a step began, and the table of mount options
 * that the kernel removed (from each file system's documentation), so that a
 * failed mount says "xfs: Unknown parameter 'delaylog'" and why, not only
 * libmount's "wrong fs type, bad option, bad superblock". */
#include "util/kmsg.h"
#include "util/macro.h"
#include "util/strutil.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void sb_kmsg_begin(struct sb_kmsg *k)
{
	k->fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (k->fd >= 0 && lseek(k->fd, 0, SEEK_END) < 0) {
		close(k->fd);
		k->fd = -1;
	}
}

void sb_kmsg_end(struct sb_kmsg *k)
{
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
}

int sb_kmsg_parse_record(const char *rec, size_t len, const char **text, size_t *tlen,
			 unsigned *prio, unsigned long long *seq)
{
	const char *semi = memchr(rec, ';', len), *p = rec, *end;
	unsigned long long v[2] = {0, 0};

	if (!semi)
		return -EINVAL;
	/* Two decimal fields first: priority (with facility) and sequence. */
	for (int i = 0; i < 2; i++) {
		const char *d = p;
		while (p < semi && *p >= '0' && *p <= '9' && p - d < 20)
			v[i] = v[i] * 10 + (unsigned)(*p++ - '0');
		/* The sequence may end the prefix: "PRIO,SEQ;TEXT". */
		if (p == d || (*p != ',' && !(i == 1 && p == semi)))
			return -EINVAL;
		p++;
	}
	end = semi + 1;
	const char *nl = memchr(end, '\n', len - (size_t)(end - rec));
	*text = end;
	*tlen = nl ? (size_t)(nl - end) : len - (size_t)(end - rec);
	*prio = (unsigned)(v[0] & 7);
	*seq = v[1];
	return 0;
}

static bool mentions(const char *t, size_t n, const char *const *words)
{
	for (size_t w = 0; words && words[w]; w++) {
		size_t wl = strlen(words[w]);
		if (!wl || wl > n)
			continue;
		for (size_t i = 0; i + wl <= n; i++)
			if (strncasecmp(t + i, words[w], wl) == 0)
				return true;
	}
	return false;
}

char *sb_kmsg_collect(struct sb_kmsg *k, const char *const *words, size_t max)
{
	char rec[8192];
	char **keep = NULL;
	size_t n = 0, total = 0;
	char *out = NULL;

	if (k->fd < 0 || !max || !(keep = calloc(max, sizeof(*keep))))
		return NULL;
	for (;;) {
		ssize_t r = read(k->fd, rec, sizeof(rec) - 1);
		if (r < 0 && errno == EPIPE)
			continue; /* records were overwritten: go on with the next */
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break; /* EAGAIN: nothing more */
		const char *t;
		size_t tl;
		unsigned prio;
		unsigned long long seq;
		if (sb_kmsg_parse_record(rec, (size_t)r, &t, &tl, &prio, &seq) < 0 ||
		    !mentions(t, tl, words))
			continue;
		if (n == max) { /* keep the newest */
			free(keep[0]);
			memmove(keep, keep + 1, (max - 1) * sizeof(*keep));
			n--;
		}
		keep[n] = strndup(t, tl);
		if (keep[n])
			total += tl + 2, n++;
	}
	if (n && (out = malloc(total + 1))) {
		char *p = out;
		for (size_t i = 0; i < n; i++) {
			size_t l = strlen(keep[i]);
			if (i) {
				memcpy(p, "; ", 2);
				p += 2;
			}
			memcpy(p, keep[i], l);
			p += l;
		}
		*p = '\0';
	}
	for (size_t i = 0; i < n; i++)
		free(keep[i]);
	free(keep);
	return out;
}

/* Options the kernel no longer accepts. Sources: Documentation/admin-guide/
 * xfs.rst "Removed Mount Options"; btrfs's inode cache went in 5.11. */
static const struct removed {
	const char *fs, *opt, *since, *why;
} removed_opts[] = {
    {"xfs", "delaylog", "4.0", "delayed logging is always on"},
    {"xfs", "nodelaylog", "4.0", "delayed logging is always on"},
    {"xfs", "ihashsize", "4.0", NULL},
    {"xfs", "irixsgid", "4.0", NULL},
    {"xfs", "osyncisdsync", "4.0", NULL},
    {"xfs", "osyncisosync", "4.0", NULL},
    {"xfs", "barrier", "4.19", "cache flushes are always issued"},
    {"xfs", "nobarrier", "4.19", "cache flushes are always issued"},
    {"btrfs", "inode_cache", "5.11", NULL},
    {"btrfs", "noinode_cache", "5.11", NULL},
};

char *sb_mount_removed_options(const char *fstype, const char *options)
{
	char *out = NULL;

	if (!fstype || !options)
		return NULL;
	for (const char *p = options; *p;) {
		size_t l = strcspn(p, ",");
		/* "logbsize=256k": the name is before '='. */
		size_t nl = strcspn(p, ",=");
		if (nl > l)
			nl = l;
		for (size_t i = 0; i < ARRAY_SIZE(removed_opts); i++) {
			const struct removed *r = &removed_opts[i];
			if (strcmp(r->fs, fstype) != 0 || strlen(r->opt) != nl ||
			    strncmp(r->opt, p, nl) != 0)
				continue;
			char *s = sb_asprintf("%s%s%s: removed from %s in Linux %s%s%s%s",
					      out ? out : "", out ? "; " : "", r->opt, r->fs,
					      r->since, r->why ? " (" : "", r->why ? r->why : "",
					      r->why ? ")" : "");
			free(out);
			out = s;
			if (!out)
				return NULL;
		}
		p += l;
		if (*p == ',')
			p++;
	}
	return out;
}
