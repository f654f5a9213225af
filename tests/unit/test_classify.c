/* Pure probe logic, table-driven: class from facts, role fitting, and the
 * verdict (refuse bits and human reasons) from collected facts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "probe/probe-internal.h"
#include "probe/probe.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static void test_class(void **state)
{
	static const struct {
		const char *name, *tran;
		bool rota;
		enum sb_class want;
	} cases[] = {
	    {"sda", "sata", true, SB_CLASS_HDD},       {"sdb", "sata", false, SB_CLASS_SSD},
	    {"sdc", "scsi", true, SB_CLASS_HDD}, /* virtio-scsi rotation_rate=7200 */
	    {"sdd", "scsi", false, SB_CLASS_SSD},      {"sde", "usb", true, SB_CLASS_HDD},
	    {"sdf", NULL, false, SB_CLASS_SSD},	       {"nvme0n1", "nvme", false, SB_CLASS_NVME},
	    {"nvme0n1p2", NULL, false, SB_CLASS_NVME}, {"loop3", "loop", true, SB_CLASS_LOOP},
	    {"loop3", "loop", false, SB_CLASS_LOOP},   {"loop3p1", NULL, true, SB_CLASS_LOOP},
	    {"md0", "md", false, SB_CLASS_MD},	       {"md127", NULL, true, SB_CLASS_MD},
	    {"dm-0", "dm", false, SB_CLASS_DM},	       {"vda", "virtio", true, SB_CLASS_VIRTUAL},
	    {"vdb", NULL, false, SB_CLASS_VIRTUAL},    {"xvda", "xen", true, SB_CLASS_VIRTUAL},
	    {"sr0", "sata", true, SB_CLASS_UNKNOWN},   {"zram0", NULL, false, SB_CLASS_UNKNOWN},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sb_device d = {.name = (char *)cases[i].name,
				      .transport = (char *)cases[i].tran,
				      .rotational = cases[i].rota};
		enum sb_class got = sb_device_classify(&d);
		if (got != cases[i].want)
			fail_msg("%s/%s rota=%d: class %s, want %s", cases[i].name,
				 cases[i].tran ? cases[i].tran : "-", cases[i].rota,
				 sb_class_name(got), sb_class_name(cases[i].want));
	}
	assert_string_equal(sb_class_name(SB_CLASS_LOOP), "loop");
	assert_int_equal(sb_class_from_name("nvme"), SB_CLASS_NVME);
	assert_int_equal(sb_class_from_name("floppy"), SB_CLASS_UNKNOWN);
}

static void test_roles(void **state)
{
	static const struct {
		enum sb_class cls;
		bool rota;
		const char *role;
		bool want;
	} cases[] = {
	    {SB_CLASS_LOOP, true, "hdd", true},		{SB_CLASS_LOOP, true, "ssd", false},
	    {SB_CLASS_LOOP, false, "ssd", true},	{SB_CLASS_LOOP, false, "hdd", false},
	    {SB_CLASS_LOOP, false, "loop", true},	{SB_CLASS_LOOP, true, "nvme", false},
	    {SB_CLASS_HDD, true, "hdd", true},		{SB_CLASS_HDD, true, "ssd", false},
	    {SB_CLASS_SSD, false, "ssd", true},		{SB_CLASS_SSD, false, "hdd", false},
	    {SB_CLASS_NVME, false, "nvme", true},	{SB_CLASS_NVME, false, "ssd", true},
	    {SB_CLASS_NVME, false, "hdd", false},	{SB_CLASS_VIRTUAL, true, "hdd", true},
	    {SB_CLASS_VIRTUAL, false, "ssd", true},	{SB_CLASS_MD, false, "ssd", false},
	    {SB_CLASS_MD, false, "md", true},		{SB_CLASS_DM, true, "hdd", false},
	    {SB_CLASS_DM, true, "any", true},		{SB_CLASS_UNKNOWN, true, "hdd", false},
	    {SB_CLASS_UNKNOWN, true, "unknown", false}, {SB_CLASS_UNKNOWN, false, NULL, true},
	    {SB_CLASS_HDD, true, "tape", false},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sb_device d = {
		    .name = "x", .cls = cases[i].cls, .rotational = cases[i].rota};
		if (sb_device_fits_role(&d, cases[i].role) != cases[i].want)
			fail_msg("class %s rota=%d role %s: want %d", sb_class_name(cases[i].cls),
				 cases[i].rota, cases[i].role ? cases[i].role : "NULL",
				 cases[i].want);
	}

	struct sb_device hddloop = {.name = "loop0", .cls = SB_CLASS_LOOP, .rotational = true};
	const char *r[8];
	size_t n = sb_device_roles(&hddloop, r, 8);
	assert_int_equal(n, 3);
	assert_string_equal(r[0], "any");
	assert_string_equal(r[1], "hdd");
	assert_string_equal(r[2], "loop");
	assert_int_equal(sb_device_roles(&hddloop, r, 1), 1);
}

