/* The layers' counters gathered over a device stack, and the rows of one
 * phase from two such snapshots. */
#include "stack/counters.h"
#include "stack/stack.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void sb_lcnt_snap(const struct sb_devstack *st, struct sb_lcnt_snap *s, int log_fd)
{
	s->n = 0;
	for (size_t i = 0; st && i < st->n && s->n < SB_DEVSTACK_MAX; i++) {
		for (int k = 0; k < SB_STEP_KIND_N; k++) {
			const struct sb_layer *l = sb_layer_get((enum sb_step_kind)k);
			struct sb_lcnt_entry *e = &s->e[s->n];
			if (!l || !l->counters || !l->counters->read)
				continue;
			e->n = l->counters->read(st, i, e->v, log_fd);
			if (e->n == 0)
				continue;
			if (e->n > SB_LCNT_MAX)
				e->n = SB_LCNT_MAX;
			e->lc = l->counters;
			snprintf(e->dev, sizeof(e->dev), "%s", st->dev[i].name);
			s->n++;
			break;
		}
	}
}

static const struct sb_lcnt_entry *entry_of(const struct sb_lcnt_snap *s,
					    const struct sb_lcnt_entry *like)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->e[i].lc == like->lc && strcmp(s->e[i].dev, like->dev) == 0)
			return &s->e[i];
	return NULL;
}

static const struct sb_lcnt_val *val_of(const struct sb_lcnt_entry *e, const char *name)
{
	for (size_t i = 0; i < e->n; i++)
		if (e->v[i].name && strcmp(e->v[i].name, name) == 0)
			return &e->v[i];
	return NULL;
}

size_t sb_lcnt_rows(const struct sb_lcnt_snap *a, const struct sb_lcnt_snap *b, uint64_t ops,
		    struct sb_lcnt_row *rows, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < b->n; i++) {
		const struct sb_lcnt_entry *eb = &b->e[i], *ea = entry_of(a, eb);
		for (size_t k = 0; ea && k < eb->n && n < max; k++) {
			const struct sb_lcnt_val *vb = &eb->v[k], *va;
			struct sb_lcnt_row *r = &rows[n];
			if (!vb->name || !(va = val_of(ea, vb->name)))
				continue;
			if (!vb->gauge && vb->v < va->v)
				continue;
			snprintf(r->name, sizeof(r->name), "%s_%s", eb->lc->key, vb->name);
			snprintf(r->dev, sizeof(r->dev), "%s", eb->dev);
			r->per_op = !vb->gauge;
			r->raw = vb->gauge ? vb->v : vb->v - va->v;
			r->value =
			    !vb->gauge ? (ops ? (double)r->raw / (double)ops : NAN) : (double)vb->v;
			n++;
		}
	}
	return n;
}
