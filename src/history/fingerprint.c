/* Host fingerprints, stack and workload hashes, from a result set's JSON:
 * what decides whether two runs may be compared as the same thing measured
 * on the same machine. Pure functions of the JSON. */
#include "history/history.h"
#include "util/sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Canonical JSON: object keys sorted, no whitespace; numbers and strings
 * as json-c writes them. */
static void canon(json_object *o, FILE *f)
{
	switch (json_object_get_type(o)) {
	case json_type_object: {
		size_t n = (size_t)json_object_object_length(o), i = 0;
		const char **keys = calloc(n ? n : 1, sizeof(*keys));
		if (!keys)
			return;
		json_object_object_foreach(o, k, v)
		{
			(void)v;
			keys[i++] = k;
		}
		qsort(keys, n, sizeof(*keys), key_cmp);
		fputc('{', f);
		for (i = 0; i < n; i++) {
			json_object *ks = json_object_new_string(keys[i]);
			fprintf(f, "%s%s:", i ? "," : "",
				json_object_to_json_string_ext(ks, JSON_C_TO_STRING_PLAIN));
			json_object_put(ks);
			canon(json_object_object_get(o, keys[i]), f);
		}
		fputc('}', f);
		free(keys);
		return;
	}
	case json_type_array:
		fputc('[', f);
		for (size_t i = 0; i < json_object_array_length(o); i++) {
			if (i)
				fputc(',', f);
			canon(json_object_array_get_idx(o, i), f);
		}
		fputc(']', f);
		return;
	default:
		fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), f);
	}
}

void sb_json_hash(json_object *o, char out[65])
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f) {
		canon(o, f);
		fclose(f);
	}
	sb_sha256_hex(buf ? buf : "", buf ? len : 0, out);
	free(buf);
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;
	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* Host fields and device fields that make up the fingerprint: the
 * hardware and kernel, never what changes from run to run (device node
 * names, loop backing files, mount points). */
static const char *const host_fields[] = {"cpu",    "ncpu", "ram_bytes",
					  "kernel", "arch", "virtualized"};
static const char *const device_fields[] = {
    "model", "serial",	  "vendor",	"firmware", "firmware_rev",	  "rev",
    "size",  "transport", "rotational", "class",    "logical_sector_size"};

json_object *sb_fingerprint_of(json_object *result, const char *host)
{
	json_object *fp = json_object_new_object(), *h = get(result, "host"),
		    *devs = get(result, "devices"), *v;
	char key[64];

	if (!fp)
		return NULL;
	if (host)
		json_object_object_add(fp, "host.name", json_object_new_string(host));
	else if ((v = get(h, "hostname")))
		json_object_object_add(fp, "host.name", json_object_get(v));
	for (size_t i = 0; i < sizeof(host_fields) / sizeof(*host_fields); i++)
		if ((v = get(h, host_fields[i]))) {
			snprintf(key, sizeof(key), "host.%s", host_fields[i]);
			json_object_object_add(fp, key, json_object_get(v));
		}
	for (size_t d = 0;
	     json_object_is_type(devs, json_type_array) && d < json_object_array_length(devs);
	     d++) {
		json_object *dev = json_object_array_get_idx(devs, d);
		for (size_t i = 0; i < sizeof(device_fields) / sizeof(*device_fields); i++)
			if ((v = get(dev, device_fields[i])) &&
			    !json_object_is_type(v, json_type_null)) {
				snprintf(key, sizeof(key), "devices[%zu].%s", d, device_fields[i]);
				json_object_object_add(fp, key, json_object_get(v));
			}
	}
	return fp;
}

/* A copy of values without the workloads.* keys. */
static json_object *values_but(json_object *values, const char *prefix, bool keep)
{
	json_object *o = json_object_new_object();
	json_object_object_foreach(values, k, v)
	{
		if ((strncmp(k, prefix, strlen(prefix)) == 0) == keep)
			json_object_object_add(o, k, json_object_get(v));
	}
	return o;
}

void sb_stack_hash(json_object *result, char out[65])
{
	json_object *prof = get(result, "profile"), *o = json_object_new_object(), *v;

	json_object_object_add(o, "command", json_object_get(get(result, "command")));
	if (prof && json_object_is_type(prof, json_type_object)) {
		json_object *vars = get(prof, "variants"), *arr = json_object_new_array();
		json_object_object_add(o, "name", json_object_get(get(prof, "name")));
		json_object_object_add(o, "loop", json_object_get(get(prof, "loop")));
		json_object_object_add(o, "quick", json_object_get(get(prof, "quick")));
		for (size_t i = 0; json_object_is_type(vars, json_type_array) &&
				   i < json_object_array_length(vars);
		     i++) {
			json_object *var = json_object_array_get_idx(vars, i),
				    *e = json_object_new_object();
			json_object_object_add(e, "name", json_object_get(get(var, "name")));
			json_object_object_add(e, "values",
					       values_but(get(var, "values"), "workloads.", false));
			json_object_array_add(arr, e);
		}
		json_object_object_add(o, "variants", arr);
	} else if ((v = get(result, "target"))) {
		/* bench: the file system and its options, not where it is mounted. */
		json_object_object_add(o, "fstype", json_object_get(get(v, "fstype")));
		json_object_object_add(o, "options", json_object_get(get(v, "options")));
	}
	sb_json_hash(o, out);
	json_object_put(o);
}

void sb_workload_hash(json_object *result, char out[65])
{
	json_object *o = json_object_new_object(), *vars = get(result, "variants"),
		    *prof = get(result, "profile");

	if (prof && json_object_is_type(prof, json_type_object))
		json_object_object_add(o, "keys",
				       values_but(get(prof, "values"), "workloads.", true));
	/* The specs each variant ran, in the order of its first repeat. */
	for (size_t i = 0;
	     json_object_is_type(vars, json_type_array) && i < json_object_array_length(vars);
	     i++) {
		json_object *var = json_object_array_get_idx(vars, i),
			    *specs = json_object_new_array();
		json_object *reps = get(var, "repeats"), *rep0, *wls;
		rep0 = json_object_is_type(reps, json_type_array)
			   ? json_object_array_get_idx(reps, 0)
			   : NULL;
		wls = get(rep0, "workloads");
		for (size_t k = 0;
		     json_object_is_type(wls, json_type_array) && k < json_object_array_length(wls);
		     k++)
			json_object_array_add(
			    specs, json_object_get(get(json_object_array_get_idx(wls, k), "spec")));
		const char *name = json_object_get_string(get(var, "name"));
		json_object_object_add(o, name ? name : "?", specs);
	}
	sb_json_hash(o, out);
	json_object_put(o);
}

char *sb_fingerprint_diff(json_object *a, json_object *b)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	bool any = false;

	if (!f)
		return NULL;
	/* Every field of a that b lacks or holds otherwise, then b's extras. */
	for (int pass = 0; pass < 2; pass++) {
		json_object *x = pass ? b : a, *y = pass ? a : b;
		json_object_object_foreach(x, k, v)
		{
			json_object *w = get(y, k);
			if (pass && w)
				continue;
			if (w &&
			    strcmp(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN),
				   json_object_to_json_string_ext(w, JSON_C_TO_STRING_PLAIN)) == 0)
				continue;
			fprintf(f, "%s%s", any ? ", " : "", k);
			any = true;
		}
	}
	fclose(f);
	if (!any) {
		free(buf);
		return NULL;
	}
	return buf;
}
