/* See json-get.h: typed getters over json-c, with the member's path in the
 * error. */
#include "util/json-get.h"
#include "util/macro.h"
#include "util/strutil.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

const char *sb_json_what(json_object *v)
{
	double d;

	switch (json_object_get_type(v)) {
	case json_type_null:
		return "null";
	case json_type_boolean:
		return "a boolean";
	case json_type_int:
		return "an integer";
	case json_type_double:
		d = json_object_get_double(v);
		return isnan(d)	  ? "NaN"
		       : isinf(d) ? (d > 0 ? "Infinity" : "-Infinity")
				  : "a number";
	case json_type_string:
		return "a string";
	case json_type_array:
		return "an array";
	case json_type_object:
		return "an object";
	}
	return "something else";
}

static int bad(char **err, const char *path, const char *fmt, ...) _printf_(3, 4);
static int bad(char **err, const char *path, const char *fmt, ...)
{
	va_list ap;
	_cleanup_free_ char *msg = NULL;

	va_start(ap, fmt);
	msg = sb_vasprintf(fmt, ap);
	va_end(ap);
	if (err) {
		free(*err);
		*err =
		    sb_asprintf("%s: %s", path && *path ? path : "(top)", msg ? msg : "bad value");
	}
	return -EINVAL;
}

/* Absent, or null where null means absent: 1 when allowed, -EINVAL if not. */
static int missing(json_object *v, const char *path, unsigned flags, const char *want, char **err)
{
	if (!v) /* json-c: an absent member and a JSON null are both NULL here */
		return flags & (SB_J_OPT | SB_J_NULL)
			   ? 1
			   : bad(err, path, "expected %s, got null or nothing", want);
	return 0;
}

int sb_jv_str(json_object *v, const char *path, unsigned flags, const char **out, char **err)
{
	int r = missing(v, path, flags, "a string", err);
	if (r)
		return r;
	if (!json_object_is_type(v, json_type_string))
		return bad(err, path, "expected a string, got %s", sb_json_what(v));
	*out = json_object_get_string(v);
	return 0;
}

int sb_jv_int(json_object *v, const char *path, unsigned flags, int64_t min, int64_t max,
	      int64_t *out, char **err)
{
	int r = missing(v, path, flags, "an integer", err);
	int64_t x;
	if (r)
		return r;
	if (!json_object_is_type(v, json_type_int))
		return bad(err, path, "expected an integer, got %s", sb_json_what(v));
	x = json_object_get_int64(v);
	/* json-c clamps what does not fit in int64 to INT64_MAX */
	if (x < min || x > max || (x == INT64_MAX && json_object_get_uint64(v) != INT64_MAX))
		return bad(err, path, "%s out of range (expected %lld to %lld)",
			   json_object_get_string(v), (long long)min, (long long)max);
	*out = x;
	return 0;
}

int sb_jv_u64(json_object *v, const char *path, unsigned flags, uint64_t *out, char **err)
{
	int r = missing(v, path, flags, "an integer", err);
	if (r)
		return r;
	if (!json_object_is_type(v, json_type_int))
		return bad(err, path, "expected an integer, got %s", sb_json_what(v));
	if (json_object_get_int64(v) < 0)
		return bad(err, path, "%s: expected a count (0 or more)",
			   json_object_get_string(v));
	*out = json_object_get_uint64(v);
	return 0;
}

int sb_jv_num(json_object *v, const char *path, unsigned flags, double min, double max, double *out,
	      char **err)
{
	int r = missing(v, path, flags, "a number", err);
	double x;
	if (r)
		return r;
	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
		return bad(err, path, "expected a number, got %s", sb_json_what(v));
	x = json_object_get_double(v);
	if (!isfinite(x))
		return bad(err, path, "expected a finite number, got %s", sb_json_what(v));
	if (x < min || x > max)
		return bad(err, path, "%g out of range (expected %g to %g)", x, min, max);
	*out = x;
	return 0;
}

int sb_jv_bool(json_object *v, const char *path, unsigned flags, bool *out, char **err)
{
	int r = missing(v, path, flags, "true or false", err);
	if (r)
		return r;
	if (!json_object_is_type(v, json_type_boolean))
		return bad(err, path, "expected true or false, got %s", sb_json_what(v));
	*out = json_object_get_boolean(v);
	return 0;
}

