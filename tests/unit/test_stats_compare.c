/* What a comparison can and cannot see (src/result/stats.c, report.c):
 * Holm and Benjamini-Hochberg adjustments against hand-computed cases, the
 * interval of a difference and the smallest detectable change against
 * values computed with python3 + mpmath (integrating the t density), the
 * false-alarm rate of A/A comparisons from a fixed seed, and histograms
 * that pool exactly through result.json. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/report.h"
#include "result/hist.h"
#include "workload/workload.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static void near(double got, double want, double tol, const char *what)
{
	if (isnan(want) ? !isnan(got) : !(fabs(got - want) <= tol * fmax(1, fabs(want))))
		fail_msg("%s: got %.17g, want %.17g", what, got, want);
}

/* p = 0.01 0.04 0.03 0.005 (and one row not tested), m = 4, sorted
 * 0.005 0.01 0.03 0.04:
 *   Holm: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, max(0.06, 0.04*1) = 0.06
 *   BH:   0.04*4/4 = 0.04, min(0.04, 0.03*4/3) = 0.04, 0.01*4/2 = 0.02,
 *         min(0.02, 0.005*4/1) = 0.02 */
static void test_adjust(void **state)
{
	static const struct {
		double p[5];
		size_t n;
		double holm[5], bh[5];
	} cases[] = {
	    {{0.01, 0.04, 0.03, 0.005, NAN},
	     5,
	     {0.03, 0.06, 0.06, 0.02, NAN},
	     {0.02, 0.04, 0.04, 0.02, NAN}},
	    /* capped at 1; BH's largest stays as it is */
	    {{0.5, 0.9}, 2, {1, 1}, {0.9, 0.9}},
	    /* ties and a certain difference */
	    {{0, 0.02, 0.02}, 3, {0, 0.04, 0.04}, {0, 0.02, 0.02}},
	    {{0.3}, 1, {0.3}, {0.3}},
	    {{NAN, NAN}, 2, {NAN, NAN}, {NAN, NAN}},
	};
	for (size_t i = 0; i < N_OF(cases); i++) {
		double h[5], b[5];
		assert_int_equal(sb_p_adjust_holm(cases[i].p, cases[i].n, h), 0);
		assert_int_equal(sb_p_adjust_bh(cases[i].p, cases[i].n, b), 0);
		for (size_t k = 0; k < cases[i].n; k++) {
			near(h[k], cases[i].holm[k], 1e-12, "holm");
			near(b[k], cases[i].bh[k], 1e-12, "bh");
		}
	}
}

/* The smallest detectable change at the alpha a correction asks of a row,
 * not the unadjusted one: b = [110 105 108 112 102] against 100 each round,
 * se of the log ratios 0.016632128, df 4; t(0.975, 4) = 2.776445105,
 * t(0.9975, 4) = 5.597568367, t(0.8, 4) = 0.940964577 (integrating the
 * t density): 6.378% at alpha 0.05, 11.488% at 0.005 (Holm's first step
 * over 10 rows). */
static void test_mde_at_alpha(void **state)
{
	static const double a[] = {100, 100, 100, 100, 100}, b[] = {110, 105, 108, 112, 102};
	struct sb_cmp c;

	assert_int_equal(sb_cmp_paired(a, b, 5, 0.05, SB_STATS_POWER, &c), 0);
	near(c.se, 0.016632128374568754, 1e-12, "se");
	near(c.df, 4, 0, "df");
	near(c.mde, 6.377982174895265, 1e-9, "mde at 0.05");
	near(sb_cmp_mde(&c, 0.05, SB_STATS_POWER), c.mde, 1e-12, "mde again");
	near(sb_cmp_mde(&c, 0.005, SB_STATS_POWER), 11.488328166436037, 1e-9, "mde at 0.005");
	/* no standard error, no figure; a constant ratio detects anything */
	struct sb_cmp none = c;
	none.se = NAN;
	assert_true(isnan(sb_cmp_mde(&none, 0.05, SB_STATS_POWER)));
	static const double same[] = {110, 110, 110};
	assert_int_equal(sb_cmp_paired(a, same, 3, 0.05, SB_STATS_POWER, &c), 0);
	near(sb_cmp_mde(&c, 0.001, SB_STATS_POWER), 0, 0, "constant");
}

static void stats_of(const double *x, size_t n, struct sb_stats *st)
{
	assert_int_equal(sb_stats_compute(x, n, st), n);
}

