/* The configuration diff and device shares of reports (see measure.h). */
#include "report/measure.h"
#include "util/escape.h"
#include "util/macro.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *str_of(json_object *o)
{
	return o ? json_object_get_string(o) : NULL;
}

static bool is_obj(json_object *o)
{
	return o && json_object_is_type(o, json_type_object);
}

json_object *sb_measure_config_flat(json_object *cfg)
{
	json_object *rows, *flat;

	if (!is_obj(cfg) || !json_object_object_get_ex(cfg, "rows", &rows) || !is_obj(rows))
		return sb_measure_config_flat_v1(cfg);
	/* the layers' own rows, flattened when they were captured */
	flat = json_object_new_object();
	json_object_object_foreach(rows, k, v)
	{
		if (str_of(v))
			json_object_object_add(flat, k, json_object_new_string(str_of(v)));
	}
	return flat;
}

static bool same_val(json_object *a, json_object *b)
{
	const char *x = str_of(a), *y = str_of(b);
	return x && y && strcmp(x, y) == 0;
}

/* Words of a variant's params (names split on '.', values on ",=: ") that
 * differ from the base's: what the user asked to change. */
static bool param_word(json_object *pa, json_object *pb, const char *word)
{
	json_object *sides[2] = {pa, pb};
	for (int s = 0; s < 2; s++) {
		if (!is_obj(sides[s]))
			continue;
		json_object_object_foreach(sides[s], k, v)
		{
			json_object *ov = NULL;
			const char *val = str_of(v);
			if (is_obj(sides[1 - s]) &&
			    json_object_object_get_ex(sides[1 - s], k, &ov) && val && str_of(ov) &&
			    strcmp(val, str_of(ov)) == 0)
				continue; /* same on both sides: not the difference asked for */
			char buf[512];
			snprintf(buf, sizeof(buf), "%s,%s", k, val ? val : "");
			char *save = NULL;
			for (char *t = strtok_r(buf, ".,=: ", &save); t;
			     t = strtok_r(NULL, ".,=: ", &save))
				/* "nossd" asks about ssd, and "ssd" about nossd */
				if (strcmp(t, word) == 0 ||
				    (strncmp(t, "no", 2) == 0 && strcmp(t + 2, word) == 0) ||
				    (strncmp(word, "no", 2) == 0 && strcmp(word + 2, t) == 0))
					return true;
		}
	}
	return false;
}

static bool param_differs(json_object *pa, json_object *pb, const char *k)
{
	json_object *a = NULL, *b = NULL;
	bool ha = is_obj(pa) && json_object_object_get_ex(pa, k, &a);
	bool hb = is_obj(pb) && json_object_object_get_ex(pb, k, &b);
	if (ha != hb)
		return true;
	return ha && !same_val(a, b);
}

/* Does a parameter name matched by pat ("fs.type"; "md*": every name that
 * starts with md) differ between the variants? */
static bool pattern_differs(json_object *pa, json_object *pb, const char *pat)
{
	size_t l = strlen(pat);
	if (!l || pat[l - 1] != '*')
		return param_differs(pa, pb, pat);
	json_object *sides[2] = {pa, pb};
	for (int s = 0; s < 2; s++) {
		if (!is_obj(sides[s]))
			continue;
		json_object_object_foreach(sides[s], k, v)
		{
			(void)v;
			if (strncmp(k, pat, l - 1) == 0 && param_differs(pa, pb, k))
				return true;
		}
	}
	return false;
}

static bool rule_flag(json_object *rule, const char *name, bool dflt)
{
	json_object *b;
	if (!json_object_object_get_ex(rule, name, &b) ||
	    !json_object_is_type(b, json_type_boolean))
		return dflt;
	return json_object_get_boolean(b);
}

/* Does the rule a layer wrote for its rows (extra.config.follows.KEY) ask
 * for a row of theirs that differs (both_sides: it is on both)? */
static bool rule_asks(json_object *rule, bool both_sides, json_object *pa, json_object *pb)
{
	json_object *params;
	if (!is_obj(rule) || (both_sides && rule_flag(rule, "gone_only", false)) ||
	    !json_object_object_get_ex(rule, "params", &params) ||
	    !json_object_is_type(params, json_type_array))
		return false;
	for (size_t k = 0; k < json_object_array_length(params); k++) {
		const char *pat = str_of(json_object_array_get_idx(params, k));
		if (pat && pattern_differs(pa, pb, pat))
			return true;
	}
	return false;
}

