/* Whole-variant checks: each variant of the matrix against [devices], the
 * layers' own rules (the scenario's among them); the ones that cannot be built are dropped. */
#include "profile/profile-int.h"
#include "util/macro.h"
#include "util/strutil.h"

#include <stdarg.h>
#include <string.h>

#define MAX_VARIANTS 256

struct sb_vctx {
	const struct sb_profile *p;
	const struct sb_config *c;
	const char *variant; /* NULL for the base */
	char **err;
};

const struct sb_config *sb_vctx_config(const struct sb_vctx *v)
{
	return v->c;
}

bool sb_vctx_varies(const struct sb_vctx *v, int k)
{
	for (size_t d = 0; d < v->p->n_dims; d++)
		if (sb_prof_dim_has(&v->p->dims[d], k))
			return true;
	return false;
}

int sb_verr(struct sb_vctx *v, int k, const char *fmt, ...)
{
	va_list ap;
	_cleanup_free_ char *m = NULL, *where = NULL;
	va_start(ap, fmt);
	m = sb_vasprintf(fmt, ap);
	va_end(ap);
	if (k >= 0 && v->c->origin[k] && strcmp(v->c->origin[k], "-o") == 0)
		where = sb_asprintf("%s: -o %s.%s", v->p->path, sb_sec_names[sb_keys[k].sec],
				    sb_keys[k].name);
	else if (k >= 0 && v->c->line[k])
		where = sb_asprintf("%s:%u", v->p->path, v->c->line[k]);
	else
		where = strdup(v->p->path);
	if (v->variant)
		sb_prof_set_err(v->err, "%s: variant %s: %s", where, v->variant, m ? m : "");
	else
		sb_prof_set_err(v->err, "%s: %s", where, m ? m : "");
	return -EINVAL;
}

/* [devices]: the units the first layer sees. */
static int check_devices(struct sb_vctx *v, struct sb_vstate *st)
{
	const struct sb_config *c = v->c;
	unsigned total = 0;

	for (int r = 0; r < SB_ROLE_N; r++)
		total += sb_cfg_role_count(c, r);
	if (total == 0)
		return sb_verr(v, -1,
			       "[devices]: the stack needs at least one device (ssd = 1, say)");
	if (total > 64)
		return sb_verr(v, -1, "[devices]: %u devices, at most 64", total);

	st->units = total;
	return 0;
}

/* The registered layers' own rules, bottom up, each on its typed config. */
static int check_keytabs(struct sb_vctx *v, struct sb_vstate *st)
{
	for (size_t t = 0; t < sb_keytab_n; t++) {
		const struct sb_keytab *kt = sb_keytabs[t];
		void *cfg;
		int r;
		if (!kt->validate)
			continue;
		cfg = calloc(1, kt->cfg_size ? kt->cfg_size : 1);
		if (!cfg)
			return -ENOMEM;
		sb_keytab_fill(kt, v->c, cfg);
		r = kt->validate(v, cfg, st);
		free(cfg);
		if (r < 0)
			return r;
	}
	return 0;
}

int sb_vselect(struct sb_vctx *v, int key, struct sb_vstate *st)
{
	char *why = NULL;
	int n = sb_cfg_sel_units(v->c, sb_cfg_str(v->c, key), st, &why);
	if (n <= 0) {
		int r = sb_verr(v, key, "%s.%s: %s", sb_sec_names[sb_keys[key].sec],
				sb_keys[key].name, why ? why : "selects no device");
		free(why);
		return r;
	}
	st->units = (unsigned)n;
	st->taker = key;
	return 0;
}

static int check_config(struct sb_vctx *v)
{
	struct sb_vstate st = {.taker = -1};
	int r;

	if ((r = check_devices(v, &st)) < 0)
		return r;
	return check_keytabs(v, &st);
}

static int check_workloads(struct sb_profile *p, char **err)
{
	for (size_t i = 0; i < p->base.n_workloads; i++) {
		char *m = sb_key_check_value(K_WL_RUN, p->base.workloads[i]);
		if (!m)
			continue;
		if (p->base.wl_lines[i])
			sb_prof_set_err(err, "%s:%u: workloads.run: %s", p->path,
					p->base.wl_lines[i], m);
		else
			sb_prof_set_err(err, "-o 'workloads.run=%s': %s", p->base.workloads[i], m);
		free(m);
		return -EINVAL;
	}
	return 0;
}