/* a = b = [10 12 14]: se = sqrt(4/3 + 4/3) = 1.632993, df = 4,
 * t(0.975, 4) = 2.776445105, t(0.8, 4) = 0.940964577: mde = 6.070504591
 * (50.59% of 12). a = [100 104 96 100], b = [110 118 102 110 115]: diff 11,
 * df 6.3098, interval 3.327905 .. 18.672095, mde 10.535099. */
static void test_detectable(void **state)
{
	static const struct {
		double a[5], b[5];
		size_t na, nb;
		double diff, lo, hi, mde;
	} cases[] = {
	    {{10, 12, 14}, {10, 12, 14}, 3, 3, 0, -4.5338, 4.5338, 6.07050459122829649},
	    {{100, 104, 96, 100},
	     {110, 118, 102, 110, 115},
	     4,
	     5,
	     11,
	     3.32790527611631047,
	     18.6720947238836895,
	     10.5350993154284823},
	    /* constant on both sides: certain, and any change is seen */
	    {{5, 5, 5}, {6, 6, 6}, 3, 3, 1, 1, 1, 0},
	    /* one value: nothing can be said */
	    {{5}, {6, 7}, 1, 2, NAN, NAN, NAN, NAN},
	};
	for (size_t i = 0; i < N_OF(cases); i++) {
		struct sb_stats a, b;
		struct sb_diff d;
		stats_of(cases[i].a, cases[i].na, &a);
		stats_of(cases[i].b, cases[i].nb, &b);
		sb_diff_compute(&a, &b, 0.05, SB_STATS_POWER, &d);
		near(d.diff, cases[i].diff, 1e-12, "diff");
		near(d.mde, cases[i].mde, 1e-9, "mde");
		if (i != 0) {
			near(d.lo, cases[i].lo, 1e-9, "lo");
			near(d.hi, cases[i].hi, 1e-9, "hi");
		} else {
			/* 2.776445105 * 1.632993162 */
			near(d.hi, 2.77644510519779436 * 1.63299316185545202, 1e-9, "hi");
		}
	}
}

