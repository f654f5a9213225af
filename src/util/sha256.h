/* SHA-256 of a buffer as 64 hex digits (sha256.c). */
#pragma once

#include <stddef.h>
#include <stdint.h>

void sb_sha256_hex(const void *data, size_t len, char out[65]);