/* The rules the variants' sets carry (extra.config.follows), or the ones
 * the report always applied (sets captured before the layers wrote them). */
struct rules {
	json_object *set[2];
	size_t n;
	json_object *v1; /* to put, or NULL */
};

static json_object *set_follows(json_object *cfg)
{
	json_object *f;
	return is_obj(cfg) && json_object_object_get_ex(cfg, "follows", &f) && is_obj(f) ? f : NULL;
}

static void rules_get(struct rules *r, json_object *cfg_base, json_object *cfg_var)
{
	json_object *c[2] = {cfg_base, cfg_var};
	r->n = 0;
	r->v1 = NULL;
	for (int s = 0; s < 2; s++)
		if (set_follows(c[s]))
			r->set[r->n++] = set_follows(c[s]);
	if (!r->n)
		r->set[r->n++] = r->v1 = sb_measure_follows_v1();
}

static bool asked(const char *key, bool both_sides, json_object *pa, json_object *pb,
		  const struct rules *r)
{
	const char *leaf = strrchr(key, '.');
	char section[64];
	bool section_word = true;
	leaf = leaf ? leaf + 1 : key;
	/* "md0.level" -> "md", "geometry.Block size" -> "geometry" */
	size_t l = strcspn(key, ".");
	snprintf(section, sizeof(section), "%.*s", (int)l, key);
	while (l && isdigit((unsigned char)section[l - 1]))
		section[--l] = '\0';
	for (size_t i = 0; i < r->n; i++) {
		json_object *rule;
		if (!json_object_object_get_ex(r->set[i], section, &rule) || !is_obj(rule))
			continue;
		if (rule_asks(rule, both_sides, pa, pb))
			return true;
		section_word &= rule_flag(rule, "section_word", true);
	}
	if (param_word(pa, pb, leaf))
		return true;
	return section_word && param_word(pa, pb, section);
}

/* Captured with its layers' rows (not a set from before them)? */
static bool has_rows(json_object *cfg)
{
	json_object *r;
	return is_obj(cfg) && json_object_object_get_ex(cfg, "rows", &r) && is_obj(r);
}

