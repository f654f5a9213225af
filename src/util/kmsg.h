/* The kernel's own words about a failed step: what it logged to /dev/kmsg
 * since the step began, filtered to the objects involved, and which mount
 * options a current kernel no longer knows. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct sb_kmsg {
	int fd; /* /dev/kmsg positioned at the end when the step began; -1: none */
};

/* Remembers where the kernel log ends now. Never fails the caller: without
 * /dev/kmsg (not root, a container) collect simply finds nothing. */
void sb_kmsg_begin(struct sb_kmsg *k);
/* The messages logged since begin that mention one of words (matched
 * case-insensitively as a substring, e.g. "loop3", "xfs"), at most max of
 * them, newest last, joined by "; ". NULL when there are none. */
char *sb_kmsg_collect(struct sb_kmsg *k, const char *const *words, size_t max);
void sb_kmsg_end(struct sb_kmsg *k);

/* Pure: one /dev/kmsg record "PRIO,SEQ,USEC,FLAGS[,...];TEXT\n[ KEY=VALUE\n]..."
 * -> its text (not terminated) and priority (facility stripped). 0 or -EINVAL. */
int sb_kmsg_parse_record(const char *rec, size_t len, const char **text, size_t *tlen,
			 unsigned *prio, unsigned long long *seq);

/* Pure: for a file-system type and its comma-separated mount options, a
 * sentence naming each option that Linux removed ("delaylog: removed from
 * xfs in Linux 4.0 (delayed logging is always on)"), or NULL. */
char *sb_mount_removed_options(const char *fstype, const char *options);
