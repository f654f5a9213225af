/* The one table of profile keys: parsing, validation, overrides, the matrix,
 * suggestions and doc/profile-format.md (checked by test_profile) follow it. */
#include "profile/profile.h"

#include <stdio.h>
#include <string.h>

const char *const sb_sec_names[SB_SEC_N] = {
    [SB_SEC_DEVICES] = "devices", [SB_SEC_PARTITION] = "partition",
    [SB_SEC_MD] = "md",		  [SB_SEC_LVM] = "lvm",
    [SB_SEC_FS] = "fs",		  [SB_SEC_MOUNT] = "mount",
    [SB_SEC_QUEUE] = "queue",	  [SB_SEC_WORKLOADS] = "workloads",
    [SB_SEC_MATRIX] = "matrix",
    [SB_SEC_SCENARIO] = "scenario",
};

const char *const sb_role_names[SB_ROLE_N] = {"ssd", "hdd", "nvme", "any"};

#define BTRFS_PROFILES "single|dup|raid0|raid1|raid1c3|raid1c4|raid10|raid5|raid6"

const struct sb_key sb_keys[SB_KEY_N] = {
    [K_DEV_SSD] = {SB_SEC_DEVICES, "ssd", SB_KT_COUNT, NULL, 0, 64, NULL, SB_KF_NOMATRIX,
		   "number of non-rotational SATA/SAS devices the stack needs"},
    [K_DEV_HDD] = {SB_SEC_DEVICES, "hdd", SB_KT_COUNT, NULL, 0, 64, NULL, SB_KF_NOMATRIX,
		   "number of rotational devices"},
    [K_DEV_NVME] = {SB_SEC_DEVICES, "nvme", SB_KT_COUNT, NULL, 0, 64, NULL, SB_KF_NOMATRIX,
		    "number of NVMe devices"},
    [K_DEV_ANY] = {SB_SEC_DEVICES, "any", SB_KT_COUNT, NULL, 0, 64, NULL, SB_KF_NOMATRIX,
		   "number of devices of any kind (a hardware RAID volume, say)"},
    [K_DEV_LOOP_SSD] = {SB_SEC_DEVICES, "loop.ssd", SB_KT_SIZE, NULL, 0, 0, "1G", 0,
			"--loop: size of each ssd loop device (sparse)"},
    [K_DEV_LOOP_HDD] = {SB_SEC_DEVICES, "loop.hdd", SB_KT_SIZE, NULL, 0, 0, "1G", 0,
			"--loop: size of each hdd loop device (rotational flag set)"},
    [K_DEV_LOOP_NVME] = {SB_SEC_DEVICES, "loop.nvme", SB_KT_SIZE, NULL, 0, 0, "1G", 0,
			 "--loop: size of each nvme loop device"},
    [K_DEV_LOOP_ANY] = {SB_SEC_DEVICES, "loop.any", SB_KT_SIZE, NULL, 0, 0, "1G", 0,
			"--loop: size of each 'any' loop device"},
    [K_DEV_LOOP_QUICK] = {SB_SEC_DEVICES, "loop.quick", SB_KT_SIZE, NULL, 0, 0, "320M", 0,
			  "--loop --quick: size of every loop device (xfs needs 300M)"},
    [K_DEV_LOOP_EMULATE] = {SB_SEC_DEVICES, "loop.emulate", SB_KT_CHOICE, "none|raid6", 0, 0,
			    "none", SB_KF_NOMATRIX,
			    "--loop: build each 'any' device as an md array of this level over "
			    "loop devices (emulates a hardware RAID volume)"},
    [K_DEV_LOOP_EMULATE_MEMBERS] = {SB_SEC_DEVICES, "loop.emulate-members", SB_KT_UINT, NULL, 4, 16,
				    "4", SB_KF_NOMATRIX,
				    "--loop: loop devices in each emulated array"},
    [K_DEV_PRECONDITION] = {SB_SEC_DEVICES, "precondition", SB_KT_CHOICE, "none|trim|steady", 0, 0,
			    "none", 0,
			    "starting state of every member device before mkfs: 'trim' discards "
			    "it all, 'steady' also writes it past its capacity until a steady "
			    "state (SNIA PTS); both make the file system with discard off"},
    [K_DEV_PRECONDITION_LIMIT] = {SB_SEC_DEVICES, "precondition-limit", SB_KT_DURATION, NULL, 0,
				  0, "30m", 0,
				  "steady: stop writing a device after this long, steady or not "
				  "(result.json says which)"},

    [K_PART_COUNT] = {SB_SEC_PARTITION, "count", SB_KT_UINT, NULL, 1, 16, NULL, 0,
		      "split each device into this many equal GPT partitions"},
    [K_PART_SIZES] = {SB_SEC_PARTITION, "sizes", SB_KT_SIZES, NULL, 0, 0, NULL, 0,
		      "partition sizes instead of count: '50%,50%', '10G,rest'"},
    [K_PART_ON] = {SB_SEC_PARTITION, "on", SB_KT_ROLES, NULL, 0, 0, "all", 0,
		   "roles whose devices are partitioned ('all' or 'ssd,hdd')"},

    [K_MD_LEVEL] = {SB_SEC_MD, "level", SB_KT_CHOICE, "none|0|1|4|5|6|10", 0, 0, NULL, 0,
		    "RAID level; setting it builds an md array ('none' leaves md out, e.g. "
		    "as the baseline of a matrix)"},
    [K_MD_MEMBERS] = {SB_SEC_MD, "members", SB_KT_MEMBERS, NULL, 0, 0, "all", 0,
		      "roles whose devices (or partitions) become members, or partitions by "
		      "role and number: 'ssd.p2, hdd.p2'"},
    [K_MD_WRITE_MOSTLY] = {SB_SEC_MD, "write-mostly", SB_KT_ROLE, NULL, 0, 0, NULL, 0,
			   "role whose members get --write-mostly (reads avoid them), or none; "
			   "'hdd.p2' is taken as its role"},
    [K_MD_WRITE_BEHIND] = {SB_SEC_MD, "write-behind", SB_KT_UINT, NULL, 0, 16383, "0", 0,
			   "--write-behind=N for write-mostly members (0: off; needs the "
			   "internal bitmap)"},
    [K_MD_BITMAP] = {SB_SEC_MD, "bitmap", SB_KT_CHOICE, "internal|none", 0, 0, "internal", 0,
		     "write-intent bitmap (always passed explicitly)"},
    [K_MD_BITMAP_CHUNK] = {SB_SEC_MD, "bitmap-chunk", SB_KT_SIZE, NULL, 0, 0, NULL, 0,
			   "--bitmap-chunk"},
    [K_MD_CHUNK] = {SB_SEC_MD, "chunk", SB_KT_SIZE, NULL, 0, 0, NULL, 0,
		    "--chunk for striped levels (never passed for RAID1)"},
    [K_MD_ASSUME_CLEAN] = {SB_SEC_MD, "assume-clean", SB_KT_BOOL, NULL, 0, 0, "no", 0,
			   "--assume-clean: skip the initial resync"},
    [K_MD_METADATA] = {SB_SEC_MD, "metadata", SB_KT_CHOICE, "0.90|1.0|1.1|1.2", 0, 0, "1.2", 0,
		       "superblock format"},

    [K_LVM_VG] = {SB_SEC_LVM, "vg", SB_KT_NAME, NULL, 0, 0, "sbvg", 0,
		  "volume group name (the run id is appended, so that it cannot clash)"},
    [K_LVM_LV] = {SB_SEC_LVM, "lv", SB_KT_NAME, NULL, 0, 0, "sblv", 0, "logical volume name"},
    [K_LVM_LV_SIZE] = {SB_SEC_LVM, "lv-size", SB_KT_SIZEPCT, NULL, 0, 0, "100%", 0,
		       "size of the LV: '20G' or a percentage of the VG"},
    [K_LVM_STRIPES] = {SB_SEC_LVM, "stripes", SB_KT_UINT, NULL, 1, 64, NULL, 0,
		       "stripe the LV over this many PVs"},
    [K_LVM_ENABLE] = {SB_SEC_LVM, "enable", SB_KT_BOOL, NULL, 0, 0, "yes", 0,
		      "build the LVM layer ('no' leaves it out, e.g. as the baseline of a "
		      "matrix)"},
    [K_LVM_PVS] = {SB_SEC_LVM, "pvs", SB_KT_MEMBERS, NULL, 0, 0, "all", 0,
		   "what becomes a PV when there is no md below: roles or partitions "
		   "('any', 'ssd.p2'); the others are left untouched"},

    [K_FS_TYPE] = {SB_SEC_FS, "type", SB_KT_CHOICE, "ext2|ext3|ext4|xfs|btrfs", 0, 0, NULL, 0,
		   "file system (required)"},
    [K_FS_MKFS] = {SB_SEC_FS, "mkfs", SB_KT_WORDS, NULL, 0, 0, NULL, 0,
		   "extra mkfs options, split on blanks ('-n 4k', '-i size=512')"},
    [K_FS_DATA] = {SB_SEC_FS, "data", SB_KT_CHOICE, BTRFS_PROFILES, 0, 0, NULL, 0,
		   "btrfs: data profile (-d)"},
    [K_FS_METADATA] = {SB_SEC_FS, "metadata", SB_KT_CHOICE, BTRFS_PROFILES, 0, 0, NULL, 0,
		       "btrfs: metadata profile (-m)"},
    [K_FS_DEVICES] = {SB_SEC_FS, "devices", SB_KT_STRING, NULL, 0, 0, "all", 0,
		      "btrfs: 'all' devices below, or a number; other file systems use "
		      "the first"},
    [K_FS_ON] = {SB_SEC_FS, "on", SB_KT_MEMBERS, NULL, 0, 0, "all", 0,
		 "without md or LVM: the devices or partitions the file system goes on "
		 "('ssd.p1', 'ssd.p1, ssd.p2'); the others are left untouched"},
    [K_FS_LOG] = {SB_SEC_FS, "log", SB_KT_ROLE, NULL, 0, 0, "none", 0,
		  "xfs, ext3, ext4: an external log (journal) on the one device of this role, "
		  "which the data stack must not use ('ssd'), or none"},

    [K_MOUNT_OPTIONS] = {SB_SEC_MOUNT, "options", SB_KT_STRING, NULL, 0, 0, NULL, 0,
			 "mount options ('noatime,logbufs=8')"},

    [K_QUEUE_SCHEDULER] = {SB_SEC_QUEUE, "scheduler", SB_KT_NAME, NULL, 0, 0, NULL, 0,
			   "I/O scheduler of every whole device in the stack (restored "
			   "afterwards)"},
    [K_QUEUE_READ_AHEAD] = {SB_SEC_QUEUE, "read-ahead-kb", SB_KT_UINT, NULL, 0, 1 << 20, NULL, 0,
			    "read_ahead_kb of every whole device (restored afterwards)"},

    [K_WL_RUN] = {SB_SEC_WORKLOADS, "run", SB_KT_WORKLOAD, NULL, 0, 0, NULL,
		  SB_KF_REPEAT | SB_KF_NOMATRIX,
		  "a workload to run in the mounted file system, in order; repeat the key "
		  "for more"},
    [K_WL_TIME_LIMIT] = {SB_SEC_WORKLOADS, "time-limit", SB_KT_DURATION, NULL, 0, 0, NULL, 0,
			 "stop each workload after this long ('10m'); teardown still runs"},

    /* scenario: degraded and rebuilding arrays, integrity after the run */
    [K_SCEN_DEGRADE] = {SB_SEC_SCENARIO, "degrade", SB_KT_STRING, NULL, 0, 0, "none", 0,
			"before the workloads, take this member out of the md array (fail, "
			"remove) or mount btrfs RAID degraded without it: 'none', a role "
			"(its first unit in the array: hdd is hdd1), a slot (hdd2) or a "
			"partition (ssd.p2)"},
    [K_SCEN_REBUILD] = {SB_SEC_SCENARIO, "rebuild", SB_KT_STRING, NULL, 0, 0, "none", 0,
			"degrade this member, then add it back right before the workloads, "
			"which run during the resync; result.json records the rebuild's time "
			"and rate"},
    [K_SCEN_REBUILD_WITH] = {SB_SEC_SCENARIO, "rebuild-with", SB_KT_CHOICE,
			     "auto|re-add|add|replace", 0, 0, "auto", 0,
			     "md: 're-add' (with a bitmap: resyncs only what changed while "
			     "degraded) or 'add' (superblock zeroed: full recovery); btrfs: "
			     "'replace'; auto: re-add with a bitmap, else add; replace on btrfs"},
    [K_SCEN_REBUILD_LIMIT] = {SB_SEC_SCENARIO, "rebuild-limit", SB_KT_DURATION, NULL, 0, 0,
			      "10m", 0,
			      "after the workloads, wait this long at most for the rebuild to end "
			      "(result.json says whether it did)"},
    [K_SCEN_INTEGRITY] = {SB_SEC_SCENARIO, "integrity", SB_KT_CHOICE, "auto|yes|no", 0, 0,
			  "auto", 0,
			  "after the workloads: md check (mismatch_cnt), btrfs scrub; auto: on for "
			  "md arrays with redundancy and btrfs RAID; 'no' turns it off"},
    [K_SCEN_FILL] = {SB_SEC_SCENARIO, "fill", SB_KT_SIZEPCT, NULL, 0, 0, NULL, 0,
		     "write this much pattern data (or this share of the free space) before "
		     "the member goes (btrfs) or comes back (md), so that the rebuild has data "
		     "to copy; read back and checked after the run"},
};

