/* See bonnie_csv.h: the one home of the bonnie++ mapping. */
#include "result/bonnie_csv.h"
#include "util/macro.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct sb_bonnie_test sb_bonnie_tests[SB_BONNIE_TESTS] = {
    {"putc_write", "seq", "KB/s", NULL, SB_BF_PUTC, SB_BF_LAT_PUTC},
    {"block_write", "seq", "KB/s", "block write", SB_BF_PUT_BLOCK, SB_BF_LAT_PUT_BLOCK},
    {"rewrite", "seq", "KB/s", "rewrite", SB_BF_REWRITE, SB_BF_LAT_REWRITE},
    {"getc_read", "seq", "KB/s", NULL, SB_BF_GETC, SB_BF_LAT_GETC},
    {"block_read", "seq", "KB/s", "block read", SB_BF_GET_BLOCK, SB_BF_LAT_GET_BLOCK},
    {"seeks", "seq", "seeks/s", "seek", SB_BF_SEEKS_RATE, SB_BF_LAT_SEEKS},
    {"seq_create", "meta", "ops/s", "seq create", SB_BF_SEQ_CREATE, SB_BF_LAT_SEQ_CREATE},
    {"seq_stat", "meta", "ops/s", "seq stat", SB_BF_SEQ_STAT, SB_BF_LAT_SEQ_STAT},
    {"seq_delete", "meta", "ops/s", "seq delete", SB_BF_SEQ_DEL, SB_BF_LAT_SEQ_DEL},
    {"rand_create", "meta", "ops/s", "rand create", SB_BF_RAN_CREATE, SB_BF_LAT_RAN_CREATE},
    {"rand_stat", "meta", "ops/s", "rand stat", SB_BF_RAN_STAT, SB_BF_LAT_RAN_STAT},
    {"rand_delete", "meta", "ops/s", "rand delete", SB_BF_RAN_DEL, SB_BF_LAT_RAN_DEL},
};

const struct sb_bonnie_test *sb_bonnie_test_of(const char *name)
{
	for (size_t i = 0; i < SB_BONNIE_TESTS; i++) {
		const struct sb_bonnie_test *t = &sb_bonnie_tests[i];
		size_t n = strlen(t->metric);
		if ((strncmp(name, t->metric, n) == 0 &&
		     (name[n] == '\0' || strcmp(name + n, "_cpu") == 0)) ||
		    (t->lat_op && strcmp(name, t->lat_op) == 0))
			return t;
	}
	return NULL;
}

static const struct sb_wl_result *owner(const struct sb_bonnie_test *t,
					const struct sb_wl_result *seq,
					const struct sb_wl_result *meta)
{
	return strcmp(t->workload, "seq") == 0 ? seq : meta;
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
	char f[SB_BF_COUNT][48];
	char *line = NULL;
	size_t len = 0;
	FILE *out;

	memset(f, 0, sizeof(f));
	snprintf(f[SB_BF_FORMAT], 48, "1.98");
	snprintf(f[SB_BF_VERSION], 48, "stackbench");
	snprintf(f[SB_BF_CONCURRENCY], 48, "1");
	snprintf(f[SB_BF_SEED], 48, "0");
	if (seq) {
		int64_t chunk = extra_int(seq, "chunk", 8192);
		snprintf(f[SB_BF_FILE_SIZE], 48, "%lldM",
			 (long long)(extra_int(seq, "data_bytes", 0) >> 20));
		if (chunk != 8192)
			snprintf(f[SB_BF_CHUNK], 48, "%lld", (long long)chunk);
		snprintf(f[SB_BF_SEEKS], 48, "%lld", (long long)extra_int(seq, "seeks", 8192));
		snprintf(f[SB_BF_SEEK_PROCS], 48, "%lld", (long long)extra_int(seq, "seekers", 5));
	}
	if (meta) {
		int64_t v;
		snprintf(f[SB_BF_NUM_FILES], 48, "%lld",
			 (long long)(extra_int(meta, "files", 0) / 1024));
		if ((v = extra_int(meta, "max_size", 0)))
			snprintf(f[SB_BF_MAX_SIZE], 48, "%lld", (long long)v);
		if ((v = extra_int(meta, "min_size", 0)))
			snprintf(f[SB_BF_MIN_SIZE], 48, "%lld", (long long)v);
		if ((v = extra_int(meta, "dirs", 0)))
			snprintf(f[SB_BF_NUM_DIRS], 48, "%lld", (long long)v);
	}
	for (size_t i = 0; i < SB_BONNIE_TESTS; i++) {
		const struct sb_bonnie_test *t = &sb_bonnie_tests[i];
		const struct sb_wl_result *r = owner(t, seq, meta);
		const struct sb_metric *m, *cpu;
		char cname[64];
		if (!r || !(m = sb_wl_find_metric(r, t->metric)))
			continue;
		snprintf(cname, sizeof(cname), "%s_cpu", t->metric);
		cpu = sb_wl_find_metric(r, cname);
		snprintf(f[t->field], 48, "%.0f", m->value);
		if (cpu)
			snprintf(f[t->field + 1], 48, "%.0f", cpu->value);
		for (size_t k = 0; t->lat_op && k < r->n_lat; k++)
			if (strcmp(r->lat[k].op, t->lat_op) == 0)
				fmt_latency(f[t->lat_field], 48, r->lat[k].max_ms);
	}

	out = open_memstream(&line, &len);
	if (!out)
		return NULL;
	for (int i = 0; i < SB_BF_COUNT; i++) {
		if (i == SB_BF_NAME) {
			/* A comma would shift every field after it. */
			for (const char *p = name ? name : "stackbench"; *p; p++)
				fputc(*p == ',' ? '_' : *p, out);
		} else {
			fputs(f[i], out);
		}
		if (i + 1 < SB_BF_COUNT)
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
	char *copy = strdup(text), *fld[SB_BF_COUNT + 1], *p;
	int n = 0, r = 0;

	if (!copy)
		return -ENOMEM;
	copy[strcspn(copy, "\r\n")] = '\0';
	for (p = copy; n <= SB_BF_COUNT;) {
		fld[n++] = p;
		p = strchr(p, ',');
		if (!p)
			break;
		*p++ = '\0';
	}
	if (n != SB_BF_COUNT || strcmp(fld[SB_BF_FORMAT], "1.98") != 0) {
		free(copy);
		return -EINVAL;
	}
	for (size_t i = 0; i < SB_BONNIE_TESTS && r == 0; i++) {
		const struct sb_bonnie_test *t = &sb_bonnie_tests[i];
		const char *v = fld[t->field], *cpu = fld[t->field + 1];
		char cname[64];
		double x, c, ms;
		int kx = sb_bonnie_figure(v, &x), kc = sb_bonnie_figure(cpu, &c);
		int kl = sb_bonnie_latency(fld[t->lat_field], &ms);
		if (kx < 0 || kc < 0 || kl < 0) {
			r = -EINVAL;
			break;
		}
		if (kx > 0)
			continue;
		if ((r = sb_wl_add_metric(r_, t->metric, t->unit, SB_BETTER_HIGHER, x)) < 0)
			break;
		snprintf(cname, sizeof(cname), "%s_cpu", t->metric);
		if (kc == 0 && (r = sb_wl_add_metric(r_, cname, "%CPU", SB_BETTER_LOWER, c)) < 0)
			break;
		if (kl == 0 && t->lat_op) {
			/* bonnie++ reports only the worst latency of each test. */
			struct sb_latency l = {.op = (char *)t->lat_op, .max_ms = ms};
			r = sb_wl_add_latency(r_, &l);
		}
	}
	free(copy);
	return r;
}
