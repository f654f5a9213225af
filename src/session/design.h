/* The order of the variants' turns within a round (a randomized Williams
 * design) and their crossover over the stacks across rounds (design.c).
 * Pure functions of (k, seed, round): the same recorded seed gives the
 * same schedule. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The most variants (and stacks) a design is drawn for. Outside 1..this,
 * there is no design: the order is 0..k-1 and every variant keeps its own
 * stack (the caller checks the count first). */
#define SB_DESIGN_MAX_K 16

/* Rows of the round's Williams design: how many (k even: k; k odd: 2k; k == 1: 1). */
size_t sb_design_rows(size_t k);
/* The order of the k variants for the step-th phase of round `round`:
 * order[0..k-1] is a permutation of 0..k-1 (variant indices), row
 * (step mod rows) of the round's randomized Williams design. For k == 2,
 * steps alternate 0 1 / 1 0 (or 1 0 / 0 1, drawn from the seed). */
void sb_design_order(size_t k, uint64_t seed, unsigned round, unsigned step, size_t *order);
/* The stack variant v is on in round `round` (crossover). */
size_t sb_design_stack(size_t k, uint64_t seed, unsigned round, size_t v);
/* The inverse: the variant on stack s in round `round`. */
size_t sb_design_variant(size_t k, uint64_t seed, unsigned round, size_t s);