/* Normal deviates from a fixed seed (xorshift + Box-Muller). */
static double gauss(uint64_t *s)
{
	double u1, u2;
	do {
		*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
		u1 = (double)(*s >> 11) / 9007199254740992.0;
	} while (u1 <= 0);
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	u2 = (double)(*s >> 11) / 9007199254740992.0;
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* A bonnie-style table: 12 rates and their 12 %CPU twins. */
static const char *const aa_metrics[] = {
    "putc_write",     "block_write",	 "rewrite",	    "getc_read",       "block_read",
    "seeks",	      "putc_write_cpu",	 "block_write_cpu", "rewrite_cpu",     "getc_read_cpu",
    "block_read_cpu", "seeks_cpu",	 "seq_create",	    "seq_stat",	       "seq_delete",
    "rand_create",    "rand_stat",	 "rand_delete",	    "seq_create_cpu",  "seq_stat_cpu",
    "seq_delete_cpu", "rand_create_cpu", "rand_stat_cpu",   "rand_delete_cpu",
};

static struct sb_resultset *aa_set(uint64_t *seed, size_t reps)
{
	struct sb_resultset *rs = sb_resultset_new("run");
	for (int v = 0; v < 2; v++) {
		struct sb_variant *var = sb_resultset_variant(rs, v ? "B" : "A", NULL);
		for (size_t k = 0; k < reps; k++) {
			struct sb_wl_result *w = sb_wl_result_new("seq", "seq");
			for (size_t m = 0; m < N_OF(aa_metrics); m++) {
				bool cpu = strstr(aa_metrics[m], "_cpu") != NULL;
				/* 5% noise around a level of its own per metric */
				double level = 1000 * (double)(m + 1);
				sb_wl_add_metric(w, aa_metrics[m], cpu ? "%CPU" : "KB/s",
						 cpu ? SB_BETTER_LOWER : SB_BETTER_HIGHER,
						 level * (1 + 0.05 * gauss(seed)));
			}
			assert_int_equal(sb_variant_add_repeat(var, (unsigned)k, &w, 1), 0);
		}
	}
	return rs;
}

/* The rate of A/A comparisons with at least one mark anywhere. */
static double aa_rate(enum sb_correction corr, size_t pairs, size_t *unresolved)
{
	uint64_t seed = 0x5eed5eedULL;
	size_t marked = 0;
	*unresolved = 0;
	for (size_t i = 0; i < pairs; i++) {
		struct sb_resultset *rs = aa_set(&seed, 4);
		struct sb_report *r = NULL;
		struct sb_report_opts o = {.correction = corr};
		struct sb_report_tally t;
		char *err = NULL;
		assert_int_equal(sb_report_build(&rs, 1, &o, &r, &err), 0);
		sb_report_tally(r, 1, &t);
		assert_int_equal(t.tested, N_OF(aa_metrics));
		marked += t.marked > 0;
		*unresolved += t.unresolved;
		sb_report_free(r);
		sb_resultset_free(rs);
	}
	return (double)marked / (double)pairs;
}

/* The issue measured 23 of 40 A/A reports with a mark; with each row at
 * 5% on its own, 1 - 0.95^24 = 71% is what to expect. Holm must keep it at
 * 5% or below; the uncorrected rate shows that the test can fail. */
static void test_aa_false_alarms(void **state)
{
	size_t unres_holm, unres_none, unres_bh;
	double holm = aa_rate(SB_CORRECTION_HOLM, 1000, &unres_holm);
	double none = aa_rate(SB_CORRECTION_NONE, 1000, &unres_none);
	double bh = aa_rate(SB_CORRECTION_BH, 1000, &unres_bh);
	print_message("A/A, 1000 pairs of 24 metrics x 4 repeats, 5%% noise: marked anywhere "
		      "holm %.1f%%, bh %.1f%%, none %.1f%%\n",
		      100 * holm, 100 * bh, 100 * none);
	assert_true(holm <= 0.05);
	assert_true(bh <= 0.05); /* all nulls: the FDR is the family-wise error */
	assert_true(none > 0.4);
	/* 5% noise and 4 repeats cannot resolve 5%: nearly every row is "not
	 * resolved" (a few pass for "same" on a lucky low spread) */
	print_message("not resolved: %zu of %zu rows\n", unres_holm,
		      (size_t)1000 * N_OF(aa_metrics));
	assert_true(unres_holm >= 0.95 * 1000 * N_OF(aa_metrics));
}

/* Splitting samples over three repeats, storing each histogram through
 * result.json and merging gives exactly the histogram of all samples, and
 * the report's pooled percentiles are that histogram's. */
static void test_hist_pool(void **state)
{
	struct sb_hist *all = malloc(sizeof(*all)), *part = malloc(sizeof(*part));
	struct sb_hist *merged = malloc(sizeof(*merged));
	struct sb_resultset *rs = sb_resultset_new("run"), *back = NULL;
	struct sb_variant *v = sb_resultset_variant(rs, "A", NULL);
	uint64_t seed = 42;
	char tmpl[] = "/tmp/sb-test-hist-XXXXXX", *err = NULL;

	sb_hist_init(all);
	sb_hist_init(merged);
	for (int k = 0; k < 3; k++) {
		struct sb_wl_result *w = sb_wl_result_new("rand", "rand:4k");
		sb_hist_init(part);
		for (int i = 0; i < 20000; i++) {
			/* log-normal-ish latencies, 10 us .. seconds, and exact small ones */
			double g = gauss(&seed);
			uint64_t ns = i % 97 == 0 ? (uint64_t)(i % 31)
						  : (uint64_t)(100000 * exp(1.5 * g + k));
			sb_hist_add(part, ns);
			sb_hist_add(all, ns);
		}
		struct sb_latency l = {.op = "random read", .hist = part};
		sb_latency_from_hist(&l, part);
		assert_int_equal(sb_wl_add_latency(w, &l), 0);
		assert_int_equal(sb_variant_add_repeat(v, (unsigned)k, &w, 1), 0);
	}
	assert_non_null(mkdtemp(tmpl));
	assert_int_equal(sb_resultset_write(rs, tmpl), 0);
	if (sb_resultset_read(tmpl, &back, &err) < 0)
		fail_msg("%s", err);
	assert_int_equal(back->version, SB_RESULT_VERSION);
	for (int k = 0; k < 3; k++) {
		const struct sb_latency *l = &back->var[0].rep[k].wl[0]->lat[0];
		assert_non_null(l->hist);
		sb_hist_merge(merged, l->hist);
	}
	assert_int_equal(merged->count, all->count);
	assert_int_equal(merged->min, all->min);
	assert_int_equal(merged->max, all->max);
	assert_memory_equal(merged->b, all->b, sizeof(all->b));
	near(merged->sum, all->sum, 1e-12, "sum");

	struct sb_report *r = NULL;
	assert_int_equal(sb_report_build(&back, 1, NULL, &r, &err), 0);
	static const struct {
		const char *metric;
		double q;
	} pct[] = {{"latency:random read:p50", 0.5},
		   {"latency:random read:p99", 0.99},
		   {"latency:random read:p99.9", 0.999},
		   {"latency:random read:max", 1}};
	for (size_t i = 0; i < N_OF(pct); i++) {
		const struct sb_report_row *row = NULL;
		for (size_t k = 0; k < r->n_rows; k++)
			if (strcmp(r->rows[k].metric, pct[i].metric) == 0)
				row = &r->rows[k];
		assert_non_null(row);
		near(row->cells[0].pooled, sb_hist_percentile(all, pct[i].q) / 1e6, 1e-12,
		     pct[i].metric);
		/* the interval is over the repeats' own percentiles */
		assert_int_equal(row->cells[0].st.n, 3);
	}
	assert_true(r->lat[0].pooled[0]);
	near(r->lat[0].cells[0].p99_ms, sb_hist_percentile(all, 0.99) / 1e6, 1e-12, "lat p99");
	sb_report_free(r);

	/* a damaged histogram is refused with a reason */
	static const char *const bad[] = {
	    "{\"sub_bits\":4,\"count\":0,\"min_ns\":0,\"max_ns\":0,\"buckets\":[]}",
	    "{\"sub_bits\":5,\"count\":2,\"min_ns\":1,\"max_ns\":9,\"buckets\":[[1,1]]}",
	    "{\"sub_bits\":5,\"count\":1,\"min_ns\":1,\"max_ns\":1,\"buckets\":[[1920,1]]}",
	    "{\"sub_bits\":5,\"count\":1,\"min_ns\":9,\"max_ns\":1,\"sum_ns\":1,"
	    "\"sumsq_ns2\":1,\"buckets\":[[1,1]]}",
	    "[1]",
	};
	for (size_t i = 0; i < N_OF(bad); i++) {
		json_object *o = json_tokener_parse(bad[i]);
		char *why = NULL;
		if (sb_hist_from_json(o, part, &why) != -EINVAL)
			fail_msg("accepted %s", bad[i]);
		assert_non_null(why);
		free(why);
		json_object_put(o);
	}
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpl);
	assert_int_equal(system(cmd), 0);
	sb_resultset_free(rs);
	sb_resultset_free(back);
	free(all);
	free(part);
	free(merged);
}

