/* Who a block device is, beyond its name: device number, size, WWID or
 * serial, a loop device's backing file (path, st_dev, st_ino), a
 * partition's disk and start, an md array's UUID, a dm device's UUID.
 * Journaled before a step acts on a device, compared again before undo: a
 * name that now belongs to another device (a re-plugged disk, another image
 * on the same /dev/loopN) is left alone. */
#include "stack/stack.h"
#include "util/macro.h"
#include "util/parse.h"

#include <dirent.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <linux/loop.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

static void json_object_putp(json_object **o)
{
	json_object_put(*o);
}

static int sysattr(dev_t rdev, const char *attr, char *buf, size_t len)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/%s", major(rdev), minor(rdev), attr);
	return sb_sys_read(p, buf, len);
}

static bool sysexists(dev_t rdev, const char *attr)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/%s", major(rdev), minor(rdev), attr);
	return access(p, F_OK) == 0;
}

static void add_str(json_object *o, const char *k, const char *v)
{
	if (v && *v)
		json_object_object_add(o, k, json_object_new_string(v));
}

static char *trim(char *s)
{
	while (*s == ' ')
		s++;
	size_t n = strlen(s);
	while (n && s[n - 1] == ' ')
		s[--n] = '\0';
	return s;
}

json_object *sb_ident_capture(const char *dev, struct sb_exec *x)
{
	struct stat st;
	char buf[4096], tmp[64];
	json_object *o;

	if (stat(dev, &st) < 0 || !S_ISBLK(st.st_mode))
		return NULL;
	o = json_object_new_object();
	snprintf(tmp, sizeof(tmp), "%u:%u", major(st.st_rdev), minor(st.st_rdev));
	add_str(o, "rdev", tmp);
	if (sysattr(st.st_rdev, "size", buf, sizeof(buf)) == 0)
		json_object_object_add(
		    o, "size", json_object_new_int64((int64_t)strtoull(buf, NULL, 10) * 512));
	if (sysattr(st.st_rdev, "wwid", buf, sizeof(buf)) == 0 ||
	    sysattr(st.st_rdev, "device/wwid", buf, sizeof(buf)) == 0)
		add_str(o, "wwid", trim(buf));
	if (sysattr(st.st_rdev, "serial", buf, sizeof(buf)) == 0 ||
	    sysattr(st.st_rdev, "device/serial", buf, sizeof(buf)) == 0) {
		add_str(o, "serial", trim(buf));
	} else {
		char p[PATH_MAX];
		snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/device/vpd_pg80", major(st.st_rdev),
			 minor(st.st_rdev));
		if (sb_vpd80_serial_file(p, buf, sizeof(buf)) == 0)
			add_str(o, "serial", buf);
	}
	if (sysattr(st.st_rdev, "loop/backing_file", buf, sizeof(buf)) == 0) {
		_cleanup_close_ int fd = open(dev, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		struct loop_info64 li;
		json_object *l = json_object_new_object();
		add_str(l, "file", buf);
		if (fd >= 0 && ioctl(fd, LOOP_GET_STATUS64, &li) == 0) {
			snprintf(tmp, sizeof(tmp), "%u:%u", major(li.lo_device),
				 minor(li.lo_device));
			add_str(l, "dev", tmp);
			json_object_object_add(l, "ino",
					       json_object_new_int64((int64_t)li.lo_inode));
			json_object_object_add(l, "offset",
					       json_object_new_int64((int64_t)li.lo_offset));
		}
		json_object_object_add(o, "loop", l);
	}
	if (sysexists(st.st_rdev, "partition")) {
		char p[PATH_MAX], real[PATH_MAX];
		json_object *pt = json_object_new_object();
		snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/..", major(st.st_rdev),
			 minor(st.st_rdev));
		if (realpath(p, real))
			add_str(pt, "disk", basename(real));
		if (sysattr(st.st_rdev, "start", buf, sizeof(buf)) == 0)
			json_object_object_add(
			    pt, "start", json_object_new_int64((int64_t)strtoull(buf, NULL, 10)));
		json_object_object_add(o, "part", pt);
	}
	if (sysexists(st.st_rdev, "md") && x) {
		char uuid[64];
		if (sb_md_detail(x, dev, uuid, sizeof(uuid), NULL, 0) == 0)
			add_str(o, "md_uuid", uuid);
	}
	if (sysattr(st.st_rdev, "dm/uuid", buf, sizeof(buf)) == 0)
		add_str(o, "dm_uuid", buf);
	return o;
}

