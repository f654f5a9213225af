/* Profile values + devices -> the ordered list of steps, bottom up: loop
 * devices, queue settings, partitions, md, LVM, mkfs, mount. Pure: devices
 * appear as variables ("${ssd}") that the executor fills in. */
#include "stack/stack.h"
#include "util/macro.h"
#include "util/size.h"

#include <stdarg.h>
#include <string.h>

struct unit {
	enum sb_role role;
	char var[40];
};

struct pb {
	struct sb_plan *p;
	struct unit *u;
	size_t n_u;
	int err;
};

static json_object *add_step(struct pb *b, enum sb_step_kind kind)
{
	struct sb_step *ns = realloc(b->p->steps, (b->p->n + 1) * sizeof(*ns));
	if (!ns) {
		b->err = -ENOMEM;
		return json_object_new_object(); /* dropped by the caller's error path */
	}
	b->p->steps = ns;
	ns[b->p->n] = (struct sb_step){kind, json_object_new_object()};
	return ns[b->p->n++].args;
}

static void set(json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v));
}

static void setf(json_object *o, const char *k, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void setf(json_object *o, const char *k, const char *fmt, ...)
{
	va_list ap;
	char buf[256];
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	set(o, k, buf);
}

static json_object *arr(json_object *o, const char *k)
{
	json_object *a = json_object_new_array();
	json_object_object_add(o, k, a);
	return a;
}

static void push(json_object *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void push(json_object *a, const char *fmt, ...)
{
	va_list ap;
	char buf[256];
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_object_array_add(a, json_object_new_string(buf));
}

static void add_unit(struct pb *b, enum sb_role role, const char *var)
{
	struct unit *nu = realloc(b->u, (b->n_u + 1) * sizeof(*nu));
	if (!nu) {
		b->err = -ENOMEM;
		return;
	}
	b->u = nu;
	nu[b->n_u].role = role;
	snprintf(nu[b->n_u].var, sizeof(nu[b->n_u].var), "%s", var);
	b->n_u++;
}

int sb_plan_slots(const struct sb_config *c, struct sb_slot **out, size_t *n)
{
	struct sb_slot *s = NULL;
	size_t k = 0, total = 0;

	for (size_t i = 0; i < c->n_roles; i++)
		total += sb_cfg_role_count(c, c->role_order[i]);
	if (total) {
		s = calloc(total, sizeof(*s));
		if (!s)
			return -ENOMEM;
	}
	for (size_t i = 0; i < c->n_roles; i++) {
		enum sb_role r = c->role_order[i];
		unsigned cnt = sb_cfg_role_count(c, r);
		for (unsigned j = 0; j < cnt; j++, k++) {
			s[k].role = r;
			if (cnt == 1)
				snprintf(s[k].name, sizeof(s[k].name), "%s", sb_role_names[r]);
			else
				snprintf(s[k].name, sizeof(s[k].name), "%s%u", sb_role_names[r],
					 j + 1);
		}
	}
	*out = s;
	*n = k;
	return 0;
}

/* The md step: level, members in order, write-mostly ones last so that
 * --write-mostly precedes them on mdadm's command line. */
static void md_step(struct pb *b, const struct sb_config *c, const char *var, const char *level,
		    const struct unit *mem, size_t n_mem, bool emulate)
{
	json_object *a = add_step(b, SB_STEP_MD);
	int wm_role = emulate ? -1 : sb_cfg_write_mostly(c);
	bool wm = wm_role >= 0;
	json_object *m, *w;

	setf(a, "dev", "${%s}", var);
	set(a, "var", var);
	set(a, "level", level);
	set(a, "metadata", emulate ? "1.2" : sb_cfg_str(c, K_MD_METADATA));
	/* RAID0 has nothing for a bitmap to track: mdadm refuses one. */
	set(a, "bitmap",
	    emulate		      ? "internal"
	    : strcmp(level, "0") == 0 ? "none"
				      : sb_cfg_str(c, K_MD_BITMAP));
	if (!emulate) {
		if (c->val[K_MD_BITMAP_CHUNK])
			set(a, "bitmap_chunk", c->val[K_MD_BITMAP_CHUNK]);
		if (strcmp(level, "1") != 0 && c->val[K_MD_CHUNK])
			set(a, "chunk", c->val[K_MD_CHUNK]);
		if (wm && sb_cfg_u64(c, K_MD_WRITE_BEHIND) > 0)
			set(a, "write_behind", sb_cfg_str(c, K_MD_WRITE_BEHIND));
	}
	if (emulate || sb_cfg_bool(c, K_MD_ASSUME_CLEAN))
		set(a, "assume_clean", "yes");
	m = arr(a, "members");
	w = arr(a, "write_mostly");
	for (size_t i = 0; i < n_mem; i++)
		if ((int)mem[i].role != wm_role)
			push(m, "${%s}", mem[i].var);
	for (size_t i = 0; i < n_mem; i++)
		if ((int)mem[i].role == wm_role)
			push(w, "${%s}", mem[i].var);
}

int sb_plan_build(const struct sb_config *c, const struct sb_plan_in *in, struct sb_plan *out,
		  char **err)
{
	struct pb b = {.p = out};
	_cleanup_free_ struct sb_slot *slots = NULL;
	size_t n_slots = 0;
	struct unit *whole = NULL; /* devices whose queue is tuned */
	size_t n_whole = 0;
	bool emulate = in->loop && strcmp(sb_cfg_str(c, K_DEV_LOOP_EMULATE), "none") != 0;
	unsigned em_members = (unsigned)sb_cfg_u64(c, K_DEV_LOOP_EMULATE_MEMBERS);
	int r;

	*err = NULL;
	*out = (struct sb_plan){0};
	r = sb_plan_slots(c, &slots, &n_slots);
	if (r < 0)
		return r;
	if (!in->loop && in->n_devs != n_slots) {
		if (asprintf(err, "the profile needs %zu devices, %zu given", n_slots, in->n_devs) <
		    0)
			*err = NULL;
		return -EINVAL;
	}
	whole = calloc(n_slots * (em_members + 1) + 1, sizeof(*whole));
	if (!whole)
		return -ENOMEM;

	/* Devices: loop files, or the given disks (variables set by the caller). */
	for (size_t i = 0; i < n_slots; i++) {
		const struct sb_slot *s = &slots[i];
		uint64_t size =
		    sb_cfg_u64(c, in->quick ? K_DEV_LOOP_QUICK : K_DEV_LOOP_SSD + s->role);

		if (!in->loop) {
			whole[n_whole].role = s->role;
			snprintf(whole[n_whole++].var, sizeof(whole->var), "%s", s->name);
			continue;
		}
		if (emulate && s->role == SB_ROLE_ANY) {
			struct unit mem[16];
			/* The array is about as large as the role's size. */
			uint64_t msize = in->quick ? size
						   : (size / (em_members - 2) + (1 << 20) - 1) &
							 ~((uint64_t)(1 << 20) - 1);
			for (unsigned m = 0; m < em_members && m < 16; m++) {
				json_object *a = add_step(&b, SB_STEP_LOOP);
				snprintf(mem[m].var, sizeof(mem[m].var), "%s.m%u", s->name, m + 1);
				mem[m].role = s->role;
				setf(a, "file", "${run}/%s.img", mem[m].var);
				setf(a, "size", "%llu", (unsigned long long)msize);
				set(a, "rotational", "0");
				set(a, "var", mem[m].var);
				whole[n_whole++] = mem[m];
			}
			md_step(&b, c, s->name, "6", mem, em_members, true);
			continue;
		}
		json_object *a = add_step(&b, SB_STEP_LOOP);
		setf(a, "file", "${run}/%s.img", s->name);
		setf(a, "size", "%llu", (unsigned long long)size);
		set(a, "rotational", s->role == SB_ROLE_HDD ? "1" : "0");
		set(a, "var", s->name);
		whole[n_whole].role = s->role;
		snprintf(whole[n_whole++].var, sizeof(whole->var), "%s", s->name);
	}

	/* Queue settings on every whole device, restored at undo. */
	if (c->val[K_QUEUE_SCHEDULER] || c->val[K_QUEUE_READ_AHEAD]) {
		for (size_t i = 0; i < n_whole; i++) {
			json_object *a = add_step(&b, SB_STEP_QUEUE);
			setf(a, "dev", "${%s}", whole[i].var);
			if (c->val[K_QUEUE_SCHEDULER])
				set(a, "scheduler", c->val[K_QUEUE_SCHEDULER]);
			if (c->val[K_QUEUE_READ_AHEAD])
				set(a, "read_ahead_kb", c->val[K_QUEUE_READ_AHEAD]);
		}
	}

	/* Partitions: each partitioned device is replaced by its partitions. */
	for (size_t i = 0; i < n_slots; i++) {
		const struct sb_slot *s = &slots[i];
		bool parted = (c->val[K_PART_COUNT] || c->val[K_PART_SIZES]) &&
			      sb_roles_has(sb_cfg_str(c, K_PART_ON), s->role);
		if (!parted) {
			add_unit(&b, s->role, s->name);
			continue;
		}
		json_object *a = add_step(&b, SB_STEP_PART);
		json_object *sz = arr(a, "sizes");
		unsigned np = 0;
		setf(a, "dev", "${%s}", s->name);
		set(a, "var", s->name);
		set(a, "label", "gpt");
		if (c->val[K_PART_COUNT]) {
			np = (unsigned)sb_cfg_u64(c, K_PART_COUNT);
			for (unsigned k = 0; k < np; k++)
				push(sz, k + 1 == np ? "rest" : "%u%%", 100 / np);
		} else {
			_cleanup_free_ char *copy = strdup(c->val[K_PART_SIZES]);
			char *save = NULL;
			for (char *w = strtok_r(copy, ", ", &save); w;
			     w = strtok_r(NULL, ", ", &save)) {
				push(sz, "%s", w);
				np++;
			}
		}
		for (unsigned k = 0; k < np; k++) {
			char v[40];
			snprintf(v, sizeof(v), "%s.p%u", s->name, k + 1);
			add_unit(&b, s->role, v);
		}
	}

	/* md: the chosen members become one device. */
	if (c->val[K_MD_LEVEL]) {
		struct unit *mem = calloc(b.n_u + 1, sizeof(*mem));
		size_t nm = 0;
		if (!mem) {
			free(whole);
			sb_plan_free(out);
			free(b.u);
			return -ENOMEM;
		}
		for (size_t i = 0; i < b.n_u; i++)
			if (sb_roles_has(sb_cfg_str(c, K_MD_MEMBERS), b.u[i].role))
				mem[nm++] = b.u[i];
		md_step(&b, c, "md", c->val[K_MD_LEVEL], mem, nm, false);
		free(mem);
		b.n_u = 0;
		add_unit(&b, SB_ROLE_ANY, "md");
	}

	/* LVM: every unit a PV, one VG (named per run), one LV. */
	if (c->has_sec[SB_SEC_LVM]) {
		json_object *vg, *pvs;
		char vgname[128];
		snprintf(vgname, sizeof(vgname), "%s_${id}", sb_cfg_str(c, K_LVM_VG));
		for (size_t i = 0; i < b.n_u; i++) {
			json_object *a = add_step(&b, SB_STEP_PV);
			setf(a, "dev", "${%s}", b.u[i].var);
		}
		vg = add_step(&b, SB_STEP_VG);
		set(vg, "vg", vgname);
		pvs = arr(vg, "pvs");
		for (size_t i = 0; i < b.n_u; i++)
			push(pvs, "${%s}", b.u[i].var);
		json_object *lv = add_step(&b, SB_STEP_LV);
		set(lv, "vg", vgname);
		set(lv, "lv", sb_cfg_str(c, K_LVM_LV));
		set(lv, "size", sb_cfg_str(c, K_LVM_LV_SIZE));
		if (c->val[K_LVM_STRIPES])
			set(lv, "stripes", c->val[K_LVM_STRIPES]);
		set(lv, "var", "lv");
		b.n_u = 0;
		add_unit(&b, SB_ROLE_ANY, "lv");
	}

	/* mkfs: btrfs over all (or N) units, other file systems on the first. */
	const char *type = sb_cfg_str(c, K_FS_TYPE);
	json_object *fs = add_step(&b, SB_STEP_MKFS), *devs, *opts;
	size_t nfs = 1;
	set(fs, "type", type);
	if (strcmp(type, "btrfs") == 0) {
		const char *fd = sb_cfg_str(c, K_FS_DEVICES);
		nfs = strcmp(fd, "all") == 0 ? b.n_u : (size_t)sb_cfg_u64(c, K_FS_DEVICES);
		if (c->val[K_FS_DATA])
			set(fs, "data", c->val[K_FS_DATA]);
		if (c->val[K_FS_METADATA])
			set(fs, "metadata", c->val[K_FS_METADATA]);
	}
	if (nfs > b.n_u)
		nfs = b.n_u;
	devs = arr(fs, "devs");
	for (size_t i = 0; i < nfs; i++)
		push(devs, "${%s}", b.u[i].var);
	opts = arr(fs, "opts");
	if (c->val[K_FS_MKFS]) {
		_cleanup_free_ char *copy = strdup(c->val[K_FS_MKFS]);
		char *save = NULL;
		for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
			push(opts, "%s", w);
	}

	json_object *mnt = add_step(&b, SB_STEP_MOUNT);
	setf(mnt, "dev", "${%s}", b.n_u ? b.u[0].var : "none");
	set(mnt, "dir", "${run}/mnt");
	set(mnt, "type", type);
	if (c->val[K_MOUNT_OPTIONS])
		set(mnt, "options", c->val[K_MOUNT_OPTIONS]);
	out->mountpoint = strdup("${run}/mnt");

	free(whole);
	free(b.u);
	if (b.err || !out->mountpoint) {
		sb_plan_free(out);
		return b.err ? b.err : -ENOMEM;
	}
	return 0;
}

void sb_plan_free(struct sb_plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		json_object_put(p->steps[i].args);
	free(p->steps);
	free(p->mountpoint);
	*p = (struct sb_plan){0};
}

int sb_plan_programs(const struct sb_plan *p, const char **out, size_t max)
{
	size_t n = 0;
#define ADD(s)                                                                                     \
	do {                                                                                       \
		bool _dup = false;                                                                 \
		for (size_t _i = 0; _i < n; _i++)                                                  \
			_dup |= strcmp(out[_i], (s)) == 0;                                         \
		if (!_dup && n + 1 < max)                                                          \
			out[n++] = (s);                                                            \
	} while (0)
	for (size_t i = 0; i < p->n; i++) {
		switch (p->steps[i].kind) {
		case SB_STEP_MD:
			ADD("mdadm");
			break;
		case SB_STEP_PV:
			ADD("pvcreate");
			ADD("pvremove");
			break;
		case SB_STEP_VG:
			ADD("vgcreate");
			ADD("vgremove");
			break;
		case SB_STEP_LV:
			ADD("lvcreate");
			ADD("lvremove");
			break;
		case SB_STEP_MKFS: {
			const char *t = sb_arg_str(p->steps[i].args, "type");
			static const char *const mk[] = {"mkfs.ext2", "mkfs.ext3", "mkfs.ext4",
							 "mkfs.xfs", "mkfs.btrfs"};
			for (size_t k = 0; k < ARRAY_SIZE(mk); k++)
				if (t && strcmp(mk[k] + 5, t) == 0)
					ADD(mk[k]);
			break;
		}
		default:
			break;
		}
	}
#undef ADD
	out[n] = NULL;
	return (int)n;
}