/* Up to 4 devices per case; the first is judged, the others are its
 * partitions, holders or stacked devices. */
struct fake {
	const char *name, *parent;
	const char *mounts[3], *holders[3];
	bool swap, root, ro;
	const char *sigs[3];
	int sigs_err;
	/* identity, for twins: 0 (the default) is one unknown device number */
	unsigned minor;
	const char *serial;
	uint64_t ino;
};

static char **strv(const char *const *v)
{
	char **out = NULL;
	for (size_t i = 0; i < 3 && v[i]; i++)
		assert_int_equal(sb_strv_push(&out, v[i]), 0);
	return out;
}

static void build(struct sb_device *d, const struct fake *f)
{
	memset(d, 0, sizeof(*d));
	d->name = (char *)f->name;
	d->parent = (char *)f->parent;
	d->is_partition = f->parent != NULL;
	d->mounts = strv(f->mounts);
	d->holders = strv(f->holders);
	d->swap = f->swap;
	d->holds_root = f->root;
	d->readonly = f->ro;
	d->sigs_err = f->sigs_err;
	d->major = f->minor ? 8 : 0;
	d->minor = f->minor;
	d->serial = (char *)f->serial;
	d->size = 1 << 30;
	d->backing_dev = f->ino ? 2049 : 0;
	d->backing_ino = f->ino;
	d->sigs = calloc(3, sizeof(*d->sigs));
	for (size_t i = 0; i < 3 && f->sigs[i]; i++)
		d->sigs[d->n_sigs++].type = (char *)f->sigs[i];
}

