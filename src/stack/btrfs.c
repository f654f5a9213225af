/* btrfs specifics: the multi-device mkfs command line (-d/-m profiles over
 * several devices) and forgetting devices the kernel registered, so that a
 * wiped member does not linger in the kernel's btrfs device list. */
#include "stack/layers.h"
#include "util/macro.h"

#include <fcntl.h>
#include <linux/btrfs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

void sb_btrfs_mkfs_argv(const struct sb_mkfs_args *a, struct sb_vec *v)
{
	sb_vec_add(v, "mkfs.btrfs");
	sb_vec_add(v, "-f");
	if (a->data) {
		sb_vec_add(v, "-d");
		sb_vec_add(v, a->data);
	}
	if (a->metadata) {
		sb_vec_add(v, "-m");
		sb_vec_add(v, a->metadata);
	}
	for (size_t i = 0; i < a->opts.n; i++)
		sb_vec_add(v, a->opts.v[i]);
	for (size_t i = 0; i < a->devs.n; i++)
		sb_vec_add(v, a->devs.v[i]);
}

void sb_btrfs_forget(const char *dev)
{
	_cleanup_close_ int fd = open("/dev/btrfs-control", O_RDWR | O_CLOEXEC);
	struct btrfs_ioctl_vol_args args = {0};
	if (fd < 0)
		return;
	snprintf(args.name, sizeof(args.name), "%s", dev);
	/* Fails harmlessly when the device is not registered. */
	ioctl(fd, BTRFS_IOC_FORGET_DEV, &args);
}
