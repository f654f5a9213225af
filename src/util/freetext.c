/* Free text that reaches a program's argv, the kernel or a job file
 * unparsed must not name a device (one that was never probed, refused or
 * confirmed, and that undo never cleans) nor a host file the program would
 * read or write as root. One scanner reads any tool's words against that
 * tool's table (below): getopt's clustered and joined short options
 * ("-qd/x"), long options with "=" or the next word, sub-option lists
 * ("-l logdev=/dev/x"), positionals. What a tool may use inside the run
 * (bonnie++ -d, fio's filename=) comes back as paths, which the workload
 * resolves right before the tool starts (sb_ft_path_inside). */
#include "util/freetext-int.h"
#include "util/macro.h"
#include "util/strutil.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define INSTEAD                                                                                    \
	"only devices given with --devices (or made by --loop) are written, after their "          \
	"checks; an external log device is a role of its own: fs.log = ROLE"
#define HOSTFILE "files outside the run are never handed to a tool running as root"

/* ---- the tables ---- */

#define COPY_IN "copies a host directory or file into the new file system"
static const struct sb_ft_opt mke2fs_opts[] = {
    {"-c", SB_FTK_FLAG, NULL},
    {"-D", SB_FTK_FLAG, NULL},
    {"-F", SB_FTK_FLAG, NULL},
    {"-j", SB_FTK_FLAG, NULL},
    {"-n", SB_FTK_FLAG, NULL},
    {"-q", SB_FTK_FLAG, NULL},
    {"-S", SB_FTK_FLAG, NULL},
    {"-v", SB_FTK_FLAG, NULL},
    {"-V", SB_FTK_FLAG, NULL},
    {"-K", SB_FTK_FLAG, NULL},
    {"-b", SB_FTK_VALUE, NULL},
    {"-C", SB_FTK_VALUE, NULL},
    {"-e", SB_FTK_VALUE, NULL},
    {"-E", SB_FTK_VALUE, NULL},
    {"-g", SB_FTK_VALUE, NULL},
    {"-G", SB_FTK_VALUE, NULL},
    {"-i", SB_FTK_VALUE, NULL},
    {"-I", SB_FTK_VALUE, NULL},
    {"-J", SB_FTK_VALUE, NULL},
    {"-m", SB_FTK_VALUE, NULL},
    {"-N", SB_FTK_VALUE, NULL},
    {"-o", SB_FTK_VALUE, NULL},
    {"-O", SB_FTK_VALUE, NULL},
    {"-r", SB_FTK_VALUE, NULL},
    {"-t", SB_FTK_VALUE, NULL},
    {"-T", SB_FTK_VALUE, NULL},
    {"-U", SB_FTK_VALUE, NULL},
    {"-L", SB_FTK_TEXT, NULL},
    {"-M", SB_FTK_TEXT, NULL},
    {"-d", SB_FTK_NOPATH, COPY_IN},
    {"-z", SB_FTK_NOPATH, "writes an undo file on the host, which outlives teardown"},
    {"-l", SB_FTK_NOPATH, "reads a bad-blocks list from a host file"},
    {NULL},
};

static const struct sb_ft_opt xfs_opts[] = {
    {"-f", SB_FTK_FLAG, NULL},
    {"-K", SB_FTK_FLAG, NULL},
    {"-N", SB_FTK_FLAG, NULL},
    {"-q", SB_FTK_FLAG, NULL},
    {"-V", SB_FTK_FLAG, NULL},
    {"-b", SB_FTK_VALUE, NULL},
    {"-d", SB_FTK_VALUE, NULL},
    {"-i", SB_FTK_VALUE, NULL},
    {"-l", SB_FTK_VALUE, NULL},
    {"-m", SB_FTK_VALUE, NULL},
    {"-n", SB_FTK_VALUE, NULL},
    {"-r", SB_FTK_VALUE, NULL},
    {"-s", SB_FTK_VALUE, NULL},
    {"-L", SB_FTK_TEXT, NULL},
    {"-p", SB_FTK_NOPATH, "reads a prototype file from the host and copies the tree it names in"},
    {"-c", SB_FTK_NOPATH, "reads a configuration file from the host"},
    {NULL},
};

