/* FsOpBench's own layout for the mixed workload (readers against writers):
 * per variant, repeat and phase, the lines A to J as Tobi Oetiker's
 * FsOpBench prints them ("A read dir cnt 56400 min 0.001 ms max 96.106 ms
 * mean 0.053 ms stdev 0.973"), so that a run and the 2009 report (or its
 * transcription in profiles/published/) can be read side by side. */
#include "report/report.h"
#include "util/macro.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Our operation names, FsOpBench's letters and words, in its order. */
static const struct {
	char letter;
	const char *op, *words;
	bool writer;
} fob_ops[] = {
    {'A', "read dir", "read dir", false}, {'B', "lstat", "lstat file", false},
    {'C', "open", "open file", false},	  {'D', "read first byte", "rd 1st byte", false},
    {'F', "create", "write open", true},  {'G', "write first byte", "wr 1st byte", true},
    {'H', "close", "write close", true},  {'I', "mkdir", "mkdir", true},
};

static const struct sb_latency *find_lat(const struct sb_wl_result *w, const char *phase,
					 const char *op)
{
	size_t pl = strlen(phase);
	for (size_t i = 0; i < w->n_lat; i++) {
		const char *o = w->lat[i].op;
		if (strncmp(o, phase, pl) == 0 && strncmp(o + pl, ": ", 2) == 0 &&
		    strcmp(o + pl + 2, op) == 0)
			return &w->lat[i];
	}
	return NULL;
}

static double metric(const struct sb_wl_result *w, const char *name)
{
	const struct sb_metric *m = sb_wl_find_metric(w, name);
	return m ? m->value : 0;
}

static void lat_line(FILE *f, char letter, const char *words, const struct sb_latency *l)
{
	fprintf(f, "%c %s cnt %llu min %.3f ms max %.3f ms mean %.3f ms stdev %.3f\n", letter,
		words, (unsigned long long)l->count, l->min_ms, l->max_ms, l->mean_ms, l->stdev_ms);
}

/* The phases in the order their operations appear: "1 reader", "3 readers",
 * "3 readers + 3 writers". */
static size_t phases(const struct sb_wl_result *w, char out[][64], size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < w->n_lat && n < max; i++) {
		const char *c = strstr(w->lat[i].op, ": ");
		if (!c || c - w->lat[i].op >= 64)
			continue;
		char p[64];
		snprintf(p, sizeof(p), "%.*s", (int)(c - w->lat[i].op), w->lat[i].op);
		bool seen = false;
		for (size_t k = 0; k < n; k++)
			seen |= strcmp(out[k], p) == 0;
		if (!seen)
			snprintf(out[n++], 64, "%s", p);
	}
	return n;
}

void sb_fsopbench_print(FILE *f, const char *title, const struct sb_wl_result *w)
{
	char ph[8][64];
	size_t np = phases(w, ph, ARRAY_SIZE(ph));
	static const char *const prefix[] = {"p1", "pR", "pRW"};

	fprintf(f, "%s - %s\n", title, w->spec ? w->spec : w->workload);
	fprintf(f, "######################################################################\n");
	for (size_t p = 0; p < np; p++) {
		const char *plus = strstr(ph[p], " + ");
		unsigned long r = strtoul(ph[p], NULL, 10),
			      wr = plus ? strtoul(plus + 3, NULL, 10) : 0;
		if (wr)
			fprintf(f, "%lu readers, %lu writers\n", r, wr);
		else
			fprintf(f, "%lu readers\n", r);
		fprintf(f,
			"----------------------------------------------------------------------\n");
		/* Metric names: p1 (one reader), pR (R readers), pRW (with writers). */
		const char *pre = wr ? prefix[2] : p == 0 ? prefix[0] : prefix[1];
		char name[64];
		/* FsOpBench prints the writers first in the mixed phase. */
		for (int pass = wr ? 0 : 1; pass < 2; pass++) {
			bool writers = pass == 0;
			for (size_t k = 0; k < ARRAY_SIZE(fob_ops); k++) {
				if (fob_ops[k].writer != writers)
					continue;
				const struct sb_latency *l = find_lat(w, ph[p], fob_ops[k].op);
				if (l)
					lat_line(f, fob_ops[k].letter, fob_ops[k].words, l);
			}
			if (writers) {
				snprintf(name, sizeof(name), "%s_write_rate_data_mbs", pre);
				double d = metric(w, name);
				snprintf(name, sizeof(name), "%s_write_rate_all_mbs", pre);
				fprintf(f,
					"J write rate %.3f MB/s (data) %.3f MB/s (open + 1st byte "
					"+ data)\n",
					d, metric(w, name));
			} else {
				snprintf(name, sizeof(name), "%s_read_rate_data_mbs", pre);
				double d = metric(w, name);
				snprintf(name, sizeof(name), "%s_read_rate_all_mbs", pre);
				fprintf(f,
					"E read rate %.3f MB/s (data) %.3f MB/s (readdir + open + "
					"1st byte + "
					"data)\n",
					d, metric(w, name));
			}
		}
	}
}

static int fsopbench_emit(const struct sb_report *r, FILE *f)
{
	size_t shown = 0;
	for (size_t c = 0; c < r->n_cols; c++) {
		const struct sb_report_col *col = &r->cols[c];
		for (size_t v = 0; v < col->n_vars; v++)
			for (size_t k = 0; k < col->vars[v]->n_rep; k++) {
				const struct sb_repeat *rep = &col->vars[v]->rep[k];
				for (size_t w = 0; w < rep->n_wl; w++) {
					if (strcmp(rep->wl[w]->workload, "mixed") != 0)
						continue;
					char title[512];
					snprintf(title, sizeof(title), "%s (repeat %zu)", col->full,
						 k + 1);
					if (shown)
						fprintf(f, "\n");
					sb_fsopbench_print(f, title, rep->wl[w]);
					shown++;
				}
			}
	}
	if (!shown)
		return -EINVAL;
	return ferror(f) ? -EIO : 0;
}

const struct sb_report_format sb_report_fsopbench = {
    .name = "fsopbench",
    .help = "the mixed workload as FsOpBench prints it (lines A to J per phase), per variant "
	    "and repeat",
    .emit = fsopbench_emit,
};