int sb_jv_array(json_object *v, const char *path, unsigned flags, json_object **out, char **err)
{
	int r = missing(v, path, flags, "an array", err);
	if (r)
		return r;
	if (!json_object_is_type(v, json_type_array))
		return bad(err, path, "expected an array, got %s", sb_json_what(v));
	*out = v;
	return 0;
}

int sb_jv_object(json_object *v, const char *path, unsigned flags, json_object **out, char **err)
{
	int r = missing(v, path, flags, "an object", err);
	if (r)
		return r;
	if (!json_object_is_type(v, json_type_object))
		return bad(err, path, "expected an object, got %s", sb_json_what(v));
	*out = v;
	return 0;
}

void sb_jpath(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

/* The member and its path "path.key"; absent members are NULL, like null. */
static json_object *member(json_object *o, const char *path, const char *key, char *buf,
			   size_t size)
{
	json_object *v = NULL;
	if (path && *path)
		sb_jpath(buf, size, "%s.%s", path, key);
	else
		sb_jpath(buf, size, "%s", key);
	if (json_object_is_type(o, json_type_object))
		json_object_object_get_ex(o, key, &v);
	return v;
}

/* An absent member of an optional member is fine; a null one only with
 * SB_J_NULL: null where a value belongs is a wrong type. */
static int present_null(json_object *o, const char *key, unsigned flags, const char *p, char **err)
{
	json_object *v;
	if (json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &v) &&
	    !v && !(flags & SB_J_NULL))
		return bad(err, p, "expected a value, got null");
	return 0;
}

#define MEMBER(call)                                                                               \
	char p[512];                                                                               \
	json_object *v = member(o, path, key, p, sizeof(p));                                       \
	if (present_null(o, key, flags, p, err) < 0)                                               \
		return -EINVAL;                                                                    \
	return call

int sb_jm_str(json_object *o, const char *path, const char *key, unsigned flags, const char **out,
	      char **err)
{
	MEMBER(sb_jv_str(v, p, flags, out, err));
}

int sb_jm_int(json_object *o, const char *path, const char *key, unsigned flags, int64_t min,
	      int64_t max, int64_t *out, char **err)
{
	MEMBER(sb_jv_int(v, p, flags, min, max, out, err));
}

int sb_jm_u64(json_object *o, const char *path, const char *key, unsigned flags, uint64_t *out,
	      char **err)
{
	MEMBER(sb_jv_u64(v, p, flags, out, err));
}

int sb_jm_num(json_object *o, const char *path, const char *key, unsigned flags, double min,
	      double max, double *out, char **err)
{
	MEMBER(sb_jv_num(v, p, flags, min, max, out, err));
}

int sb_jm_bool(json_object *o, const char *path, const char *key, unsigned flags, bool *out,
	       char **err)
{
	MEMBER(sb_jv_bool(v, p, flags, out, err));
}

int sb_jm_array(json_object *o, const char *path, const char *key, unsigned flags,
		json_object **out, char **err)
{
	MEMBER(sb_jv_array(v, p, flags, out, err));
}

int sb_jm_object(json_object *o, const char *path, const char *key, unsigned flags,
		 json_object **out, char **err)
{
	MEMBER(sb_jv_object(v, p, flags, out, err));
}

static int finite_at(json_object *v, const char *path, int depth, char **err)
{
	char p[512];

	if (depth > 64)
		return bad(err, path, "nested more than 64 deep");
	switch (json_object_get_type(v)) {
	case json_type_double:
		if (!isfinite(json_object_get_double(v)))
			return bad(err, path, "%s is not a number JSON has", sb_json_what(v));
		return 0;
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			sb_jpath(p, sizeof(p), "%s[%zu]", path, i);
			if (finite_at(json_object_array_get_idx(v, i), p, depth + 1, err) < 0)
				return -EINVAL;
		}
		return 0;
	case json_type_object: {
		json_object_object_foreach(v, key, val)
		{
			sb_jpath(p, sizeof(p), "%s%s%s", path, *path ? "." : "", key);
			if (finite_at(val, p, depth + 1, err) < 0)
				return -EINVAL;
		}
		return 0;
	}
	default:
		return 0;
	}
}

int sb_json_all_finite(json_object *v, const char *path, char **err)
{
	return finite_at(v, path ? path : "", 0, err);
}
