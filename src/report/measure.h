/* What the measure area adds to reports: the effective-configuration diff
 * between variants (an A/A test posing as A/B; differences nobody asked
 * for) and, per phase, which device served the reads and writes. Pure
 * functions over the result JSON (extra.config, extra.devstat), unit-tested
 * on captured input; sb_measure_text() is the one hook the text report
 * calls after its table. */
#pragma once

#include "report/report.h"

#include <json-c/json.h>
#include <stdio.h>

/* extra.config as comparable {key: "value"} pairs: its rows, which the
 * capture made (mount options one key each, "mount.option.ssd": "on";
 * geometry; each layer's settings keyed by the device's place in the stack
 * rather than its name, "md0.level", "lvmcache0.mode", since loop numbers
 * change between variants; queues; sysctls; no log lines, UUIDs or paths).
 * A set recorded before there were rows: sb_measure_config_flat_v1. */
json_object *sb_measure_config_flat(json_object *config);
/* The same pairs from an extra.config without rows (mount, geometry, md,
 * queue and sysctl only), made as the report always made them. */
json_object *sb_measure_config_flat_v1(json_object *config);
/* The rules of extra.config.follows ({"KEY": {"params": ["fs.type", "md*"],
 * "gone_only": false, "section_word": true}}: which parameters the rows of
 * layer KEY follow) for a set captured before the layers wrote them: the
 * ones the report always applied. A new object to put. */
json_object *sb_measure_follows_v1(void);

struct sb_measure_var {
	const char *label;
	json_object *config; /* extra.config, or NULL */
	json_object *params; /* the variant's params, or NULL */
};

/* The configuration diff of n variants as text lines ("warning: ..." for
 * identical configurations, "note: ..." for each difference that is not in
 * the variants' parameters, compared with variant base). Returns a string
 * to free ("" when there is nothing to say), NULL on ENOMEM. */
char *sb_measure_config_diff(const struct sb_measure_var *v, size_t n, size_t base);

/* One workload result's extra.devstat as text lines: per phase, the top
 * devices' bytes against the workload's, and each member's share of its
 * parent's read and write bytes and IOPS. prefix starts each line. */
char *sb_measure_devstat_text(json_object *devstat, const char *prefix);

/* One workload result's extra.quiesce as text lines: each phase that
 * started while the stack was still busy (md resync, writeback, I/O in
 * flight) after the bounded wait, with the reason and the wait; empty when
 * every phase started quiet. prefix starts each line. */
char *sb_measure_quiesce_text(json_object *quiesce, const char *prefix);

/* The hook of the text report: all of the above for the report's columns. */
void sb_measure_text(const struct sb_report *r, FILE *f);
/* The hook of the HTML report: the same text in a section of its own. */
void sb_measure_html(const struct sb_report *r, FILE *f);
/* Per-member read and write shares as stacked bars (HTML, SVG): per column
 * (its first repeat) and phase, each parent's members side by side, each
 * named with its role and class where the result set's devices say (ssd,
 * hdd, loop). The picture of what write-mostly does. Nothing when no phase
 * has members. */
void sb_measure_shares_html(const struct sb_report *r, FILE *f);

/* The members' share of a column's device reads, by role: the read bytes of
 * every member of a stack (md's, btrfs's devices) over every repeat,
 * workload and phase, summed by the role of the device it is (ssd, hdd1).
 * Fills at most max; returns how many roles, 0 when fewer than two roles
 * served reads or too few bytes were read for a share to mean anything. */
struct sb_measure_share {
	char role[32];
	uint64_t bytes;
	double share;
};
size_t sb_measure_read_shares(const struct sb_report *r, size_t col, struct sb_measure_share *out,
			      size_t max);
