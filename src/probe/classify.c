/* Pure decisions over collected facts: device class, which profile roles a
 * device can play, and the usable/refused verdict with its reasons. No I/O. */
#include "probe/probe-internal.h"
#include "probe/probe.h"
#include "util/macro.h"
#include "util/parse.h"
#include "util/size.h"

#include <ctype.h>
#include <inttypes.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static const char *const class_names[] = {
    [SB_CLASS_UNKNOWN] = "unknown", [SB_CLASS_HDD] = "hdd",   [SB_CLASS_SSD] = "ssd",
    [SB_CLASS_NVME] = "nvme",	    [SB_CLASS_LOOP] = "loop", [SB_CLASS_VIRTUAL] = "virtual",
    [SB_CLASS_MD] = "md",	    [SB_CLASS_DM] = "dm",
};

const char *sb_class_name(enum sb_class c)
{
	if ((size_t)c >= ARRAY_SIZE(class_names))
		return "unknown";
	return class_names[c];
}

enum sb_class sb_class_from_name(const char *s)
{
	for (size_t i = 0; s && i < ARRAY_SIZE(class_names); i++)
		if (strcmp(s, class_names[i]) == 0)
			return (enum sb_class)i;
	return SB_CLASS_UNKNOWN;
}

static bool prefix(const char *s, const char *p)
{
	return s && strncmp(s, p, strlen(p)) == 0;
}

static bool streq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

enum sb_class sb_device_classify(const struct sb_device *d)
{
	const char *t = d->transport, *n = d->name;

	/* The kernel's own naming is the strongest hint for software devices:
	 * a partition of a loop device is still backed by a file. */
	if (streq(t, "loop") || prefix(n, "loop"))
		return SB_CLASS_LOOP;
	if (streq(t, "md") || prefix(n, "md"))
		return SB_CLASS_MD;
	if (streq(t, "dm") || prefix(n, "dm-"))
		return SB_CLASS_DM;
	if (streq(t, "nvme") || prefix(n, "nvme"))
		return SB_CLASS_NVME;
	/* virtio-blk and xen report rotational=1 whatever the medium is: the
	 * flag means nothing there. virtio-scsi disks have transport "scsi" and
	 * a real rotation rate, so they fall through to hdd/ssd. */
	if (streq(t, "virtio") || streq(t, "xen") || prefix(n, "xvd") || prefix(n, "vd"))
		return SB_CLASS_VIRTUAL;
	if (prefix(n, "sr") || prefix(n, "ram") || prefix(n, "zram"))
		return SB_CLASS_UNKNOWN;
	return d->rotational ? SB_CLASS_HDD : SB_CLASS_SSD;
}

size_t sb_device_roles(const struct sb_device *d, const char **roles, size_t max)
{
	static const char *const candidates[] = {"any",	 "ssd",	    "hdd", "nvme",
						 "loop", "virtual", "md",  "dm"};
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(candidates) && n < max; i++)
		if (sb_device_fits_role(d, candidates[i]))
			roles[n++] = candidates[i];
	return n;
}

bool sb_device_fits_role(const struct sb_device *d, const char *role)
{
	enum sb_class c = d->cls;

	if (!role || streq(role, "any"))
		return true;
	/* Loop and virtual devices have no medium of their own: their rotational
	 * flag (writable for loop) decides, so that CI can emulate HDDs. */
	if (streq(role, "hdd"))
		return d->rotational &&
		       (c == SB_CLASS_HDD || c == SB_CLASS_LOOP || c == SB_CLASS_VIRTUAL);
	if (streq(role, "ssd"))
		return !d->rotational && (c == SB_CLASS_SSD || c == SB_CLASS_NVME ||
					  c == SB_CLASS_LOOP || c == SB_CLASS_VIRTUAL);
	return c != SB_CLASS_UNKNOWN && streq(role, sb_class_name(c));
}