/* Labels, headline and phase survive result.json (version 2). */
static void test_v2_roundtrip(void **state)
{
	struct sb_resultset *rs = sb_resultset_new("bench"), *back = NULL;
	struct sb_variant *v = sb_resultset_variant(rs, "A", NULL);
	struct sb_wl_result *w = sb_wl_result_new("mixed", "mixed:3r1w");
	char tmpl[] = "/tmp/sb-test-v2-XXXXXX", *err = NULL, cmd[128];

	sb_wl_add_metric(w, "pRW_write_rate_data_mbs", "MB/s", SB_BETTER_HIGHER, 12.5);
	assert_int_equal(sb_wl_result_describe(w), 0);
	assert_int_equal(sb_variant_add_repeat(v, 0, &w, 1), 0);
	assert_non_null(mkdtemp(tmpl));
	assert_int_equal(sb_resultset_write(rs, tmpl), 0);
	if (sb_resultset_read(tmpl, &back, &err) < 0)
		fail_msg("%s", err);
	const struct sb_metric *m = &back->var[0].rep[0].wl[0]->metrics[0];
	assert_string_equal(m->label, "3 readers + 1 writer: write rate (data)");
	assert_string_equal(m->phase, "3 readers + 1 writer");
	assert_true(m->headline);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpl);
	assert_int_equal(system(cmd), 0);
	sb_resultset_free(rs);
	sb_resultset_free(back);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_adjust),	    cmocka_unit_test(test_detectable),
	    cmocka_unit_test(test_mde_at_alpha),
	    cmocka_unit_test(test_aa_false_alarms), cmocka_unit_test(test_hist_pool),
	    cmocka_unit_test(test_v2_roundtrip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