/* Workload spec's name ("rand" of "rand:16k,direct=1") is wl? */
static bool runs_named(const char *spec, const char *wl)
{
	size_t n = strcspn(spec, ":,");
	return strlen(wl) == n && strncmp(spec, wl, n) == 0;
}

/* workloads.answer: each item WORKLOAD: LABEL, of a workload the profile
 * runs (the label is the report's to find: the workload names its rows
 * when it runs). */
static int check_answer(struct sb_profile *p, char **err)
{
	const char *v = sb_cfg_str(&p->base, K_WL_ANSWER);
	_cleanup_free_ char *copy = v ? strdup(v) : NULL, *names = NULL;
	_cleanup_free_ char *where = NULL;
	char *s = copy, *wl, *label;

	bool own_o = p->base.origin[K_WL_ANSWER] && strcmp(p->base.origin[K_WL_ANSWER], "-o") == 0;

	/* -o workloads.run put other workloads in the profile's place: its
	 * answer then finds no rows, which the report says. */
	if (!v || (p->workloads_overridden && !own_o))
		return 0;
	if (!copy)
		return -ENOMEM;
	while (sb_answer_next(&s, &wl, &label)) {
		bool ok = false;
		for (size_t i = 0; i < p->base.n_workloads && label && *label && !ok; i++)
			ok = runs_named(p->base.workloads[i], wl);
		if (ok)
			continue;
		for (size_t i = 0; i < p->base.n_workloads; i++) {
			size_t n = strcspn(p->base.workloads[i], ":,");
			char *more = sb_asprintf("%s%s%.*s", names ? names : "", names ? ", " : "",
						 (int)n, p->base.workloads[i]);
			free(names);
			names = more;
		}
		if (own_o)
			where = sb_asprintf("-o 'workloads.answer=%s'", v);
		else
			where = sb_asprintf("%s:%u: workloads.answer", p->path,
					    p->base.line[K_WL_ANSWER]);
		sb_prof_set_err(err,
				"%s: '%s%s%s': expected WORKLOAD: LABEL, a row of a workload this "
				"profile runs (%s), items separated by ';'",
				where ? where : p->path, wl, label ? ": " : "", label ? label : "",
				names ? names : "none");
		return -EINVAL;
	}
	return 0;
}

int sb_profile_variants(struct sb_profile *p, struct sb_pvariant **out, size_t *n, char **err)
{
	size_t total = 1, kept = 0;
	struct sb_pvariant *vs;
	char *first_err = NULL;
	int r = 0;

	*err = NULL;
	r = check_workloads(p, err);
	if (r >= 0)
		r = check_answer(p, err);
	if (r < 0)
		return r;
	for (size_t d = 0; d < p->n_dims; d++) {
		total *= p->dims[d].n;
		if (total > MAX_VARIANTS)
			return sb_prof_set_err(err, "%s:%u: [matrix]: more than %d variants",
					       p->path, p->dims[d].line, MAX_VARIANTS);
	}
	vs = calloc(total, sizeof(*vs));
	if (!vs)
		return -ENOMEM;
	for (size_t i = 0; i < total; i++) {
		struct sb_pvariant *v = &vs[kept];
		char *e = NULL;

		r = sb_prof_make_variant(p, i, v);
		if (r < 0)
			goto fail;
		struct sb_vctx vc = {p, &v->cfg, p->n_dims ? v->name : NULL, &e};
		r = check_config(&vc);
		if (r == 0) {
			kept++;
			continue;
		}
		/* A combination that cannot be built is left out, as long as
		 * some can: the matrix is a product, not every cell makes sense. */
		if (!p->n_dims) {
			*err = e;
			goto fail;
		}
		char **nd = realloc(p->dropped, (p->n_dropped + 1) * sizeof(*nd));
		if (!nd) {
			free(e);
			r = -ENOMEM;
			goto fail;
		}
		p->dropped = nd;
		nd[p->n_dropped++] = e;
		if (!first_err)
			first_err = e;
		sb_prof_free_one(v);
		memset(v, 0, sizeof(*v));
	}
	if (kept == 0) {
		*err = strdup(first_err ? first_err : "no variant can be built");
		r = -EINVAL;
		goto fail;
	}
	*out = vs;
	*n = kept;
	return 0;
fail:
	sb_pvariants_free(vs, total);
	return r;
}
