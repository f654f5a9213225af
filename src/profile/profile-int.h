/* What the profile_*.c files share, and nothing else (profile.h is the API). */
#pragma once

#include "profile/profile.h"
#include "util/macro.h"

/* profile_parse.c */
int sb_prof_set_err(char **err, const char *fmt, ...) _printf_(2, 3);
const char *sb_prof_pool_add(struct sb_profile *p, const char *s, size_t len);
/* "section.key" -> key id, or a message. */
int sb_prof_lookup_dotted(const char *dotted, bool for_matrix, char **msg);

/* profile_keytype.c */
/* A key's rule among the shared value types (SB_KT_COUNT: a UINT; a size
 * or duration is not zero); false for the profile's own types. */
bool sb_prof_key_vrule(const struct sb_key *k, struct sb_vrule *r);

/* profile_matrix.c */
bool sb_prof_dim_has(const struct sb_dim *d, enum sb_key_id k);
/* Takes key k out of the matrix because -o pins it to value (NULL: the
 * whole key goes). In a joint dimension, only the tuples that agree with
 * the pinned value stay, without that key; what is left may be nothing. */
void sb_prof_drop_dim(struct sb_profile *p, enum sb_key_id k, const char *value);
/* "fs.type; fs.mkfs" and "btrfs; -n 4k | xfs" -> a dimension, each value
 * checked against its key. line 0: from -o, which replaces the profile's. */
int sb_prof_add_dim(struct sb_profile *p, char *keys, char *values, unsigned line, char **msg);
void sb_prof_free_one(struct sb_pvariant *v);
/* Builds variant i of the matrix (last dimension fastest). */
int sb_prof_make_variant(struct sb_profile *p, size_t i, struct sb_pvariant *v);
