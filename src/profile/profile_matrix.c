/* The [matrix]: its dimensions (from the profile or -o) and the variant
 * built from one combination of their values. */
#include "profile/profile-int.h"
#include "util/macro.h"
#include "util/strutil.h"

#include <stdio.h>
#include <string.h>

bool sb_prof_dim_has(const struct sb_dim *d, enum sb_key_id k)
{
	for (size_t i = 0; i < d->n_keys; i++)
		if (d->keys[i] == k)
			return true;
	return false;
}

void sb_prof_drop_dim(struct sb_profile *p, enum sb_key_id k, const char *value)
{
	for (size_t i = 0; i < p->n_dims; i++) {
		struct sb_dim *d = &p->dims[i];
		size_t j, nk = d->n_keys - 1, w = 0, nt = 0;
		if (!sb_prof_dim_has(d, k))
			continue;
		for (j = 0; d->keys[j] != k; j++)
			;
		for (size_t t = 0; t < d->n; t++) {
			const char *pv = d->vals[t * d->n_keys + j];
			bool keep = !value || !pv || strcmp(pv, value) == 0, all_null = true,
			     dup = false;
			const char **row = &d->vals[t * d->n_keys];
			if (!keep)
				continue;
			for (size_t c = 0; c < d->n_keys; c++)
				all_null &= c == j || !row[c];
			/* Is the shortened tuple one we already have? */
			for (size_t u = 0; u < nt && !dup; u++) {
				bool same = true;
				for (size_t c = 0, cc = 0; c < d->n_keys; c++) {
					if (c == j)
						continue;
					const char *x = d->vals[u * nk + cc++], *y = row[c];
					same &= (!x && !y) || (x && y && strcmp(x, y) == 0);
				}
				dup = same;
			}
			if (dup || (all_null && nk == 0))
				continue;
			/* Rows are compacted in place: the write position never passes the read
			 * one. */
			const char *tmp[SB_DIM_KEYS];
			for (size_t c = 0; c < d->n_keys; c++)
				tmp[c] = row[c];
			for (size_t c = 0; c < d->n_keys; c++)
				if (c != j)
					d->vals[w++] = tmp[c];
			nt++;
		}
		memmove(&d->keys[j], &d->keys[j + 1], (d->n_keys - j - 1) * sizeof(d->keys[0]));
		d->n_keys = nk;
		d->n = nt;
		/* One tuple left (or none): nothing varies any more, but its values
		 * still apply to every variant, so fold them into the base. */
		if (nk == 0 || nt <= 1) {
			for (size_t c = 0; nt == 1 && c < nk; c++)
				if (d->vals[c]) {
					p->base.val[d->keys[c]] = d->vals[c];
					p->base.line[d->keys[c]] = d->line;
					p->base.origin[d->keys[c]] = d->line ? "matrix" : "-o";
					p->base.has_sec[sb_keys[d->keys[c]].sec] = true;
				}
			free(d->vals);
			memmove(d, d + 1, (p->n_dims - i - 1) * sizeof(*d));
			p->n_dims--;
		}
		return;
	}
}

static char *dim_name(const struct sb_dim *d)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	for (size_t i = 0; i < d->n_keys; i++)
		fprintf(f, "%s%s.%s", i ? "; " : "", sb_sec_names[sb_keys[d->keys[i]].sec],
			sb_keys[d->keys[i]].name);
	fclose(f);
	return out;
}

/* One value of a dimension ("btrfs; -n 4k"): its parts into row (one per
 * key, left NULL where empty), each checked against its key. 0, -EINVAL
 * with *msg, or -ENOMEM. */
static int dim_parts(struct sb_profile *p, const struct sb_dim *d, char *w, const char *orig,
		     const char **row, char **msg)
{
	char *psave = NULL, *part;
	size_t c = 0;

	/* strtok_r would merge empty parts: split by hand. */
	for (part = w; part; part = psave, c++) {
		psave = strchr(part, ';');
		if (psave)
			*psave++ = '\0';
		char *v = sb_str_trim(part);
		int k;
		if (c >= d->n_keys) {
			*msg = sb_asprintf("value '%s' has more parts than the %zu keys", orig,
					   d->n_keys);
			return -EINVAL;
		}
		k = d->keys[c];
		if (!*v) {
			if (d->n_keys == 1) {
				*msg = sb_asprintf("%s.%s: empty value in [matrix]",
						   sb_sec_names[sb_keys[k].sec], sb_keys[k].name);
				return -EINVAL;
			}
			continue;
		}
		if (sb_keys[k].type != SB_KT_WORKLOAD) {
			char *m = sb_key_check_value(k, v);
			if (m) {
				*msg = sb_asprintf("%s.%s: %s", sb_sec_names[sb_keys[k].sec],
						   sb_keys[k].name, m);
				free(m);
				return -EINVAL;
			}
		}
		if (!(row[c] = sb_prof_pool_add(p, v, strlen(v))))
			return -ENOMEM;
	}
	return 0;
}

