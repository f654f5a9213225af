/* The typed arguments of each layer: the plan fills them, the layer's field
 * table (in its own file) turns them into its journal record and back.
 * Strings may hold "${var}" until the executor fills them in. */
#pragma once

#include "stack/facts.h"
#include "stack/stack.h"

/* loop.c, queue.c, precond.c: their key tables ([devices]' loop and
 * precondition keys, [queue]). */
extern const struct sb_keytab sb_keytab_loop, sb_keytab_queue, sb_keytab_precond;

struct sb_loop_args {
	char *file; /* ${run}/images/NAME.img: images links to dir */
	char *dir;  /* where the backing files really are: LOOP_DIR/${id} */
	uint64_t size;
	bool rotational;
	bool allow_tmpfs; /* the user named the loop directory on purpose */
	char *var;
	/* side by side: allocated in full and kept from round to round (the
	 * run's executor keeps it: sb_exec.keep_images) */
	bool keep;
};

struct sb_queue_args {
	char *dev;
	char *scheduler; /* or NULL */
	bool read_ahead;
	uint64_t read_ahead_kb;
	/* set by prepare, restored by undo */
	char *old_scheduler;
	bool old_read_ahead;
	uint64_t old_read_ahead_kb;
};

/* devices.precondition on one whole device: "trim" (discard all of it) or
 * "steady" (discard, then write past its capacity until steady or
 * limit_ms). Nothing to undo: the contents were ours to destroy. */
struct sb_precond_args {
	char *dev;
	char *mode;
	uint64_t limit_ms;
};

/* part.c: [partition]'s key table and rules. */
extern const struct sb_keytab sb_keytab_part;

struct sb_part_args {
	char *dev;
	char *var;
	char *label;	      /* "gpt" */
	struct sb_list sizes; /* "50%", "1G", "rest" */
};

/* md.c: [md]'s key table and rules. */
extern const struct sb_keytab sb_keytab_md;

/* bcache.c: [bcache]'s key table and rules. */
extern const struct sb_keytab sb_keytab_bcache;

/* lvm.c: [lvm]'s key table and rules. */
extern const struct sb_keytab sb_keytab_lvm;

struct sb_pv_args {
	char *dev;
};

struct sb_vg_args {
	char *vg;
	struct sb_list pvs;
};

struct sb_lv_args {
	char *vg, *lv;
	uint64_t size; /* bytes, or a percentage when pct */
	bool pct;
	uint64_t stripes; /* 0: not given */
	char *var;
	struct sb_list pvs; /* the VG's PVs: every LVM command sees only them */
};

/* fs.c, mount.c: [fs]'s and [mount]'s key tables and rules. */
extern const struct sb_keytab sb_keytab_fs, sb_keytab_mount;
/* mount.c: what is mounted at dir (the longest mount point above it): its
 * type and source device path ("" when none), for fs_capture.c's geometry.
 * 0, or -ENOENT when nothing is. */
int sb_mount_at(const char *dir, char *fstype, size_t flen, char *source, size_t slen);
/* fs_capture.c: the file system's geometry, mkfs's capture. */
extern const struct sb_capture sb_fs_capture;

struct sb_mkfs_args {
	char *type;	     /* sb_fs_names */
	struct sb_list devs; /* btrfs: all; others: the first only */
	struct sb_list opts;
	char *data, *metadata; /* btrfs -d / -m */
	char *log;	       /* external log device (xfs -l logdev=, ext journal_dev), or NULL */
	char *log_uuid;	       /* ext: the UUID prepare chose for the journal device */
	uint64_t log_size;     /* xfs: bytes, set by prepare when the device exceeds the maximum */
};

struct sb_mount_args {
	struct sb_list devs; /* the first is the source; btrfs gets device= for each */
	char *dir;
	char *type;
	char *options;
	char *log; /* xfs: logdev=; ext: the journal device the kernel claims */
};

/* mount.c: the kernel judges each file-system option of options (not the
 * generic ones: noatime, ro ...) in a new fstype context (fsopen and
 * fsconfig; nothing is mounted; options naming a device or path, such
 * as btrfs's device=, are left to the mount). 0: all accepted; 1: none of them is the
 * file system's (or none given); -EINVAL: *bad is the
 * first one rejected and *why the kernel's message; another -errno: no
 * verdict (-EPERM not root, -ENOSYS no fsopen, -ENODEV fstype unknown to
 * this kernel). *bad and *why malloc'ed or NULL. */
int sb_mount_check_options(const char *fstype, const char *options, char **bad, char **why);
/* The file system's own options of options (libmount knows the generic
 * ones), malloc'ed in *fsopts, or NULL when there are none. Pure. */
int sb_mount_fs_options(const char *options, char **fsopts);
/* fs.c: mkfs's dry run for a's type and words on scratch files (the
 * devices replaced by files[0..n), sized by the caller): mkfs.xfs -N,
 * mke2fs -n, mkfs.btrfs for real on the files. 0: accepted; -EINVAL: *msg
 * is the tool's message; -EINTR: stopped by *stop (may be NULL); another
 * -errno: not run (*msg says why). An accepted dry run is kept for the
 * boot (answers.h): *kept (may be NULL) true when the answer came from
 * there. The callers' notes do not say which: plan prints the same text
 * whether or not mkfs ran again. */
int sb_mkfs_dry_run(const struct sb_mkfs_args *a, const char *const *files, size_t n,
		    volatile sig_atomic_t *stop, char **msg, bool *kept);

/* md.c: does the plan make an array with redundancy (its "md" variable,
 * level != 0)? *assume_clean: made with --assume-clean, so never-written
 * blocks may differ (for integrity.c's md check). */
bool sb_md_plan_redundant(const struct sb_plan *p, bool *assume_clean);

/* btrfs.c */
void sb_btrfs_mkfs_argv(const struct sb_mkfs_args *a, struct sb_vec *v);
void sb_btrfs_forget(const char *dev);
/* lvm.c: "a,b,c" for --devices */
char *sb_lvm_devices(const struct sb_list *pvs);
/* lvm.c: "TOOL --devices PVS" at the start of v; running it with the
 * --config every LVM tool gets (status/out as sb_exec_cmd_quiet/_output,
 * both NULL: sb_exec_cmd); one field of one object ("lvs -o segtype
 * VG/LV") in buf, -ENOENT when the tool does not know it. */
void sb_lvm_argv(struct sb_vec *v, const char *tool, const struct sb_list *pvs);
int sb_lvm_run(struct sb_exec *x, struct sb_vec *v, int *status, char **out);
int sb_lvm_field(struct sb_exec *x, const char *tool, const char *field, const struct sb_list *pvs,
		 const char *what, char *buf, size_t len);
/* lvmcache.c: [lvmcache]'s key table and rules. */
extern const struct sb_keytab sb_keytab_lvmcache;

/* A memory cgroup for the workloads (--cap-cache): made after the mount,
 * removed first on undo (with whatever of the workload is left in it). */
struct sb_memcg_args {
	char *name; /* stackbench-${id} */
	uint64_t bytes;
	char *dir; /* set by prepare: PARENT/name in this process's memory hierarchy */
};
