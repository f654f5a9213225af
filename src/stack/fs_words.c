/* mkfs's words: the profile's fs.mkfs split on blanks, and what the plan adds
 * to them (mke2fs's -E options joined into its last -E). */
#include "stack/fs-int.h"
#include "stack/plan.h"
#include "util/macro.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_fs_split_words(const char *s, struct sb_list *out)
{
	_cleanup_free_ char *copy = s ? strdup(s) : NULL;
	char *save = NULL;
	if (!copy)
		return;
	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		sb_list_add(out, w);
}

/* mke2fs's extended options: the word that holds the value of an -E at word
 * i ("-E" "VALUE" or "-EVALUE"), else NULL. */
static char **ext_opt_slot(const struct sb_list *w, size_t i)
{
	if (!w->v[i])
		return NULL;
	if (strcmp(w->v[i], "-E") == 0)
		return i + 1 < w->n ? &w->v[i + 1] : NULL;
	if (strncmp(w->v[i], "-E", 2) == 0 && w->v[i][2])
		return &w->v[i];
	return NULL;
}

static const char *ext_opt_value(const struct sb_list *w, size_t i)
{
	char **slot = ext_opt_slot(w, i);
	return !slot ? NULL : slot == &w->v[i] ? *slot + 2 : *slot;
}

/* mke2fs takes only the last -E: opt is joined to it, or added as -E opt. */
static void ext_opt_add(struct sb_list *w, const char *opt)
{
	for (size_t i = w->v ? w->n : 0; i-- > 0;) {
		char **slot = ext_opt_slot(w, i), *n = NULL;
		if (!slot)
			continue;
		if (asprintf(&n, "%s,%s", *slot, opt) < 0)
			abort();
		free(*slot);
		*slot = n;
		return;
	}
	sb_list_add(w, "-E");
	sb_list_add(w, opt);
}

/* ext4's inode tables and journal are otherwise initialised in the
 * background after mount, writing while the first workload measures: make
 * mke2fs do it up front, unless the profile's own -E words say otherwise. */
void sb_ext4_no_lazy_init(struct sb_list *w)
{
	for (size_t i = 0; w->v && i < w->n; i++) {
		const char *v = ext_opt_value(w, i);
		if (v && (strstr(v, "lazy_itable_init") || strstr(v, "lazy_journal_init")))
			return;
	}
	ext_opt_add(w, "lazy_itable_init=0,lazy_journal_init=0");
}

/* A preconditioned device must reach the workload as the precondition left
 * it, and an image kept from round to round side by side keeps its
 * placement: mkfs would otherwise discard it all again (every mkfs here
 * does by default; on a loop device a discard punches holes in the image). xfs and btrfs take -K;
 * mke2fs takes nodiscard inside its -E. A profile that asks for discard explicitly contradicts the
 * precondition: refused. */
int sb_mkfs_no_discard(enum sb_fs_type t, struct sb_list *w, struct sb_pctx *b)
{
	for (size_t i = 0; w->v && i < w->n; i++) {
		if (t > SB_FS_EXT4) {
			if (w->v[i] &&
			    (strcmp(w->v[i], "-K") == 0 || strcmp(w->v[i], "--nodiscard") == 0))
				return 0;
			continue;
		}
		const char *v = ext_opt_value(w, i);
		if (v && strstr(v, "nodiscard"))
			return 0;
		if (v && strstr(v, "discard"))
			return sb_plan_fail(
			    b, -EINVAL, "fs.mkfs: '-E %s' discards the device again %s", v,
			    b->preconditioned
				? "after devices.precondition (drop the discard word)"
				: "on the images side by side keeps from round to round, whose "
				  "placement it would change (drop the discard word, or --rounds)");
	}
	if (t > SB_FS_EXT4)
		sb_list_add(w, "-K");
	else
		ext_opt_add(w, "nodiscard");
	return 0;
}
