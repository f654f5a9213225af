/* See bonnie_csv.h. Field order from bonnie++ 2.00's bon_csv2html.cpp
 * (format_version 1.98): 50 fields. */
#include "result/bonnie_csv.h"
#include "util/macro.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	F_FORMAT,
	F_VERSION,
	F_NAME,
	F_CONCURRENCY,
	F_SEED,
	F_FILE_SIZE,
	F_CHUNK,
	F_SEEKS,
	F_SEEK_PROCS,
	F_PUTC,
	F_PUTC_CPU,
	F_PUT_BLOCK,
	F_PUT_BLOCK_CPU,
	F_REWRITE,
	F_REWRITE_CPU,
	F_GETC,
	F_GETC_CPU,
	F_GET_BLOCK,
	F_GET_BLOCK_CPU,
	F_SEEKS_RATE,
	F_SEEKS_CPU,
	F_NUM_FILES,
	F_MAX_SIZE,
	F_MIN_SIZE,
	F_NUM_DIRS,
	F_FILE_CHUNK,
	F_SEQ_CREATE,
	F_SEQ_CREATE_CPU,
	F_SEQ_STAT,
	F_SEQ_STAT_CPU,
	F_SEQ_DEL,
	F_SEQ_DEL_CPU,
	F_RAN_CREATE,
	F_RAN_CREATE_CPU,
	F_RAN_STAT,
	F_RAN_STAT_CPU,
	F_RAN_DEL,
	F_RAN_DEL_CPU,
	F_LAT_PUTC,
	F_LAT_PUT_BLOCK,
	F_LAT_REWRITE,
	F_LAT_GETC,
	F_LAT_GET_BLOCK,
	F_LAT_SEEKS,
	F_LAT_SEQ_CREATE,
	F_LAT_SEQ_STAT,
	F_LAT_SEQ_DEL,
	F_LAT_RAN_CREATE,
	F_LAT_RAN_STAT,
	F_LAT_RAN_DEL,
	F_COUNT
};

/* Our metric (and its _cpu twin) for each rate field. */
static const struct {
	int field;
	const char *metric;
	int lat_field;
	const char *lat_op;
} rate_map[] = {
    {F_PUTC, "putc_write", F_LAT_PUTC, NULL},
    {F_PUT_BLOCK, "block_write", F_LAT_PUT_BLOCK, "block write"},
    {F_REWRITE, "rewrite", F_LAT_REWRITE, "rewrite"},
    {F_GETC, "getc_read", F_LAT_GETC, NULL},
    {F_GET_BLOCK, "block_read", F_LAT_GET_BLOCK, "block read"},
    {F_SEEKS_RATE, "seeks", F_LAT_SEEKS, "seek"},
    {F_SEQ_CREATE, "seq_create", F_LAT_SEQ_CREATE, "seq create"},
    {F_SEQ_STAT, "seq_stat", F_LAT_SEQ_STAT, "seq stat"},
    {F_SEQ_DEL, "seq_delete", F_LAT_SEQ_DEL, "seq delete"},
    {F_RAN_CREATE, "rand_create", F_LAT_RAN_CREATE, "rand create"},
    {F_RAN_STAT, "rand_stat", F_LAT_RAN_STAT, "rand stat"},
    {F_RAN_DEL, "rand_delete", F_LAT_RAN_DEL, "rand delete"},
};

static const struct sb_wl_result *owner(int field, const struct sb_wl_result *seq,
					const struct sb_wl_result *meta)
{
	return field < F_NUM_FILES ? seq : meta;
}

static int64_t extra_int(const struct sb_wl_result *r, const char *key, int64_t def)
{
	json_object *v;
	/* the reader checked the type; a result built in memory may differ */
	if (r && r->extra && json_object_object_get_ex(r->extra, key, &v) &&
	    json_object_is_type(v, json_type_int))
		return json_object_get_int64(v);
	return def;
}

/* bonnie++'s own rendering of a latency: us below 10 ms, then ms, then s. */
static void fmt_latency(char *buf, size_t len, double ms)
{
	double us = ms * 1000;
	if (us < 10000)
		snprintf(buf, len, "%.0fus", us);
	else if (ms < 10000)
		snprintf(buf, len, "%.0fms", ms);
	else
		snprintf(buf, len, "%.0fs", ms / 1000);
}

