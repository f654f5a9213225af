/* The schedule of turns and stacks (src/session/design.c): every property
 * is counted from the functions' own output for k = 2..6 over several seeds
 * and rounds, so a broken design, a lost randomization or a crossover that
 * skips a stack fails here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "session/design.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const size_t ks[] = {2, 3, 4, 5, 6};
static const uint64_t seeds[] = {0, 1, 42, 0x9e3779b97f4a7c15ULL, UINT64_MAX};
#define ROUNDS 13 /* more than two cycles of every k above */

static bool is_perm(const size_t *a, size_t k)
{
	bool seen[SB_DESIGN_MAX_K] = {false};
	for (size_t i = 0; i < k; i++) {
		if (a[i] >= k || seen[a[i]])
			return false;
		seen[a[i]] = true;
	}
	return true;
}

static void test_rows(void **state)
{
	static const struct {
		size_t k, want;
	} cases[] = {{1, 1}, {2, 2}, {3, 6}, {4, 4}, {5, 10}, {6, 6}, {7, 14}, {16, 16}};
	for (size_t i = 0; i < N_OF(cases); i++)
		if (sb_design_rows(cases[i].k) != cases[i].want)
			fail_msg("rows(%zu): got %zu, want %zu", cases[i].k,
				 sb_design_rows(cases[i].k), cases[i].want);
}

/* One round's rows, step by step: each a permutation, each ordered pair
 * adjacent the same number of times, each variant in each position equally
 * often; steps past the last row wrap to the same rows. */
static void check_round(size_t k, uint64_t seed, unsigned round)
{
	size_t rows = sb_design_rows(k), order[SB_DESIGN_MAX_K], again[SB_DESIGN_MAX_K];
	unsigned pair[SB_DESIGN_MAX_K][SB_DESIGN_MAX_K] = {{0}};
	unsigned pos[SB_DESIGN_MAX_K][SB_DESIGN_MAX_K] = {{0}};
	unsigned want_pair = k % 2 ? 2 : 1, want_pos = (unsigned)(rows / k);

	for (unsigned step = 0; step < rows; step++) {
		sb_design_order(k, seed, round, step, order);
		if (!is_perm(order, k))
			fail_msg("k=%zu seed=%#llx round=%u step=%u: not a permutation", k,
				 (unsigned long long)seed, round, step);
		for (size_t i = 0; i < k; i++)
			pos[order[i]][i]++;
		for (size_t i = 0; i + 1 < k; i++)
			pair[order[i]][order[i + 1]]++;
		sb_design_order(k, seed, round, step + (unsigned)rows, again);
		assert_memory_equal(order, again, k * sizeof(order[0]));
	}
	for (size_t a = 0; a < k; a++)
		for (size_t b = 0; b < k; b++) {
			if (a != b && pair[a][b] != want_pair)
				fail_msg("k=%zu seed=%#llx round=%u: %zu right after %zu %u times, "
					 "want %u",
					 k, (unsigned long long)seed, round, b, a, pair[a][b],
					 want_pair);
			if (a == b && pair[a][b] != 0)
				fail_msg("k=%zu: %zu right after itself", k, a);
			if (pos[a][b] != want_pos)
				fail_msg("k=%zu seed=%#llx round=%u: variant %zu at position %zu "
					 "%u times, want %u",
					 k, (unsigned long long)seed, round, a, b, pos[a][b],
					 want_pos);
		}
}

static void test_williams_balance(void **state)
{
	for (size_t i = 0; i < N_OF(ks); i++)
		for (size_t s = 0; s < N_OF(seeds); s++)
			for (unsigned r = 0; r < ROUNDS; r++)
				check_round(ks[i], seeds[s], r);
}