static void test_verdict(void **state)
{
	static const struct {
		struct fake dev[4];
		unsigned want;
		const char *reasons[6];
	} cases[] = {
	    {{{.name = "loop0"}}, 0, {NULL}},
	    {{{.name = "loop0", .mounts = {"/mnt/x"}}}, SB_REFUSE_MOUNTED, {"mounted on /mnt/x"}},
	    {{{.name = "sdb", .mounts = {"/a", "/b"}}}, SB_REFUSE_MOUNTED, {"mounted on /a, /b"}},
	    {{{.name = "sdb", .holders = {"md0"}}, {.name = "md0"}},
	     SB_REFUSE_HOLDERS,
	     {"has holders: md0"}},
	    {{{.name = "sdb", .swap = true}}, SB_REFUSE_SWAP, {"active swap"}},
	    {{{.name = "vda", .mounts = {"/"}, .root = true}},
	     SB_REFUSE_MOUNTED | SB_REFUSE_ROOT,
	     {"mounted on /", "holds the root file system"}},
	    /* parent of the partition that holds / */
	    {{{.name = "sda"},
	      {.name = "sda1", .parent = "sda", .mounts = {"/boot"}},
	      {.name = "sda2", .parent = "sda", .mounts = {"/"}, .root = true}},
	     SB_REFUSE_ROOT | SB_REFUSE_PARTITIONS,
	     {"holds the root file system", "partitions in use: sda1, sda2"}},
	    /* member of the md array that holds / */
	    {{{.name = "sdc", .holders = {"md0"}}, {.name = "md0", .mounts = {"/"}, .root = true}},
	     SB_REFUSE_HOLDERS | SB_REFUSE_ROOT,
	     {"has holders: md0", "holds the root file system"}},
	    /* disk whose partition is an LVM PV under the root LV: sdd -> sdd1 -> dm-0 */
	    {{{.name = "sdd"},
	      {.name = "sdd1", .parent = "sdd", .holders = {"dm-0"}},
	      {.name = "dm-0", .mounts = {"/"}, .root = true}},
	     SB_REFUSE_ROOT | SB_REFUSE_PARTITIONS,
	     {"holds the root file system", "partitions in use: sdd1"}},
	    /* a partition inherits its disk's refusals: a sister partition in
	     * use (the kernel claims the whole disk for it: our O_EXCL proof of
	     * the disk would fail anyway) */
	    {{{.name = "sda1", .parent = "sda"},
	      {.name = "sda"},
	      {.name = "sda2", .parent = "sda", .mounts = {"/"}, .root = true}},
	     SB_REFUSE_DISK,
	     {"its disk sda has partitions in use: sda2"}},
	    /* ... holders of the whole disk (dm on the disk beside a partition) */
	    {{{.name = "sdh1", .parent = "sdh"}, {.name = "sdh", .holders = {"dm-4"}}, {.name = "dm-4"}},
	     SB_REFUSE_DISK,
	     {"its disk sdh has holders: dm-4"}},
	    /* ... and not for the partition itself, nor for its disk's table */
	    {{{.name = "sdi1", .parent = "sdi"}, {.name = "sdi", .sigs = {"gpt"}}}, 0, {NULL}},
	    /* one already refused for its own use gets no second word */
	    {{{.name = "sdj1", .parent = "sdj", .mounts = {"/a"}},
	      {.name = "sdj"},
	      {.name = "sdj2", .parent = "sdj", .mounts = {"/b"}}},
	     SB_REFUSE_MOUNTED,
	     {"mounted on /a"}},
	    {{{.name = "sr0", .ro = true}}, SB_REFUSE_READONLY, {"read-only"}},
	    {{{.name = "sde", .sigs = {"ext4"}}},
	     SB_REFUSE_SIGNATURES,
	     {"carries signatures: ext4"}},
	    {{{.name = "sde", .sigs = {"gpt", "PMBR", "gpt"}}},
	     SB_REFUSE_SIGNATURES,
	     {"carries signatures: gpt, PMBR"}},
	    {{{.name = "sdf", .sigs_err = -EACCES}},
	     SB_REFUSE_UNPROBED,
	     {"signatures unknown: permission denied"}},
	    {{{.name = "sdg",
	       .mounts = {"/x"},
	       .holders = {"dm-1"},
	       .swap = true,
	       .ro = true,
	       .sigs = {"xfs", "linux_raid_member"}}},
	     SB_REFUSE_MOUNTED | SB_REFUSE_HOLDERS | SB_REFUSE_SWAP | SB_REFUSE_READONLY |
		 SB_REFUSE_SIGNATURES,
	     {"mounted on /x", "has holders: dm-1", "active swap", "read-only",
	      "carries signatures: xfs, linux_raid_member"}},
	    /* one disk under two names: two paths (one serial), one image
	     * behind two loop devices; an O_EXCL open holds only one of them */
	    {{{.name = "sdb", .minor = 16, .serial = "S1"},
	      {.name = "sdx", .minor = 112, .serial = "S1"},
	      {.name = "sdc", .minor = 32, .serial = "S2"}},
	     SB_REFUSE_TWICE,
	     {"the same disk is also sdx"}},
	    {{{.name = "loop3", .minor = 3, .ino = 77}, {.name = "loop9", .minor = 9, .ino = 77}},
	     SB_REFUSE_TWICE,
	     {"the same disk is also loop9"}},
	    /* ... but not multipath's dm device over its paths (it is the one to
	     * use), nor its own partition */
	    {{{.name = "dm-5", .minor = 5, .serial = "S1"},
	      {.name = "sdb", .minor = 16, .serial = "S1", .holders = {"dm-5"}},
	      {.name = "sdx", .minor = 112, .serial = "S1", .holders = {"dm-5"}}},
	     0,
	     {NULL}},
	    {{{.name = "sdb", .minor = 16, .serial = "S1"},
	      {.name = "sdb1", .minor = 17, .serial = "S1", .parent = "sdb"}},
	     0,
	     {NULL}},
	    /* a holder cycle in bogus facts must not hang */
	    {{{.name = "dm-2", .holders = {"dm-3"}}, {.name = "dm-3", .holders = {"dm-2"}}},
	     SB_REFUSE_HOLDERS,
	     {"has holders: dm-3"}},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sb_device devs[4];
		struct sb_probe all = {devs, 0};
		size_t k;

		for (k = 0; k < 4 && cases[i].dev[k].name; k++)
			build(&devs[k], &cases[i].dev[k]);
		all.n = k;
		assert_int_equal(sb_device_verdict(&devs[0], &all), 0);
		if (devs[0].refuse != cases[i].want)
			fail_msg("case %zu (%s): refuse 0x%x, want 0x%x", i, devs[0].name,
				 devs[0].refuse, cases[i].want);
		size_t ngot = sb_strv_len(devs[0].reasons);
		for (k = 0; k < 6 && (cases[i].reasons[k] || k < ngot); k++) {
			const char *got = k < ngot ? devs[0].reasons[k] : NULL;
			const char *want = cases[i].reasons[k];
			if (!got || !want || strcmp(got, want))
				fail_msg("case %zu (%s) reason %zu: '%s', want '%s'", i,
					 devs[0].name, k, got ? got : "(none)",
					 want ? want : "(none)");
		}
		/* refusals are {bit, text}: one bit per reason, together the verdict */
		unsigned all_bits = 0;
		for (k = 0; k < ngot; k++) {
			unsigned b = devs[0].reason_bits[k];
			assert_true(b && (b & (b - 1)) == 0);
			assert_non_null(sb_refuse_name(b));
			all_bits |= b;
		}
		assert_int_equal(all_bits, devs[0].refuse);
		/* verdicts are recomputed, not appended, when called again */
		assert_int_equal(sb_device_verdict(&devs[0], &all), 0);
		assert_int_equal(sb_strv_len(devs[0].reasons), k);
		for (k = 0; k < all.n; k++) {
			sb_strv_free(devs[k].mounts);
			sb_strv_free(devs[k].holders);
			sb_strv_free(devs[k].reasons);
			free(devs[k].reason_bits);
			free(devs[k].sigs);
		}
	}
	assert_string_equal(sb_refuse_name(SB_REFUSE_ROOT), "root");
	assert_null(sb_refuse_name(3));
}

