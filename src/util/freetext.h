/* Free text that reaches an external program (mkfs words, mount options,
 * bonnie++ and iozone arguments, fio job files): one checker, one table per
 * tool of {option, kind}. A word that names a device, or an option that
 * takes a path the run does not own, is refused whatever its spelling
 * (joined "-d/x", "--dir=/x", clustered "-qd /x", "=" forms); paths a tool
 * may use inside the run are handed back, to be resolved (symlinks, "..")
 * right before the tool starts. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

enum sb_ftk {
	SB_FTK_FLAG,   /* takes no value */
	SB_FTK_VALUE,  /* a number, name or "a=b,c" sub-options: never a path or device */
	SB_FTK_TEXT,   /* free text stored as is (a label): never a device */
	SB_FTK_NOPATH, /* takes a host file or directory: refused (read or written as root) */
	SB_FTK_PATH,   /* a file or directory that must lie inside the run's directory */
	SB_FTK_PATHS,  /* PATH, and every following word up to the next option (iozone -F) */
	SB_FTK_FORBID, /* refused outright, for the reason given */
};

struct sb_ft_opt {
	const char *name; /* "-d", "--rootdir", "-+m" */
	enum sb_ftk kind;
	const char *why; /* NOPATH/FORBID: what the tool would do with it */
};

struct sb_ft_tool {
	const char *name;	      /* for messages: "mke2fs" */
	const struct sb_ft_opt *opts; /* ends with {NULL} */
	/* An option not in the table: true (mkfs) takes the next word as its
	 * value unless that starts with '-'. */
	bool unknown_takes_value;
	/* Positional words: refused (mkfs would take them as devices) when
	 * false; else checked as SB_FTK_PATH. */
	bool positionals;
};

extern const struct sb_ft_tool sb_ft_mke2fs, sb_ft_mkfs_xfs, sb_ft_mkfs_btrfs, sb_ft_mkfs_any,
    sb_ft_bonnie, sb_ft_iozone;

/* The tool table of mkfs for a file system ("ext4", "xfs", "btrfs"), or
 * sb_ft_mkfs_any when it is not known yet (a profile key on its own). */
const struct sb_ft_tool *sb_ft_mkfs_tool(const char *fstype);

/* Paths the run must own, as written (relative ones to the tool's cwd). */
struct sb_ft_paths {
	char **v;
	size_t n;
};
void sb_ft_paths_free(struct sb_ft_paths *p);

/* Checks a tool's words. 0 with the paths to resolve added to *paths (may
 * be NULL: none wanted), or -EINVAL with *why (malloc'ed) naming the word
 * and the reason. Pure but for the stat of a word that could name a
 * device. */
int sb_ft_check_words(const struct sb_ft_tool *t, const char *const *w, size_t n,
		      struct sb_ft_paths *paths, char **why);
/* The same on a blank-separated string. */
int sb_ft_check_string(const struct sb_ft_tool *t, const char *s, struct sb_ft_paths *paths,
		       char **why);

/* One fio job file's text: every key that names a file, directory or
 * device, runs a command or loads code, checked; the paths (filename=,
 * logs...) added to *paths, the directory= ones (the bases of relative
 * file names) to *dirs. "include FILE" lines are left to
 * the caller (sb_ft_fio_include). -EINVAL with *why "FILE:LINE: ...". */
int sb_ft_fio_check(const char *text, const char *file, struct sb_ft_paths *paths,
		    struct sb_ft_paths *dirs, char **why);
/* A profile's free-text value: mkfs words (fs.mkfs, against every mkfs) or
 * text (mount options) that names a device, directly or through an option
 * that takes one: the message (malloc'ed), or NULL when the value is fine. */
char *sb_ft_check_key(const char *v, bool mkfs_words);
/* The file of an "include FILE" line (malloc'ed), or NULL for another line. */
char *sb_ft_fio_include(const char *line);

/* Run time, right before the tool starts: path (relative to base) with
 * every symlink that exists followed and ".." applied lies inside root and
 * is no device node. 0, or -EXDEV with *why naming the path and where it
 * leads. */
int sb_ft_path_inside(const char *path, const char *base, const char *root, char **why);
/* Every path of p, against each base in bases (n_bases >= 1). */
int sb_ft_paths_inside(const struct sb_ft_paths *p, const char *const *bases, size_t n_bases,
		       const char *root, char **why);