static int differs(char **why, const char *dev, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int differs(char **why, const char *dev, const char *fmt, ...)
{
	va_list ap;
	char *m = NULL;
	va_start(ap, fmt);
	if (vasprintf(&m, fmt, ap) < 0)
		m = NULL;
	va_end(ap);
	if (why && asprintf(why, "%s: not ours: %s", dev, m ? m : "identity differs") < 0)
		*why = NULL;
	free(m);
	return -ESTALE;
}

static int cmp_str(char **why, const char *dev, const char *what, json_object *want,
		   json_object *cur, const char *key)
{
	const char *w = sb_json_str(want, key), *c = sb_json_str(cur, key);
	if (!w || (c && strcmp(w, c) == 0))
		return 0;
	return differs(why, dev, "%s %s != journaled %s", what, c ? c : "(none)", w);
}

int sb_ident_check(const char *dev, json_object *want, struct sb_exec *x, char **why)
{
	_cleanup_(json_object_putp) json_object *cur = NULL;
	json_object *wl, *cl, *wp, *cp;
	struct stat st;
	int64_t a, b;
	int r;

	if (why)
		*why = NULL;
	if (stat(dev, &st) < 0)
		return errno == ENOENT || errno == ENXIO || errno == ENOTDIR ? SB_GONE : negerrno();
	if (!S_ISBLK(st.st_mode))
		return differs(why, dev, "not a block device any more");
	cur = sb_ident_capture(dev, x);
	if (!cur)
		return SB_GONE;
	/* A device number no longer in sysfs: the device went away and only
	 * its node is left. */
	if (!sysexists(st.st_rdev, "size"))
		return SB_GONE;
	if ((r = cmp_str(why, dev, "device number", want, cur, "rdev")) < 0)
		return r;
	if (json_object_object_get_ex(want, "loop", &wl)) {
		if (!json_object_object_get_ex(cur, "loop", &cl))
			return SB_GONE; /* detached: nothing of ours on it */
		a = sb_json_i64(cl, "ino", -1);
		b = sb_json_i64(wl, "ino", -1);
		if (a != b)
			return differs(why, dev, "backing file inode %lld != journaled %lld (%s)",
				       (long long)a, (long long)b,
				       sb_json_str(cl, "file") ? sb_json_str(cl, "file") : "?");
		if ((r = cmp_str(why, dev, "backing file system", wl, cl, "dev")) < 0)
			return r;
		a = sb_json_i64(cl, "offset", 0);
		b = sb_json_i64(wl, "offset", 0);
		if (a != b)
			return differs(why, dev, "backing offset %lld != journaled %lld",
				       (long long)a, (long long)b);
	}
	if (json_object_object_get_ex(want, "md_uuid", &wl) && x) {
		if (!sb_json_str(cur, "md_uuid"))
			return SB_GONE; /* stopped: only a number is left */
		if ((r = cmp_str(why, dev, "md UUID", want, cur, "md_uuid")) < 0)
			return r;
	}
	if (sb_json_str(want, "dm_uuid")) {
		if (!sb_json_str(cur, "dm_uuid"))
			return SB_GONE;
		if ((r = cmp_str(why, dev, "device-mapper UUID", want, cur, "dm_uuid")) < 0)
			return r;
	}
	if ((r = cmp_str(why, dev, "WWID", want, cur, "wwid")) < 0 ||
	    (r = cmp_str(why, dev, "serial", want, cur, "serial")) < 0)
		return r;
	/* A size that changed is a different device only when nothing stronger
	 * says who it is: a LUN or a loop file grown in place (same WWID or
	 * serial, same backing inode, same array or dm UUID) is still ours. */
	bool strong = json_object_object_get_ex(want, "loop", &wl) ||
		      sb_json_str(want, "md_uuid") || sb_json_str(want, "dm_uuid") ||
		      (sb_json_str(want, "wwid") && *sb_json_str(want, "wwid")) ||
		      (sb_json_str(want, "serial") && *sb_json_str(want, "serial"));
	a = sb_json_i64(cur, "size", -1);
	b = sb_json_i64(want, "size", -1);
	/* An empty loop or a removed medium holds nothing of ours, even when
	 * it was empty when journaled (a run of an earlier version on a
	 * detached loop device): its undo could only fail with EIO. */
	if (a == 0)
		return SB_GONE;
	if (a != b && !strong)
		return differs(why, dev, "size %lld != journaled %lld bytes", (long long)a,
			       (long long)b);
	if (json_object_object_get_ex(want, "part", &wp)) {
		if (!json_object_object_get_ex(cur, "part", &cp))
			return differs(why, dev, "not a partition any more");
		if ((r = cmp_str(why, dev, "disk", wp, cp, "disk")) < 0)
			return r;
		a = sb_json_i64(cp, "start", -1);
		b = sb_json_i64(wp, "start", -1);
		if (a != b)
			return differs(why, dev, "partition start %lld != journaled %lld",
				       (long long)a, (long long)b);
	}
	return 0;
}

json_object *sb_ident_moved(json_object *want, const char *disk_now)
{
	json_object *o = json_object_new_object();
	json_object_object_foreach(want, k, v)
	{
		if (strcmp(k, "rdev") == 0)
			continue;
		if (strcmp(k, "part") == 0 && disk_now) {
			json_object *p = json_object_new_object();
			json_object_object_foreach(v, pk, pv)
			{
				if (strcmp(pk, "disk") != 0)
					json_object_object_add(p, pk, json_object_get(pv));
			}
			add_str(p, "disk", disk_now);
			json_object_object_add(o, k, p);
			continue;
		}
		json_object_object_add(o, k, json_object_get(v));
	}
	return o;
}

static bool same_size(const char *dev, json_object *want)
{
	_cleanup_(json_object_putp) json_object *cur = sb_ident_capture(dev, NULL);
	return cur && sb_json_i64(cur, "size", -1) == sb_json_i64(want, "size", -2);
}

char *sb_ident_find(const char *was, json_object *want, const char *disk_now, struct sb_exec *x,
		    unsigned *n)
{
	json_object *part = NULL, *o;
	char *found = NULL;

	*n = 0;
	if (json_object_object_get_ex(want, "loop", &o) || sb_json_str(want, "md_uuid") ||
	    sb_json_str(want, "dm_uuid"))
		return NULL;
	if (json_object_object_get_ex(want, "part", &part)) {
		/* "/dev/sdc2" on disk "sdc" -> "/dev/" disk_now "2" */
		const char *disk = sb_json_str(part, "disk");
		size_t dl = disk ? strlen(disk) : 0;
		if (!disk_now || !disk || strncmp(was, "/dev/", 5) != 0 ||
		    strncmp(was + 5, disk, dl) != 0)
			return NULL;
		_cleanup_(json_object_putp) json_object *w = sb_ident_moved(want, disk_now);
		if (asprintf(&found, "/dev/%s%s", disk_now, was + 5 + dl) < 0)
			return NULL;
		if (sb_ident_check(found, w, x, NULL) != 0 || !same_size(found, want)) {
			free(found);
			return NULL;
		}
		*n = 1;
		return found;
	}
	const char *wwid = sb_json_str(want, "wwid"), *serial = sb_json_str(want, "serial");
	if (!(wwid && *wwid) && !(serial && *serial))
		return NULL;
	_cleanup_(json_object_putp) json_object *w = sb_ident_moved(want, NULL);
	DIR *d = opendir("/sys/class/block");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char sys[PATH_MAX], dev[PATH_MAX];
		if (e->d_name[0] == '.')
			continue;
		snprintf(sys, sizeof(sys), "/sys/class/block/%s/partition", e->d_name);
		snprintf(dev, sizeof(dev), "/dev/%s", e->d_name);
		if (access(sys, F_OK) == 0 || strcmp(dev, was) == 0)
			continue;
		if (sb_ident_check(dev, w, x, NULL) != 0 || !same_size(dev, want))
			continue;
		if ((*n)++ == 0)
			found = strdup(dev);
	}
	if (d)
		closedir(d);
	if (*n != 1) {
		free(found);
		return NULL;
	}
	return found;
}