int sb_sec_lookup(const char *name)
{
	for (int i = 0; i < SB_SEC_N; i++)
		if (strcmp(sb_sec_names[i], name) == 0)
			return i;
	return -1;
}

int sb_key_lookup(enum sb_sec sec, const char *name)
{
	for (int i = 0; i < SB_KEY_N; i++)
		if (sb_keys[i].sec == sec && strcmp(sb_keys[i].name, name) == 0)
			return i;
	return -1;
}

int sb_role_lookup(const char *name)
{
	for (int i = 0; i < SB_ROLE_N; i++)
		if (strcmp(sb_role_names[i], name) == 0)
			return i;
	return -1;
}

static const char *type_text(const struct sb_key *k, char *buf, size_t len)
{
	switch (k->type) {
	case SB_KT_COUNT:
		return "count";
	case SB_KT_UINT:
		snprintf(buf, len, "number %llu..%llu", (unsigned long long)k->min,
			 (unsigned long long)k->max);
		return buf;
	case SB_KT_SIZE:
		return "size";
	case SB_KT_SIZEPCT:
		return "size or percentage";
	case SB_KT_SIZES:
		return "list of sizes";
	case SB_KT_BOOL:
		return "yes/no";
	case SB_KT_CHOICE: {
		size_t o = 0;
		for (const char *c = k->choices; *c && o + 3 < len; c++) {
			if (*c == '|') {
				buf[o++] = ',';
				buf[o++] = ' ';
			} else {
				buf[o++] = *c;
			}
		}
		buf[o] = '\0';
		return buf;
	}
	case SB_KT_ROLE:
		return "role";
	case SB_KT_ROLES:
		return "roles";
	case SB_KT_MEMBERS:
		return "roles or partitions";
	case SB_KT_NAME:
		return "name";
	case SB_KT_WORDS:
		return "words";
	case SB_KT_STRING:
		return "text";
	case SB_KT_DURATION:
		return "duration";
	case SB_KT_WORKLOAD:
		return "workload spec";
	}
	return "?";
}

char *sb_key_doc_row(enum sb_key_id id)
{
	const struct sb_key *k = &sb_keys[id];
	char buf[128], *s = NULL;
	if (asprintf(&s, "| `%s.%s` | %s | %s | %s%s |", sb_sec_names[k->sec], k->name,
		     type_text(k, buf, sizeof(buf)), k->def ? k->def : "", k->help,
		     k->flags & SB_KF_NOMATRIX ? " (not in [matrix])" : "") < 0)
		return NULL;
	return s;
}