/* k == 2: ABBA, and which of the two comes first is drawn (both happen). */
static void test_abba(void **state)
{
	unsigned first[2] = {0};
	for (size_t s = 0; s < N_OF(seeds); s++)
		for (unsigned r = 0; r < 64; r++) {
			size_t a[2], b[2], c[2];
			sb_design_order(2, seeds[s], r, 0, a);
			sb_design_order(2, seeds[s], r, 1, b);
			sb_design_order(2, seeds[s], r, 2, c);
			assert_true(is_perm(a, 2));
			assert_int_equal(a[0], b[1]);
			assert_int_equal(a[1], b[0]);
			assert_memory_equal(a, c, sizeof(a));
			first[a[0]]++;
		}
	assert_true(first[0] > 0 && first[1] > 0);
}

/* A round's whole schedule, all steps of its rows, flattened. */
static void schedule(size_t k, uint64_t seed, unsigned round, size_t *out)
{
	for (unsigned step = 0; step < sb_design_rows(k); step++)
		sb_design_order(k, seed, round, step, out + step * k);
}

static void test_randomized(void **state)
{
	size_t a[2 * SB_DESIGN_MAX_K * SB_DESIGN_MAX_K], b[2 * SB_DESIGN_MAX_K * SB_DESIGN_MAX_K];
	for (size_t i = 0; i < N_OF(ks); i++) {
		size_t k = ks[i], len = sb_design_rows(k) * k * sizeof(a[0]);
		for (size_t s = 0; s + 1 < N_OF(seeds); s++) {
			bool differ = false, rounds_differ = false;
			for (unsigned r = 0; r < ROUNDS; r++) {
				schedule(k, seeds[s], r, a);
				schedule(k, seeds[s], r, b);
				assert_memory_equal(a, b, len);
				schedule(k, seeds[s + 1], r, b);
				differ |= memcmp(a, b, len) != 0;
				schedule(k, seeds[s], r + 1, b);
				rounds_differ |= memcmp(a, b, len) != 0;
			}
			if (k >= 3 && !differ)
				fail_msg("k=%zu: seeds %#llx and %#llx give the same schedule", k,
					 (unsigned long long)seeds[s],
					 (unsigned long long)seeds[s + 1]);
			if (k >= 3 && !rounds_differ)
				fail_msg("k=%zu seed=%#llx: the same schedule every round", k,
					 (unsigned long long)seeds[s]);
		}
	}
}

/* A round's rows as numbers in base k, sorted: the set of rows, whatever
 * their order. */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static void row_set(size_t k, uint64_t seed, unsigned round, uint64_t *set)
{
	size_t order[SB_DESIGN_MAX_K];
	for (unsigned step = 0; step < sb_design_rows(k); step++) {
		sb_design_order(k, seed, round, step, order);
		set[step] = 0;
		for (size_t i = 0; i < k; i++)
			set[step] = set[step] * k + order[i];
	}
	qsort(set, sb_design_rows(k), sizeof(set[0]), cmp_u64);
}

/* Whether the map from step 0's order to step 1's differs from the map
 * from step 1's to step 2's. */
static bool steps_differ(size_t k, uint64_t seed, unsigned round)
{
	size_t o[3][SB_DESIGN_MAX_K] = {{0}}, m1[SB_DESIGN_MAX_K] = {0}, m2[SB_DESIGN_MAX_K] = {0};
	for (unsigned step = 0; step < 3; step++)
		sb_design_order(k, seed, round, step, o[step]);
	for (size_t j = 0; j < k; j++) {
		m1[o[0][j]] = o[1][j];
		m2[o[1][j]] = o[2][j];
	}
	return memcmp(m1, m2, k * sizeof(m1[0])) != 0;
}

/* Both halves of the randomization are there on their own. Labels: for
 * k >= 4 a Williams design is not all k! orders, so relabelling changes
 * which orders a round uses. Rows: in the square as built (k even), step
 * s + 1 is step s with every letter moved on by one, the same map at
 * every step; shuffled rows break that. */
