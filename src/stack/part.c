/* GPT partitions through libfdisk, on an fd we opened O_EXCL (libfdisk
 * given a path may reopen it without). The head and tail of every new
 * partition are zeroed before the table is written, while the disk is
 * ours: an old md superblock or LVM label at the same offset would
 * otherwise be assembled by udev the moment the partition appears.
 * Partition nodes come from udev, or from sysfs when there is none (loop
 * devices on a host without udevd). The table's disk GUID is journaled;
 * undo wipes only a table with that GUID, rereads it and removes the nodes
 * that went stale. [partition]'s keys, rules and planning are here too. */
#include "stack/devlock.h"
#include "stack/layers.h"
#include "stack/plan.h"
#include "util/macro.h"
#include "util/size.h"

#include <ctype.h>
#include <strings.h>
#include <fcntl.h>
#include <libfdisk.h>
#include <linux/blkpg.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* /dev/sdb -> /dev/sdb1, /dev/loop3 -> /dev/loop3p1, /dev/nvme0n1 -> /dev/nvme0n1p1 */
static void part_path(const char *dev, unsigned n, char *buf, size_t len)
{
	size_t l = strlen(dev);
	snprintf(buf, len, "%s%s%u", dev, l && isdigit((unsigned char)dev[l - 1]) ? "p" : "", n);
}

#define A struct sb_part_args
static const struct sb_field fields[] = {
    SB_FIELD(A, dev, SB_FT_DEV, SB_FF_REQUIRED | SB_FF_WRITES | SB_FF_IDENT),
    SB_FIELD(A, var, SB_FT_STR, SB_FF_REQUIRED),
    SB_FIELD(A, label, SB_FT_STR, 0),
    SB_FIELD(A, sizes, SB_FT_STRV, SB_FF_REQUIRED),
};
#undef A

/* Zeroed at each end of a new partition: md 1.1/1.2 and LVM labels sit in
 * the first MiBs, md 0.90/1.0 in the last 128 KiB, btrfs at 64 KiB. */
#define WIPE_BYTES (4ull << 20)

static int describe(const void *args, char **what, char **undo)
{
	const struct sb_part_args *a = args;
	char *w = NULL;
	size_t wl = 0;
	FILE *f = open_memstream(&w, &wl);
	if (!f)
		return -ENOMEM;
	fprintf(f, "libfdisk: new GPT on %s:", a->dev);
	for (size_t i = 0; i < a->sizes.n; i++)
		fprintf(f, " p%zu=%s", i + 1, a->sizes.v[i]);
	fprintf(f, " (head and tail of each zeroed) -> ${%s.p1}..", a->var);
	fclose(f);
	*what = w;
	if (asprintf(undo, "wipefs -a %s; blockdev --rereadpt %s", a->dev, a->dev) < 0)
		return -ENOMEM;
	return 0;
}

static void predict(const void *args, struct sb_exec *x)
{
	const struct sb_part_args *a = args;
	if (strstr(a->dev, "${"))
		return;
	for (size_t i = 0; i < a->sizes.n; i++) {
		char p[300], v[64];
		part_path(a->dev, (unsigned)i + 1, p, sizeof(p));
		snprintf(v, sizeof(v), "%s.p%zu", a->var, i + 1);
		sb_exec_set_var(x, v, p);
	}
}

static void fdisk_unrefp(struct fdisk_context **c)
{
	if (*c)
		fdisk_unref_context(*c);
}

/* Adds or deletes one partition in the kernel's view, like partx -a/-d. */
static int blkpg(int fd, int op, unsigned pno, uint64_t start, uint64_t len)
{
	struct blkpg_partition part = {
	    .start = (long long)start, .length = (long long)len, .pno = (int)pno};
	struct blkpg_ioctl_arg arg = {.op = op, .datalen = sizeof(part), .data = &part};
	return ioctl(fd, BLKPG, &arg) < 0 ? negerrno() : 0;
}

static bool part_in_sysfs(const char *dev, unsigned n)
{
	char p[300], sys[340];
	part_path(dev, n, p, sizeof(p));
	snprintf(sys, sizeof(sys), "/sys/class/block/%s", strrchr(p, '/') + 1);
	return access(sys, F_OK) == 0;
}

