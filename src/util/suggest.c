/* See suggest.h. */
#include "util/suggest.h"

#include <string.h>

size_t sb_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[128];

	if (lb >= sizeof(row) / sizeof(row[0]))
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
			size_t best = diag + cost;
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/* Two neighbours swapped ("levle" for "level"): the typo that plain edit
 * distance counts twice. */
static const char *swapped(const char *word, const char *const *cands, size_t n)
{
	size_t len = strlen(word);
	for (size_t i = 0; i < n; i++) {
		if (!cands[i] || strlen(cands[i]) != len)
			continue;
		for (size_t k = 0; k + 1 < len; k++)
			if (word[k] == cands[i][k + 1] && word[k + 1] == cands[i][k] &&
			    strncmp(word, cands[i], k) == 0 &&
			    strcmp(word + k + 2, cands[i] + k + 2) == 0)
				return cands[i];
	}
	return NULL;
}

const char *sb_suggest(const char *word, const char *const *candidates, size_t n)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1, limit = strlen(word) / 3;

	if (limit < 1)
		limit = 1;
	if (limit > 3)
		limit = 3;
	for (size_t i = 0; i < n; i++) {
		size_t d;
		if (!candidates[i])
			continue;
		d = sb_edit_distance(word, candidates[i]);
		if (d < best_d) {
			best_d = d;
			best = candidates[i];
		}
	}
	return best_d <= limit ? best : swapped(word, candidates, n);
}
