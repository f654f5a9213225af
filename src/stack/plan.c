/* A variant's config + devices -> the ordered list of steps, bottom up:
 * each layer of the registry in stack order turns the units the layers
 * below hand up into its steps and the units it makes (loop devices,
 * queue settings, partitions, md, LVM, mkfs, mount). This file only runs
 * that loop and gives the layers what they ask of each other. Pure:
 * devices appear as variables ("${ssd}") that the executor fills in. */
#include "stack/layers.h"
#include "stack/plan.h"
#include "util/macro.h"
#include "util/size.h"

#include <stdarg.h>
#include <string.h>

static const struct sb_layer *layer(int k)
{
	return sb_layer_get((enum sb_step_kind)k);
}

/* Every layer's typed config from the variant's values. */
static int cfgs_fill(const struct sb_config *c, struct sb_pctx *b)
{
	for (int k = 0; k < SB_STEP_KIND_N; k++) {
		const struct sb_keytab *t = layer(k)->keytab;
		if (!t)
			continue;
		b->cfg[k] = calloc(1, t->cfg_size);
		if (!b->cfg[k])
			return -ENOMEM;
		sb_keytab_fill(t, c, b->cfg[k]);
	}
	return 0;
}

const struct sb_sel *sb_plan_takes(const struct sb_pctx *b)
{
	for (int k = 0; k < SB_STEP_KIND_N; k++) {
		const struct sb_layer *ly = layer(k);
		const struct sb_sel *sel = ly->takes && b->cfg[k] ? ly->takes(b->cfg[k]) : NULL;
		if (sel)
			return sel;
	}
	return NULL;
}

unsigned sb_plan_splits(const struct sb_pctx *b, enum sb_role r)
{
	for (int k = 0; k < SB_STEP_KIND_N; k++) {
		const struct sb_layer *ly = layer(k);
		unsigned n = ly->splits && b->cfg[k] ? ly->splits(b->cfg[k], r) : 0;
		if (n)
			return n;
	}
	return 0;
}

uint64_t sb_plan_fit(const struct sb_pctx *b, enum sb_role r, uint64_t need)
{
	for (int k = 0; k < SB_STEP_KIND_N; k++)
		if (layer(k)->fit && b->cfg[k])
			need = layer(k)->fit(b->cfg[k], r, need);
	return need;
}

int sb_plan_aside(const struct sb_pctx *b)
{
	for (int k = 0; k < SB_STEP_KIND_N; k++) {
		const struct sb_layer *ly = layer(k);
		int r = ly->aside && b->cfg[k] ? ly->aside(b->cfg[k]) : -1;
		if (r >= 0)
			return r;
	}
	return -1;
}

bool sb_plan_slot_used(const struct sb_pctx *b, const struct sb_slot *sl)
{
	const struct sb_sel *sel = sb_plan_takes(b);
	unsigned nparts = sb_plan_splits(b, sl->role);

	if (!sel || (int)sl->role == sb_plan_aside(b))
		return true;
	if (!nparts)
		return sb_sel_match(sel, sl->role, 0);
	for (unsigned k = 1; k <= nparts; k++)
		if (sb_sel_match(sel, sl->role, k))
			return true;
	return false;
}

void sb_plan_device(struct sb_pctx *b, enum sb_role role, const char *var)
{
	for (int k = 0; k < SB_STEP_KIND_N; k++)
		if (layer(k)->device && b->cfg[k])
			layer(k)->device(b->cfg[k], b, role, var);
	sb_unit_list_add(&b->whole, &b->n_whole, role, 0, var);
}

/* Every layer in stack order; b->taken once one took the devices' units. */
static int plan_layers(struct sb_pctx *b)
{
	for (int k = 0; k < SB_STEP_KIND_N; k++) {
		const struct sb_layer *ly = layer(k);
		int r = ly->plan && (b->cfg[k] || !ly->keytab) ? ly->plan(b->cfg[k], b) : 0;
		if (r < 0)
			return r;
		for (int j = 0; j < SB_STEP_KIND_N; j++)
			if (layer(j)->follow)
				layer(j)->follow(b->cfg[j], b, (enum sb_step_kind)k);
		b->taken |= ly->takes && b->cfg[k] && ly->takes(b->cfg[k]);
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

void sb_unit_list_add(struct sb_unit **u, size_t *n, enum sb_role role, unsigned part,
		      const char *var)
{
	struct sb_unit *nu = realloc(*u, (*n + 1) * sizeof(*nu));
	if (!nu)
		abort(); /* as sb_plan_add_step */
	*u = nu;
	nu[*n].role = role;
	nu[*n].part = part;
	snprintf(nu[*n].var, sizeof(nu[*n].var), "%s", var);
	(*n)++;
}

void sb_plan_add_unit(struct sb_pctx *b, enum sb_role role, unsigned part, const char *var)
{
	sb_unit_list_add(&b->u, &b->n_u, role, part, var);
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

int sb_plan_build(const struct sb_config *c, const struct sb_plan_in *in, struct sb_plan *out,
		  char **err)
{
	struct sb_pctx b = {.p = out, .in = in, .c = c};
	struct sb_slot *slots = NULL;
	size_t n_slots = 0;
	int r;

	*err = NULL;
	*out = (struct sb_plan){0};
	r = cfgs_fill(c, &b);
	if (r < 0)
		goto out;
	r = sb_plan_slots(c, &slots, &n_slots);
	if (r < 0)
		goto out;
	b.slots = slots;
	b.n_slots = n_slots;
	if (!in->loop && in->n_devs != n_slots) {
		if (asprintf(err, "the profile needs %zu devices, %zu given", n_slots, in->n_devs) <
		    0)
			*err = NULL;
		r = -EINVAL;
		goto out;
	}
	r = plan_layers(&b);
	if (r < 0 && b.errmsg) {
		*err = b.errmsg;
		b.errmsg = NULL;
	}
	if (r == 0 && !(out->mountpoint = strdup("${run}/mnt")))
		r = -ENOMEM;
out:
	free(slots);
	free(b.u);
	free(b.whole);
	free(b.errmsg);
	for (int k = 0; k < SB_STEP_KIND_N; k++)
		free(b.cfg[k]);
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
