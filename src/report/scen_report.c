/* The scenario and integrity facts of each variant's repeats, for the
 * reports: an integrity error is said first (before the verdict), the
 * rebuild's figures and a clean check among the notes, both per column. */
#include "report/report.h"
#include "util/macro.h"
#include "util/size.h"

#include <json-c/json.h>
#include <string.h>

static int64_t geti(json_object *o, const char *k1, const char *k2)
{
	json_object *v = NULL;
	if (!o || !json_object_object_get_ex(o, k1, &v))
		return 0;
	if (k2 && !json_object_object_get_ex(v, k2, &v))
		return 0;
	return json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : 0;
}

static double getd(json_object *o, const char *k, bool *has)
{
	json_object *v = NULL;
	*has = o && json_object_object_get_ex(o, k, &v) &&
	       (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int));
	return *has ? json_object_get_double(v) : 0;
}

void sb_report_scen_sum(const struct sb_report_col *col, struct sb_report_scen *s)
{
	*s = (struct sb_report_scen){0};
	for (size_t i = 0; i < col->n_vars; i++)
		for (size_t k = 0; k < col->vars[i]->n_rep; k++) {
			const struct sb_repeat *rep = &col->vars[i]->rep[k];
			json_object *in = rep->integrity, *sc = rep->scenario;
			bool has, fin;
			json_object *md = NULL, *v;
			if (in && json_object_object_get_ex(in, "md", &md) &&
			    json_object_object_get_ex(md, "mismatch_cnt", &v)) {
				s->md_checks++;
				int64_t span = geti(md, "span_bytes", NULL);
				if (span) {
					int64_t walk = geti(md, "walk_bytes", NULL);
					s->md_span = s->md_partial++ && s->md_span < span
							 ? s->md_span
							 : span;
					s->md_span_max =
					    s->md_span_max > span ? s->md_span_max : span;
					s->md_walk = s->md_walk > walk ? s->md_walk : walk;
				} else if (json_object_object_get_ex(md, "finished", &v) &&
					   !json_object_get_boolean(v)) {
					s->md_unfinished++;
				}
			}
			if (in) {
				s->checked++;
				s->errors += geti(in, "errors", NULL);
				s->md_mismatch += geti(in, "md", "mismatch_cnt");
				s->scrub_errors += geti(in, "btrfs", "errors");
				s->data_errors += geti(in, "data", "verify_errors") +
						  geti(in, "data", "fill_bad_blocks");
			}
			if (!sc)
				continue;
			s->rebuilds++;
			double secs = getd(sc, "seconds", &fin);
			double under = getd(sc, "under_load_seconds", &has);
			json_object *o;
			if (fin) {
				s->finished++;
				s->seconds += secs;
			}
			if (json_object_object_get_ex(sc, "outlasted_workloads", &o) &&
			    json_object_get_boolean(o))
				s->outlasted++;
			s->rate += getd(sc, "rate_under_load_mbps", &has);
			s->n_rate += has;
			s->under += under;
		}
}

void sb_report_scen_text(const struct sb_report *r, FILE *f, bool loud)
{
	for (size_t c = 0; c < r->n_cols; c++) {
		struct sb_report_scen s;
		sb_report_scen_sum(&r->cols[c], &s);
		if (loud && s.errors)
			fprintf(f,
				"INTEGRITY ERRORS: %s: %lld after the run (md mismatch_cnt %lld, "
				"btrfs scrub errors %lld, data blocks not as written %lld) in %u "
				"repeat(s) checked\n",
				r->cols[c].label, (long long)s.errors, (long long)s.md_mismatch,
				(long long)s.scrub_errors, (long long)s.data_errors, s.checked);
		if (loud)
			continue;
		if (s.checked && !s.errors) {
			fprintf(f,
				"integrity: %s: clean in %u repeat(s) (md check, btrfs scrub, data "
				"read back)",
				r->cols[c].label, s.checked);
			if (s.md_partial) {
				char a[32], a2[32], b[32];
				sb_format_size((uint64_t)s.md_span, a, sizeof(a));
				sb_format_size((uint64_t)s.md_span_max, a2, sizeof(a2));
				sb_format_size((uint64_t)s.md_walk, b, sizeof(b));
				fprintf(
				    f,
				    "; md checked the first %s%s%s of %s%s in %u of %u (--quick: "
				    "scenario.integrity-quick)",
				    a, s.md_span_max > s.md_span ? "-" : "",
				    s.md_span_max > s.md_span ? a2 : "",
				    s.md_span_max > s.md_span ? "up to " : "", b, s.md_partial,
				    s.md_checks);
			}
			if (s.md_unfinished)
				fprintf(f,
					"; md's check cut by scenario.rebuild-limit in %u of %u, "
					"not all checked",
					s.md_unfinished, s.md_checks);
			fputs("\n", f);
		}
		if (s.rebuilds) {
			fprintf(f, "rebuild: %s: ", r->cols[c].label);
			if (s.finished)
				fprintf(f, "%.1f s mean over %u finished", s.seconds / s.finished,
					s.finished);
			else
				fprintf(f, "none finished");
			fprintf(f, " of %u; under the workloads %.1f s mean", s.rebuilds,
				s.under / s.rebuilds);
			if (s.n_rate)
				fprintf(f, ", %.1f MB/s", s.rate / s.n_rate);
			if (s.outlasted)
				fprintf(f,
					"; outlasted the workloads in %u (their rates are all "
					"under the rebuild)",
					s.outlasted);
			fprintf(f, "\n");
		}
	}
}

json_object *sb_report_scen_json(const struct sb_report_col *col)
{
	struct sb_report_scen s;
	json_object *o;
	sb_report_scen_sum(col, &s);
	if (!s.checked && !s.rebuilds)
		return NULL;
	o = json_object_new_object();
	if (s.checked) {
		json_object *i = json_object_new_object();
		json_object_object_add(i, "repeats", json_object_new_int((int)s.checked));
		json_object_object_add(i, "errors", json_object_new_int64(s.errors));
		json_object_object_add(i, "md_mismatch_cnt", json_object_new_int64(s.md_mismatch));
		json_object_object_add(i, "btrfs_scrub_errors",
				       json_object_new_int64(s.scrub_errors));
		json_object_object_add(i, "data_errors", json_object_new_int64(s.data_errors));
		json_object_object_add(i, "md_checks", json_object_new_int((int)s.md_checks));
		json_object_object_add(i, "md_partial", json_object_new_int((int)s.md_partial));
		json_object_object_add(i, "md_unfinished",
				       json_object_new_int((int)s.md_unfinished));
		json_object_object_add(o, "integrity", i);
	}
	if (s.rebuilds) {
		json_object *b = json_object_new_object();
		json_object_object_add(b, "repeats", json_object_new_int((int)s.rebuilds));
		json_object_object_add(b, "finished", json_object_new_int((int)s.finished));
		if (s.finished)
			json_object_object_add(b, "seconds_mean",
					       json_object_new_double(s.seconds / s.finished));
		json_object_object_add(b, "under_load_seconds_mean",
				       json_object_new_double(s.under / s.rebuilds));
		if (s.n_rate)
			json_object_object_add(b, "rate_under_load_mbps_mean",
					       json_object_new_double(s.rate / s.n_rate));
		json_object_object_add(b, "outlasted_workloads",
				       json_object_new_int((int)s.outlasted));
		json_object_object_add(o, "rebuild", b);
	}
	return o;
}
