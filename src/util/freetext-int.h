/* What freetext.c and freetext_fio.c share, and nothing else (freetext.h is the API). */
#pragma once

#include "util/freetext.h"

#include <stdbool.h>

int sb_ft_paths_add(struct sb_ft_paths *p, const char *s);
/* A token names a block device: by its path, or by what it resolves to
 * (a symlink, a relative name in the current directory). */
bool sb_ft_names_device(const char *t);