char *sb_bonnie_csv_line(const struct sb_wl_result *seq, const struct sb_wl_result *meta,
			 const char *name)
{
	char f[F_COUNT][48];
	char *line = NULL;
	size_t len = 0;
	FILE *out;

	memset(f, 0, sizeof(f));
	snprintf(f[F_FORMAT], 48, "1.98");
	snprintf(f[F_VERSION], 48, "stackbench");
	snprintf(f[F_CONCURRENCY], 48, "1");
	snprintf(f[F_SEED], 48, "0");
	if (seq) {
		int64_t chunk = extra_int(seq, "chunk", 8192);
		snprintf(f[F_FILE_SIZE], 48, "%lldM",
			 (long long)(extra_int(seq, "data_bytes", 0) >> 20));
		if (chunk != 8192)
			snprintf(f[F_CHUNK], 48, "%lld", (long long)chunk);
		snprintf(f[F_SEEKS], 48, "%lld", (long long)extra_int(seq, "seeks", 8192));
		snprintf(f[F_SEEK_PROCS], 48, "%lld", (long long)extra_int(seq, "seekers", 5));
	}
	if (meta) {
		int64_t v;
		snprintf(f[F_NUM_FILES], 48, "%lld",
			 (long long)(extra_int(meta, "files", 0) / 1024));
		if ((v = extra_int(meta, "max_size", 0)))
			snprintf(f[F_MAX_SIZE], 48, "%lld", (long long)v);
		if ((v = extra_int(meta, "min_size", 0)))
			snprintf(f[F_MIN_SIZE], 48, "%lld", (long long)v);
		if ((v = extra_int(meta, "dirs", 0)))
			snprintf(f[F_NUM_DIRS], 48, "%lld", (long long)v);
	}
	for (size_t i = 0; i < ARRAY_SIZE(rate_map); i++) {
		const struct sb_wl_result *r = owner(rate_map[i].field, seq, meta);
		const struct sb_metric *m, *cpu;
		char cname[64];
		if (!r || !(m = sb_wl_find_metric(r, rate_map[i].metric)))
			continue;
		snprintf(cname, sizeof(cname), "%s_cpu", rate_map[i].metric);
		cpu = sb_wl_find_metric(r, cname);
		snprintf(f[rate_map[i].field], 48, "%.0f", m->value);
		if (cpu)
			snprintf(f[rate_map[i].field + 1], 48, "%.0f", cpu->value);
		for (size_t k = 0; rate_map[i].lat_op && k < r->n_lat; k++)
			if (strcmp(r->lat[k].op, rate_map[i].lat_op) == 0)
				fmt_latency(f[rate_map[i].lat_field], 48, r->lat[k].max_ms);
	}

	out = open_memstream(&line, &len);
	if (!out)
		return NULL;
	for (int i = 0; i < F_COUNT; i++) {
		if (i == F_NAME) {
			/* A comma would shift every field after it. */
			for (const char *p = name ? name : "stackbench"; *p; p++)
				fputc(*p == ',' ? '_' : *p, out);
		} else {
			fputs(f[i], out);
		}
		if (i + 1 < F_COUNT)
			fputc(',', out);
	}
	if (fclose(out) != 0) {
		free(line);
		return NULL;
	}
	return line;
}

/* Plain decimals only: strtod would take "nan", "inf", "1e999", "0x1p9" and
 * signs, none of which bonnie++ prints. */
static int decimal(const char *s, const char **end, double *v)
{
	const char *p = s;
	size_t digits = strspn(p, "0123456789");
	if (!digits)
		return -EINVAL;
	p += digits;
	if (*p == '.') {
		size_t frac = strspn(p + 1, "0123456789");
		if (!frac)
			return -EINVAL;
		p += 1 + frac;
	}
	if (p - s > 24)
		return -EINVAL;
	*v = strtod(s, NULL);
	*end = p;
	return *v <= SB_BONNIE_MAX ? 0 : -EINVAL;
}

int sb_bonnie_figure(const char *s, double *v)
{
	const char *end;
	if (!*s || (*s == '+' && s[strspn(s, "+")] == '\0'))
		return 1;
	if (decimal(s, &end, v) < 0 || *end)
		return -EINVAL;
	return 0;
}

int sb_bonnie_latency(const char *s, double *ms)
{
	static const struct {
		const char *unit;
		double to_ms;
	} units[] = {{"us", 1e-3}, {"ms", 1}, {"s", 1e3}};
	const char *end;
	double v;
	if (!*s)
		return 1;
	if (decimal(s, &end, &v) < 0)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		if (strcmp(end, units[i].unit) == 0)
			return *ms = v * units[i].to_ms, 0;
	return -EINVAL;
}

int sb_bonnie_csv_import(const char *text, struct sb_wl_result *r_)
{
	char *copy = strdup(text), *fld[F_COUNT + 1], *p;
	int n = 0, r = 0;

	if (!copy)
		return -ENOMEM;
	copy[strcspn(copy, "\r\n")] = '\0';
	for (p = copy; n <= F_COUNT;) {
		fld[n++] = p;
		p = strchr(p, ',');
		if (!p)
			break;
		*p++ = '\0';
	}
	if (n != F_COUNT || strcmp(fld[F_FORMAT], "1.98") != 0) {
		free(copy);
		return -EINVAL;
	}
	for (size_t i = 0; i < ARRAY_SIZE(rate_map) && r == 0; i++) {
		const char *v = fld[rate_map[i].field], *cpu = fld[rate_map[i].field + 1];
		const char *unit = rate_map[i].field < F_SEEKS_RATE    ? "KB/s"
				   : rate_map[i].field == F_SEEKS_RATE ? "seeks/s"
								       : "ops/s";
		char cname[64];
		double x, c, ms;
		int kx = sb_bonnie_figure(v, &x), kc = sb_bonnie_figure(cpu, &c);
		int kl = sb_bonnie_latency(fld[rate_map[i].lat_field], &ms);
		if (kx < 0 || kc < 0 || kl < 0) {
			r = -EINVAL;
			break;
		}
		if (kx > 0)
			continue;
		if ((r = sb_wl_add_metric(r_, rate_map[i].metric, unit, SB_BETTER_HIGHER, x)) < 0)
			break;
		snprintf(cname, sizeof(cname), "%s_cpu", rate_map[i].metric);
		if (kc == 0 && (r = sb_wl_add_metric(r_, cname, "%CPU", SB_BETTER_LOWER, c)) < 0)
			break;
		if (kl == 0 && rate_map[i].lat_op) {
			/* bonnie++ reports only the worst latency of each test. */
			struct sb_latency l = {.op = (char *)rate_map[i].lat_op, .max_ms = ms};
			r = sb_wl_add_latency(r_, &l);
		}
	}
	free(copy);
	return r;
}
