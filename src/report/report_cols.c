/* The comparison table's columns: specs aligned across sets, one column per
 * variant, their labels, their baselines, and the notes under each. */
#include "report/report-int.h"
#include "util/macro.h"
#include "util/strutil.h"
#include "util/suggest.h"

#include <errno.h>
#include <string.h>

/* The keys that set how long or how big a test runs, not what it measures:
 * the same test with other values of these is one row. */
static const char *const length_keys[] = {"time",    "ops",   "size",	 "timeout",
					  "perchar", "seeks", "seekers", "ramp"};

/* spec without its length keys: "rand:16k,time=60s,direct=1" is
 * "rand:16k,direct=1". */
static char *test_of(const char *spec)
{
	char *out = malloc(strlen(spec) + 1), *copy = strdup(spec), *save = NULL;
	size_t len = 0;

	if (!out || !copy) {
		free(out);
		free(copy);
		return NULL;
	}
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		size_t k = strcspn(w, "=");
		bool drop = false;
		for (size_t i = 0; len && w[k] && i < ARRAY_SIZE(length_keys); i++)
			drop |= strlen(length_keys[i]) == k && strncmp(w, length_keys[i], k) == 0;
		if (!drop)
			len += (size_t)sprintf(out + len, "%s%s", len ? "," : "", w);
	}
	free(copy);
	out[len] = '\0';
	return out;
}

/* The distinct specs of a report, each with its test, and whether that
 * test stays apart. */
struct spec_list {
	char **specs, **tests;
	bool *apart;
	size_t n;
};

static int spec_list_add(struct spec_list *l, const char *spec)
{
	size_t j;

	for (j = 0; j < l->n && strcmp(l->specs[j], spec) != 0; j++)
		;
	if (j < l->n)
		return 0;
	char **ns = realloc(l->specs, (l->n + 1) * sizeof(*ns));
	char **nt = ns ? realloc(l->tests, (l->n + 1) * sizeof(*nt)) : NULL;
	if (ns)
		l->specs = ns;
	if (nt)
		l->tests = nt;
	if (!ns || !nt || !(l->tests[l->n] = test_of(spec)))
		return -ENOMEM;
	/* a copy: the workloads' own specs may change below */
	if (!(l->specs[l->n] = strdup(spec))) {
		free(l->tests[l->n]);
		return -ENOMEM;
	}
	l->n++;
	return 0;
}

/* a test two specs of one run share stays apart */
static int spec_list_mark_apart(struct spec_list *l, const struct sb_repeat *rep)
{
	for (size_t a = 0; a < rep->n_wl; a++)
		for (size_t b = a + 1; b < rep->n_wl; b++) {
			_cleanup_free_ char *ta = test_of(rep->wl[a]->spec);
			_cleanup_free_ char *tb = test_of(rep->wl[b]->spec);
			if (!ta || !tb)
				return -ENOMEM;
			if (strcmp(ta, tb) != 0)
				continue;
			for (size_t j = 0; j < l->n; j++)
				l->apart[j] |= strcmp(l->tests[j], ta) == 0;
		}
	return 0;
}

/* Gives wl the shortest spec of its test, noting the alias for var. */
static int spec_list_align(struct sb_report *r, const struct spec_list *l,
			   const struct sb_variant *var, struct sb_wl_result *wl)
{
	size_t j, to = l->n, others = 0;

	for (j = 0; j < l->n && strcmp(l->specs[j], wl->spec) != 0; j++)
		;
	if (j == l->n || l->apart[j])
		return 0;
	/* the row: the shortest spec of this test */
	for (size_t m = 0; m < l->n; m++)
		if (strcmp(l->tests[m], l->tests[j]) == 0 && m != j) {
			others++;
			if (to == l->n || strlen(l->specs[m]) < strlen(l->specs[to]))
				to = m;
		}
	if (!others || strlen(l->specs[to]) >= strlen(wl->spec))
		return 0;
	struct sb_report_alias *na = realloc(r->aliases, (r->n_aliases + 1) * sizeof(*na));
	if (!na)
		return -ENOMEM;
	r->aliases = na;
	na = &r->aliases[r->n_aliases];
	*na = (struct sb_report_alias){var, strdup(wl->spec), strdup(l->specs[to])};
	if (!na->from || !na->to) {
		free(na->from);
		free(na->to);
		return -ENOMEM;
	}
	r->n_aliases++;
	free(wl->spec);
	if (!(wl->spec = strdup(na->to)))
		return -ENOMEM;
	return 0;
}

