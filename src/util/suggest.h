/* "Did you mean": the closest candidate by edit distance. */
#pragma once

#include <stddef.h>

/* Returns the candidate nearest to word, or NULL when none is close enough
 * (distance at most a third of the word's length, at least 1, at most 3; or
 * two neighbouring letters swapped). The one "did you mean" of stackbench. */
const char *sb_suggest(const char *word, const char *const *candidates, size_t n);
size_t sb_edit_distance(const char *a, const char *b);
