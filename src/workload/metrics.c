/* The workloads' metric tables applied to results: labels, headline and
 * phase of each figure, from the one declaration in each workload's ops
 * struct (see struct sb_wl_metric in wl.h). */
#include "workload/wl.h"
#include "result/describe.h"
#include "util/macro.h"

#include <string.h>

/* name against a pattern with at most one '*'. */
static bool match_name(const char *pat, const char *name, char *match, size_t size)
{
	const char *star = strchr(pat, '*');
	if (!star) {
		if (strcmp(pat, name) != 0)
			return false;
		if (size)
			match[0] = '\0';
		return true;
	}
	size_t pre = (size_t)(star - pat), post = strlen(star + 1), len = strlen(name);
	if (len < pre + post + 1 || strncmp(pat, name, pre) != 0 ||
	    strcmp(name + len - post, star + 1) != 0)
		return false;
	if (size)
		snprintf(match, size, "%.*s", (int)(len - pre - post), name + pre);
	return true;
}

static const struct sb_wl_metric *find_in(const struct sb_wl_metric *t, const char *name,
					  char *match, size_t size)
{
	for (size_t i = 0; t && t[i].name; i++)
		if (match_name(t[i].name, name, match, size))
			return &t[i];
	return NULL;
}

const struct sb_wl_metric *sb_wl_metric_find(const struct sb_wl_ops *ops, const char *name,
					     char *match, size_t size)
{
	const struct sb_wl_metric *m = ops ? find_in(ops->metrics, name, match, size) : NULL;
	for (size_t i = 0; !m && ops && i < ARRAY_SIZE(ops->metrics_of) && ops->metrics_of[i]; i++)
		m = find_in(sb_wl_find(ops->metrics_of[i])->metrics, name, match, size);
	return m;
}

/* "{N:word}" at p: N (one digit), the word (lower-case letters) and the
 * length of the whole reference. */
static bool template_ref(const char *p, unsigned *n, char *word, size_t size, int *used)
{
	size_t k = 0;
	if (p[0] != '{' || p[1] < '0' || p[1] > '9' || p[2] != ':')
		return false;
	*n = (unsigned)(p[1] - '0');
	for (p += 3; *p >= 'a' && *p <= 'z'; p++)
		if (k + 1 < size)
			word[k++] = *p;
	word[k] = '\0';
	if (!k || *p != '}')
		return false;
	*used = (int)(3 + k + 1);
	return true;
}

/* A label or phase template expanded: '*' and "{N:word}". */
static char *expand(const char *tmpl, const char *match, const uint64_t *a, bool have_a)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	if (!tmpl)
		return NULL;
	f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	for (const char *p = tmpl; *p; p++) {
		unsigned n = 0;
		int used = 0;
		char word[32];
		if (*p == '*') {
			fputs(match, f);
		} else if (*p == '{' && template_ref(p, &n, word, sizeof(word), &used) && n < 4) {
			if (have_a)
				fprintf(f, "%llu %s%s", (unsigned long long)a[n], word,
					a[n] == 1 ? "" : "s");
			else
				fprintf(f, "%ss", word);
			p += used - 1;
		} else {
			fputc(*p, f);
		}
	}
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

int sb_wl_result_describe(struct sb_wl_result *r)
{
	const struct sb_wl_ops *ops = sb_wl_find(r->workload);
	struct sb_wl_spec s;
	char *err = NULL;
	bool have_a = false;
	int rc = 0;

	if (ops && ops->arg && sb_wl_spec_parse(r->spec, false, &s, &err) == 0) {
		have_a = true;
	} else {
		memset(&s, 0, sizeof(s));
		free(err);
	}
	for (size_t i = 0; i < r->n_metrics && rc == 0; i++) {
		struct sb_metric *m = &r->metrics[i];
		char match[256];
		const struct sb_wl_metric *d =
		    sb_wl_metric_find(ops, m->name, match, sizeof(match));
		if (d && d->cost)
			m->cost = true;
		if (m->label)
			continue;
		if (!d) {
			rc = sb_metric_describe(m, m->name, false, NULL);
			continue;
		}
		_cleanup_free_ char *label = expand(d->label, match, s.a, have_a);
		_cleanup_free_ char *phase = expand(d->phase, match, s.a, have_a);
		if (!label || (d->phase && !phase))
			rc = -ENOMEM;
		else
			rc = sb_metric_describe(m, label, d->headline, phase);
	}
	if (have_a)
		sb_wl_spec_release(&s);
	return rc;
}

/* Before main, as the layers' key tables are (profile_keys.c): a report
 * reading version 1 files gets the labels without report/ including
 * workload/. */
__attribute__((constructor)) static void describer_register(void)
{
	sb_result_set_describer(sb_wl_result_describe);
}

static int metric_note(const struct sb_wl_spec *s, struct sb_metric *m, const char *note,
		       bool keep_headline);

int sb_wl_metric_note(const struct sb_wl_spec *s, struct sb_metric *m, const char *note)
{
	return metric_note(s, m, note, true);
}

int sb_wl_metric_paced(const struct sb_wl_spec *s, struct sb_metric *m, const char *note)
{
	return metric_note(s, m, note, false);
}

static int metric_note(const struct sb_wl_spec *s, struct sb_metric *m, const char *note,
		       bool keep_headline)
{
	char match[256];
	const struct sb_wl_metric *d = sb_wl_metric_find(s->ops, m->name, match, sizeof(match));
	_cleanup_free_ char *label = NULL, *phase = NULL, *full = NULL;

	if (!d)
		return sb_metric_describe(m, m->name, false, NULL);
	label = expand(d->label, match, s->a, s->arg != NULL);
	phase = expand(d->phase, match, s->a, s->arg != NULL);
	if (!label || (d->phase && !phase) || asprintf(&full, "%s (%s)", label, note) < 0) {
		full = NULL;
		return -ENOMEM;
	}
	m->cost = d->cost;
	return sb_metric_describe(m, full, keep_headline && d->headline, phase);
}