int sb_rep_align_specs(struct sb_report *r)
{
	struct spec_list l = {0};
	int ret = 0;

	/* every distinct spec, with its test */
	for (size_t i = 0; i < r->n_sets && !ret; i++)
		for (size_t v = 0; v < r->sets[i]->n_var && !ret; v++)
			for (size_t k = 0; k < r->sets[i]->var[v].n_rep && !ret; k++) {
				const struct sb_repeat *rep = &r->sets[i]->var[v].rep[k];
				for (size_t w = 0; w < rep->n_wl && !ret; w++)
					ret = spec_list_add(&l, rep->wl[w]->spec);
			}
	if (ret || l.n < 2)
		goto out;
	l.apart = calloc(l.n, sizeof(*l.apart));
	if (!l.apart) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < r->n_sets && !ret; i++)
		for (size_t v = 0; v < r->sets[i]->n_var && !ret; v++)
			for (size_t k = 0; k < r->sets[i]->var[v].n_rep && !ret; k++)
				ret = spec_list_mark_apart(&l, &r->sets[i]->var[v].rep[k]);
	for (size_t i = 0; i < r->n_sets && !ret; i++)
		for (size_t v = 0; v < r->sets[i]->n_var && !ret; v++)
			for (size_t k = 0; k < r->sets[i]->var[v].n_rep && !ret; k++) {
				struct sb_repeat *rep = &r->sets[i]->var[v].rep[k];
				for (size_t w = 0; w < rep->n_wl && !ret; w++)
					ret =
					    spec_list_align(r, &l, &r->sets[i]->var[v], rep->wl[w]);
			}
out:
	for (size_t j = 0; j < l.n; j++) {
		free(l.tests[j]);
		free(l.specs[j]);
	}
	free(l.tests);
	free(l.specs);
	free(l.apart);
	return ret;
}

int sb_rep_add_col(struct sb_report *r, size_t set, const struct sb_variant *v, bool merge)
{
	struct sb_report_col *c = NULL;
	const struct sb_variant **vars;

	/* a stored baseline set is never pooled with the sets it judges */
	if (merge && !(r->baseline_set && set == 0))
		for (size_t i = 0; i < r->n_cols; i++)
			if (strcmp(r->cols[i].variant, v->name) == 0 &&
			    !(r->baseline_set && r->cols[i].set == 0))
				c = &r->cols[i];
	if (!c) {
		c = realloc(r->cols, (r->n_cols + 1) * sizeof(*c));
		if (!c)
			return -ENOMEM;
		r->cols = c;
		c = &r->cols[r->n_cols++];
		*c = (struct sb_report_col){.variant = v->name, .set = set};
	}
	vars = realloc(c->vars, (c->n_vars + 1) * sizeof(*vars));
	if (!vars)
		return -ENOMEM;
	c->vars = vars;
	c->vars[c->n_vars++] = v;
	c->n_rep += v->n_rep;
	return 0;
}

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted, not pairwise: a report of 4000 imported columns (issue 24). */
static bool labels_unique(const struct sb_report *r, char **labels)
{
	_cleanup_free_ char **s = malloc((r->n_cols ? r->n_cols : 1) * sizeof(*s));
	if (!s)
		return false;
	for (size_t i = 0; i < r->n_cols; i++) {
		if (!labels[i] || !*labels[i] || strlen(labels[i]) > SB_REPORT_LABEL_MAX)
			return false;
		s[i] = labels[i];
	}
	qsort(s, r->n_cols, sizeof(*s), cmp_strp);
	for (size_t i = 1; i < r->n_cols; i++)
		if (strcmp(s[i - 1], s[i]) == 0)
			return false;
	return true;
}