static void test_same_disk(void **state)
{
	static const struct {
		struct sb_device a, b;
		bool want;
	} cases[] = {
	    {{.name = "sdb", .major = 8, .minor = 16}, {.name = "sdc", .major = 8, .minor = 32}, false},
	    /* the same node under two names (a symlink) */
	    {{.name = "sdb", .major = 8, .minor = 16}, {.name = "sdb", .major = 8, .minor = 16}, true},
	    /* multipath / dual-ported: two nodes, one serial */
	    {{.name = "sdb", .major = 8, .minor = 16, .serial = "WD-123"},
	     {.name = "sdx", .major = 65, .minor = 112, .serial = "WD-123"},
	     true},
	    {{.name = "sdb", .major = 8, .minor = 16, .serial = "WD-123"},
	     {.name = "sdc", .major = 8, .minor = 32, .serial = "WD-124"},
	     false},
	    /* a serial that is not unique: different sizes or models are two disks */
	    {{.name = "sda", .major = 8, .minor = 0, .serial = "t10.QEMU", .size = 1ULL << 30},
	     {.name = "sdb", .major = 8, .minor = 16, .serial = "t10.QEMU", .size = 2ULL << 30},
	     false},
	    {{.name = "sda", .major = 8, .minor = 0, .serial = "X", .model = "A", .size = 1},
	     {.name = "sdb", .major = 8, .minor = 16, .serial = "X", .model = "B", .size = 1},
	     false},
	    /* an empty serial says nothing */
	    {{.name = "vda", .major = 254, .minor = 0, .serial = ""},
	     {.name = "vdb", .major = 254, .minor = 16, .serial = ""},
	     false},
	    /* a disk and its own partition overlap */
	    {{.name = "sdb", .major = 8, .minor = 16},
	     {.name = "sdb1", .major = 8, .minor = 17, .parent = "sdb", .partn = 1},
	     true},
	    /* two partitions of one disk do not */
	    {{.name = "sdb1", .major = 8, .minor = 17, .parent = "sdb", .partn = 1, .serial = "S"},
	     {.name = "sdb2", .major = 8, .minor = 18, .parent = "sdb", .partn = 2, .serial = "S"},
	     false},
	    /* ... but the same partition of one disk seen twice (multipath) does */
	    {{.name = "sdb1", .major = 8, .minor = 17, .parent = "sdb", .partn = 1, .serial = "S"},
	     {.name = "sdx1", .major = 65, .minor = 113, .parent = "sdx", .partn = 1, .serial = "S"},
	     true},
	    /* one file behind two loop devices */
	    {{.name = "loop0", .major = 7, .minor = 0, .backing_dev = 2049, .backing_ino = 42},
	     {.name = "loop1", .major = 7, .minor = 1, .backing_dev = 2049, .backing_ino = 42},
	     true},
	    {{.name = "loop0", .major = 7, .minor = 0, .backing_dev = 2049, .backing_ino = 42},
	     {.name = "loop1", .major = 7, .minor = 1, .backing_dev = 2049, .backing_ino = 43},
	     false},
	    /* unknown backing inodes (0) are not equal */
	    {{.name = "loop0", .major = 7, .minor = 0}, {.name = "loop1", .major = 7, .minor = 1}, false},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (sb_device_same_disk(&cases[i].a, &cases[i].b) != cases[i].want ||
		    sb_device_same_disk(&cases[i].b, &cases[i].a) != cases[i].want)
			fail_msg("case %zu (%s, %s): want %d", i, cases[i].a.name, cases[i].b.name,
				 cases[i].want);
	}
}