/* Zeroes both ends of every partition in the table about to be written. */
static int wipe_ends(struct sb_exec *x, struct fdisk_context *cxt, const char *dev, uint64_t ssz)
{
	struct fdisk_table *tb = NULL;
	struct fdisk_iter *itr = fdisk_new_iter(FDISK_ITER_FORWARD);
	struct fdisk_partition *pa;
	int fd = fdisk_get_devfd(cxt), r = 0;

	if (!itr || fdisk_get_partitions(cxt, &tb) < 0) {
		fdisk_free_iter(itr);
		return sb_exec_fail(x, -EIO, "%s: cannot list the new partitions", dev);
	}
	while (r == 0 && fdisk_table_next_partition(tb, itr, &pa) == 0) {
		uint64_t start = fdisk_partition_get_start(pa) * ssz,
			 len = fdisk_partition_get_size(pa) * ssz;
		uint64_t w = len / 2 < WIPE_BYTES ? len / 2 : WIPE_BYTES;
		r = sb_wipe_range(fd, start, w);
		if (r == 0)
			r = sb_wipe_range(fd, start + len - w, w);
		if (r < 0)
			sb_exec_fail(x, r, "%s: cannot zero the ends of partition %zu: %s", dev,
				     fdisk_partition_get_partno(pa) + 1, strerror(-r));
		else
			sb_exec_log(x,
				    "%s: partition %zu: %llu bytes at %llu, first and last %llu "
				    "zeroed\n",
				    dev, fdisk_partition_get_partno(pa) + 1,
				    (unsigned long long)len, (unsigned long long)start,
				    (unsigned long long)w);
	}
	fdisk_free_iter(itr);
	fdisk_unref_table(tb);
	return r;
}

/* The partitions of a's sizes, in order: a percentage of the usable
 * sectors or a size, each a whole number of grains; the last one (or
 * "rest") takes what is left. */
static int add_partitions(struct sb_exec *x, struct fdisk_context *cxt,
			  const struct sb_part_args *a, const char *dev, fdisk_sector_t ssz,
			  fdisk_sector_t grain, fdisk_sector_t usable)
{
	size_t n = a->sizes.n;
	int r;

	for (size_t i = 0; i < n; i++) {
		const char *s = a->sizes.v[i];
		struct fdisk_partition *pa = fdisk_new_partition();
		uint64_t v;
		bool pct;

		if (!pa)
			return -ENOMEM;
		fdisk_partition_partno_follow_default(pa, 1);
		fdisk_partition_start_follow_default(pa, 1);
		if (strcmp(s, "rest") == 0 || i + 1 == n) {
			fdisk_partition_end_follow_default(pa, 1);
		} else {
			if (sb_parse_size(s, &v, true, &pct) < 0) {
				fdisk_unref_partition(pa);
				return sb_exec_fail(x, -EINVAL, "%s: bad partition size '%s'", dev,
						    s);
			}
			fdisk_sector_t secs = pct ? usable * v / 100 : v / ssz;
			secs = secs / grain * grain;
			fdisk_partition_set_size(pa, secs);
		}
		r = fdisk_add_partition(cxt, pa, NULL);
		fdisk_unref_partition(pa);
		if (r < 0)
			return sb_exec_fail(x, r, "%s: cannot add partition %zu (%s): %s", dev,
					    i + 1, s, strerror(-r));
	}
	return 0;
}

/* Some kernels accept the reread yet add no partition to a loop device:
 * then tell it about each one, as partx -a does. */
static int blkpg_all(struct sb_exec *x, struct fdisk_context *cxt, const char *dev,
		     fdisk_sector_t ssz, json_object *result)
{
	struct fdisk_table *tb = NULL;
	struct fdisk_iter *itr = fdisk_new_iter(FDISK_ITER_FORWARD);
	struct fdisk_partition *pa;
	int dfd = fdisk_get_devfd(cxt), r;

	if (!itr || fdisk_get_partitions(cxt, &tb) < 0) {
		fdisk_free_iter(itr);
		return sb_exec_fail(x, -EIO, "%s: cannot list the new partitions", dev);
	}
	while (fdisk_table_next_partition(tb, itr, &pa) == 0) {
		unsigned pno = (unsigned)fdisk_partition_get_partno(pa) + 1;
		r = blkpg(dfd, BLKPG_ADD_PARTITION, pno, fdisk_partition_get_start(pa) * ssz,
			  fdisk_partition_get_size(pa) * ssz);
		if (r < 0 && r != -EBUSY) {
			fdisk_free_iter(itr);
			fdisk_unref_table(tb);
			return sb_exec_fail(x, r, "%s: cannot add partition %u: %s", dev, pno,
					    strerror(-r));
		}
	}
	fdisk_free_iter(itr);
	fdisk_unref_table(tb);
	json_object_object_add(result, "blkpg", json_object_new_boolean(true));
	sb_exec_log(x, "%s: partitions added with BLKPG (the reread added none)\n", dev);
	return 0;
}

