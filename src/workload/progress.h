/* Progress people can plan by: where a run is ("variant 2 of 4, repeat 1
 * of 3"), the time left estimated from the variants' runs already timed,
 * and one line per finished phase when stderr is not a terminal (CI logs,
 * a VM's console), so that a log is never silent for minutes. Stdout
 * carries results only: everything here goes to stderr. One run per
 * process, hence one state. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A run of n_var variants, n_rep repeats each (up_to: --repeat auto, at
 * most n_rep). Resets the state. */
void sb_progress_plan(size_t n_var, unsigned n_rep, bool up_to);
/* Forgets the plan (its tables freed): the run is over. */
void sb_progress_done(void);
/* Variant index (0-based) starts its repeat rep (0-based): says so on
 * stderr, with the estimate of the time left once a run has been timed. */
void sb_progress_variant_begin(size_t index, unsigned rep, const char *name);
/* Switched on one stack: variant index's turn of its repeat rep begins;
 * the phase lines that follow name it (no line of its own, no timing). */
void sb_progress_turn(size_t index, unsigned rep);
/* The run that began last ended: its time goes into the estimate. */
void sb_progress_variant_end(void);
/* Side by side: the n variants index[] ran at once in secs; each is
 * timed at its share. */
void sb_progress_variants_end(const size_t *index, size_t n, double secs);
/* "variant 2 of 4, repeat 1 of 3", or "" outside a planned run. */
const char *sb_progress_where(void);
/* A finished phase: one line on stderr when it is not a terminal (the
 * terminal has the line updated in place instead). rate per second of
 * bytes (shown as MB/s) or operations. */
void sb_progress_phase(const char *workload, const char *phase, double secs, double rate,
		       bool bytes, bool tty);

/* Pure parts, for the unit tests. */
/* Seconds left: for each variant, runs_left[i] times its mean run time
 * (secs[i] / runs[i]), a variant not yet timed at the mean of those that
 * were. -1 when none was timed. */
double sb_progress_eta(const double *secs, const unsigned *runs, const unsigned *runs_left,
		       size_t n_var);
/* "45s", "3m05s", "2h07m" */
void sb_progress_duration(double secs, char *buf, size_t len);