static const struct sb_ft_opt btrfs_opts[] = {
    {"-f", SB_FTK_FLAG, NULL},
    {"--force", SB_FTK_FLAG, NULL},
    {"-q", SB_FTK_FLAG, NULL},
    {"--quiet", SB_FTK_FLAG, NULL},
    {"-v", SB_FTK_FLAG, NULL},
    {"--verbose", SB_FTK_FLAG, NULL},
    {"-V", SB_FTK_FLAG, NULL},
    {"--version", SB_FTK_FLAG, NULL},
    {"-K", SB_FTK_FLAG, NULL},
    {"--nodiscard", SB_FTK_FLAG, NULL},
    {"-M", SB_FTK_FLAG, NULL},
    {"--mixed", SB_FTK_FLAG, NULL},
    {"--shrink", SB_FTK_FLAG, NULL},
    {"--help", SB_FTK_FLAG, NULL},
    {"-b", SB_FTK_VALUE, NULL},
    {"--byte-count", SB_FTK_VALUE, NULL},
    {"--csum", SB_FTK_VALUE, NULL},
    {"--checksum", SB_FTK_VALUE, NULL},
    {"-d", SB_FTK_VALUE, NULL},
    {"--data", SB_FTK_VALUE, NULL},
    {"-m", SB_FTK_VALUE, NULL},
    {"--metadata", SB_FTK_VALUE, NULL},
    {"-n", SB_FTK_VALUE, NULL},
    {"--nodesize", SB_FTK_VALUE, NULL},
    {"-s", SB_FTK_VALUE, NULL},
    {"--sectorsize", SB_FTK_VALUE, NULL},
    {"-O", SB_FTK_VALUE, NULL},
    {"--features", SB_FTK_VALUE, NULL},
    {"-R", SB_FTK_VALUE, NULL},
    {"--runtime-features", SB_FTK_VALUE, NULL},
    {"-U", SB_FTK_VALUE, NULL},
    {"--uuid", SB_FTK_VALUE, NULL},
    {"--device-uuid", SB_FTK_VALUE, NULL},
    {"-L", SB_FTK_TEXT, NULL},
    {"--label", SB_FTK_TEXT, NULL},
    {"-r", SB_FTK_NOPATH, COPY_IN},
    {"--rootdir", SB_FTK_NOPATH, COPY_IN},
    {"-u", SB_FTK_FORBID, "goes with --rootdir, which copies a host directory in"},
    {"--subvol", SB_FTK_FORBID, "goes with --rootdir, which copies a host directory in"},
    {NULL},
};

/* Before fs.type is known (a profile key on its own): the options that
 * mean the same to every mkfs; -d, -l, -r, -c and -M differ between them
 * and are judged by their value here (a path is refused), by the file
 * system's own table when the plan is made. */
static const struct sb_ft_opt any_mkfs_opts[] = {
    {"-f", SB_FTK_FLAG, NULL},
    {"-F", SB_FTK_FLAG, NULL},
    {"-q", SB_FTK_FLAG, NULL},
    {"-K", SB_FTK_FLAG, NULL},
    {"-V", SB_FTK_FLAG, NULL},
    {"-v", SB_FTK_FLAG, NULL},
    {"-S", SB_FTK_FLAG, NULL},
    {"-D", SB_FTK_FLAG, NULL},
    {"-j", SB_FTK_FLAG, NULL},
    {"--force", SB_FTK_FLAG, NULL},
    {"--quiet", SB_FTK_FLAG, NULL},
    {"--verbose", SB_FTK_FLAG, NULL},
    {"--mixed", SB_FTK_FLAG, NULL},
    {"--nodiscard", SB_FTK_FLAG, NULL},
    {"--version", SB_FTK_FLAG, NULL},
    {"--shrink", SB_FTK_FLAG, NULL},
    {"--help", SB_FTK_FLAG, NULL},
    {"-L", SB_FTK_TEXT, NULL},
    {"--label", SB_FTK_TEXT, NULL},
    {"-z", SB_FTK_NOPATH, "writes an undo file on the host, which outlives teardown"},
    {"-p", SB_FTK_NOPATH, "reads a prototype file from the host and copies the tree it names in"},
    {"--rootdir", SB_FTK_NOPATH, COPY_IN},
    {"-u", SB_FTK_FORBID, "goes with --rootdir, which copies a host directory in"},
    {"--subvol", SB_FTK_FORBID, "goes with --rootdir, which copies a host directory in"},
    {NULL},
};