char *sb_measure_config_diff(const struct sb_measure_var *v, size_t n, size_t base)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	json_object **flat = calloc(n ? n : 1, sizeof(*flat));

	if (!f || !flat) {
		if (f)
			fclose(f);
		free(out);
		free(flat);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		flat[i] = v[i].config ? sb_measure_config_flat(v[i].config) : NULL;
	/* Identical pairs. */
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (flat[i] && flat[j] && json_object_equal(flat[i], flat[j]))
				fprintf(f,
					"warning: %s and %s ran with the same effective "
					"configuration (mount options, geometry, md, queue, "
					"sysctls): an A/A test posing as A/B\n",
					v[i].label, v[j].label);
	/* Differences against the base that no parameter explains. */
	for (size_t i = 0; i < n && base < n && flat[base]; i++) {
		if (i == base || !flat[i])
			continue;
		json_object *sides[2] = {flat[base], flat[i]};
		struct rules rules;
		rules_get(&rules, v[base].config, v[i].config);
		for (int s = 0; s < 2; s++) {
			json_object_object_foreach(sides[s], k, val)
			{
				json_object *o = NULL;
				bool in_other = json_object_object_get_ex(sides[1 - s], k, &o);
				if (s == 1 && in_other)
					continue; /* seen from the base's side */
				if (in_other && strcmp(str_of(val), str_of(o)) == 0)
					continue;
				if (asked(k, in_other, v[base].params, v[i].params, &rules)) {
					/* what was asked, and did change (in_other: seen
					 * from the base's side); sets from before the
					 * layers' rows reported no such line */
					if (in_other && has_rows(v[base].config) &&
					    has_rows(v[i].config))
						fprintf(f,
							"changed: %s vs %s: %s is %s vs %s, as "
							"asked\n",
							v[base].label, v[i].label, k, str_of(val),
							str_of(o));
					continue;
				}
				const char *bv =
				    s == 0 ? str_of(val) : (in_other ? str_of(o) : NULL);
				const char *iv =
				    s == 0 ? (in_other ? str_of(o) : NULL) : str_of(val);
				fprintf(f,
					"note: %s vs %s: %s is %s vs %s, which no parameter asked "
					"for\n",
					v[base].label, v[i].label, k, bv ? bv : "(unset)",
					iv ? iv : "(unset)");
			}
		}
		if (rules.v1)
			json_object_put(rules.v1);
	}
	for (size_t i = 0; i < n; i++)
		if (flat[i])
			json_object_put(flat[i]);
	free(flat);
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* Counters from the file: never negative; sums are unsigned (a corrupt file
 * gives odd shares, not overflow). */
static uint64_t num(json_object *o, const char *k)
{
	json_object *v;
	int64_t x = json_object_object_get_ex(o, k, &v) ? json_object_get_int64(v) : 0;
	return x > 0 ? (uint64_t)x : 0;
}

static void ratio(FILE *f, const char *what, uint64_t dev, uint64_t wl)
{
	if (wl > 0)
		fprintf(f, " %s %.2fx", what, (double)dev / (double)wl);
	else
		fprintf(f, " %s -", what);
}

static void pct(FILE *f, uint64_t part, uint64_t all)
{
	if (all > 0)
		fprintf(f, "%.0f%%", 100.0 * (double)part / (double)all);
	else
		fputs("-", f);
}

/* Too little traffic for a share to mean anything. */
#define SHARE_MIN_BYTES (1 << 20)

char *sb_measure_devstat_text(json_object *devstat, const char *prefix)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	if (devstat && json_object_is_type(devstat, json_type_object)) {
		json_object_object_foreach(devstat, phase, ph)
		{
			json_object *devs;
			if (!is_obj(ph) || !json_object_object_get_ex(ph, "devices", &devs) ||
			    !json_object_is_type(devs, json_type_array))
				continue;
			size_t n = json_object_array_length(devs);
			uint64_t tr = 0, tw = 0;
			for (size_t i = 0; i < n; i++) {
				json_object *d = json_object_array_get_idx(devs, i), *p;
				if (json_object_object_get_ex(d, "parent", &p) && p)
					continue;
				tr += num(d, "read_bytes");
				tw += num(d, "write_bytes");
			}
			uint64_t wr = num(ph, "workload_read_bytes"),
				 ww = num(ph, "workload_write_bytes");
			if (tr < SHARE_MIN_BYTES && tw < SHARE_MIN_BYTES && wr < SHARE_MIN_BYTES &&
			    ww < SHARE_MIN_BYTES)
				continue;
			fprintf(f, "%s%s: top device/workload bytes:", prefix, phase);
			ratio(f, "read", tr, wr);
			ratio(f, "write", tw, ww);
			fputc('\n', f);
			/* Members: each device's share among its parent's children. */
			for (size_t i = 0; i < n; i++) {
				json_object *d = json_object_array_get_idx(devs, i), *p, *nm;
				if (!json_object_object_get_ex(d, "parent", &p) || !p ||
				    !json_object_object_get_ex(d, "name", &nm))
					continue;
				uint64_t sr = 0, sw = 0, sri = 0, swi = 0;
				for (size_t k = 0; k < n; k++) {
					json_object *e = json_object_array_get_idx(devs, k), *q;
					if (json_object_object_get_ex(e, "parent", &q) && q &&
					    strcmp(str_of(q), str_of(p)) == 0) {
						sr += num(e, "read_bytes");
						sw += num(e, "write_bytes");
						sri += num(e, "read_ios");
						swi += num(e, "write_ios");
					}
				}
				fprintf(f, "%s  %s under %s: reads ", prefix, str_of(nm),
					str_of(p));
				pct(f, num(d, "read_bytes"), sr);
				fputs(" of bytes, ", f);
				pct(f, num(d, "read_ios"), sri);
				fputs(" of IOPS; writes ", f);
				pct(f, num(d, "write_bytes"), sw);
				fputs(" of bytes, ", f);
				pct(f, num(d, "write_ios"), swi);
				fputs(" of IOPS\n", f);
			}
		}
	}
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* The first workload result of a column's first repeat that has key in extra. */
static json_object *col_extra(const struct sb_report_col *c, size_t wl, const char *key)
{
	json_object *v;
	for (size_t i = 0; i < c->n_vars; i++)
		for (size_t r = 0; r < c->vars[i]->n_rep; r++) {
			const struct sb_repeat *rep = &c->vars[i]->rep[r];
			if (wl == SIZE_MAX) {
				for (size_t w = 0; w < rep->n_wl; w++)
					if (rep->wl[w]->extra &&
					    json_object_object_get_ex(rep->wl[w]->extra, key, &v))
						return v;
			} else if (wl < rep->n_wl && rep->wl[wl]->extra &&
				   json_object_object_get_ex(rep->wl[wl]->extra, key, &v)) {
				return v;
			}
		}
	return NULL;
}

char *sb_measure_quiesce_text(json_object *quiesce, const char *prefix)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	if (is_obj(quiesce)) {
		json_object_object_foreach(quiesce, phase, q)
		{
			json_object *b, *why;
			if (!is_obj(q) || !json_object_object_get_ex(q, "busy", &b) ||
			    !json_object_is_type(b, json_type_boolean) ||
			    !json_object_get_boolean(b))
				continue;
			fprintf(f,
				"%s%s: started busy (%s) after waiting %.1f s: background work "
				"overlaps its figures\n",
				prefix, phase,
				json_object_object_get_ex(q, "reason", &why) ? str_of(why) : "?",
				(double)num(q, "wait_ms") / 1000.0);
		}
	}
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* One section of extra.KEY text per workload result, under heading: from
 * every repeat of every column, or (first_only) each column's first. */
static void extra_section(const struct sb_report *r, FILE *f, const char *key, bool first_only,
			  const char *heading, char *(*text)(json_object *, const char *))
{
	bool head = false;
	for (size_t c = 0; c < r->n_cols; c++) {
		const struct sb_report_col *col = &r->cols[c];
		for (size_t v = 0; v < col->n_vars && !(first_only && v); v++)
			for (size_t k = 0; k < col->vars[v]->n_rep && !(first_only && k); k++) {
				const struct sb_repeat *rep = &col->vars[v]->rep[k];
				for (size_t w = 0; w < rep->n_wl; w++) {
					json_object *o;
					if (!rep->wl[w]->extra ||
					    !json_object_object_get_ex(rep->wl[w]->extra, key, &o))
						continue;
					char *t = text(o, "    ");
					if (t && *t) {
						if (!head)
							fprintf(f, "\n%s:\n", heading);
						head = true;
						if (first_only)
							fprintf(f, "  %s: %s\n%s", col->label,
								rep->wl[w]->spec, t);
						else
							fprintf(f, "  %s, repeat %u: %s\n%s",
								col->label, rep->index + 1,
								rep->wl[w]->spec, t);
					}
					free(t);
				}
			}
	}
}

void sb_measure_text(const struct sb_report *r, FILE *f)
{
	struct sb_measure_var *v = calloc(r->n_cols ? r->n_cols : 1, sizeof(*v));
	bool any = false;

	if (!v)
		return;
	for (size_t c = 0; c < r->n_cols; c++) {
		v[c].label = r->cols[c].label;
		v[c].config = col_extra(&r->cols[c], SIZE_MAX, "config");
		v[c].params = r->cols[c].n_vars ? r->cols[c].vars[0]->params : NULL;
		any |= v[c].config != NULL;
	}
	if (any) {
		char *d = sb_measure_config_diff(v, r->n_cols, r->baseline);
		if (d && *d)
			fprintf(f, "\neffective configuration (extra.config):\n%s", d);
		free(d);
	}
	free(v);
	/* Device shares, from each column's first repeat; phases that began
	 * over background work, from every repeat: a figure the reader must
	 * not take for the device's. */
	extra_section(r, f, "devstat", true, "devices (extra.devstat, first repeat)",
		      sb_measure_devstat_text);
	extra_section(r, f, "quiesce", false, "background work (extra.quiesce)",
		      sb_measure_quiesce_text);
}

void sb_measure_html(const struct sb_report *r, FILE *f)
{
	char *t = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&t, &len);
	if (!m)
		return;
	sb_measure_text(r, m);
	if (fclose(m) == 0 && t && *t) {
		fprintf(f, "<h2 id=\"devices\">Devices and effective configuration</h2>\n<pre>");
		sb_escape_html(f, t + (*t == '\n'));
		fprintf(f, "</pre>\n");
	}
	free(t);
}

