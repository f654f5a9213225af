/* The one parser of values as users write them, shared by profiles, workload
 * specs and the command line (parse.c; sizes and durations in size.c), so
 * that "Yes" means the same everywhere. */
#pragma once

#include "util/size.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* yes/no, true/false, on/off, 1/0, in any case. 0 or -EINVAL. */
int sb_parse_bool(const char *s, bool *out);
/* Decimal digits only (no sign, no blanks), min <= value <= max. 0, -EINVAL
 * for malformed text, -ERANGE when out of range or too large. */
int sb_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* A count read as a double (JSON numbers from fio, bonnie++, our own files)
 * as an unsigned integer without undefined behaviour: NaN and negatives
 * give 0, values from 2^64 up give UINT64_MAX, the rest are truncated. */
uint64_t sb_u64_of_double(double d);

/* A queue/scheduler file: "none [mq-deadline] kyber" -> "mq-deadline"; one
 * word without brackets (a driver that offers no choice) is the one in
 * use; several words and none bracketed are malformed. cur gets the one in
 * use, names (when not NULL) the offered ones, blank-separated. 0, -EINVAL
 * or -ENOBUFS. */
int sb_scheduler_parse(const char *text, char *cur, size_t len, char *names, size_t nlen);