static const struct sb_ft_opt bonnie_opts[] = {
    {"-q", SB_FTK_FLAG, NULL},	{"-f", SB_FTK_FLAG, NULL},  {"-b", SB_FTK_FLAG, NULL},
    {"-D", SB_FTK_FLAG, NULL},	{"-s", SB_FTK_VALUE, NULL}, {"-n", SB_FTK_VALUE, NULL},
    {"-r", SB_FTK_VALUE, NULL}, {"-x", SB_FTK_VALUE, NULL}, {"-u", SB_FTK_VALUE, NULL},
    {"-g", SB_FTK_VALUE, NULL}, {"-z", SB_FTK_VALUE, NULL}, {"-p", SB_FTK_VALUE, NULL},
    {"-y", SB_FTK_VALUE, NULL}, {"-c", SB_FTK_VALUE, NULL}, {"-m", SB_FTK_TEXT, NULL},
    {"-d", SB_FTK_PATH, NULL},	{"-Z", SB_FTK_PATH, NULL},  {NULL},
};

static const struct sb_ft_opt iozone_opts[] = {
    {"-+m", SB_FTK_FORBID, "runs the test on the hosts of a cluster file, through rsh or ssh"},
    {"-+h", SB_FTK_VALUE, NULL},
    {"-+p", SB_FTK_VALUE, NULL},
    {"-+A", SB_FTK_VALUE, NULL},
    {"-+w", SB_FTK_VALUE, NULL},
    {"-+y", SB_FTK_VALUE, NULL},
    {"-+C", SB_FTK_VALUE, NULL},
    {"-+S", SB_FTK_VALUE, NULL},
    {"-+q", SB_FTK_VALUE, NULL},
    {"-U", SB_FTK_FORBID, "unmounts and remounts that mount point between the tests"},
    {"-f", SB_FTK_PATH, NULL},
    {"-F", SB_FTK_PATHS, NULL},
    {"-b", SB_FTK_PATH, NULL},
    {"-X", SB_FTK_PATH, NULL},
    {"-Y", SB_FTK_PATH, NULL},
    {"-r", SB_FTK_VALUE, NULL},
    {"-s", SB_FTK_VALUE, NULL},
    {"-n", SB_FTK_VALUE, NULL},
    {"-g", SB_FTK_VALUE, NULL},
    {"-q", SB_FTK_VALUE, NULL},
    {"-y", SB_FTK_VALUE, NULL},
    {"-i", SB_FTK_VALUE, NULL},
    {"-t", SB_FTK_VALUE, NULL},
    {"-l", SB_FTK_VALUE, NULL},
    {"-u", SB_FTK_VALUE, NULL},
    {"-P", SB_FTK_VALUE, NULL},
    {"-L", SB_FTK_VALUE, NULL},
    {"-S", SB_FTK_VALUE, NULL},
    {"-j", SB_FTK_VALUE, NULL},
    {"-J", SB_FTK_VALUE, NULL},
    {"-k", SB_FTK_VALUE, NULL},
    {"-H", SB_FTK_VALUE, NULL},
    {"-V", SB_FTK_VALUE, NULL},
    {NULL},
};

const struct sb_ft_tool sb_ft_mke2fs = {"mke2fs", mke2fs_opts, true, false};
const struct sb_ft_tool sb_ft_mkfs_xfs = {"mkfs.xfs", xfs_opts, true, false};
const struct sb_ft_tool sb_ft_mkfs_btrfs = {"mkfs.btrfs", btrfs_opts, true, false};
const struct sb_ft_tool sb_ft_mkfs_any = {"mkfs", any_mkfs_opts, true, false};
/* Their other options take no value, or a number glued or next: a word
 * left over is a positional, checked as a path inside the run. */
const struct sb_ft_tool sb_ft_bonnie = {"bonnie++", bonnie_opts, false, true};
const struct sb_ft_tool sb_ft_iozone = {"iozone", iozone_opts, false, true};