/* The device of set's devices that member name is (or is a partition
 * of), or NULL. */
static json_object *set_device(const struct sb_report *r, size_t set, const char *name)
{
	json_object *devs = r->sets[set]->devices, *d, *v;
	for (size_t i = 0; devs && json_object_is_type(devs, json_type_array) &&
			   i < json_object_array_length(devs);
	     i++) {
		d = json_object_array_get_idx(devs, i);
		const char *dn = json_object_object_get_ex(d, "name", &v) ? str_of(v) : NULL;
		if (dn && strncmp(name, dn, strlen(dn)) == 0)
			return d;
	}
	return NULL;
}

/* "sdb1 (hdd, rotational disk)": a member's name with the role and class
 * of the device of the set it is (or is a partition of). */
static void member_name(const struct sb_report *r, size_t set, const char *name, FILE *f)
{
	json_object *d = set_device(r, set, name), *v;
	sb_escape_html(f, name);
	if (!d)
		return;
	const char *role = json_object_object_get_ex(d, "role", &v) ? str_of(v) : NULL;
	const char *cls = json_object_object_get_ex(d, "class", &v) ? str_of(v) : NULL;
	fputs(" (", f);
	sb_escape_html(f, role ? role : "?");
	fputs(", ", f);
	sb_escape_html(f, cls ? cls : "?");
	fputs(")", f);
}

