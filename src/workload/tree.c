/* See tree.h. Shapes: each directory holds a few to a few dozen files and up
 * to five subdirectories (more near the top); file sizes follow a home
 * directory's mix: most below 4k, many up to 64k, some up to 1M, a few up to
 * maxfile. */
#include "workload/tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gen {
	const struct sb_tree_params *p;
	sb_tree_cb cb;
	void *ud;
	uint64_t rng;
	uint32_t left, next_index, next_dir;
	char path[4096];
};

static uint64_t rnd(struct gen *g)
{
	uint64_t x = g->rng;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return g->rng = x;
}

static const char *const dir_names[] = {"src",	    "doc",   "Mail", "Music", ".cache",	 "photos",
					"projects", "build", "lib",  "notes", ".config", "tmp"};
static const char *const small_ext[] = {"txt", "c", "h", "conf", "md", "py"};
static const char *const big_ext[] = {"jpg", "mp3", "pdf", "o", "tar", "png"};

static uint64_t pick_size(struct gen *g)
{
	uint64_t r = rnd(g) % 100, lo, hi, max = g->p->maxfile;
	if (r < 55)
		lo = 0, hi = 4096;
	else if (r < 85)
		lo = 4096, hi = 65536;
	else if (r < 97)
		lo = 65536, hi = 1 << 20;
	else
		lo = 1 << 20, hi = max;
	if (hi > max)
		hi = max;
	if (lo > hi)
		lo = hi;
	return lo + (hi > lo ? rnd(g) % (hi - lo + 1) : 0);
}

static int gen_dir(struct gen *g, size_t plen, unsigned depth)
{
	uint32_t nfiles;
	unsigned nsub;
	int rc;

	/* Files first, so that a directory's listing mixes both kinds little. */
	nfiles = rnd(g) % 8 == 0 ? 20 + (uint32_t)(rnd(g) % 60) : (uint32_t)(rnd(g) % 12);
	if (depth == 0)
		nfiles = (uint32_t)(rnd(g) % 6);
	if (nfiles > g->left)
		nfiles = g->left;
	for (uint32_t i = 0; i < nfiles; i++) {
		struct sb_tree_entry e = {
		    .dir = false, .depth = depth + 1, .index = g->next_index++};
		e.size = pick_size(g);
		const char *ext = e.size > 65536 ? big_ext[rnd(g) % 6] : small_ext[rnd(g) % 6];
		int n = snprintf(g->path + plen, sizeof(g->path) - plen, "%sf%u.%s",
				 plen ? "/" : "", e.index, ext);
		e.path = g->path;
		e.name = g->path + plen + (plen ? 1 : 0);
		g->left--;
		(void)n;
		if ((rc = g->cb(g->ud, &e)))
			return rc;
	}
	g->path[plen] = '\0';
	nsub = depth + 1 >= SB_TREE_MAX_DEPTH ? 0 : (unsigned)(rnd(g) % (depth < 2 ? 6 : 4));
	/* The root goes on until every file has a place. */
	for (unsigned s = 0; (s < nsub || depth == 0) && g->left; s++) {
		struct sb_tree_entry e = {.dir = true, .depth = depth + 1};
		snprintf(g->path + plen, sizeof(g->path) - plen, "%s%s%u", plen ? "/" : "",
			 dir_names[rnd(g) % 12], g->next_dir++);
		e.path = g->path;
		e.name = g->path + plen + (plen ? 1 : 0);
		if ((rc = g->cb(g->ud, &e)))
			return rc;
		if ((rc = gen_dir(g, strlen(g->path), depth + 1)))
			return rc;
		g->path[plen] = '\0';
	}
	return 0;
}

int sb_tree_generate(const struct sb_tree_params *p, sb_tree_cb cb, void *ud)
{
	struct gen g = {.p = p, .cb = cb, .ud = ud, .left = p->files};
	g.rng = (p->seed + 1) * 0x9E3779B97F4A7C15ull | 1;
	return gen_dir(&g, 0, 0);
}

uint32_t sb_tree_file_index(const char *name)
{
	char *end;
	unsigned long v;
	if (name[0] != 'f' || name[1] < '0' || name[1] > '9')
		return UINT32_MAX;
	v = strtoul(name + 1, &end, 10);
	return *end == '.' && v < UINT32_MAX ? (uint32_t)v : UINT32_MAX;
}
