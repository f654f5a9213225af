/* Nobody else holds it: an O_EXCL open of a block device fails with EBUSY
 * while a mount, an md array, a dm table or another program's exclusive
 * open claims it (the kernel's claim, not a convention like flock). When it
 * fails, name the holder from what the kernel shows: holders/ in sysfs,
 * mountinfo, swaps, and the processes that have it open. */
#include "stack/stack.h"
#include "util/macro.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

static void add(FILE *f, bool *first, const char *what, const char *a)
{
	fprintf(f, "%s%s%s", *first ? "" : ", ", what, a);
	*first = false;
}

char *sb_excl_holder(const char *dev)
{
	struct stat st;
	char p[PATH_MAX], line[4096], mm[32];
	char *out = NULL;
	size_t len = 0;
	bool first = true;
	FILE *f, *in;
	DIR *d;
	struct dirent *e;

	if (stat(dev, &st) < 0 || !S_ISBLK(st.st_mode))
		return NULL;
	f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/holders", major(st.st_rdev),
		 minor(st.st_rdev));
	if ((d = opendir(p))) {
		while ((e = readdir(d)))
			if (e->d_name[0] != '.')
				add(f, &first, "used by ", e->d_name);
		closedir(d);
	}
	snprintf(mm, sizeof(mm), "%u:%u", major(st.st_rdev), minor(st.st_rdev));
	if ((in = fopen("/proc/self/mountinfo", "re"))) {
		/* "36 35 98:0 /mnt1 /mnt2 ...": the third field is the device. */
		while (fgets(line, sizeof(line), in)) {
			char *save = NULL, *id = strtok_r(line, " ", &save);
			char *par = id ? strtok_r(NULL, " ", &save) : NULL;
			char *m = par ? strtok_r(NULL, " ", &save) : NULL;
			char *root = m ? strtok_r(NULL, " ", &save) : NULL;
			char *target = root ? strtok_r(NULL, " ", &save) : NULL;
			if (target && strcmp(m, mm) == 0)
				add(f, &first, "mounted on ", target);
		}
		fclose(in);
	}
	if ((d = opendir("/proc"))) {
		while ((e = readdir(d))) {
			DIR *fd;
			struct dirent *fe;
			bool hit = false;
			if (!isdigit((unsigned char)e->d_name[0]) ||
			    strtol(e->d_name, NULL, 10) == (long)getpid())
				continue;
			snprintf(p, sizeof(p), "/proc/%s/fd", e->d_name);
			if (!(fd = opendir(p)))
				continue;
			while (!hit && (fe = readdir(fd))) {
				char l[PATH_MAX + 300];
				struct stat fs;
				snprintf(l, sizeof(l), "%s/%s", p, fe->d_name);
				hit = fe->d_name[0] != '.' && stat(l, &fs) == 0 &&
				      S_ISBLK(fs.st_mode) && fs.st_rdev == st.st_rdev;
			}
			closedir(fd);
			if (hit) {
				char comm[64] = "?";
				snprintf(p, sizeof(p), "/proc/%s/comm", e->d_name);
				sb_sys_read(p, comm, sizeof(comm));
				add(f, &first, "pid ", e->d_name);
				fprintf(f, " (%s)", comm);
			}
		}
		closedir(d);
	}
	fclose(f);
	if (out && !*out) {
		free(out);
		return NULL;
	}
	return out;
}

int sb_excl_open(const char *dev, int *fd, char **why)
{
	*fd = open(dev, O_RDONLY | O_EXCL | O_CLOEXEC | O_NONBLOCK);
	if (*fd >= 0)
		return 0;
	int r = negerrno();
	if (why) {
		_cleanup_free_ char *h = r == -EBUSY ? sb_excl_holder(dev) : NULL;
		if (r == -EBUSY) {
			if (asprintf(why,
				     "refused: %s is held open exclusively by another program%s%s%s",
				     dev, h ? " (" : "", h ? h : "", h ? ")" : "") < 0)
				*why = NULL;
		} else if (asprintf(why, "%s: cannot open: %s", dev, strerror(-r)) < 0) {
			*why = NULL;
		}
	}
	return r;
}

char *sb_whole_disk(const char *dev)
{
	struct stat st;
	char p[PATH_MAX], real[PATH_MAX], *out = NULL;

	if (stat(dev, &st) < 0 || !S_ISBLK(st.st_mode))
		return NULL;
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/partition", major(st.st_rdev),
		 minor(st.st_rdev));
	if (access(p, F_OK) != 0)
		return NULL;
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/..", major(st.st_rdev), minor(st.st_rdev));
	if (!realpath(p, real) || asprintf(&out, "/dev/%s", basename(real)) < 0)
		return NULL;
	return out;
}
