/* The typed stack configuration + devices -> the ordered list of steps,
 * bottom up: loop devices, queue settings, partitions, md, LVM, mkfs,
 * mount. Pure: devices appear as variables ("${ssd}") that the executor
 * fills in. */
#include "stack/layers.h"
#include "stack/plan.h"
#include "util/macro.h"
#include "util/size.h"

#include <stdarg.h>
#include <string.h>

/* The layers' typed configs, by step kind (NULL: the layer has no keys). */
struct lcfgs {
	void *v[SB_STEP_KIND_N];
};

static int lcfgs_fill(const struct sb_config *c, struct lcfgs *l)
{
	for (int k = 0; k < SB_STEP_KIND_N; k++) {
		const struct sb_keytab *t = sb_layer_get((enum sb_step_kind)k)->keytab;
		if (!t)
			continue;
		l->v[k] = calloc(1, t->cfg_size);
		if (!l->v[k])
			return -ENOMEM;
		sb_keytab_fill(t, c, l->v[k]);
	}
	return 0;
}

static void lcfgs_free(struct lcfgs *l)
{
	for (int k = 0; k < SB_STEP_KIND_N; k++)
		free(l->v[k]);
}

/* The lowest layer that is on and takes its units from the devices. */
static const struct sb_sel *lcfgs_takes(const struct lcfgs *l)
{
	for (int k = 0; k < SB_STEP_KIND_N; k++) {
		const struct sb_layer *ly = sb_layer_get((enum sb_step_kind)k);
		const struct sb_sel *sel = ly->takes && l->v[k] ? ly->takes(l->v[k]) : NULL;
		if (sel)
			return sel;
	}
	return NULL;
}

/* The registered layers of kinds [from, to), in stack order. */
static int plan_layers(struct sb_pctx *b, const struct lcfgs *l, enum sb_step_kind from,
		       enum sb_step_kind to)
{
	for (int k = from; k < (int)to; k++) {
		const struct sb_layer *ly = sb_layer_get((enum sb_step_kind)k);
		int r = ly->plan && (l->v[k] || !ly->keytab) ? ly->plan(l->v[k], b) : 0;
		if (r < 0)
			return r;
		b->taken |= ly->takes && l->v[k] && ly->takes(l->v[k]);
	}
	return 0;
}

int sb_plan_fail(struct sb_pctx *b, int r, const char *fmt, ...)
{
	va_list ap;
	free(b->errmsg);
	va_start(ap, fmt);
	if (vasprintf(&b->errmsg, fmt, ap) < 0)
		b->errmsg = NULL;
	va_end(ap);
	return r;
}

void *sb_plan_add_step(struct sb_pctx *b, enum sb_step_kind kind)
{
	const struct sb_layer *l = sb_layer_get(kind);
	struct sb_step *ns = realloc(b->p->steps, (b->p->n + 1) * sizeof(*ns));
	void *a = sb_layer_args_new(l);
	if (!ns || !a)
		abort(); /* a few small allocations: not recoverable */
	b->p->steps = ns;
	ns[b->p->n++] = (struct sb_step){kind, a};
	return a;
}

char *sb_plan_fmt(const char *f, ...)
{
	va_list ap;
	char *s;
	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		abort();
	va_end(ap);
	return s;
}

void sb_plan_addv(struct sb_list *v, const char *var)
{
	char *s = sb_plan_fmt("${%s}", var);
	sb_list_add(v, s);
	free(s);
}

void sb_plan_add_unit(struct sb_pctx *b, enum sb_role role, unsigned part, const char *var)
{
	struct sb_unit *nu = realloc(b->u, (b->n_u + 1) * sizeof(*nu));
	if (!nu) {
		b->err = -ENOMEM;
		return;
	}
	b->u = nu;
	nu[b->n_u].role = role;
	nu[b->n_u].part = part;
	snprintf(nu[b->n_u].var, sizeof(nu[b->n_u].var), "%s", var);
	b->n_u++;
}