int sb_prof_add_dim(struct sb_profile *p, char *keys, char *values, unsigned line, char **msg)
{
	struct sb_dim d = {.line = line};
	char *save = NULL;
	int r = -EINVAL;

	for (char *k = strtok_r(keys, ";", &save); k; k = strtok_r(NULL, ";", &save)) {
		int id = sb_prof_lookup_dotted(sb_str_trim(k), true, msg);
		if (id < 0)
			return id;
		if (d.n_keys == SB_DIM_KEYS) {
			*msg = sb_asprintf("at most %d keys can vary together", SB_DIM_KEYS);
			return -EINVAL;
		}
		if (sb_prof_dim_has(&d, id)) {
			*msg = sb_asprintf("'%s' named twice", sb_str_trim(k));
			return -EINVAL;
		}
		for (size_t i = 0; i < p->n_dims; i++)
			if (sb_prof_dim_has(&p->dims[i], id)) {
				if (line) {
					*msg = sb_asprintf("'%s.%s' already in [matrix] on line %u",
							   sb_sec_names[sb_keys[id].sec],
							   sb_keys[id].name, p->dims[i].line);
					return -EINVAL;
				}
				/* -o matrix.KEY replaces every dimension KEY was part of. */
				free(p->dims[i].vals);
				memmove(&p->dims[i], &p->dims[i + 1],
					(p->n_dims - i - 1) * sizeof(*p->dims));
				p->n_dims--;
				break;
			}
		d.keys[d.n_keys++] = id;
	}
	if (d.n_keys == 0) {
		*msg = sb_asprintf("expected 'section.key = value | value'");
		return -EINVAL;
	}
	save = NULL;
	for (char *w = strtok_r(values, "|", &save); w; w = strtok_r(NULL, "|", &save)) {
		const char **nv = realloc(d.vals, (d.n + 1) * d.n_keys * sizeof(*nv));
		char orig[512];
		snprintf(orig, sizeof(orig), "%s", sb_str_trim(w));
		if (!nv) {
			r = -ENOMEM;
			goto fail;
		}
		d.vals = nv;
		for (size_t k = 0; k < d.n_keys; k++)
			nv[d.n * d.n_keys + k] = NULL;
		r = dim_parts(p, &d, w, orig, &nv[d.n * d.n_keys], msg);
		if (r < 0)
			goto fail;
		r = -EINVAL;
		for (size_t t = 0; t < d.n; t++) {
			bool same = true;
			for (size_t k = 0; k < d.n_keys; k++) {
				const char *x = d.vals[t * d.n_keys + k],
					   *y = nv[d.n * d.n_keys + k];
				same &= (!x && !y) || (x && y && strcmp(x, y) == 0);
			}
			if (same) {
				*msg = sb_asprintf("value '%s' listed twice", orig);
				goto fail;
			}
		}
		d.n++;
	}
	if (d.n == 0) {
		_cleanup_free_ char *n = dim_name(&d);
		*msg = sb_asprintf("%s: expected values separated by '|'", n ? n : "?");
		goto fail;
	}
	struct sb_dim *nd = realloc(p->dims, (p->n_dims + 1) * sizeof(*nd));
	if (!nd) {
		r = -ENOMEM;
		goto fail;
	}
	p->dims = nd;
	p->dims[p->n_dims++] = d;
	return 0;
fail:
	free(d.vals);
	return r;
}

void sb_prof_free_one(struct sb_pvariant *v)
{
	free(v->name);
	json_object_put(v->params);
	free(v->cfg.workloads);
}

int sb_prof_make_variant(struct sb_profile *p, size_t i, struct sb_pvariant *v)
{
	char *name = NULL;
	size_t len = 0, rem = i, idx[p->n_dims + 1];
	FILE *f = open_memstream(&name, &len);
	bool first = true;

	if (!f)
		return -ENOMEM;
	v->cfg = p->base;
	v->cfg.workloads = NULL;
	if (p->base.n_workloads) {
		v->cfg.workloads = malloc(p->base.n_workloads * sizeof(char *));
		if (!v->cfg.workloads) {
			fclose(f);
			free(name);
			return -ENOMEM;
		}
		memcpy(v->cfg.workloads, p->base.workloads, p->base.n_workloads * sizeof(char *));
	}
	v->params = json_object_new_object();
	for (size_t d = p->n_dims; d-- > 0;) {
		idx[d] = rem % p->dims[d].n;
		rem /= p->dims[d].n;
	}
	for (size_t d = 0; d < p->n_dims; d++) {
		const struct sb_dim *dm = &p->dims[d];
		for (size_t c = 0; c < dm->n_keys; c++) {
			enum sb_key_id k = dm->keys[c];
			const char *val = dm->vals[idx[d] * dm->n_keys + c];
			char full[128];
			if (!val)
				continue;
			snprintf(full, sizeof(full), "%s.%s", sb_sec_names[sb_keys[k].sec],
				 sb_keys[k].name);
			fprintf(f, "%s%s=%s", first ? "" : ",", full, val);
			first = false;
			json_object_object_add(v->params, full, json_object_new_string(val));
			v->cfg.val[k] = val;
			v->cfg.line[k] = dm->line;
			v->cfg.origin[k] = dm->line ? "matrix" : "-o";
			v->cfg.has_sec[sb_keys[k].sec] = true;
		}
	}
	if (first)
		fputs("default", f);
	fclose(f);
	v->name = name;
	return name ? 0 : -ENOMEM;
}

void sb_pvariants_free(struct sb_pvariant *v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		sb_prof_free_one(&v[i]);
	free(v);
}