const struct sb_ft_tool *sb_ft_mkfs_tool(const char *fstype)
{
	static const struct {
		const char *type;
		const struct sb_ft_tool *tool;
	} map[] = {{"ext2", &sb_ft_mke2fs},
		   {"ext3", &sb_ft_mke2fs},
		   {"ext4", &sb_ft_mke2fs},
		   {"xfs", &sb_ft_mkfs_xfs},
		   {"btrfs", &sb_ft_mkfs_btrfs}};
	for (size_t i = 0; fstype && i < ARRAY_SIZE(map); i++)
		if (strcmp(map[i].type, fstype) == 0)
			return map[i].tool;
	return &sb_ft_mkfs_any;
}

/* ---- words ---- */

/* Sub-option keys whose value is another device (mkfs -l/-r/-d/-J and
 * mount options). */
static const char *const device_keys[] = {"logdev",	 "rtdev",	 "device",
					  "journal_dev", "journal_path", "journal_device"};

static bool in(const char *w, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(w, list[i]) == 0)
			return true;
	return false;
}

void sb_ft_paths_free(struct sb_ft_paths *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
	*p = (struct sb_ft_paths){0};
}

int sb_ft_paths_add(struct sb_ft_paths *p, const char *s)
{
	char **nv;
	if (!p)
		return 0;
	nv = realloc(p->v, (p->n + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	p->v = nv;
	if (!(p->v[p->n] = strdup(s)))
		return -ENOMEM;
	p->n++;
	return 0;
}

bool sb_ft_names_device(const char *t)
{
	struct stat st;
	if (strncmp(t, "/dev/", 5) == 0 || strcmp(t, "/dev") == 0)
		return true;
	return *t && stat(t, &st) == 0 && (S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode));
}

/* Mount options that libmount acts on in userspace, even with helpers
 * disabled: they would mount something other than the stack's own device
 * (a loop device libmount sets up itself over it, never journaled, so the
 * figures would be a loop-over-device's and its counters another device's),
 * or run or load something. Matched as the key before any '='. */
static const struct {
	const char *key;
	const char *why;
} mount_userspace[] = {
    {"loop", "makes libmount set up a loop device of its own over the stack's device"},
    {"offset", "is a loop option: libmount would set up a loop device of its own"},
    {"sizelimit", "is a loop option: libmount would set up a loop device of its own"},
    {"encryption", "is a loop option: libmount would set up a loop device of its own"},
    {"helper", "runs a mount helper program"},
    {"uhelper", "runs an unmount helper program"},
    {"X-mount.idmap", "mounts through a user namespace of another process"},
    {"verity.hashdevice", "names another device (dm-verity)"},
    {"verity.fecdevice", "names another device (dm-verity)"},
};

static char *check_mount_userspace(const char *item)
{
	size_t kl = strcspn(item, "=");
	for (size_t i = 0; i < ARRAY_SIZE(mount_userspace); i++)
		if (strlen(mount_userspace[i].key) == kl &&
		    strncasecmp(item, mount_userspace[i].key, kl) == 0)
			return sb_asprintf(
			    "mount option '%.*s' %s: the stack builds its own devices", (int)kl,
			    item, mount_userspace[i].why);
	return NULL;
}

/* Checks one "a=b,c=d" group (a word, or a mount option list). */
static char *check_group(const char *word, bool mkfs)
{
	_cleanup_free_ char *copy = strdup(word);
	char *save = NULL;

	if (!copy)
		return NULL;
	if (sb_ft_names_device(word))
		return sb_asprintf("'%s' names a block device: %s", word, INSTEAD);
	for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');
		const char *val = eq ? eq + 1 : item;
		char *bad;
		if (!mkfs && (bad = check_mount_userspace(item)))
			return bad;
		if (eq)
			*eq = '\0';
		/* "-llogdev=/dev/x": the key after a glued short option */
		const char *key = item[0] == '-' && item[1] && item[1] != '-' ? item + 2 : item;
		if (eq && (in(item, device_keys, ARRAY_SIZE(device_keys)) ||
			   in(key, device_keys, ARRAY_SIZE(device_keys)) ||
			   (mkfs && (strcmp(key, "name") == 0 || strcmp(item, "name") == 0))))
			return sb_asprintf("'%s=' names another device: %s", item, INSTEAD);
		if (strcmp(item, "journal_dev") == 0 || strcmp(key, "journal_dev") == 0)
			return sb_asprintf("'journal_dev' makes an external journal device: %s",
					   INSTEAD);
		if (sb_ft_names_device(val))
			return sb_asprintf("'%s' names a block device: %s", val, INSTEAD);
	}
	return NULL;
}

