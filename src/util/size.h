/* Sizes as users write them: "2G", "512M", "4k", "1.5T", "4096", "50%". */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

/* Binary units (k = 1024). Returns 0, -EINVAL for malformed input, -ERANGE on
 * overflow. When percent_ok and the text ends in '%', *is_percent is set
 * and *out holds the percentage (0..100). */
int sb_parse_size(const char *s, uint64_t *out, bool percent_ok, bool *is_percent);

/* "1.5G"-style rendering into buf (at least 16 bytes). */
const char *sb_format_size(uint64_t bytes, char *buf, size_t len);

/* Durations: "30s", "5m", "1h", "250ms", "10" (seconds). Result in milliseconds. */
int sb_parse_duration_ms(const char *s, uint64_t *out_ms);
