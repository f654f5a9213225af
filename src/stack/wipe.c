/* Erasing signatures the way wipefs -a does: libblkid finds each one and
 * blkid_do_wipe erases it (file systems, RAID, LVM, partition tables). */
#include "stack/stack.h"
#include "util/macro.h"

#include <blkid.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int sb_wipe_signatures(const char *dev)
{
	_cleanup_close_ int fd = -1;
	blkid_probe pr;
	int n = 0, r = 0;

	/* O_EXCL: never wipe what something (a mount, an array) still holds. */
	fd = open(dev, O_RDWR | O_EXCL | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENXIO ? 0 : negerrno();
	pr = blkid_new_probe();
	if (!pr)
		return -ENOMEM;
	if (blkid_probe_set_device(pr, fd, 0, 0) != 0) {
		blkid_free_probe(pr);
		return -EIO;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_MAGIC | BLKID_SUBLKS_BADCSUM);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC | BLKID_PARTS_FORCE_GPT);
	/* blkid_do_wipe steps the prober back, so each probe finds the next. */
	while (blkid_do_probe(pr) == 0 && n < 64) {
		if (blkid_do_wipe(pr, 0) != 0) {
			r = -EIO;
			break;
		}
		n++;
	}
	blkid_free_probe(pr);
	if (fsync(fd) < 0 && r == 0)
		r = negerrno();
	return r < 0 ? r : n;
}

int sb_wipe_range(int fd, uint64_t off, uint64_t len)
{
	static const char zero[65536];
	while (len > 0) {
		size_t n = len < sizeof(zero) ? (size_t)len : sizeof(zero);
		ssize_t w = pwrite(fd, zero, n, (off_t)off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return negerrno();
		}
		off += (uint64_t)w;
		len -= (uint64_t)w;
	}
	return fsync(fd) < 0 ? negerrno() : 0;
}

int sb_blkid_value(const char *dev, const char *tag, char *buf, size_t len)
{
	_cleanup_close_ int fd = open(dev, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	const char *v = NULL;
	blkid_probe pr;
	int r = -ENOENT;

	if (fd < 0)
		return negerrno();
	pr = blkid_new_probe();
	if (!pr)
		return -ENOMEM;
	if (blkid_probe_set_device(pr, fd, 0, 0) != 0) {
		blkid_free_probe(pr);
		return -EIO;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_UUID | BLKID_SUBLKS_TYPE);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_FORCE_GPT);
	/* 0: found something; 1: nothing; negative: ambivalent or an error. */
	if (blkid_do_safeprobe(pr) == 0 && blkid_probe_lookup_value(pr, tag, &v, NULL) == 0 && v) {
		snprintf(buf, len, "%s", v);
		r = 0;
	}
	blkid_free_probe(pr);
	return r;
}