static const char *param(const struct sb_report_col *c, const char *key)
{
	json_object *v;
	json_object *p = c->vars[0]->params;
	if (!p || !json_object_object_get_ex(p, key, &v))
		return NULL;
	return json_object_get_string(v);
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* "write-mostly=hdd write-behind=16383": the params whose values differ
 * between the columns, each key shortened to its last dotted part unless
 * that would make two keys alike. */
static char **differing_labels(const struct sb_report *r)
{
	const char *keys[64];
	size_t n_keys = 0;
	char **out = calloc(r->n_cols, sizeof(*out));

	if (!out)
		return NULL;
	for (size_t c = 0; c < r->n_cols; c++) {
		json_object *p = r->cols[c].vars[0]->params;
		if (!p || !json_object_is_type(p, json_type_object))
			continue;
		json_object_object_foreach(p, key, val)
		{
			(void)val;
			bool differs = false, known = false;
			for (size_t k = 0; k < n_keys; k++)
				known |= strcmp(keys[k], key) == 0;
			for (size_t o = 0; o < r->n_cols && !known; o++)
				differs |=
				    !same_str(param(&r->cols[o], key), param(&r->cols[c], key));
			if (differs && !known && n_keys < ARRAY_SIZE(keys))
				keys[n_keys++] = key;
		}
	}
	for (size_t c = 0; c < r->n_cols; c++) {
		char *s = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&s, &len);
		if (!f)
			continue;
		for (size_t k = 0, first = 1; k < n_keys; k++) {
			const char *v = param(&r->cols[c], keys[k]), *dot = strrchr(keys[k], '.');
			const char *shown = dot ? dot + 1 : keys[k];
			for (size_t o = 0; o < n_keys; o++) {
				const char *od = strrchr(keys[o], '.');
				if (o != k && strcmp(od ? od + 1 : keys[o], shown) == 0)
					shown = keys[k];
			}
			if (!v)
				continue;
			fprintf(f, "%s%s=%s", first ? "" : " ", shown, v);
			first = 0;
		}
		if (fclose(f) == 0)
			out[c] = s;
		else
			free(s);
	}
	return out;
}

static void free_labels(char **l, size_t n)
{
	for (size_t i = 0; l && i < n; i++)
		free(l[i]);
	free(l);
}

int sb_rep_label_cols(struct sb_report *r)
{
	char **cand = calloc(r->n_cols, sizeof(*cand));
	int ret = 0;

	if (!cand)
		return -ENOMEM;
	/* which variant names more than one column has: sorted, not pairwise */
	_cleanup_free_ const char **byname = malloc(r->n_cols * sizeof(*byname));
	if (!byname) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < r->n_cols; i++)
		byname[i] = r->cols[i].variant;
	qsort(byname, r->n_cols, sizeof(*byname), cmp_strp);
	for (size_t i = 0; i < r->n_cols; i++) {
		struct sb_report_col *c = &r->cols[i];
		const char **at =
		    bsearch(&c->variant, byname, r->n_cols, sizeof(*byname), cmp_strp);
		bool same = (at > byname && strcmp(at[-1], c->variant) == 0) ||
			    (at + 1 < byname + r->n_cols && strcmp(at[1], c->variant) == 0);
		if (same)
			c->full = sb_asprintf("%s:%s", r->set_names[c->set], c->variant);
		else
			c->full = strdup(c->variant);
		cand[i] = strdup(c->variant);
		if (!c->full || !cand[i]) {
			ret = -ENOMEM;
			goto out;
		}
	}
	if (!labels_unique(r, cand)) {
		char **d = differing_labels(r);
		if (d && labels_unique(r, d)) {
			free_labels(cand, r->n_cols);
			cand = d;
		} else {
			free_labels(d, r->n_cols);
			for (size_t i = 0; i < r->n_cols; i++) {
				free(cand[i]);
				cand[i] = strdup(r->cols[i].full);
			}
		}
	}
	if (!labels_unique(r, cand))
		for (size_t i = 0; i < r->n_cols; i++) {
			free(cand[i]);
			cand[i] = i < 26 ? sb_asprintf("%c", (char)('A' + i))
					 : sb_asprintf("%c%zu", (char)('A' + i % 26), i / 26);
		}
	for (size_t i = 0; i < r->n_cols; i++) {
		if (!cand[i]) {
			ret = -ENOMEM;
			goto out;
		}
		r->cols[i].label = TAKE_PTR(cand[i]);
		if (strcmp(r->cols[i].label, r->cols[i].full) != 0)
			r->legend_needed = true;
	}