static void test_refuse_names(void **state)
{
	/* every bit has a name, names are distinct, nothing past the last */
	for (unsigned i = 0; i < SB_REFUSE_NBITS; i++) {
		const char *n = sb_refuse_name(1u << i);
		assert_non_null(n);
		for (unsigned k = 0; k < i; k++)
			assert_string_not_equal(n, sb_refuse_name(1u << k));
	}
	assert_null(sb_refuse_name(1u << SB_REFUSE_NBITS));
	assert_string_equal(sb_refuse_name(SB_REFUSE_EXCL), "exclusive");
	assert_string_equal(sb_refuse_name(SB_REFUSE_TWICE), "twice");
	/* sb_device_refuse: {bit, text} pairs kept together */
	struct sb_device d = {.name = "x"};
	assert_int_equal(sb_device_refuse(&d, SB_REFUSE_EXCL, "held"), 0);
	assert_int_equal(sb_device_refuse(&d, SB_REFUSE_SIGNATURES, "sigs"), 0);
	assert_int_equal(d.refuse, SB_REFUSE_EXCL | SB_REFUSE_SIGNATURES);
	assert_int_equal(d.reason_bits[1], SB_REFUSE_SIGNATURES);
	assert_string_equal(d.reasons[1], "sigs");
	sb_strv_free(d.reasons);
	free(d.reason_bits);
}

