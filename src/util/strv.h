/* NULL-terminated string vectors (holders, mount points, reasons): the
 * probe's and its command's. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

int sb_strv_push(char ***v, const char *s); /* copies s; 0 or -ENOMEM */
size_t sb_strv_len(char *const *v);
bool sb_strv_contains(char *const *v, const char *s);
void sb_strv_free(char **v);
/* "a, b, c"; NULL on -ENOMEM. */
char *sb_strv_join(char *const *v, const char *sep);
