/* A deterministic generator of home-directory-like trees (nested dirs, many
 * small files, some large ones), streamed through a callback so that a tree
 * of any size costs no memory. Pure: no I/O; the same params give the same
 * entries in the same order. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct sb_tree_params {
	uint64_t seed;
	uint32_t files;	  /* exactly this many files */
	uint64_t maxfile; /* largest file size */
};

struct sb_tree_entry {
	bool dir;
	const char *path; /* relative to the tree's root, '/'-separated */
	const char *name; /* last component */
	unsigned depth;	  /* 1 for entries of the root */
	uint32_t index;	  /* files: 0..files-1, also in the name ("f<index>.ext") */
	uint64_t size;	  /* files */
};

/* Calls cb for each entry, a directory before what it holds. cb returns 0 to
 * go on, anything else to stop (returned). */
typedef int (*sb_tree_cb)(void *ud, const struct sb_tree_entry *e);
int sb_tree_generate(const struct sb_tree_params *p, sb_tree_cb cb, void *ud);

/* The index in a file name made by the generator, or UINT32_MAX. */
uint32_t sb_tree_file_index(const char *name);

#define SB_TREE_MAX_DEPTH 8