/* One parent's members as two stacked bars, reads and writes. */
static void shares_svg(const struct sb_report *r, size_t set, json_object *devs, const char *parent,
		       FILE *f)
{
	static const char *const key[2] = {"read_bytes", "write_bytes"};
	static const char *const colors[] = {"#4e79a7", "#f28e2b", "#59a14f",
					     "#e15759", "#76b7b2", "#edc948"};
	size_t n = json_object_array_length(devs), m = 0;
	uint64_t tot[2] = {0, 0};
	for (size_t i = 0; i < n; i++) {
		json_object *d = json_object_array_get_idx(devs, i), *p;
		if (json_object_object_get_ex(d, "parent", &p) && p && str_of(p) &&
		    strcmp(str_of(p), parent) == 0) {
			tot[0] += num(d, "read_bytes");
			tot[1] += num(d, "write_bytes");
			m++;
		}
	}
	if (tot[0] < SHARE_MIN_BYTES && tot[1] < SHARE_MIN_BYTES)
		return;
	fprintf(f, "<svg class=\"shares\" width=\"560\" height=\"%zu\" role=\"img\">\n",
		(size_t)56 + 16 * m);
	for (int k = 0; k < 2; k++) {
		double x = 70, y = 8 + 22.0 * k;
		size_t j = 0;
		fprintf(f, "<text x=\"0\" y=\"%.0f\">%s</text>", y + 13, k ? "writes" : "reads");
		for (size_t i = 0; i < n && tot[k]; i++) {
			json_object *d = json_object_array_get_idx(devs, i), *p, *nm;
			if (!json_object_object_get_ex(d, "parent", &p) || !p || !str_of(p) ||
			    strcmp(str_of(p), parent) != 0 ||
			    !json_object_object_get_ex(d, "name", &nm))
				continue;
			double share = (double)num(d, key[k]) / (double)tot[k], w = 480 * share;
			fprintf(
			    f,
			    "<rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"18\" fill=\"%s\">"
			    "<title>",
			    x, y, w, colors[j++ % 6]);
			member_name(r, set, str_of(nm), f);
			fprintf(f, ": %.0f%%</title></rect>", 100 * share);
			if (w > 34)
				fprintf(f,
					"<text x=\"%.1f\" y=\"%.0f\" fill=\"#fff\">%.0f%%</text>",
					x + 4, y + 13, 100 * share);
			x += w;
		}
		fputc('\n', f);
	}
	size_t j = 0;
	for (size_t i = 0; i < n; i++) {
		json_object *d = json_object_array_get_idx(devs, i), *p, *nm;
		if (!json_object_object_get_ex(d, "parent", &p) || !p || !str_of(p) ||
		    strcmp(str_of(p), parent) != 0 || !json_object_object_get_ex(d, "name", &nm))
			continue;
		fprintf(f,
			"<rect x=\"70\" y=\"%zu\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			"<text x=\"86\" y=\"%zu\">",
			(size_t)56 + 16 * j - 4, colors[j % 6], (size_t)56 + 16 * j + 5);
		member_name(r, set, str_of(nm), f);
		fprintf(f, "</text>\n");
		j++;
	}
	fprintf(f, "</svg>\n");
}

