/* Typed reading of JSON from outside (result.json, fio's output): every
 * value is checked for its type before it is used, so that a wrong type is
 * an error naming the member ("jobs[3].read.iops: expected a number, got
 * null"), never a crash or a silent zero. One set of getters for every
 * reader (json-get.c). */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Flags of a member. */
enum {
	SB_J_REQ = 0,	   /* must be there */
	SB_J_OPT = 1 << 0, /* may be absent */
	SB_J_NULL = 1 << 1 /* null is taken as absent (what we write for "no value") */
};

/* Each getter: 0 when the value is there and of its type (and, for numbers,
 * finite and in [min, max]); 1 when it is absent (or null with SB_J_NULL)
 * and allowed to be, *out untouched; -EINVAL with *err set (allocated) to
 * "PATH: expected ..., got ..." otherwise.
 * The sb_jv_* forms check a value v itself, named path (an array element);
 * the sb_jm_* forms the member key of object o, named path.key. */
int sb_jv_str(json_object *v, const char *path, unsigned flags, const char **out, char **err);
int sb_jv_int(json_object *v, const char *path, unsigned flags, int64_t min, int64_t max,
	      int64_t *out, char **err);
int sb_jv_u64(json_object *v, const char *path, unsigned flags, uint64_t *out, char **err);
int sb_jv_num(json_object *v, const char *path, unsigned flags, double min, double max, double *out,
	      char **err);
int sb_jv_bool(json_object *v, const char *path, unsigned flags, bool *out, char **err);
int sb_jv_array(json_object *v, const char *path, unsigned flags, json_object **out, char **err);
int sb_jv_object(json_object *v, const char *path, unsigned flags, json_object **out, char **err);

int sb_jm_str(json_object *o, const char *path, const char *key, unsigned flags, const char **out,
	      char **err);
int sb_jm_int(json_object *o, const char *path, const char *key, unsigned flags, int64_t min,
	      int64_t max, int64_t *out, char **err);
int sb_jm_u64(json_object *o, const char *path, const char *key, unsigned flags, uint64_t *out,
	      char **err);
int sb_jm_num(json_object *o, const char *path, const char *key, unsigned flags, double min,
	      double max, double *out, char **err);
int sb_jm_bool(json_object *o, const char *path, const char *key, unsigned flags, bool *out,
	       char **err);
int sb_jm_array(json_object *o, const char *path, const char *key, unsigned flags,
		json_object **out, char **err);
int sb_jm_object(json_object *o, const char *path, const char *key, unsigned flags,
		 json_object **out, char **err);

/* snprintf for member paths (a path cut at the buffer's end is still a
 * fine message). */
void sb_jpath(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "a string", "null", "NaN", "an array"...: what a value is, for messages. */
const char *sb_json_what(json_object *v);
/* The first non-finite number anywhere under v (json-c reads NaN, Infinity
 * and 1e999 as numbers, which JSON has not): 0, or -EINVAL with *err
 * naming its path under path. Also refuses nesting deeper than 64. */
int sb_json_all_finite(json_object *v, const char *path, char **err);