static int write_table(struct sb_exec *x, const struct sb_part_args *a, const char *dev,
		       json_object *result)
{
	/* Declared first, so closed after libfdisk let go of it. */
	_cleanup_close_ int fd = -1;
	_cleanup_(fdisk_unrefp) struct fdisk_context *cxt = fdisk_new_context();
	fdisk_sector_t first, last, grain, ssz;
	char *id = NULL;
	int r;

	if (!cxt)
		return -ENOMEM;
	/* Ours alone while we write: libfdisk gets this fd, not the path. */
	fd = open(dev, O_RDWR | O_EXCL | O_CLOEXEC);
	if (fd < 0) {
		r = negerrno();
		if (r == -EBUSY) {
			_cleanup_free_ char *h = sb_devlock_holders(dev);
			x->refused = true;
			return sb_exec_fail(
			    x, r, "refused: %s is held open exclusively by another program%s%s%s",
			    dev, h ? " (" : "", h ? h : "", h ? ")" : "");
		}
		return sb_exec_fail(x, r, "%s: cannot open: %s", dev, strerror(-r));
	}
	r = fdisk_assign_device_by_fd(cxt, fd, dev, 0);
	if (r < 0)
		return sb_exec_fail(x, r, "%s: cannot open: %s", dev, strerror(-r));
	fdisk_disable_dialogs(cxt, 1);
	r = fdisk_create_disklabel(cxt, "gpt");
	if (r < 0)
		return sb_exec_fail(x, r, "%s: cannot create a GPT: %s", dev, strerror(-r));
	first = fdisk_get_first_lba(cxt);
	last = fdisk_get_last_lba(cxt);
	ssz = fdisk_get_sector_size(cxt);
	grain = fdisk_get_grain_size(cxt) / ssz;
	if (!grain)
		grain = 1;
	first = (first + grain - 1) / grain * grain;
	r = add_partitions(x, cxt, a, dev, ssz, grain, last - first + 1);
	if (r < 0)
		return r;
	r = wipe_ends(x, cxt, dev, ssz);
	if (r < 0)
		return r;
	if (fdisk_get_disklabel_id(cxt, &id) == 0 && id) {
		json_object_object_add(result, "disk_guid", json_object_new_string(id));
		free(id);
	}
	r = fdisk_write_disklabel(cxt);
	if (r < 0)
		return sb_exec_fail(x, r, "%s: cannot write the partition table: %s", dev,
				    strerror(-r));
	/* Our exclusive open can make the kernel refuse the reread (EBUSY):
	 * then each partition is added below, as partx -a does. */
	r = fdisk_reread_partition_table(cxt);
	if (r < 0)
		sb_exec_log(x, "%s: reread refused (%s): adding the partitions one by one\n", dev,
			    strerror(-r));
	/* Some kernels accept the reread yet add no partition to a loop device:
	 * then tell it about each one, as partx -a does. */
	for (int i = 0; i < 25 && !part_in_sysfs(dev, 1); i++)
		usleep(20000);
	if (!part_in_sysfs(dev, 1) && (r = blkpg_all(x, cxt, dev, ssz, result)) < 0)
		return r;
	r = fdisk_deassign_device(cxt, 0);
	if (r < 0)
		return sb_exec_fail(x, r, "%s: cannot close: %s", dev, strerror(-r));
	return 0;
}

/* Only the last size may be "rest"; a last percentage means up to the end. */
static int run(void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_part_args *a = args;
	json_object *nodes = json_object_new_array();
	int r;

	json_object_object_add(result, "nodes", nodes);
	r = write_table(x, a, a->dev, result);
	if (r < 0)
		return r;
	sb_exec_log(x, "%s: GPT written, %zu partitions\n", a->dev, a->sizes.n);
	for (size_t i = 0; i < a->sizes.n; i++) {
		char p[300], v[64];
		part_path(a->dev, (unsigned)i + 1, p, sizeof(p));
		r = sb_wait_node(p, 10000, x->udev);
		if (r < 0)
			return sb_exec_fail(x, r, "%s: partition node did not appear: %s", p,
					    strerror(-r));
		if (r == 1)
			json_object_array_add(nodes, json_object_new_string(p));
		snprintf(v, sizeof(v), "%s.p%zu", a->var, i + 1);
		sb_result_var(result, v, p);
	}
	return 0;
}

/* The table on the disk is the one we wrote (its GUID), or none at all. */
static int check(const void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_part_args *a = args;
	const char *want = sb_json_str(result, "disk_guid");
	char cur[64];
	if (!want)
		return 0;
	if (sb_blkid_value(a->dev, "PTUUID", cur, sizeof(cur)) < 0)
		return 0; /* no table left: the wipe below is a no-op, the nodes still go */
	if (strcasecmp(cur, want) != 0)
		return sb_exec_fail(x, -ESTALE,
				    "%s: not ours: partition table GUID %s != journaled %s", a->dev,
				    cur, want);
	return 0;
}

