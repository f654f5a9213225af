/* Where a run is and how long it has left (progress.h). */
#include "workload/progress.h"
#include "util/log.h"
#include "util/clock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct {
	size_t n_var, cur;
	unsigned n_rep, rep;
	bool up_to, active, running;
	double *secs;
	unsigned *runs;
	double t0;
	char where[96];
} g;

double sb_progress_eta(const double *secs, const unsigned *runs, const unsigned *runs_left,
		       size_t n_var)
{
	double sum = 0, left = 0;
	unsigned timed = 0;
	for (size_t i = 0; i < n_var; i++)
		if (runs[i]) {
			sum += secs[i] / runs[i];
			timed++;
		}
	if (!timed)
		return -1;
	for (size_t i = 0; i < n_var; i++)
		left += runs_left[i] * (runs[i] ? secs[i] / runs[i] : sum / timed);
	return left;
}

void sb_progress_duration(double secs, char *buf, size_t len)
{
	long s = secs > 0 ? lround(secs) : 0;
	if (s < 60)
		snprintf(buf, len, "%lds", s);
	else if (s < 3600)
		snprintf(buf, len, "%ldm%02lds", s / 60, s % 60);
	else
		snprintf(buf, len, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
}

void sb_progress_done(void)
{
	free(g.secs);
	free(g.runs);
	memset(&g, 0, sizeof(g));
}

void sb_progress_plan(size_t n_var, unsigned n_rep, bool up_to)
{
	free(g.secs);
	free(g.runs);
	memset(&g, 0, sizeof(g));
	g.secs = calloc(n_var ? n_var : 1, sizeof(*g.secs));
	g.runs = calloc(n_var ? n_var : 1, sizeof(*g.runs));
	if (!g.secs || !g.runs)
		return;
	g.n_var = n_var;
	g.n_rep = n_rep;
	g.up_to = up_to;
	g.active = true;
}

const char *sb_progress_where(void)
{
	return g.active && g.running ? g.where : "";
}

void sb_progress_variant_begin(size_t index, unsigned rep, const char *name)
{
	char eta[48] = "";
	if (!g.active || index >= g.n_var) {
		sb_info("variant %zu (repeat %u): %s", index + 1, rep + 1, name);
		return;
	}
	sb_progress_turn(index, rep);
	unsigned *left = calloc(g.n_var, sizeof(*left));
	if (left) {
		/* This run and those after it, in this round and the next ones. */
		for (size_t i = 0; i < g.n_var; i++)
			left[i] = g.n_rep > g.runs[i] ? g.n_rep - g.runs[i] : 0;
		double s = sb_progress_eta(g.secs, g.runs, left, g.n_var);
		if (s >= 0) {
			char d[24];
			sb_progress_duration(s, d, sizeof(d));
			snprintf(eta, sizeof(eta), " (%s%s left)", g.up_to ? "at most " : "about ",
				 d);
		}
		free(left);
	}
	g.cur = index;
	g.rep = rep;
	g.running = true;
	g.t0 = sb_mono_s();
	sb_info("%s: %s%s", g.where, name, eta);
}

void sb_progress_turn(size_t index, unsigned rep)
{
	if (!g.active || index >= g.n_var)
		return;
	snprintf(g.where, sizeof(g.where), "variant %zu of %zu, repeat %u of %s%u", index + 1,
		 g.n_var, rep + 1, g.up_to ? "at most " : "", g.n_rep);
}

void sb_progress_variant_end(void)
{
	if (!g.active || !g.running)
		return;
	g.secs[g.cur] += sb_mono_s() - g.t0;
	g.runs[g.cur]++;
	g.running = false;
}

void sb_progress_variants_end(const size_t *index, size_t n, double secs)
{
	if (!g.active)
		return;
	for (size_t k = 0; k < n; k++)
		if (index[k] < g.n_var) {
			g.secs[index[k]] += secs / (double)n;
			g.runs[index[k]]++;
		}
	g.running = false;
}

void sb_progress_phase(const char *workload, const char *phase, double secs, double rate,
		       bool bytes, bool tty)
{
	const char *w = sb_progress_where();
	char r[48];
	if (tty)
		return;
	if (bytes)
		snprintf(r, sizeof(r), "%.1f MB/s", rate / 1048576.0);
	else
		snprintf(r, sizeof(r), "%.0f/s", rate);
	sb_info("%s%s%s%s: %s: %.2f s, %s", *w ? "[" : "", w, *w ? "] " : "", workload, phase, secs,
		r);
}
