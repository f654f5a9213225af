/* Free-text profile values (mkfs words, mount options) reach a program's
 * argv or the kernel unparsed, so they must not name a device: one that
 * was never probed, refused or confirmed, and that undo never cleans. A
 * word is refused when it names a block device (/dev/..., or a path that
 * resolves to one), or uses an option that takes another device (xfs
 * logdev=/rtdev=/name=, ext4 -J device= and -O journal_dev, btrfs device=,
 * ext4 journal_path=/journal_dev=), or is a positional argument of mkfs
 * (mkfs.btrfs takes every positional as one more device). */
#include "profile/profile.h"
#include "util/macro.h"
#include "util/strutil.h"

#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#define INSTEAD                                                                                    \
	"only devices given with --devices (or made by --loop) are written, after their "          \
	"checks; an external log device is a role of its own: fs.log = ROLE"

/* Option keys whose value is another device (mkfs -l/-r/-d/-J sub-options
 * and mount options). */
static const char *const device_keys[] = {"logdev",	 "rtdev",	 "device",
					  "journal_dev", "journal_path", "journal_device"};

/* mkfs options that take no value: a word after them is positional. The
 * others ("-n 4k", "-i size=512", "--rootdir DIR") take the next word. */
static const char *const flags[] = {
    "-f",	 "-F",	     "-q",	"-K",	   "-V",	"-c",	   "-v",
    "-S",	 "-M",	     "--force", "--quiet", "--verbose", "--mixed", "--nodiscard",
    "--version", "--shrink", "--help",	"-D",	   "-j",
};

static bool in(const char *w, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(w, list[i]) == 0)
			return true;
	return false;
}

/* A token names a block device: by its path, or by what it resolves to
 * (a symlink, a relative name in the current directory). */
static bool names_device(const char *t)
{
	struct stat st;
	if (strncmp(t, "/dev/", 5) == 0 || strcmp(t, "/dev") == 0)
		return true;
	return *t && stat(t, &st) == 0 && S_ISBLK(st.st_mode);
}

/* Checks one "a=b,c=d" group (a word, or a mount option list). */
static char *check_group(const char *word, bool mkfs)
{
	_cleanup_free_ char *copy = strdup(word);
	char *save = NULL;

	if (!copy)
		return NULL;
	if (names_device(word))
		return sb_asprintf("'%s' names a block device: %s", word, INSTEAD);
	for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');
		const char *val = eq ? eq + 1 : item;
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
		if (names_device(val))
			return sb_asprintf("'%s' names a block device: %s", val, INSTEAD);
	}
	return NULL;
}

char *sb_check_free_text(enum sb_key_id k, const char *v)
{
	bool mkfs = k == K_FS_MKFS;
	_cleanup_free_ char *copy = strdup(v);
	char *save = NULL, *m;
	const char *prev = NULL;

	if (!copy)
		return NULL;
	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if ((m = check_group(w, mkfs)))
			return m;
		/* "-J device=X" and "-O journal_dev" are caught above; a word that
		 * is no option and no option's value is a positional. */
		bool value = prev && prev[0] == '-' && !strchr(prev, '=') &&
			     !in(prev, flags, ARRAY_SIZE(flags));
		if (mkfs && w[0] != '-' && !value)
			return sb_asprintf(
			    "'%s' is a positional argument: mkfs.btrfs would take it "
			    "as one more device (mkfs.xfs and mke2fs as the device "
			    "or its size); give options only: %s",
			    w, INSTEAD);
		prev = w;
	}
	return NULL;
}