static int undo(const void *args, json_object *result, struct sb_exec *x)
{
	const struct sb_part_args *a = args;
	const char *dev = a->dev;
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	if (stat(dev, &st) < 0 || !S_ISBLK(st.st_mode))
		return 0;
	fd = open(dev, O_RDONLY | O_CLOEXEC);
	/* Partitions the kernel still knows about go first (partx -d). */
	for (size_t i = 0; fd >= 0 && i < a->sizes.n; i++)
		for (int k = 0; k < 50 && part_in_sysfs(dev, (unsigned)i + 1); k++) {
			r = blkpg(fd, BLKPG_DEL_PARTITION, (unsigned)i + 1, 0, 0);
			if (r != -EBUSY)
				break;
			usleep(100000);
		}
	r = sb_wipe_signatures(dev);
	if (r < 0)
		return sb_exec_fail(x, r, "%s: cannot wipe the partition table: %s", dev,
				    strerror(-r));
	if (fd >= 0) {
		/* The kernel may still be busy with the partitions just released. */
		for (int i = 0; i < 50 && ioctl(fd, BLKRRPART, 0) < 0 && errno == EBUSY; i++) {
			struct timespec ts = {0, 100 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
	}
	/* Nodes we made by hand are not removed by anyone else. */
	for (size_t i = 0; i < a->sizes.n; i++) {
		char p[300], sys[340];
		part_path(dev, (unsigned)i + 1, p, sizeof(p));
		snprintf(sys, sizeof(sys), "/sys/class/block/%s", strrchr(p, '/') + 1);
		if (access(sys, F_OK) != 0 && lstat(p, &st) == 0 && S_ISBLK(st.st_mode) && !x->udev)
			unlink(p);
	}
	sb_exec_log(x, "%s: partition table wiped\n", dev);
	return 0;
}

/* ---- [partition]: keys, rules, plan ---- */

struct part_cfg {
	struct sb_present present;
	uint64_t count;	   /* 0: not given */
	const char *sizes; /* "50%,50%", or NULL */
	unsigned on;	   /* roles (bit per enum sb_role) whose devices are split */
};

enum { PART_COUNT, PART_SIZES, PART_ON, PART_KEY_N };

#define C struct part_cfg
static const struct sb_key keys[PART_KEY_N] = {
    [PART_COUNT] = SB_KEY(C, count, "count", SB_KT_UINT, NULL, 1, 16, NULL, SB_KF_ONEOF,
			  "split each device into this many equal GPT partitions"),
    [PART_SIZES] = SB_KEY(C, sizes, "sizes", SB_KT_SIZES, NULL, 0, 0, NULL, SB_KF_ONEOF,
			  "partition sizes instead of count: '50%,50%', '10G,rest'"),
    [PART_ON] = SB_KEY(C, on, "on", SB_KT_ROLES, NULL, 0, 0, "all", 0,
		       "roles whose devices are partitioned ('all' or 'ssd,hdd')"),
};
#undef C

/* Partitions of each partitioned device (0: none). */
static unsigned part_n(const struct part_cfg *p)
{
	unsigned n = 1;
	if (p->count)
		return (unsigned)p->count;
	if (!p->sizes)
		return 0;
	for (const char *s = p->sizes; *s; s++)
		n += *s == ',';
	return n;
}

/* The sizes of the partitions in order: count's equal shares, the last
 * one "rest", or the words of sizes. */
static void part_sizes(const struct part_cfg *p, struct sb_list *out)
{
	if (p->count) {
		for (unsigned k = 0; k < p->count; k++) {
			char w[16];
			snprintf(w, sizeof(w), "%u%%", 100 / (unsigned)p->count);
			sb_list_add(out, k + 1 == p->count ? "rest" : w);
		}
		return;
	}
	_cleanup_free_ char *copy = p->sizes ? strdup(p->sizes) : NULL;
	char *save = NULL;
	for (char *w = copy ? strtok_r(copy, ", ", &save) : NULL; w;
	     w = strtok_r(NULL, ", ", &save))
		sb_list_add(out, w);
}

static int part_validate(struct sb_vctx *v, const void *cfg, struct sb_vstate *st)
{
	const struct sb_config *c = sb_vctx_config(v);
	const struct part_cfg *p = cfg;
	int base = sb_keytab_base(&sb_keytab_part);
	unsigned n = part_n(p);

	if (p->count && p->sizes)
		return sb_verr(v, base + PART_SIZES,
			       "partition: give either count or sizes, not both");
	if (!n && p->present.section)
		return sb_verr(v, -1, "[partition]: needs count or sizes");
	if (!n)
		return 0;
	for (int r = 0; r < SB_ROLE_N; r++)
		if (strcmp(sb_cfg_str(c, base + PART_ON), "all") != 0 && (p->on & (1u << r)) &&
		    !sb_cfg_role_count(c, (enum sb_role)r))
			return sb_verr(v, base + PART_ON, "partition.on: no %s device in [devices]",
				       sb_role_names[r]);
	st->nparts = n;
	st->parted = p->on;
	st->units = 0;
	for (int r = 0; r < SB_ROLE_N; r++)
		st->units += sb_cfg_role_count(c, (enum sb_role)r) * ((p->on & (1u << r)) ? n : 1);
	return 0;
}

const struct sb_keytab sb_keytab_part = {
    .section = "partition",
    .keys = keys,
    .n = PART_KEY_N,
    .cfg_size = sizeof(struct part_cfg),
    .present = SB_PRESENT(struct part_cfg, present),
    .validate = part_validate,
};

const char *sb_part_on_text(const struct sb_config *c)
{
	return sb_cfg_str(c, sb_keytab_base(&sb_keytab_part) + PART_ON);
}

static unsigned part_splits(const void *cfg, enum sb_role r)
{
	const struct part_cfg *p = cfg;
	return (p->on & (1u << r)) ? part_n(p) : 0;
}

/* The device size for its smallest partition to hold need: percentages
 * scale it by the smallest share, fixed sizes come first and whatever is
 * left ("rest") holds it. */
static uint64_t part_fit(const void *cfg, enum sb_role r, uint64_t need)
{
	const struct part_cfg *p = cfg;
	uint64_t fixed = 0, pct_sum = 0, min_pct = 100, u;
	struct sb_list sizes = {0};
	unsigned loose = 0;
	bool pct;

	if (!part_splits(cfg, r))
		return need;
	part_sizes(p, &sizes);
	for (size_t k = 0; k < sizes.n; k++) {
		const char *w = sizes.v[k];
		if (strcmp(w, "rest") == 0)
			loose++;
		else if (sb_parse_size(w, &u, true, &pct) == 0 && pct) {
			pct_sum += u;
			min_pct = u && u < min_pct ? u : min_pct;
		} else if (sb_parse_size(w, &u, true, &pct) == 0)
			fixed += u;
	}
	sb_list_free(&sizes);
	if (loose && pct_sum < 100 && 100 - pct_sum < min_pct)
		min_pct = 100 - pct_sum;
	need = pct_sum ? need * 100 / (min_pct ? min_pct : 1) : need;
	return need + fixed;
}

/* Each device of a partitioned role is replaced by its partitions. */
static int part_plan(const void *cfg, struct sb_pctx *b)
{
	const struct part_cfg *p = cfg;
	struct sb_unit *in = b->u;
	size_t n = b->n_u;
	struct sb_list sizes = {0};

	if (!part_n(p))
		return 0;
	part_sizes(p, &sizes);
	b->u = NULL;
	b->n_u = 0;
	for (size_t i = 0; i < n; i++) {
		if (in[i].part || !(p->on & (1u << in[i].role))) {
			sb_plan_add_unit(b, in[i].role, in[i].part, in[i].var);
			continue;
		}
		struct sb_part_args *a = sb_plan_add_step(b, SB_STEP_PART);
		a->dev = sb_plan_fmt("${%s}", in[i].var);
		a->var = sb_plan_fmt("%s", in[i].var);
		a->label = sb_plan_fmt("gpt");
		for (size_t k = 0; k < sizes.n; k++) {
			char v[40];
			sb_list_add(&a->sizes, sizes.v[k]);
			snprintf(v, sizeof(v), "%s.p%zu", in[i].var, k + 1);
			sb_plan_add_unit(b, in[i].role, (unsigned)(k + 1), v);
		}
	}
	sb_list_free(&sizes);
	free(in);
	return 0;
}

const struct sb_layer sb_layer_part = {
    .kind = "partition",
    .args_size = sizeof(struct sb_part_args),
    .fields = fields,
    .n_fields = ARRAY_SIZE(fields),
    .describe = describe,
    .predict = predict,
    .run = run,
    .check = check,
    .undo = undo,
    .flags = SB_LF_CREATES_DEV,
    .keytab = &sb_keytab_part,
    .plan = part_plan,
    .splits = part_splits,
    .fit = part_fit,
};
