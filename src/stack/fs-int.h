/* fs.c's helpers in fs_words.c: mkfs's words from fs.mkfs and what the plan
 * adds to them. */
#pragma once

#include "stack/stack.h"

struct sb_pctx;

/* s (fs.mkfs, may be NULL) split on blanks, appended to out. */
void sb_fs_split_words(const char *s, struct sb_list *out);
/* ext4's inode tables and journal are otherwise initialised in the
 * background after mount, writing while the first workload measures: make
 * mke2fs do it up front, unless the profile's own -E words say otherwise. */
void sb_ext4_no_lazy_init(struct sb_list *w);
/* After devices.precondition: mkfs must not discard the device again (-K,
 * or nodiscard inside mke2fs's -E); a discard the words ask for is refused
 * through b. 0 or sb_plan_fail's -EINVAL. */
int sb_mkfs_no_discard(enum sb_fs_type t, struct sb_list *w, struct sb_pctx *b);
