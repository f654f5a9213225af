/* bcache's sysfs and superblocks: the pure parsers of what the kernel leaves,
 * registration and attributes of the devices, and the capture and counters. */
#include "stack/bcache.h"
#include "util/macro.h"

#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ---- pure parsers ---- */

static const unsigned char bcache_magic[16] = {0xc6, 0x85, 0x73, 0xf6, 0x4e, 0x1a, 0x45, 0xca,
					       0x82, 0x65, 0xf5, 0x7f, 0x48, 0xba, 0x6d, 0x81};

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* As the kernel's %pU and libuuid print it (/sys/fs/bcache/<uuid>). */
static void fmt_uuid(const unsigned char *u, char out[37])
{
	static const char hex[] = "0123456789abcdef";
	size_t k = 0;
	for (size_t i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[k++] = '-';
		out[k++] = hex[u[i] >> 4];
		out[k++] = hex[u[i] & 15];
	}
	out[k] = '\0';
}

int sb_bcache_sb_parse(const unsigned char *buf, size_t len, struct sb_bcache_sb *out)
{
	static const unsigned char zero[16];
	memset(out, 0, sizeof(*out));
	/* csum, offset, version, magic[16], uuid[16], set_uuid[16] */
	if (len < 40 || memcmp(buf + 24, bcache_magic, 16) != 0)
		return -ENOENT;
	if (len < 72 || le64(buf + 8) != SB_BCACHE_SB_OFFSET / 512)
		return -EINVAL;
	out->version = le64(buf + 16);
	switch (out->version) {
	case 0: /* CACHE_SB_VERSION_CDEV */
	case 3: /* ..._WITH_UUID */
	case 5: /* ..._WITH_FEATURES */
		out->cache = true;
		break;
	case 1: /* CACHE_SB_VERSION_BDEV */
	case 4: /* ..._WITH_OFFSET */
	case 6: /* ..._WITH_FEATURES */
		out->cache = false;
		break;
	default:
		return -EINVAL;
	}
	fmt_uuid(buf + 40, out->uuid);
	if (out->cache || memcmp(buf + 56, zero, 16) != 0)
		fmt_uuid(buf + 56, out->set_uuid);
	return 0;
}

static const char *skip_blank(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	return p;
}

int sb_bcache_parse_value(const char *text, uint64_t *out)
{
	static const char units[] = "kMGTPEZY";
	const char *p = skip_blank(text), *u;
	uint64_t q = 0, frac = 0, den = 1;
	unsigned shift = 0;

	*out = 0;
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		uint64_t d = (uint64_t)(*p - '0');
		if (q > (UINT64_MAX - d) / 10)
			return -ERANGE;
		q = q * 10 + d;
	}
	if (*p == '.') {
		if (!isdigit((unsigned char)*++p))
			return -EINVAL;
		for (; isdigit((unsigned char)*p); p++)
			if (den < 1000000000000ull) { /* digits past 12 change nothing */
				frac = frac * 10 + (uint64_t)(*p - '0');
				den *= 10;
			}
	}
	if (*p && (u = strchr(units, *p == 'K' ? 'k' : *p))) {
		shift = 10 * (unsigned)(u - units + 1);
		p++;
	} else if (den > 1) {
		return -EINVAL; /* a count has no decimals */
	}
	if (*skip_blank(p))
		return -EINVAL;
	if (shift >= 64 || (shift && q > (UINT64_MAX >> shift)))
		return -ERANGE;
	uint64_t whole = q << shift;
	uint64_t part = (uint64_t)(((unsigned __int128)frac << shift) / den);
	if (whole > UINT64_MAX - part)
		return -ERANGE;
	*out = whole + part;
	return 0;
}

int sb_bcache_parse_choice(const char *text, char *buf, size_t len)
{
	const char *o = strchr(text, '['), *c = o ? strchr(o, ']') : NULL;
	size_t n;

	if (len)
		*buf = '\0';
	if (!o || !c || strchr(c, '[') || memchr(o + 1, '[', (size_t)(c - o - 1)))
		return -EINVAL;
	n = (size_t)(c - o - 1);
	if (n == 0 || n >= len || memchr(o + 1, ' ', n) || memchr(o + 1, '\n', n))
		return -EINVAL;
	memcpy(buf, o + 1, n);
	buf[n] = '\0';
	return 0;
}

/* ---- the devices: superblock, sysfs ---- */

const char *sb_bcache_base_name(const char *dev)
{
	const char *s = strrchr(dev, '/');
	return s ? s + 1 : dev;
}

