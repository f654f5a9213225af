/* Pure parsers of dm-cache and dm-writecache status and table lines (see
 * dmstatus.h). Every number is checked: a line the kernel did not write
 * is refused, never half read. */
#include "stack/dmstatus.h"
#include "util/macro.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXW 64

/* Splits a copy of line into words (blanks); returns how many (at most
 * MAXW: a longer line is -1). */
static int split(const char *line, char *buf, size_t len, char **w)
{
	int n = 0;
	char *save = NULL;
	if (!line || strlen(line) >= len)
		return -1;
	snprintf(buf, len, "%s", line);
	for (char *t = strtok_r(buf, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
		if (n == MAXW)
			return -1;
		w[n++] = t;
	}
	return n;
}

static bool num(const char *s, uint64_t *out)
{
	char *end;
	if (!s || !*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 19)
		return false;
	*out = strtoull(s, &end, 10);
	return true;
}

/* "USED/TOTAL" */
static bool pair(const char *s, uint64_t *used, uint64_t *total)
{
	char a[24], b[24];
	size_t k = strcspn(s, "/");
	if (s[k] != '/' || k >= sizeof(a) || strlen(s + k + 1) >= sizeof(b))
		return false;
	snprintf(a, sizeof(a), "%.*s", (int)k, s);
	snprintf(b, sizeof(b), "%s", s + k + 1);
	return num(a, used) && num(b, total) && *used <= *total;
}

/* <#features> <features>* <#core args> <core args>* <policy> <#policy
 * args> <policy args>* <metadata mode> <needs_check>, from w[i]. */
static int cache_tail(char **w, int n, int i, struct sb_dmstatus *o)
{
	uint64_t k;
	snprintf(o->mode, sizeof(o->mode), "writeback"); /* the kernel's default */
	if (i >= n || !num(w[i], &k) || k > (uint64_t)(n - i - 1))
		return -EINVAL;
	for (uint64_t f = 0; f < k; f++) {
		const char *ft = w[i + 1 + f];
		if (!strcmp(ft, "writethrough") || !strcmp(ft, "writeback") ||
		    !strcmp(ft, "passthrough"))
			snprintf(o->mode, sizeof(o->mode), "%s", ft);
	}
	i += 1 + (int)k;
	if (i >= n || !num(w[i], &k) || k > (uint64_t)(n - i - 1))
		return -EINVAL;
	i += 1 + (int)k;
	if (i + 1 >= n || strlen(w[i]) >= sizeof(o->policy))
		return -EINVAL;
	snprintf(o->policy, sizeof(o->policy), "%s", w[i]);
	if (!num(w[i + 1], &k) || k > (uint64_t)(n - i - 2))
		return -EINVAL;
	i += 2 + (int)k;
	if (i + 2 != n || strlen(w[i]) >= sizeof(o->md_mode))
		return -EINVAL;
	snprintf(o->md_mode, sizeof(o->md_mode), "%s", w[i]);
	if (strcmp(w[i + 1], "-") != 0 && strcmp(w[i + 1], "needs_check") != 0)
		return -EINVAL;
	o->needs_check = strcmp(w[i + 1], "needs_check") == 0;
	return 0;
}

static int parse_cache(char **w, int n, struct sb_dmstatus *o)
{
	uint64_t *c[] = {&o->read_hits, &o->read_misses, &o->write_hits, &o->write_misses,
			 &o->demotions, &o->promotions,	 &o->dirty};
	/* w[0..2]: start length "cache" */
	if (n == 4 && strcmp(w[3], "Fail") == 0) {
		o->fail = true;
		return 0;
	}
	if (n < 3 + 11 || !num(w[3], &o->md_block_sectors) ||
	    !pair(w[4], &o->md_used, &o->md_total) || !num(w[5], &o->block_sectors) ||
	    !pair(w[6], &o->used, &o->total))
		return -EINVAL;
	for (size_t k = 0; k < ARRAY_SIZE(c); k++)
		if (!num(w[7 + k], c[k]))
			return -EINVAL;
	return cache_tail(w, n, 14, o);
}

static int parse_writecache(char **w, int n, struct sb_dmstatus *o)
{
	int k = n - 4;
	if (n < 4 || !num(w[3], &o->wc_error))
		return -EINVAL;
	o->fail = o->wc_error != 0;
	/* 3 numbers (4.18 .. 5.14) or 13 (5.15 on); a later kernel may add more */
	if (k < 3)
		return -EINVAL;
	if (k > SB_DMS_WC_N)
		k = SB_DMS_WC_N;
	for (int i = 0; i < k; i++)
		if (!num(w[4 + i], &o->wc[i]))
			return -EINVAL;
	o->wc_n = (unsigned)k;
	return 0;
}

int sb_dmstatus_parse(const char *line, struct sb_dmstatus *out)
{
	char buf[1024], *w[MAXW];
	uint64_t start;
	int n = split(line, buf, sizeof(buf), w), r;

	*out = (struct sb_dmstatus){0};
	if (n < 3 || !num(w[0], &start) || !num(w[1], &out->length))
		return -EINVAL;
	if (strcmp(w[2], "cache") == 0) {
		out->type = SB_DMS_CACHE;
		r = parse_cache(w, n, out);
	} else if (strcmp(w[2], "writecache") == 0) {
		out->type = SB_DMS_WRITECACHE;
		r = parse_writecache(w, n, out);
	} else {
		return 0;
	}
	if (r < 0)
		*out = (struct sb_dmstatus){0};
	return r;
}

size_t sb_dmstatus_counters(const struct sb_dmstatus *s, struct sb_lcnt_val *out)
{
	/* at most 15 characters: "dmwritecache_" and the name fit a row's 28 */
	static const char *const wc_names[SB_DMS_WC_N] = {
	    "blocks",	     "free_blocks",    "writeback",	 "reads",	 "read_hits",
	    "writes",	     "write_hits_unc", "write_hits_com", "write_bypass", "write_alloc",
	    "write_blocked", "flushes",	       "discards"};
	size_t n = 0;

	if (s->type == SB_DMS_CACHE && !s->fail) {
		const struct sb_lcnt_val v[] = {
		    {"read_hits", s->read_hits, false},	  {"read_misses", s->read_misses, false},
		    {"write_hits", s->write_hits, false}, {"write_misses", s->write_misses, false},
		    {"demotions", s->demotions, false},	  {"promotions", s->promotions, false},
		    {"dirty_blocks", s->dirty, true},	  {"used_blocks", s->used, true},
		    {"total_blocks", s->total, true},	  {"metadata_used", s->md_used, true},
		};
		for (; n < ARRAY_SIZE(v); n++)
			out[n] = v[n];
	} else if (s->type == SB_DMS_WRITECACHE) {
		out[n++] = (struct sb_lcnt_val){"error", s->wc_error, true};
		for (unsigned i = 0; i < s->wc_n && n < SB_LCNT_MAX; i++)
			out[n++] = (struct sb_lcnt_val){wc_names[i], s->wc[i], i < 3};
	}
	return n;
}

uint64_t sb_dmtable_wc_block(const char *line, char *kind)
{
	char buf[1024], *w[MAXW];
	uint64_t bs = 0;
	int n = split(line, buf, sizeof(buf), w);

	if (n < 7 || strcmp(w[2], "writecache") != 0 ||
	    (strcmp(w[3], "s") != 0 && strcmp(w[3], "p") != 0) || !num(w[6], &bs) ||
	    (bs != 512 && bs != 1024 && bs != 2048 && bs != 4096))
		return 0;
	if (kind)
		*kind = w[3][0];
	return bs;
}