char *sb_scheduler_in_use(const char *s)
{
	char cur[64];
	/* The same parser as the queue step's, so that what probe shows is
	 * what a run can restore. */
	return sb_scheduler_parse(s, cur, sizeof(cur), NULL, 0) == 0 ? strdup(cur) : NULL;
}

void sb_udev_decode(char *s)
{
	char *w = s, *start;
	unsigned v;

	for (const char *r = s; *r;) {
		if (r[0] == '\\' && r[1] == 'x' && isxdigit((unsigned char)r[2]) &&
		    isxdigit((unsigned char)r[3]) && sscanf(r + 2, "%2x", &v) == 1 &&
		    /* Control bytes from device firmware stay escaped, as in lsblk:
		     * a model string must not drive the user's terminal. */
		    v >= 0x20 && v != 0x7f) {
			*w++ = (char)v;
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = 0;
	while (w > s && isspace((unsigned char)w[-1]))
		*--w = 0;
	for (start = s; isspace((unsigned char)*start); start++)
		;
	memmove(s, start, strlen(start) + 1);
}

char *sb_transport_from(const char *name, const char *devpath, const char *id_bus)
{
	static const struct {
		const char *prefix, *tran;
	} by_name[] = {{"loop", "loop"}, {"md", "md"}, {"dm-", "dm"}, {"nvme", "nvme"}};
	/* Where the device hangs in /sys/devices, as lsblk reads it. usb comes
	 * before ata and scsi: a USB bridge shows all three. virtio-scsi disks
	 * sit under virtioN/hostM and are scsi; virtio-blk ones directly under
	 * virtioN. */
	static const struct {
		const char *part, *tran;
	} by_path[] = {{"/usb", "usb"},	      {"/ata", "sata"},	 {"/nvme", "nvme"},
		       {"/mmc_host/", "mmc"}, {"/host", "scsi"}, {"/virtio", "virtio"},
		       {"/vbd-", "xen"}};

	for (size_t i = 0; i < ARRAY_SIZE(by_name); i++)
		if (prefix(name, by_name[i].prefix))
			return strdup(by_name[i].tran);
	if (id_bus && *id_bus)
		return strdup(strcmp(id_bus, "ata") == 0 ? "sata" : id_bus);
	for (size_t i = 0; devpath && i < ARRAY_SIZE(by_path); i++)
		if (strstr(devpath, by_path[i].part))
			return strdup(by_path[i].tran);
	return strdup("");
}

static const char *const refuse_names[SB_REFUSE_NBITS] = {
    "mounted",	"holders", "swap",	"root",	 "readonly", "signatures", "partitions",
    "unprobed", "disk",	   "exclusive", "twice", "changed",  "small",
};

const char *sb_refuse_name(unsigned bit)
{
	for (size_t i = 0; i < ARRAY_SIZE(refuse_names); i++)
		if (bit == 1u << i)
			return refuse_names[i];
	return NULL;
}

static const struct sb_device *find_name(const struct sb_probe *all, const char *name)
{
	for (size_t i = 0; all && i < all->n; i++)
		if (streq(all->dev[i].name, name))
			return &all->dev[i];
	return NULL;
}

/* Root is on d, on one of its partitions, or on something stacked on it
 * (md, dm): following children and holders down, depth-limited because
 * the facts come from outside and could loop. */
static bool carries_root(const struct sb_device *d, const struct sb_probe *all, int depth)
{
	if (d->holds_root)
		return true;
	if (depth > 8)
		return false;
	for (size_t i = 0; all && i < all->n; i++)
		if (streq(all->dev[i].parent, d->name) &&
		    carries_root(&all->dev[i], all, depth + 1))
			return true;
	for (size_t i = 0; d->holders && d->holders[i]; i++) {
		const struct sb_device *h = find_name(all, d->holders[i]);
		if (h && h != d && carries_root(h, all, depth + 1))
			return true;
	}
	return false;
}

static int add_reason(struct sb_device *d, unsigned bit, const char *what, char *const *list)
{
	_cleanup_free_ char *joined = NULL, *s = NULL;

	if (list) {
		joined = sb_strv_join(list, ", ");
		if (!joined || asprintf(&s, "%s%s", what, joined) < 0)
			return -ENOMEM;
	}
	return sb_device_refuse(d, bit, s ? s : what);
}

int sb_device_refuse(struct sb_device *d, unsigned bit, const char *text)
{
	size_t n = sb_strv_len(d->reasons);
	unsigned *b = realloc(d->reason_bits, (n + 1) * sizeof(*b));
	if (!b)
		return -ENOMEM;
	d->reason_bits = b;
	if (sb_strv_push(&d->reasons, text) < 0)
		return -ENOMEM;
	b[n] = bit;
	d->refuse |= bit;
	return 0;
}

/* Is l the very device (by number) that the loop device d reads? */
static bool is_lower_of(const struct sb_device *l, const struct sb_device *d)
{
	return d->has_lower && l->major == d->lower_major && l->minor == d->lower_minor;
}

const struct sb_device *sb_device_lower(const struct sb_device *d, const struct sb_probe *all)
{
	for (size_t i = 0; d->has_lower && all && i < all->n; i++)
		if (is_lower_of(&all->dev[i], d))
			return &all->dev[i];
	for (size_t i = 0; d->has_lower && all && i < all->n_below; i++)
		if (is_lower_of(&all->below[i], d))
			return &all->below[i];
	return NULL;
}

static bool same_str(const char *a, const char *b)
{
	return a && b && *a && strcmp(a, b) == 0;
}

bool sb_device_same_disk(const struct sb_device *a, const struct sb_device *b)
{
	if (a->major == b->major && a->minor == b->minor)
		return true;
	if (streq(a->parent, b->name) || streq(b->parent, a->name))
		return true;
	/* Partitions carry their disk's serial: the same disk under two names
	 * overlaps unless they are different partitions of it. */
	bool parts_apart = a->partn && b->partn && a->partn != b->partn;
	/* Some serials are not unique (a t10 WWID of vendor and model only,
	 * as QEMU gives disks without serial=): one disk seen twice also has
	 * one size and one model. */
	bool same_model = !a->model || !b->model || strcmp(a->model, b->model) == 0;
	if (same_str(a->serial, b->serial) && a->size == b->size && same_model && !parts_apart)
		return true;
	if (is_lower_of(a, b) || is_lower_of(b, a))
		return true;
	if (a->has_lower && b->has_lower && a->lower_major == b->lower_major &&
	    a->lower_minor == b->lower_minor)
		return true;
	return a->backing_ino && a->backing_dev == b->backing_dev &&
	       a->backing_ino == b->backing_ino && !parts_apart;
}

/* A partition is no safer than its disk: holders of the disk (md, dm on the
 * whole device), the disk mounted, or another partition of it in use. */
static int inherit_disk(struct sb_device *d, const struct sb_probe *all)
{
	const struct sb_device *w = d->is_partition ? find_name(all, d->parent) : NULL;
	_cleanup_free_ char *s = NULL, *j = NULL;
	char **sib = NULL;
	int r = 0;

	if (!w)
		return 0;
	if (sb_strv_len(w->holders)) {
		j = sb_strv_join(w->holders, ", ");
		if (!j || asprintf(&s, "its disk %s has holders: %s", w->name, j) < 0)
			return -ENOMEM;
		return sb_device_refuse(d, SB_REFUSE_DISK, s);
	}
	if (sb_strv_len(w->mounts) || w->swap) {
		if (asprintf(&s, "its disk %s is %s", w->name,
			     w->swap ? "active swap" : "mounted") < 0)
			return -ENOMEM;
		return sb_device_refuse(d, SB_REFUSE_DISK, s);
	}
	for (size_t i = 0; i < all->n; i++) {
		const struct sb_device *c = &all->dev[i];
		if (c == d || !streq(c->parent, w->name) || streq(c->name, d->name))
			continue;
		if ((sb_strv_len(c->mounts) || sb_strv_len(c->holders) || c->swap) &&
		    sb_strv_push(&sib, c->name) < 0) {
			r = -ENOMEM;
			goto out;
		}
	}
	if (sib) {
		j = sb_strv_join(sib, ", ");
		if (!j || asprintf(&s, "its disk %s has partitions in use: %s", w->name, j) < 0)
			r = -ENOMEM;
		else
			r = sb_device_refuse(d, SB_REFUSE_DISK, s);
	}
out:
	sb_strv_free(sib);
	return r;
}

/* Other names of d's disk in the scan: the same serial (two paths to one
 * LUN, one image attached twice) or the same backing file behind two loop
 * devices. An exclusive open holds one block device, not the other name,
 * so a mount or mkfs through the twin would go unnoticed until the data is
 * gone. A device stacked on d (multipath's dm device over its paths) is
 * not a twin: it is the one to use. */
static int find_twins(const struct sb_device *d, const struct sb_probe *all, char ***twins)
{
	for (size_t i = 0; all && i < all->n; i++) {
		const struct sb_device *c = &all->dev[i];
		if (c == d || (c->major == d->major && c->minor == d->minor) ||
		    streq(c->parent, d->name) || streq(d->parent, c->name) ||
		    sb_strv_contains(c->holders, d->name) ||
		    sb_strv_contains(d->holders, c->name) || is_lower_of(c, d) || is_lower_of(d, c))
			continue;
		if (sb_device_same_disk(c, d) && sb_strv_push(twins, c->name) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int verdict_at(struct sb_device *d, const struct sb_probe *all, int depth);

/* The chain of loop devices is followed this deep; the facts come from
 * outside and could loop. */
#define LOWER_DEPTH 8

/* A loop device over a block device writes that device: every refusal of
 * it, and of what lies beneath it, is d's too, bit for bit (so --wipe
 * lifts an inherited signature and nothing else). Its verdict is worked
 * out afresh on a copy, so the order of verdicts does not matter. */
static int inherit_lower(struct sb_device *d, const struct sb_probe *all, int depth)
{
	const struct sb_device *l = sb_device_lower(d, all);
	_cleanup_free_ char *s = NULL;
	struct sb_device t;
	int r;

	if (d->lower_err) {
		if (asprintf(&s, "what backs it is unknown (file or device): %s",
			     strerror(-d->lower_err)) < 0)
			return -ENOMEM;
		s[43] = (char)tolower((unsigned char)s[43]); /* strerror capitalizes */
		return sb_device_refuse(d, SB_REFUSE_UNPROBED, s);
	}
	if (!d->has_lower)
		return 0;
	if (!l || l == d || depth >= LOWER_DEPTH) {
		if (asprintf(&s, "its backing device %u:%u %s", d->lower_major, d->lower_minor,
			     !l ? "was not found" : "is part of a chain too deep to follow") < 0)
			return -ENOMEM;
		return sb_device_refuse(d, SB_REFUSE_UNPROBED, s);
	}
	t = *l;
	t.reasons = NULL;
	t.reason_bits = NULL;
	r = verdict_at(&t, all, depth + 1);
	for (size_t i = 0; r == 0 && t.reasons && t.reasons[i]; i++) {
		free(s);
		s = NULL;
		if (asprintf(&s, "its backing device %s: %s", l->name, t.reasons[i]) < 0)
			r = -ENOMEM;
		else
			r = sb_device_refuse(d, t.reason_bits[i], s);
	}
	sb_strv_free(t.reasons);
	free(t.reason_bits);
	return r;
}

int sb_device_refuse_small(struct sb_device *d, uint64_t min, const char *what)
{
	_cleanup_free_ char *s = NULL;
	char have[16], need[16];

	if (d->size >= min)
		return 0;
	if (d->size == 0)
		s = strdup(d->cls == SB_CLASS_LOOP && !d->backing_file
			       ? "empty (0 bytes): a loop device with nothing attached"
			       : "empty (0 bytes)");
	else if (asprintf(&s,
			  "too small: %s (%" PRIu64 " bytes), %s needs at least %s (%" PRIu64
			  " bytes)",
			  sb_format_size(d->size, have, sizeof(have)), d->size, what,
			  sb_format_size(min, need, sizeof(need)), min) < 0)
		s = NULL;
	if (!s)
		return -ENOMEM;
	return sb_device_refuse(d, SB_REFUSE_SMALL, s) < 0 ? -ENOMEM : 1;
}

int sb_device_verdict(struct sb_device *d, const struct sb_probe *all)
{
	return verdict_at(d, all, 0);
}

static int verdict_at(struct sb_device *d, const struct sb_probe *all, int depth)
{
	char **parts = NULL, **types = NULL, **twins = NULL;
	int r = -ENOMEM;

	sb_strv_free(d->reasons);
	d->reasons = NULL;
	free(d->reason_bits);
	d->reason_bits = NULL;
	d->refuse = 0;

	for (size_t i = 0; all && i < all->n; i++) {
		const struct sb_device *c = &all->dev[i];
		if (c == d || !streq(c->parent, d->name))
			continue;
		if ((sb_strv_len(c->mounts) || sb_strv_len(c->holders) || c->swap) &&
		    sb_strv_push(&parts, c->name) < 0)
			goto out;
	}
	for (size_t i = 0; i < d->n_sigs; i++)
		if (d->sigs[i].type && !sb_strv_contains(types, d->sigs[i].type) &&
		    sb_strv_push(&types, d->sigs[i].type) < 0)
			goto out;

	if (sb_strv_len(d->mounts) && add_reason(d, SB_REFUSE_MOUNTED, "mounted on ", d->mounts))
		goto out;
	if (sb_strv_len(d->holders) &&
	    add_reason(d, SB_REFUSE_HOLDERS, "has holders: ", d->holders))
		goto out;
	if (d->swap && add_reason(d, SB_REFUSE_SWAP, "active swap", NULL))
		goto out;
	if (carries_root(d, all, 0) &&
	    add_reason(d, SB_REFUSE_ROOT, "holds the root file system", NULL))
		goto out;
	if (d->readonly && add_reason(d, SB_REFUSE_READONLY, "read-only", NULL))
		goto out;
	if (parts && add_reason(d, SB_REFUSE_PARTITIONS, "partitions in use: ", parts))
		goto out;
	if (find_twins(d, all, &twins) < 0 ||
	    (twins && add_reason(d, SB_REFUSE_TWICE, "the same disk is also ", twins)))
		goto out;
	/* A partition already refused for its own use needs no more words. */
	if (!(d->refuse &
	      (SB_REFUSE_MOUNTED | SB_REFUSE_HOLDERS | SB_REFUSE_SWAP | SB_REFUSE_ROOT)) &&
	    inherit_disk(d, all) < 0)
		goto out;
	if (types && add_reason(d, SB_REFUSE_SIGNATURES, "carries signatures: ", types))
		goto out;
	if (inherit_lower(d, all, depth) < 0 ||
	    sb_device_refuse_small(d, SB_DEVICE_MIN_BYTES, "any stack") < 0)
		goto out;
	if (d->sigs_err) {
		_cleanup_free_ char *s = NULL;
		if (asprintf(&s, "signatures unknown: %s", strerror(-d->sigs_err)) < 0)
			goto out;
		/* strerror() capitalizes; our messages are lowercase */
		s[20] = (char)tolower((unsigned char)s[20]);
		if (add_reason(d, SB_REFUSE_UNPROBED, s, NULL))
			goto out;
	}
	r = 0;
out:
	sb_strv_free(parts);
	sb_strv_free(types);
	sb_strv_free(twins);
	return r;
}
