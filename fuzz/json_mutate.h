/* Structure-aware mutation of JSON inputs (issue 24): byte flips mostly make
 * broken syntax, which the tokenizer refuses before any reader sees a
 * value. This replaces one member or element of a document that parses by
 * a value of another type (null, a boolean, integers at the edges, huge and
 * non-finite numbers, strings, arrays, objects), so that every typed read
 * meets every wrong type.
 *
 * Used two ways: by the libFuzzer targets of JSON readers as their custom
 * mutator (SB_FUZZ_JSON_MUTATOR before including this, built for
 * libFuzzer), and by tests/unit/test_hostile_json.c, which walks every
 * member of valid files through every kind. */
#pragma once

#include <json-c/json.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The kinds a value is replaced by. */
static const char *const sb_jmut_kind_names[] = {
    "null",	      "true",  "0",	 "-1",	     "INT64_MAX",    "UINT64_MAX", "1.5",
    "-1e308",	      "1e308", "NaN",	 "Infinity", "-Infinity",    "\"\"",	   "\"x\"",
    "\"\\u001b[2J\"", "[]",    "[null]", "{}",	     "{\"a\":null}",
};
#define SB_JMUT_KINDS (sizeof(sb_jmut_kind_names) / sizeof(sb_jmut_kind_names[0]))

static inline json_object *sb_jmut_value(size_t kind)
{
	json_object *o;
	switch (kind) {
	case 0:
		return NULL;
	case 1:
		return json_object_new_boolean(1);
	case 2:
		return json_object_new_int(0);
	case 3:
		return json_object_new_int(-1);
	case 4:
		return json_object_new_int64(INT64_MAX);
	case 5:
		return json_object_new_uint64(UINT64_MAX);
	case 6:
		return json_object_new_double(1.5);
	case 7:
		return json_object_new_double(-1e308);
	case 8:
		return json_object_new_double(1e308);
	case 9:
		return json_object_new_double(NAN);
	case 10:
		return json_object_new_double(INFINITY);
	case 11:
		return json_object_new_double(-INFINITY);
	case 12:
		return json_object_new_string("");
	case 13:
		return json_object_new_string("x");
	case 14:
		return json_object_new_string("\x1b[2J");
	case 15:
		return json_object_new_array();
	case 16:
		o = json_object_new_array();
		json_object_array_add(o, NULL);
		return o;
	case 17:
		return json_object_new_object();
	default:
		o = json_object_new_object();
		json_object_object_add(o, "a", NULL);
		return o;
	}
}

/* Whether kind is a number JSON has not (NaN, +-Infinity). */
static inline bool sb_jmut_nonfinite(size_t kind)
{
	return kind >= 9 && kind <= 11;
}

/* Pre-order walk over every value below o: the target-th is replaced by
 * with (taken); returns true once done. *n counts the values seen, so a
 * walk with target SIZE_MAX counts them all. */
static inline bool sb_jmut_walk(json_object *o, size_t *n, size_t target, json_object *with)
{
	if (json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, key, v)
		{
			if ((*n)++ == target) {
				json_object_object_add(o, key, with);
				return true;
			}
			if (sb_jmut_walk(v, n, target, with))
				return true;
		}
	} else if (json_object_is_type(o, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(o); i++) {
			if ((*n)++ == target) {
				json_object_array_put_idx(o, i, with);
				return true;
			}
			if (sb_jmut_walk(json_object_array_get_idx(o, i), n, target, with))
				return true;
		}
	}
	return false;
}

static inline size_t sb_jmut_count(json_object *o)
{
	size_t n = 0;
	sb_jmut_walk(o, &n, SIZE_MAX, NULL);
	return n;
}

/* The text of doc (parsed from text, not changed) with value slot replaced
 * by kind; allocated. NaN and Infinity come out as json-c writes them
 * ("NaN", "Infinity"), which is what a hostile file would hold. */
static inline char *sb_jmut_text(const char *text, size_t slot, size_t kind)
{
	json_object *doc = json_tokener_parse(text);
	size_t n = 0;
	char *out;

	if (!doc)
		return NULL;
	json_object *with = sb_jmut_value(kind);
	if (!sb_jmut_walk(doc, &n, slot, with))
		json_object_put(with);
	out = strdup(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN));
	json_object_put(doc);
	return out;
}

#if defined(SB_FUZZ_LIBFUZZER) && defined(SB_FUZZ_JSON_MUTATOR)
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/* Half the time a typed replacement in a document that parses (fio's notes
 * before its '{' are dropped), else libFuzzer's own byte mutations. */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	char *text = malloc(size + 1), *start, *out;
	size_t n, len = 0;
	json_object *doc;

	if (!text || (seed & 1)) {
		free(text);
		return LLVMFuzzerMutate(data, size, max_size);
	}
	memcpy(text, data, size);
	text[size] = '\0';
	start = strchr(text, '{');
	doc = start ? json_tokener_parse(start) : NULL;
	n = doc ? sb_jmut_count(doc) : 0;
	json_object_put(doc);
	out = n ? sb_jmut_text(start, (seed >> 1) % n, (seed >> 8) % SB_JMUT_KINDS) : NULL;
	free(text);
	if (out && (len = strlen(out)) <= max_size)
		memcpy(data, out, len);
	free(out);
	return len && len <= max_size ? len : LLVMFuzzerMutate(data, size, max_size);
}
#endif