/* The table's option at the start of s ("-d" of "-d/x", "--rootdir" of
 * "--rootdir=/x"): the longest name that matches; *len its length. */
/* How much an option may do, for the choice among abbreviations. */
static int strictness(enum sb_ftk k)
{
	return k == SB_FTK_FORBID || k == SB_FTK_NOPATH ? 3
	       : k == SB_FTK_PATH || k == SB_FTK_PATHS	? 2
	       : k == SB_FTK_FLAG			? 0
							: 1;
}

static const struct sb_ft_opt *lookup(const struct sb_ft_tool *t, const char *s, bool lng,
				      size_t *len)
{
	const struct sb_ft_opt *best = NULL;
	size_t bl = 0, wl = strcspn(s, "=");

	for (const struct sb_ft_opt *o = t->opts; o->name; o++) {
		size_t l = strlen(o->name);
		bool match = lng ? strncmp(s, o->name, l) == 0 && (s[l] == '\0' || s[l] == '=')
				 : o->name[1] != '-' && strncmp(s, o->name + 1, l - 1) == 0;
		if (match && l > bl) {
			best = o;
			bl = l;
		}
	}
	/* getopt_long takes any unambiguous prefix ("--root" for "--rootdir"):
	 * of the long options that start so, the one that may do most. */
	const struct sb_ft_opt *pre = NULL;
	for (const struct sb_ft_opt *o = t->opts; lng && !best && o->name; o++)
		if (o->name[1] == '-' && wl > 2 && wl < strlen(o->name) &&
		    strncmp(s, o->name, wl) == 0 &&
		    (!pre || strictness(o->kind) > strictness(pre->kind)))
			pre = o;
	if (pre) {
		best = pre;
		bl = wl;
	}
	*len = lng ? bl : bl ? bl - 1 : 0;
	return best;
}

static bool takes_value(enum sb_ftk k)
{
	return k != SB_FTK_FLAG && k != SB_FTK_FORBID;
}

/* The judgement on an option's value (o NULL: an option the table does
 * not know). */
static char *judge(const struct sb_ft_tool *t, const struct sb_ft_opt *o, const char *opt,
		   const char *val, struct sb_ft_paths *paths)
{
	bool mkfs = !t->positionals;
	char *m;

	if (o && o->kind == SB_FTK_FORBID)
		return sb_asprintf("%s '%s' is refused: it %s", t->name, opt, o->why);
	if (o && o->kind == SB_FTK_NOPATH)
		return sb_asprintf("%s '%s%s%s' is refused: it %s; %s", t->name, opt,
				   val ? " " : "", val ? val : "", o->why, HOSTFILE);
	if (!val)
		return NULL;
	if ((m = check_group(val, mkfs)))
		return m;
	if (o && (o->kind == SB_FTK_PATH || o->kind == SB_FTK_PATHS)) {
		if (strchr(val, '$'))
			return sb_asprintf("%s '%s %s': no variables in a path (give it as is)",
					   t->name, opt, val);
		return sb_ft_paths_add(paths, val) < 0 ? strdup("out of memory") : NULL;
	}
	/* A mkfs value that is a path: no option of any mkfs takes one that
	 * is allowed here (a label's text aside). */
	if (mkfs && (!o || o->kind == SB_FTK_VALUE) && (strchr(val, '/') || strcmp(val, "..") == 0))
		return sb_asprintf("%s '%s %s': a path as an option's value is refused "
				   "(%s)",
				   t->name, opt, val, HOSTFILE);
	return NULL;
}

static char *positional(const struct sb_ft_tool *t, const char *w, struct sb_ft_paths *paths)
{
	char *m = check_group(w, !t->positionals);
	if (m)
		return m;
	if (!t->positionals)
		return sb_asprintf("'%s' is a positional argument: mkfs.btrfs would take it "
				   "as one more device (mkfs.xfs and mke2fs as the device "
				   "or its size); give options only: %s",
				   w, INSTEAD);
	return judge(t, &(struct sb_ft_opt){"", SB_FTK_PATH, NULL}, "", w, paths);
}