static void add_unit(struct sb_pctx *b, enum sb_role role, const char *var)
{
	sb_plan_add_unit(b, role, 0, var);
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

static void loop_step(struct sb_pctx *b, const struct sb_plan_in *in, const char *loop_dir,
		      const char *var, uint64_t size, bool rot)
{
	struct sb_loop_args *a = sb_plan_add_step(b, SB_STEP_LOOP);
	a->file = sb_plan_fmt("${run}/images/%s.img", var);
	a->dir = sb_plan_fmt("%s/${id}", loop_dir);
	a->size = size;
	a->rotational = rot;
	a->allow_tmpfs = in->loop_dir_forced;
	a->var = sb_plan_fmt("%s", var);
}

/* devices.precondition: each whole device as soon as it is there, before
 * anything is built on it (an emulated array's members before the array).
 * Not the hdd role's: a disk has no flash translation state to reset, and
 * no discard (trim would refuse every md demo with HDD members). --quick
 * keeps steady to a short bound, like its workloads. */
#define SB_PRECOND_QUICK_MS 30000u
static void precond_step(struct sb_pctx *b, const struct sb_stack_cfg *s,
			 const struct sb_plan_in *in, enum sb_role role, const char *var)
{
	if (s->dev.precond == SB_PRECOND_NONE || role == SB_ROLE_HDD)
		return;
	struct sb_precond_args *a = sb_plan_add_step(b, SB_STEP_PRECOND);
	a->dev = sb_plan_fmt("${%s}", var);
	a->mode = sb_plan_fmt("%s", sb_precond_names[s->dev.precond]);
	a->limit_ms = s->dev.precond_limit_ms;
	if (in->quick && a->limit_ms > SB_PRECOND_QUICK_MS)
		a->limit_ms = SB_PRECOND_QUICK_MS;
}

/* --loop: an image the profile does not size holds the data set (plus a
 * file system's own share: journal, metadata, ext4's 5% reserve), on the
 * smallest partition the file system may go on. The files are sparse: a
 * generous size costs nothing until written. */
static uint64_t loop_fit(const struct lcfgs *l, const struct sb_config *c,
			 const struct sb_plan_in *in, enum sb_role role, uint64_t size)
{
	uint64_t need;

	if (!in->loop || in->quick || !in->data_bytes || c->val[K_DEV_LOOP_SSD + role])
		return size;
	need = in->data_bytes + in->data_bytes / 8 + (512ull << 20);
	for (int k = 0; k < SB_STEP_KIND_N; k++) {
		const struct sb_layer *ly = sb_layer_get((enum sb_step_kind)k);
		if (ly->fit && l->v[k])
			need = ly->fit(l->v[k], role, need);
	}
	need = (need + (1ull << 30) - 1) & ~((1ull << 30) - 1);
	return need > size ? need : size;
}

/* How many units a whole device of role r becomes (0: it stays whole). */
static unsigned lcfgs_splits(const struct lcfgs *l, enum sb_role r)
{
	for (int k = 0; k < SB_STEP_KIND_N; k++) {
		const struct sb_layer *ly = sb_layer_get((enum sb_step_kind)k);
		unsigned n = ly->splits && l->v[k] ? ly->splits(l->v[k], r) : 0;
		if (n)
			return n;
	}
	return 0;
}

/* The role a layer sets aside whole for itself (fs.log), or -1. */
static int lcfgs_aside(const struct lcfgs *l)
{
	for (int k = 0; k < SB_STEP_KIND_N; k++) {
		const struct sb_layer *ly = sb_layer_get((enum sb_step_kind)k);
		int r = ly->aside && l->v[k] ? ly->aside(l->v[k]) : -1;
		if (r >= 0)
			return r;
	}
	return -1;
}

/* Does the variant use this slot at all? A device whose units the lowest
 * layer taking units (md.members, lvm.pvs, fs.on) does not select gets no
 * step: "SSD alone" leaves the HDDs untouched. */
static bool slot_used(const struct lcfgs *l, const struct sb_slot *sl)
{
	const struct sb_sel *sel = lcfgs_takes(l);
	unsigned nparts = lcfgs_splits(l, sl->role);

	if (!sel || (int)sl->role == lcfgs_aside(l))
		return true;
	if (!nparts)
		return sb_sel_match(sel, sl->role, 0);
	for (unsigned k = 1; k <= nparts; k++)
		if (sb_sel_match(sel, sl->role, k))
			return true;
	return false;
}

/* The devices: loop files (an emulated volume an md array of them), or
 * the given disks (variables set by the caller); each preconditioned, its
 * queue tuned; then the first units, the aside device (fs.log) left out. */
static int build_devices(const struct sb_stack_cfg *s, const struct lcfgs *l,
			 const struct sb_config *c, struct sb_pctx *b, const struct sb_slot *slots,
			 size_t n_slots)
{
	const struct sb_plan_in *in = b->in;
	struct sb_unit *whole = NULL; /* devices whose queue is tuned */
	size_t n_whole = 0;
	bool emulate = in->loop && s->dev.emulate_raid6;
	unsigned em_members = s->dev.emulate_members;
	const char *loop_dir = in->loop_dir ? in->loop_dir : getenv("STACKBENCH_LOOP_DIR");
	int aside = lcfgs_aside(l);

	if (!loop_dir || !*loop_dir)
		loop_dir = SB_LOOP_DIR_DEFAULT;
	whole = calloc(n_slots * (em_members + 1) + 1, sizeof(*whole));
	if (!whole)
		return -ENOMEM;
	b->preconditioned = s->dev.precond != SB_PRECOND_NONE;
	for (size_t i = 0; i < n_slots; i++) {
		const struct sb_slot *sl = &slots[i];
		uint64_t size = in->quick
				    ? s->dev.loop_quick
				    : loop_fit(l, c, in, sl->role, s->dev.loop_size[sl->role]);

		if (!slot_used(l, sl))
			continue;
		if (!in->loop) {
			whole[n_whole].role = sl->role;
			snprintf(whole[n_whole++].var, sizeof(whole->var), "%s", sl->name);
			precond_step(b, s, in, sl->role, sl->name);
			continue;
		}
		if (emulate && sl->role == SB_ROLE_ANY) {
			struct sb_unit mem[16];
			/* The array is about as large as the role's size. */
			uint64_t msize = in->quick ? size
						   : (size / (em_members - 2) + (1 << 20) - 1) &
							 ~((uint64_t)(1 << 20) - 1);
			for (unsigned m = 0; m < em_members && m < 16; m++) {
				snprintf(mem[m].var, sizeof(mem[m].var), "%s.m%u", sl->name, m + 1);
				mem[m].role = sl->role;
				loop_step(b, in, loop_dir, mem[m].var, msize, false);
				precond_step(b, s, in, sl->role, mem[m].var);
				whole[n_whole++] = mem[m];
			}
			sb_md_plan_emulated(b, sl->name, 6, mem, em_members);
			continue;
		}
		loop_step(b, in, loop_dir, sl->name, size, sl->role == SB_ROLE_HDD);
		precond_step(b, s, in, sl->role, sl->name);
		whole[n_whole].role = sl->role;
		snprintf(whole[n_whole++].var, sizeof(whole->var), "%s", sl->name);
	}

	/* Queue settings on every whole device, restored at undo. */
	if (s->queue.scheduler || s->queue.read_ahead) {
		for (size_t i = 0; i < n_whole; i++) {
			struct sb_queue_args *a = sb_plan_add_step(b, SB_STEP_QUEUE);
			a->dev = sb_plan_fmt("${%s}", whole[i].var);
			if (s->queue.scheduler)
				a->scheduler = sb_plan_fmt("%s", s->queue.scheduler);
			a->read_ahead = s->queue.read_ahead;
			a->read_ahead_kb = s->queue.read_ahead_kb;
		}
	}
	free(whole);

	for (size_t i = 0; i < n_slots; i++) {
		const struct sb_slot *sl = &slots[i];
		if (!slot_used(l, sl))
			continue;
		if ((int)sl->role == aside)
			snprintf(b->aside, sizeof(b->aside), "%s", sl->name);
		else
			add_unit(b, sl->role, sl->name);
	}
	return 0;
}

/* The devices, then every registered layer in stack order (partitions,
 * md, LVM, mkfs, mount, the memory cgroup). */
static int build(const struct sb_stack_cfg *s, const struct lcfgs *l, const struct sb_config *c,
		 struct sb_pctx *b, const struct sb_slot *slots, size_t n_slots)
{
	int r = build_devices(s, l, c, b, slots, n_slots);
	return r < 0 ? r : plan_layers(b, l, SB_STEP_PART, SB_STEP_KIND_N);
}

int sb_plan_build(const struct sb_config *c, const struct sb_plan_in *in, struct sb_plan *out,
		  char **err)
{
	struct sb_pctx b = {.p = out, .in = in};
	struct lcfgs l = {0};
	_cleanup_free_ struct sb_slot *slots = NULL;
	struct sb_stack_cfg s;
	size_t n_slots = 0;
	int r;

	*err = NULL;
	*out = (struct sb_plan){0};
	r = sb_stack_cfg_resolve(c, &s, err);
	if (r < 0)
		return r;
	r = lcfgs_fill(c, &l);
	if (r < 0)
		goto out;
	r = sb_plan_slots(c, &slots, &n_slots);
	if (r < 0)
		goto out;
	if (!in->loop && in->n_devs != n_slots) {
		if (asprintf(err, "the profile needs %zu devices, %zu given", n_slots, in->n_devs) <
		    0)
			*err = NULL;
		r = -EINVAL;
		goto out;
	}
	r = build(&s, &l, c, &b, slots, n_slots);
	if (r == 0 && b.err)
		r = b.err;
	if (r < 0 && b.errmsg) {
		*err = b.errmsg;
		b.errmsg = NULL;
	}
	if (r == 0 && !(out->mountpoint = strdup("${run}/mnt")))
		r = -ENOMEM;
out:
	free(b.u);
	free(b.errmsg);
	lcfgs_free(&l);
	sb_stack_cfg_free(&s);
	if (r < 0)
		sb_plan_free(out);
	return r;
}

void sb_plan_free(struct sb_plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		sb_layer_args_free(sb_layer_get(p->steps[i].kind), p->steps[i].args);
	free(p->steps);
	free(p->mountpoint);
	*p = (struct sb_plan){0};
}

int sb_plan_programs(const struct sb_plan *p, const char **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct sb_layer *l = sb_layer_get(p->steps[i].kind);
		const struct sb_prog *pr = l->programs ? l->programs(p->steps[i].args) : l->progs;
		for (; pr && pr->prog; pr++) {
			bool dup = false;
			for (size_t k = 0; k < n; k++)
				dup |= strcmp(out[k], pr->prog) == 0;
			if (!dup && n + 1 < max)
				out[n++] = pr->prog;
		}
	}
	out[n] = NULL;
	return (int)n;
}