int sb_bcache_read_sb(const char *dev, struct sb_bcache_sb *sb)
{
	unsigned char buf[SB_BCACHE_SB_LEN];
	_cleanup_close_ int fd = open(dev, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	memset(sb, 0, sizeof(*sb));
	if (fd < 0)
		return negerrno();
	n = pread(fd, buf, sizeof(buf), SB_BCACHE_SB_OFFSET);
	if (n < 0)
		return negerrno();
	return sb_bcache_sb_parse(buf, (size_t)n, sb);
}

int sb_bcache_sys_path(const char *dev, const char *sub, char *buf, size_t len)
{
	_cleanup_free_ char *name = sb_sys_name(dev);
	if (!name)
		return -ENOMEM;
	snprintf(buf, len, "/sys/class/block/%s/%s", name, sub);
	return 0;
}

bool sb_bcache_backing_registered(const char *dev)
{
	char p[PATH_MAX];
	return sb_bcache_sys_path(dev, "bcache/dev", p, sizeof(p)) == 0 && access(p, F_OK) == 0;
}

bool sb_bcache_cset_registered(const char *uuid)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "/sys/fs/bcache/%s", uuid);
	return *uuid && access(p, F_OK) == 0;
}

void sb_bcache_cache_dev_cset(const char *dev, char uuid[37])
{
	char p[PATH_MAX], real[PATH_MAX];
	*uuid = '\0';
	if (sb_bcache_sys_path(dev, "bcache/set", p, sizeof(p)) == 0 && realpath(p, real))
		snprintf(uuid, 37, "%.36s", sb_bcache_base_name(real));
}

bool sb_bcache_wait_for(bool (*done)(const char *), const char *arg, unsigned ms)
{
	for (unsigned w = 0; w < ms; w += 50) {
		if (done(arg))
			return true;
		usleep(50000);
	}
	return done(arg);
}

bool sb_bcache_held(const char *dev)
{
	char p[PATH_MAX];
	return sb_bcache_sys_path(dev, "bcache", p, sizeof(p)) == 0 && access(p, F_OK) == 0;
}

bool sb_bcache_not_held(const char *dev)
{
	return !sb_bcache_held(dev);
}

bool sb_bcache_not_cset(const char *uuid)
{
	return !sb_bcache_cset_registered(uuid);
}

int sb_bcache_do_register(struct sb_exec *x, const char *dev, bool (*done)(const char *),
			  const char *arg)
{
	int r;
	/* Not on a disk this run holds: udevd defers its events, and its
	 * rule cannot run before the run ends. */
	if (x->udev && sb_udev_settle_for(dev, 10000))
		sb_exec_log(x, "%s: udevd defers its events while this run holds the disk\n", dev);
	if (done(arg)) {
		sb_exec_log(x, "%s: registered already (by udev)\n", dev);
		return 0;
	}
	sb_exec_log(x, "$ echo %s > /sys/fs/bcache/register\n", dev);
	r = sb_sys_write("/sys/fs/bcache/register", dev);
	/* udev's bcache-register may have won the race: busy, yet registered. */
	if (sb_bcache_wait_for(done, arg, r < 0 ? 2000 : 10000))
		return 0;
	return sb_exec_fail(x, r < 0 ? r : -ETIMEDOUT, "%s: bcache registration failed: %s", dev,
			    strerror(r < 0 ? -r : ETIMEDOUT));
}

int sb_bcache_zero_sb(struct sb_exec *x, const char *dev, const char *uuid)
{
	struct sb_bcache_sb sb;
	static const char zero[SB_BCACHE_SB_LEN];
	int r = sb_bcache_read_sb(dev, &sb);
	if (r == -ENOENT || r == -ENXIO)
		return 0;
	if (r < 0 && r != -EINVAL)
		return r;
	if (r == 0 && uuid && strcmp(sb.uuid, uuid) != 0 && strcmp(sb.set_uuid, uuid) != 0) {
		sb_exec_log(x, "%s: bcache superblock of %s, not %s: left alone\n", dev, sb.uuid,
			    uuid);
		return 0;
	}
	_cleanup_close_ int fd = open(dev, O_RDWR | O_EXCL | O_CLOEXEC);
	if (fd < 0)
		return negerrno();
	if (pwrite(fd, zero, sizeof(zero), SB_BCACHE_SB_OFFSET) != (ssize_t)sizeof(zero) ||
	    fsync(fd) < 0)
		return negerrno();
	sb_exec_log(x, "%s: bcache superblock zeroed\n", dev);
	return 0;
}