/* One word that starts with '-' (and is not "-" or "--"); *i moves past a
 * value taken from the next word. */
static char *option_word(const struct sb_ft_tool *t, const char *const *w, size_t n, size_t *i,
			 struct sb_ft_paths *paths)
{
	const char *word = w[*i], *next = *i + 1 < n ? w[*i + 1] : NULL;
	const struct sb_ft_opt *o;
	size_t len;
	char opt[64];

	if (word[1] == '-') {
		o = lookup(t, word, true, &len);
		const char *eq = strchr(word, '=');
		snprintf(opt, sizeof(opt), "%.*s", (int)(eq ? eq - word : (long)strlen(word)),
			 word);
		bool valued =
		    o ? takes_value(o->kind) : t->unknown_takes_value && next && next[0] != '-';
		if (eq || !valued || !next)
			return judge(t, o, opt, eq ? eq + 1 : NULL, paths);
		(*i)++;
		return judge(t, o, opt, next, paths);
	}
	/* getopt: flags clustered, the first that takes a value ends the word
	 * (its value glued on, or the next word). */
	for (const char *p = word + 1; *p; p += len) {
		o = lookup(t, p, false, &len);
		if (!o)
			len = 1;
		snprintf(opt, sizeof(opt), "-%.*s", (int)len, p);
		bool valued = o ? takes_value(o->kind) : t->unknown_takes_value;
		if (!valued) {
			char *m = judge(t, o, opt, NULL, paths);
			if (m)
				return m;
			continue;
		}
		if (p[len])
			return judge(t, o, opt, p + len, paths);
		if (!next || (!o && next[0] == '-'))
			return judge(t, o, opt, NULL, paths);
		(*i)++;
		char *m = judge(t, o, opt, next, paths);
		/* iozone -F: the files follow, one a word */
		while (!m && o && o->kind == SB_FTK_PATHS && *i + 1 < n && w[*i + 1][0] != '-')
			m = judge(t, o, opt, w[++*i], paths);
		return m;
	}
	return NULL;
}

int sb_ft_check_words(const struct sb_ft_tool *t, const char *const *w, size_t n,
		      struct sb_ft_paths *paths, char **why)
{
	bool opts_end = false;

	*why = NULL;
	for (size_t i = 0; i < n; i++) {
		const char *word = w[i];
		char *m;
		if (!opts_end && strcmp(word, "--") == 0) {
			opts_end = true;
			continue;
		}
		/* Whatever a word is to the tool, no part of it names a device. */
		m = check_group(word, !t->positionals);
		if (!m && !opts_end && word[0] == '-' && word[1])
			m = option_word(t, w, n, &i, paths);
		else if (!m)
			m = positional(t, word, paths);
		if (m) {
			*why = m;
			return -EINVAL;
		}
	}
	return 0;
}

int sb_ft_check_string(const struct sb_ft_tool *t, const char *s, struct sb_ft_paths *paths,
		       char **why)
{
	_cleanup_free_ char *copy = strdup(s);
	_cleanup_free_ const char **w = calloc(strlen(s) / 2 + 2, sizeof(*w));
	char *save = NULL;
	size_t n = 0;

	*why = NULL;
	if (!copy || !w)
		return -ENOMEM;
	for (char *t_ = strtok_r(copy, " \t", &save); t_; t_ = strtok_r(NULL, " \t", &save))
		w[n++] = t_;
	return sb_ft_check_words(t, w, n, paths, why);
}

/* The profile's free-text keys: words (fs.mkfs) against every mkfs
 * (fs.type is another key; the plan checks them again against its own
 * mkfs), text (mount options) for device names. */
char *sb_ft_check_key(const char *v, bool mkfs_words)
{
	char *why = NULL;

	if (mkfs_words) {
		if (sb_ft_check_string(&sb_ft_mkfs_any, v, NULL, &why) < 0)
			return why ? why : strdup("out of memory");
		return NULL;
	}
	_cleanup_free_ char *copy = strdup(v);
	char *save = NULL;
	if (!copy)
		return NULL;
	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		if ((why = check_group(w, false)))
			return why;
	return NULL;
}

/* ---- run time: where a path really leads ---- */