out:
	free_labels(cand, r->n_cols);
	return ret;
}

int sb_rep_name_sets(struct sb_report *r)
{
	r->set_names = calloc(r->n_sets ? r->n_sets : 1, sizeof(char *));
	if (!r->set_names)
		return -ENOMEM;
	for (size_t i = 0; i < r->n_sets; i++) {
		_cleanup_free_ char *base = sb_report_set_name(r->sets[i]->path);
		size_t same = 0;
		if (!base)
			return -ENOMEM;
		for (size_t k = 0; k < i; k++) {
			_cleanup_free_ char *other = sb_report_set_name(r->sets[k]->path);
			same += other && strcmp(other, base) == 0;
		}
		/* Two sets from directories of the same name still need
		 * telling apart: number the later ones. */
		if (same) {
			if (asprintf(&r->set_names[i], "%s#%zu", base, same + 1) < 0)
				r->set_names[i] = NULL;
		} else {
			r->set_names[i] = TAKE_PTR(base);
		}
		if (!r->set_names[i])
			return -ENOMEM;
	}
	return 0;
}

int sb_rep_pick_baseline(struct sb_report *r, const char *name, char **err)
{
	size_t hits = 0, hit = 0;
	const char *labels_[r->n_cols];

	if (!name) {
		r->baseline = 0;
		return 0;
	}
	for (size_t i = 0; i < r->n_cols; i++) {
		labels_[i] = r->cols[i].label;
		if (r->baseline_set && r->cols[i].set != 0)
			continue;
		if (strcmp(r->cols[i].label, name) == 0 || strcmp(r->cols[i].full, name) == 0) {
			r->baseline = i;
			return 0;
		}
		if (strcmp(r->cols[i].variant, name) == 0) {
			hits++;
			hit = i;
		}
	}
	if (hits == 1) {
		r->baseline = hit;
		return 0;
	}
	if (hits > 1)
		return sb_set_err(
		    err, -EINVAL,
		    "baseline '%s' is ambiguous: it is in several result sets; name one "
		    "as SET:VARIANT (e.g. '%s')",
		    name, r->cols[hit].full);
	const char *sug = sb_suggest(name, labels_, r->n_cols);
	if (sug)
		return sb_set_err(err, -EINVAL,
				  "unknown baseline variant '%s' (did you mean '%s'?)", name, sug);
	return sb_set_err(err, -EINVAL, "unknown baseline variant '%s'", name);
}

void sb_rep_pick_bases(struct sb_report *r, const char *baseline)
{
	/* A fleet: hosts are not repeats of each other, so each variant is
	 * compared with the baseline variant of its own host. */
	if (r->fleet) {
		for (size_t c = 0; c < r->n_cols; c++) {
			size_t first = SIZE_MAX, named = SIZE_MAX;
			for (size_t b = 0; b < r->n_cols; b++) {
				if (r->cols[b].set != r->cols[c].set)
					continue;
				if (first == SIZE_MAX)
					first = b;
				if (baseline && named == SIZE_MAX &&
				    strcmp(r->cols[b].variant, baseline) == 0)
					named = b;
			}
			r->cols[c].base = named != SIZE_MAX ? named : first;
		}
		return;
	}
	for (size_t c = 0; c < r->n_cols; c++) {
		r->cols[c].base = r->baseline;
		if (!r->baseline_set)
			continue;
		if (r->cols[c].set == 0) {
			r->cols[c].base = c;
			continue;
		}
		for (size_t b = 0; b < r->n_cols; b++)
			if (r->cols[b].set == 0 &&
			    strcmp(r->cols[b].variant, r->cols[c].variant) == 0)
				r->cols[c].base = b;
	}
	r->cols[r->baseline].base = r->baseline;
}

