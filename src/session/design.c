/* The schedule of a comparison of k variants built at once, each on its own
 * stack: the order of their turns within a round, and which stack each one
 * is on in that round. Turns follow a Williams design (balanced carry-over:
 * each variant comes right after each other one equally often, so none is
 * always measured in the wake of the same neighbour: its writeback, its
 * cache, its heat), with labels and rows drawn afresh each round. Across
 * rounds, a Latin square crosses the variants over the stacks: in a cycle of
 * k rounds every variant visits every stack once, so per-stack differences
 * (a slower disk, a fuller region) average out over a cycle instead of
 * following one variant. Everything is drawn from (seed, round) alone. */
#include "session/design.h"

#include <stdbool.h>

/* Salts for the two independent streams, so that the turn order and the
 * crossover drawn from one seed are not the same draws in disguise. */
#define SALT_ORDER 0x6a09e667f3bcc908ULL
#define SALT_CROSS 0xbb67ae8584caa73bULL

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The generator state for draw n (a round, a cycle) of one stream. */
static uint64_t stream(uint64_t seed, uint64_t salt, uint64_t n)
{
	uint64_t st = seed ^ salt;
	return splitmix64(&st) ^ (n * 0xd1b54a32d192ed03ULL);
}

/* a[0..n-1]: a uniformly drawn permutation of 0..n-1 (Fisher-Yates; the
 * modulo bias is below 2^-58 for n <= 32). */
static void shuffle(size_t *a, size_t n, uint64_t *st)
{
	for (size_t i = 0; i < n; i++)
		a[i] = i;
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(splitmix64(st) % i), t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}

static bool in_range(size_t k)
{
	return k >= 1 && k <= SB_DESIGN_MAX_K;
}

size_t sb_design_rows(size_t k)
{
	if (k <= 1)
		return 1;
	return k % 2 ? 2 * k : k;
}

/* Row `row` of the standard Williams design on letters 0..k-1: the first
 * row is 0, 1, k-1, 2, k-2, ..., whose successive differences mod k are all
 * distinct when k is even (each ordered pair once in the k cyclic shifts);
 * when k is odd they are not, and rows k..2k-1, the shifts reversed, make
 * each ordered pair come twice. */
static void williams_row(size_t k, size_t row, size_t *out)
{
	size_t shift = row % k;
	for (size_t j = 0; j < k; j++) {
		size_t a = j == 0 ? 0 : j % 2 ? (j + 1) / 2 : k - j / 2;
		out[row < k ? j : k - 1 - j] = (a + shift) % k;
	}
}

void sb_design_order(size_t k, uint64_t seed, unsigned round, unsigned step, size_t *order)
{
	size_t label[SB_DESIGN_MAX_K], rows[2 * SB_DESIGN_MAX_K], letters[SB_DESIGN_MAX_K];
	uint64_t st = stream(seed, SALT_ORDER, round);
	size_t n = sb_design_rows(k);

	if (!in_range(k)) {
		for (size_t i = 0; i < k; i++)
			order[i] = i;
		return;
	}
	/* Relabelling the letters and reordering the rows keeps both balances
	 * (pairs and positions), so the design stays a Williams design. */
	shuffle(label, k, &st);
	shuffle(rows, n, &st);
	williams_row(k, rows[step % n], letters);
	for (size_t i = 0; i < k; i++)
		order[i] = label[letters[i]];
}

/* The shift of round `round`: c[round mod k] for the cycle's permutation c
 * of 0..k-1, so that the k rounds of a cycle use each shift once. */
static size_t cross_shift(size_t k, uint64_t seed, unsigned round)
{
	size_t c[SB_DESIGN_MAX_K];
	uint64_t st = stream(seed, SALT_CROSS, round / k);

	shuffle(c, k, &st);
	return c[round % k];
}

size_t sb_design_stack(size_t k, uint64_t seed, unsigned round, size_t v)
{
	if (!in_range(k))
		return v;
	return (v + cross_shift(k, seed, round)) % k;
}

size_t sb_design_variant(size_t k, uint64_t seed, unsigned round, size_t s)
{
	if (!in_range(k))
		return s;
	return (s + k - cross_shift(k, seed, round)) % k;
}