int sb_bcache_set_attr(struct sb_exec *x, const char *on, const char *file, const char *value)
{
	char p[PATH_MAX], sub[64];
	snprintf(sub, sizeof(sub), "bcache/%s", file);
	int r = sb_bcache_sys_path(on, sub, p, sizeof(p));
	if (r < 0)
		return r;
	sb_exec_log(x, "$ echo %s > %s\n", value, p);
	r = sb_sys_write(p, value);
	return r < 0 ? sb_exec_fail(x, r, "%s: %s", p, strerror(-r)) : 0;
}

bool sb_bcache_attached(const char *on)
{
	char p[PATH_MAX];
	return sb_bcache_sys_path(on, "bcache/cache", p, sizeof(p)) == 0 && access(p, F_OK) == 0;
}

/* ---- capture and counters: /sys/block/bcacheN/bcache ---- */

/* Is st->dev[i] a bcache device (bcacheN, its bcache directory there)?
 * Its directory in dir. */
static bool ours(const struct sb_devstack *st, size_t i, char *dir, size_t len)
{
	const char *name = st->dev[i].name;
	if (strncmp(name, "bcache", 6) != 0 || !isdigit((unsigned char)name[6]))
		return false;
	snprintf(dir, len, "%s/class/block/%s/bcache", st->sysroot, name);
	return access(dir, F_OK) == 0;
}

static int read_attr(const char *dir, const char *file, char *buf, size_t len)
{
	char p[PATH_MAX + 64];
	snprintf(p, sizeof(p), "%s/%s", dir, file);
	return sb_sys_read(p, buf, len);
}

static void add_value(json_object *o, const char *key, const char *dir, const char *file)
{
	char buf[128];
	uint64_t v;
	if (read_attr(dir, file, buf, sizeof(buf)) == 0 && sb_bcache_parse_value(buf, &v) == 0)
		json_object_object_add(o, key, json_object_new_int64((int64_t)v));
}

const char *const sb_bcache_capture_skip[] = {"dirty_data", "state", "cache_set", NULL};

void sb_bcache_capture(json_object *into, const struct sb_devstack *st, size_t i, int log_fd)
{
	char dir[PATH_MAX], set[PATH_MAX + 8], real[PATH_MAX], buf[256], mode[32];
	json_object *o;

	(void)log_fd;
	if (!ours(st, i, dir, sizeof(dir)))
		return;
	o = json_object_new_object();
	if (read_attr(dir, "cache_mode", buf, sizeof(buf)) == 0 &&
	    sb_bcache_parse_choice(buf, mode, sizeof(mode)) == 0)
		json_object_object_add(o, "cache_mode", json_object_new_string(mode));
	add_value(o, "sequential_cutoff", dir, "sequential_cutoff");
	add_value(o, "writeback_percent", dir, "writeback_percent");
	add_value(o, "writeback_delay", dir, "writeback_delay");
	add_value(o, "dirty_data", dir, "dirty_data");
	if (read_attr(dir, "state", buf, sizeof(buf)) == 0)
		json_object_object_add(o, "state", json_object_new_string(buf));
	snprintf(set, sizeof(set), "%s/cache", dir);
	if (realpath(set, real)) {
		json_object_object_add(o, "cache_set",
				       json_object_new_string(sb_bcache_base_name(real)));
		add_value(o, "block_size", real, "block_size");
		add_value(o, "bucket_size", real, "bucket_size");
	}
	json_object_object_add(into, st->dev[i].name, o);
}

size_t sb_bcache_counters_read(const struct sb_devstack *st, size_t i, struct sb_lcnt_val *out,
			       int log_fd)
{
	static const char *const names[] = {
	    "cache_hits",	   "cache_misses",	    "cache_bypass_hits",
	    "cache_bypass_misses", "cache_miss_collisions", "cache_readaheads"};
	char dir[PATH_MAX], buf[128], file[64];
	size_t n = 0;
	uint64_t v;

	(void)log_fd;
	if (!ours(st, i, dir, sizeof(dir)))
		return 0;
	for (size_t k = 0; k < ARRAY_SIZE(names) && n < SB_LCNT_MAX; k++) {
		snprintf(file, sizeof(file), "stats_total/%s", names[k]);
		if (read_attr(dir, file, buf, sizeof(buf)) == 0 &&
		    sb_bcache_parse_value(buf, &v) == 0)
			out[n++] = (struct sb_lcnt_val){names[k], v, false};
	}
	if (n < SB_LCNT_MAX && read_attr(dir, "dirty_data", buf, sizeof(buf)) == 0 &&
	    sb_bcache_parse_value(buf, &v) == 0)
		out[n++] = (struct sb_lcnt_val){"dirty_data", v, true};
	return n;
}

const struct sb_layer_counters sb_bcache_counters = {"bcache", sb_bcache_counters_read};