static void test_randomized_parts(void **state)
{
	static const size_t kk[] = {4, 5, 6};
	for (size_t i = 0; i < N_OF(kk); i++) {
		uint64_t first[2 * SB_DESIGN_MAX_K] = {0}, set[2 * SB_DESIGN_MAX_K] = {0};
		size_t n = sb_design_rows(kk[i]);
		bool relabelled = false;
		row_set(kk[i], seeds[0], 0, first);
		for (size_t s = 0; s < N_OF(seeds); s++)
			for (unsigned r = 0; r < ROUNDS; r++) {
				row_set(kk[i], seeds[s], r, set);
				relabelled |= memcmp(first, set, n * sizeof(set[0])) != 0;
			}
		if (!relabelled)
			fail_msg("k=%zu: every round uses the same orders", kk[i]);
	}
	for (size_t k = 4; k <= 6; k += 2) {
		bool reordered = false;
		for (size_t s = 0; s < N_OF(seeds); s++)
			for (unsigned r = 0; r < ROUNDS; r++)
				reordered |= steps_differ(k, seeds[s], r);
		if (!reordered)
			fail_msg("k=%zu: the rows always come in the order they were built", k);
	}
}

/* Each cycle of k rounds is a Latin square of variants over stacks, each
 * round a permutation that sb_design_variant inverts. */
static void test_crossover(void **state)
{
	for (size_t i = 0; i < N_OF(ks); i++) {
		size_t k = ks[i];
		for (size_t s = 0; s < N_OF(seeds); s++)
			for (unsigned cycle = 0; cycle < 3; cycle++) {
				unsigned visits[SB_DESIGN_MAX_K][SB_DESIGN_MAX_K] = {{0}};
				for (unsigned r = cycle * k; r < (cycle + 1) * k; r++) {
					size_t on[SB_DESIGN_MAX_K];
					for (size_t v = 0; v < k; v++) {
						on[v] = sb_design_stack(k, seeds[s], r, v);
						assert_true(on[v] < k);
						assert_int_equal(
						    sb_design_variant(k, seeds[s], r, on[v]), v);
						visits[v][on[v]]++;
					}
					assert_true(is_perm(on, k));
				}
				for (size_t v = 0; v < k; v++)
					for (size_t st = 0; st < k; st++)
						if (visits[v][st] != 1)
							fail_msg(
							    "k=%zu seed=%#llx cycle=%u: variant "
							    "%zu on stack %zu %u times",
							    k, (unsigned long long)seeds[s], cycle,
							    v, st, visits[v][st]);
			}
	}
}

/* The crossover is drawn, not a fixed rotation: over several seeds, round 0
 * does not always leave every variant on its own stack. */
static void test_crossover_randomized(void **state)
{
	for (size_t i = 0; i < N_OF(ks); i++) {
		bool moved = false, same = true;
		for (size_t s = 0; s < N_OF(seeds); s++)
			for (size_t v = 0; v < ks[i]; v++) {
				moved |= sb_design_stack(ks[i], seeds[s], 0, v) != v;
				same &= sb_design_stack(ks[i], seeds[s], 0, v) ==
					sb_design_stack(ks[i], seeds[0], 0, v);
			}
		assert_true(moved);
		assert_false(same);
	}
}

static void test_one_variant(void **state)
{
	for (size_t s = 0; s < N_OF(seeds); s++)
		for (unsigned r = 0; r < ROUNDS; r++) {
			size_t order[1] = {99};
			sb_design_order(1, seeds[s], r, r, order);
			assert_int_equal(order[0], 0);
			assert_int_equal(sb_design_stack(1, seeds[s], r, 0), 0);
			assert_int_equal(sb_design_variant(1, seeds[s], r, 0), 0);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rows),
	    cmocka_unit_test(test_williams_balance),
	    cmocka_unit_test(test_abba),
	    cmocka_unit_test(test_randomized),
	    cmocka_unit_test(test_randomized_parts),
	    cmocka_unit_test(test_crossover),
	    cmocka_unit_test(test_crossover_randomized),
	    cmocka_unit_test(test_one_variant),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