/* Appends component c (len n) to the physical path cur ("/" based). */
static void push(char *cur, const char *c, size_t n)
{
	size_t l = strlen(cur);
	if (l + 1 + n >= PATH_MAX)
		n = PATH_MAX - l - 2;
	if (l > 1)
		cur[l++] = '/';
	memcpy(cur + l, c, n);
	cur[l + n] = '\0';
}

static void pop(char *cur)
{
	char *s = strrchr(cur, '/');
	if (s && s != cur)
		*s = '\0';
	else
		memcpy(cur, "/", 2);
}

/* Walks path component by component as the kernel would, following every
 * symlink that exists (a dangling one too: open(O_CREAT) would create its
 * target); components that do not exist are taken as written. */
static int resolve(const char *path, char *cur)
{
	char todo[PATH_MAX * 2];
	unsigned hops = 0;

	snprintf(todo, sizeof(todo), "%s", path);
	memcpy(cur, "/", 2);
	for (size_t off = 0; todo[off];) {
		const char *c = todo + off + strspn(todo + off, "/");
		size_t n = strcspn(c, "/");
		off = (size_t)(c - todo) + n;
		if (n == 0 || (n == 1 && c[0] == '.'))
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			pop(cur);
			continue;
		}
		char cand[PATH_MAX], link[PATH_MAX];
		snprintf(cand, sizeof(cand), "%s", cur);
		push(cand, c, n);
		struct stat st;
		ssize_t ll;
		if (lstat(cand, &st) == 0 && S_ISLNK(st.st_mode) &&
		    (ll = readlink(cand, link, sizeof(link) - 1)) > 0) {
			char rest[PATH_MAX * 2];
			if (++hops > 40)
				return -ELOOP;
			link[ll] = '\0';
			snprintf(rest, sizeof(rest), "%s/%s", link, todo + off);
			snprintf(todo, sizeof(todo), "%s", rest);
			off = 0;
			if (link[0] == '/')
				memcpy(cur, "/", 2);
			continue;
		}
		memcpy(cur, cand, strlen(cand) + 1); /* both PATH_MAX */
	}
	return 0;
}

int sb_ft_path_inside(const char *path, const char *base, const char *root, char **why)
{
	char full[PATH_MAX * 2], where[PATH_MAX], top[PATH_MAX];
	struct stat st;
	int r;

	*why = NULL;
	if (!realpath(root, top))
		return -errno;
	snprintf(full, sizeof(full), "%s%s%s", path[0] == '/' ? "" : base,
		 path[0] == '/' ? "" : "/", path);
	r = resolve(full, where);
	if (r < 0) {
		*why = sb_asprintf("'%s': %s", path, strerror(-r));
		return -EXDEV;
	}
	size_t tl = strlen(top);
	bool inside = strncmp(where, top, tl) == 0 && (where[tl] == '/' || where[tl] == '\0');
	if (!inside) {
		*why = sb_asprintf("'%s' leads to %s, outside the file system under test (%s)",
				   path, where, top);
		return -EXDEV;
	}
	if (stat(where, &st) == 0 && (S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode))) {
		*why = sb_asprintf("'%s' is a device node (%s)", path, where);
		return -EXDEV;
	}
	/* Inside by name, but another file system mounted (or bound) under
	 * the directory: its nearest existing ancestor must be on root's. */
	struct stat rs;
	char up[PATH_MAX];
	snprintf(up, sizeof(up), "%s", where);
	while (stat(up, &st) < 0 && strlen(up) > tl)
		pop(up);
	if (stat(top, &rs) == 0 && stat(up, &st) == 0 && st.st_dev != rs.st_dev) {
		*why = sb_asprintf("'%s' leads to %s, on another file system mounted inside %s",
				   path, where, top);
		return -EXDEV;
	}
	return 0;
}

int sb_ft_paths_inside(const struct sb_ft_paths *p, const char *const *bases, size_t n_bases,
		       const char *root, char **why)
{
	for (size_t i = 0; i < p->n; i++)
		for (size_t b = 0; b < n_bases; b++) {
			int r = sb_ft_path_inside(p->v[i], bases[b], root, why);
			if (r < 0)
				return r;
			if (p->v[i][0] == '/')
				break;
		}
	return 0;
}
