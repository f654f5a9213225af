/* A variant's free text judged before anything is written (wordcheck.c):
 * its mount options by the kernel, its mkfs words by mkfs's dry run. */
#pragma once

#include "stack/stack.h"

struct sb_wordcheck {
	/* in */
	const char *scratch; /* a directory of the caller's for scratch files */
	/* Sizes of the devices the plan's variables stand for ("ssd" ->
	 * bytes), besides its own loop devices (--devices). */
	const char *const *vars;
	const uint64_t *sizes;
	size_t n_vars;
	volatile sig_atomic_t *stop; /* set by a signal: the check ends (-EINTR) */
	/* out (malloc'ed) */
	int key;	  /* the profile key whose value was rejected */
	char *error;	  /* what was rejected and the tool's or kernel's words */
	char *mount_note; /* how the mount options were checked, or why not */
	char *mkfs_note;  /* how the mkfs words were checked, or why not */
};

/* 0: nothing rejected; 1: w->error and w->key say what; -errno. The notes
 * are set either way. */
int sb_wordcheck_plan(const struct sb_plan *p, struct sb_wordcheck *w);
void sb_wordcheck_release(struct sb_wordcheck *w);

/* Every variant's plan checked in a scratch directory of its own (made in
 * the state directory, else /var/tmp, removed after); what each check did
 * is listed on notes (when not NULL), one line a variant and check. The
 * first rejection is reported on stderr as "PROFILE:LINE: variant N
 * (NAME): ..." and ends the check: returns 1 then, else 0 or -errno
 * (-EINTR: stopped by *stop). */
int sb_wordcheck_variants(const char *profile_path, const struct sb_pvariant *var,
			  const struct sb_plan *plans, size_t n, const char *const *vars,
			  const uint64_t *sizes, size_t n_vars, volatile sig_atomic_t *stop,
			  FILE *notes);