int sb_rep_sort_cols_by_host(struct sb_report *r)
{
	struct sb_report_col *sorted = malloc(r->n_cols * sizeof(*sorted));
	size_t at = 0;
	if (!sorted)
		return -ENOMEM;
	bool *used = calloc(r->n_cols, sizeof(*used));
	for (size_t c = 0; used && c < r->n_cols; c++) {
		if (used[c])
			continue;
		for (size_t k = c; k < r->n_cols; k++)
			if (!used[k] && strcmp(r->cols[k].variant, r->cols[c].variant) == 0) {
				sorted[at++] = r->cols[k];
				used[k] = true;
			}
	}
	if (used && at == r->n_cols)
		memcpy(r->cols, sorted, at * sizeof(*sorted));
	free(used);
	free(sorted);
	return 0;
}

/* What the labels do not say (workload.c records it): an "hdd" that is a
 * loop device with the rotational flag, a phase whose O_DIRECT got the page
 * cache. Once per workload spec of a column. */
static bool label_notes(FILE *f, const struct sb_wl_result *wl, bool any)
{
	json_object *ds = NULL, *fb = NULL;
	bool emu = false, said = false;
	if (wl->extra && json_object_object_get_ex(wl->extra, "devstat", &ds)) {
		json_object_object_foreach(ds, ph, o)
		{
			json_object *devs = json_object_object_get(o, "devices");
			(void)ph;
			for (size_t i = 0; i < json_object_array_length(devs); i++)
				emu |= json_object_object_get(json_object_array_get_idx(devs, i),
							      "emulated") != NULL;
		}
	}
	if (emu)
		fprintf(
		    f,
		    "%s%s: its hdd is a loop device with the rotational flag set, not a slow disk",
		    any ? "\n" : "", wl->spec);
	said = emu;
	if (wl->extra && json_object_object_get_ex(wl->extra, "direct_fallback_phases", &fb)) {
		json_object_object_foreach(fb, ph, why)
		{
			(void)why;
			fprintf(f, "%s%s: %s: asked for O_DIRECT and got buffered I/O",
				any || said ? "\n" : "", wl->spec, ph);
			said = true;
		}
	}
	return said;
}

char *sb_report_col_notes(const struct sb_report *r, size_t col)
{
	const struct sb_report_col *c = &r->cols[col];
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	bool any = false;

	if (!f)
		return NULL;
	for (size_t v = 0; v < c->n_vars; v++) {
		const struct sb_variant *var = c->vars[v];
		const struct sb_resultset *set = NULL;
		for (size_t k = 0; k < r->n_sets && !set; k++)
			if (var >= r->sets[k]->var && var < r->sets[k]->var + r->sets[k]->n_var)
				set = r->sets[k];
		if (set && strcmp(set->command, "import") == 0) {
			json_object *src = NULL;
			if (var->params)
				json_object_object_get_ex(var->params, "source", &src);
			fprintf(f,
				"%simported from %s: one figure each (n = %zu), no interval and "
				"no test",
				any ? "\n" : "", src ? json_object_get_string(src) : set->path,
				var->n_rep);
			any = true;
		}
		for (size_t a = 0; a < r->n_aliases; a++) {
			bool seen = false;
			if (r->aliases[a].var != var)
				continue;
			for (size_t b = 0; b < a && !seen; b++)
				seen = r->aliases[b].var == var &&
				       strcmp(r->aliases[b].from, r->aliases[a].from) == 0;
			if (seen)
				continue;
			fprintf(f, "%sran %s, shown in the rows of %s (the same test; ",
				any ? "\n" : "", r->aliases[a].from, r->aliases[a].to);
			for (size_t i = 0; i < ARRAY_SIZE(length_keys); i++)
				fprintf(f, "%s%s", i ? ", " : "", length_keys[i]);
			fputs(" set only its length)", f);
			any = true;
		}
		for (size_t w = 0; var->n_rep && w < var->rep[0].n_wl; w++)
			any |= label_notes(f, var->rep[0].wl[w], any);
		for (size_t k = 0; k < var->n_rep; k++)
			for (size_t w = 0; w < var->rep[k].n_wl; w++) {
				const struct sb_wl_result *wl = var->rep[k].wl[w];
				if (!wl->error)
					continue;
				fprintf(f, "%s%s: %s", any ? "\n" : "", wl->spec, wl->error);
				if (var->n_rep > 1)
					fprintf(f, " (repeat %zu)", k + 1);
				any = true;
			}
	}
	if (fclose(f) != 0 || !any) {
		free(s);
		return NULL;
	}
	return s;
}