void sb_measure_shares_html(const struct sb_report *r, FILE *f)
{
	bool head = false;
	for (size_t c = 0; c < r->n_cols; c++) {
		json_object *ds = col_extra(&r->cols[c], SIZE_MAX, "devstat");
		if (!is_obj(ds))
			continue;
		json_object_object_foreach(ds, phase, ph)
		{
			json_object *devs;
			if (!is_obj(ph) || !json_object_object_get_ex(ph, "devices", &devs) ||
			    !json_object_is_type(devs, json_type_array))
				continue;
			size_t n = json_object_array_length(devs);
			for (size_t i = 0; i < n; i++) {
				json_object *d = json_object_array_get_idx(devs, i), *p;
				bool first = true;
				if (!json_object_object_get_ex(d, "parent", &p) || !p || !str_of(p))
					continue;
				/* each parent once: at its first member */
				for (size_t k = 0; k < i && first; k++) {
					json_object *e = json_object_array_get_idx(devs, k), *q;
					first = !(json_object_object_get_ex(e, "parent", &q) && q &&
						  str_of(q) && strcmp(str_of(q), str_of(p)) == 0);
				}
				if (!first)
					continue;
				if (!head)
					fprintf(f, "<h2 id=\"shares\">Per-member read and write "
						   "shares</h2>\n<div class=\"charts\">\n");
				head = true;
				fprintf(f, "<figure class=\"chart\"><figcaption>");
				sb_escape_html(f, r->cols[c].label);
				fprintf(f, ": %s, members of ", phase);
				sb_escape_html(f, str_of(p));
				fprintf(f, "</figcaption>\n");
				shares_svg(r, r->cols[c].set, devs, str_of(p), f);
				fprintf(f, "</figure>\n");
			}
		}
	}
	if (head)
		fprintf(f, "</div>\n");
}

/* The role of member name in set's devices ("ssd", "hdd1"), or NULL. */
static const char *member_role(const struct sb_report *r, size_t set, const char *name)
{
	json_object *d = set_device(r, set, name), *v;
	return d && json_object_object_get_ex(d, "role", &v) ? str_of(v) : NULL;
}

/* Add one phase's member read bytes to the roles' totals. */
static void phase_reads(const struct sb_report *r, size_t set, json_object *devs,
			struct sb_measure_share *out, size_t max, size_t *n)
{
	for (size_t i = 0; i < json_object_array_length(devs); i++) {
		json_object *d = json_object_array_get_idx(devs, i), *p, *nm;
		if (!json_object_object_get_ex(d, "parent", &p) || !p ||
		    !json_object_object_get_ex(d, "name", &nm))
			continue;
		const char *role = member_role(r, set, str_of(nm));
		size_t k = 0;
		if (!role || !*role)
			continue;
		while (k < *n && strcmp(out[k].role, role) != 0)
			k++;
		if (k == *n) {
			if (*n == max)
				continue;
			snprintf(out[k].role, sizeof(out[k].role), "%s", role);
			out[k].bytes = 0;
			(*n)++;
		}
		out[k].bytes += num(d, "read_bytes");
	}
}

size_t sb_measure_read_shares(const struct sb_report *r, size_t col, struct sb_measure_share *out,
			      size_t max)
{
	const struct sb_report_col *c = &r->cols[col];
	uint64_t all = 0;
	size_t n = 0;

	for (size_t i = 0; i < c->n_vars; i++)
		for (size_t k = 0; k < c->vars[i]->n_rep; k++) {
			const struct sb_repeat *rep = &c->vars[i]->rep[k];
			for (size_t w = 0; w < rep->n_wl; w++) {
				json_object *ds, *devs;
				if (!rep->wl[w]->extra || !is_obj(rep->wl[w]->extra) ||
				    !json_object_object_get_ex(rep->wl[w]->extra, "devstat", &ds) ||
				    !is_obj(ds))
					continue;
				json_object_object_foreach(ds, phase, ph)
				{
					(void)phase;
					if (is_obj(ph) &&
					    json_object_object_get_ex(ph, "devices", &devs) &&
					    json_object_is_type(devs, json_type_array))
						phase_reads(r, c->set, devs, out, max, &n);
				}
			}
		}
	for (size_t k = 0; k < n; k++)
		all += out[k].bytes;
	if (n < 2 || all < SHARE_MIN_BYTES)
		return 0;
	for (size_t k = 0; k < n; k++)
		out[k].share = (double)out[k].bytes / (double)all;
	return n;
}