static void test_transport(void **state)
{
	static const struct {
		const char *name, *path, *bus, *want;
	} cases[] = {
	    {"sda", "/sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda",
	     NULL, "sata"},
	    {"sdb",
	     "/sys/devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0/"
	     "block/sdb",
	     NULL, "usb"},
	    {"sdc",
	     "/sys/devices/pci0000:00/0000:00:03.0/virtio0/host2/target2:0:0/2:0:0:0/block/sdc",
	     NULL, "scsi"},
	    {"sdd", "/sys/devices/pci0000:00/0000:00:1f.2/host0/port-0:0/end_device-0:0/block/sdd",
	     NULL, "scsi"},
	    {"sde", "/sys/devices/whatever/block/sde", "ata", "sata"},
	    {"sdf", "/sys/devices/whatever/block/sdf", "usb", "usb"},
	    {"vda", "/sys/devices/pci0000:00/0000:00:02.0/virtio1/block/vda", NULL, "virtio"},
	    {"vda1", "/sys/devices/pci0000:00/0000:00:02.0/virtio1/block/vda/vda1", NULL, "virtio"},
	    {"nvme0n1", "/sys/devices/pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme0/nvme0n1",
	     NULL, "nvme"},
	    {"nvme0n1p1", NULL, NULL, "nvme"},
	    {"loop0", "/sys/devices/virtual/block/loop0", "usb", "loop"},
	    {"loop0p1", "/sys/devices/virtual/block/loop0/loop0p1", NULL, "loop"},
	    {"md127", "/sys/devices/virtual/block/md127", NULL, "md"},
	    {"dm-0", "/sys/devices/virtual/block/dm-0", NULL, "dm"},
	    {"xvda", "/sys/devices/vbd-51712/block/xvda", NULL, "xen"},
	    {"mmcblk0", "/sys/devices/platform/soc/mmc_host/mmc0/mmc0:0001/block/mmcblk0", NULL,
	     "mmc"},
	    {"zram0", "/sys/devices/virtual/block/zram0", NULL, ""},
	    {"sdg", "/sys/devices/whatever/block/sdg", "", ""},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = sb_transport_from(cases[i].name, cases[i].path, cases[i].bus);
		assert_non_null(got);
		if (strcmp(got, cases[i].want))
			fail_msg("%s: transport '%s', want '%s'", cases[i].name, got,
				 cases[i].want);
		free(got);
	}
}

static void test_scheduler(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
	    {"none [mq-deadline] kyber bfq", "mq-deadline"},
	    {"[none] mq-deadline", "none"},
	    {"none", "none"},
	    {"bfq [kyber]", "kyber"},
	    /* malformed: what the queue step would reject, probe does not show */
	    {"", NULL},
	    {"[broken", NULL},
	    {"none mq-deadline", NULL},
	    {"[none] [kyber]", NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = sb_scheduler_in_use(cases[i].in);
		if (!cases[i].want) {
			if (got)
				fail_msg("'%s': '%s', want none", cases[i].in, got);
			continue;
		}
		assert_non_null(got);
		if (strcmp(got, cases[i].want))
			fail_msg("'%s': '%s', want '%s'", cases[i].in, got, cases[i].want);
		free(got);
	}
}

static void test_udev_decode(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
	    {"QEMU\\x20HARDDISK\\x20\\x20\\x20", "QEMU HARDDISK"},
	    {"Samsung\\x20SSD\\x20860", "Samsung SSD 860"},
	    {"\\x20\\x20ATA", "ATA"},
	    {"plain", "plain"},
	    {"bad\\xZZ", "bad\\xZZ"},
	    {"nul\\x00kept", "nul\\x00kept"},
	    {"cut\\x2", "cut\\x2"},
	    {"esc\\x1b[2Jx", "esc\\x1b[2Jx"},
	    {"del\\x7f", "del\\x7f"},
	    {"", ""},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[64];
		snprintf(buf, sizeof(buf), "%s", cases[i].in);
		sb_udev_decode(buf);
		if (strcmp(buf, cases[i].want))
			fail_msg("'%s': '%s', want '%s'", cases[i].in, buf, cases[i].want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_class),     cmocka_unit_test(test_transport),
	    cmocka_unit_test(test_scheduler), cmocka_unit_test(test_udev_decode),
	    cmocka_unit_test(test_roles),     cmocka_unit_test(test_verdict),
	    cmocka_unit_test(test_same_disk), cmocka_unit_test(test_refuse_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
