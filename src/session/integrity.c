/* The session's end of a variant: the stack's integrity checks
 * (stack/integrity.c) plus what the workloads verified of their own data,
 * added up from their results. */
#include "session/variant.h"
#include "stack/scenario.h"
#include "util/log.h"
#include "util/macro.h"

#include <stdint.h>
#include <string.h>

/* The workloads' checks of what they read back against the pattern they
 * wrote: every extra named *verify_errors, and verified_bytes. */
static json_object *data_verify(struct sb_wl_result *const *wl, size_t n_wl, int64_t *errors)
{
	json_object *o = json_object_new_object();
	int64_t bad = 0, bytes = 0;
	unsigned n = 0;
	for (size_t i = 0; i < n_wl; i++) {
		if (!wl[i]->extra || !json_object_is_type(wl[i]->extra, json_type_object))
			continue;
		json_object_object_foreach(wl[i]->extra, k, v)
		{
			size_t l = strlen(k);
			if (!json_object_is_type(v, json_type_int))
				continue;
			if (l >= 13 && strcmp(k + l - 13, "verify_errors") == 0) {
				bad += json_object_get_int64(v);
				n++;
			} else if (strcmp(k, "verified_bytes") == 0) {
				bytes += json_object_get_int64(v);
			}
		}
	}
	json_object_object_add(o, "verify_errors", json_object_new_int64(bad));
	*errors = bad;
	json_object_object_add(o, "verified_bytes", json_object_new_int64(bytes));
	json_object_object_add(o, "checks", json_object_new_int((int)n));
	return o;
}

json_object *sb_integrity_after(const struct sb_config *c, const char *variant,
				const struct sb_plan *p, struct sb_exec *x, const char *mnt,
				struct sb_wl_result *const *wl, size_t n_wl, bool quick,
				volatile sig_atomic_t *stop)
{
	_cleanup_free_ char *msg = NULL;
	json_object *o, *e;
	int64_t data_bad = 0, errors = 0;

	if (!sb_scen_integrity_on(c) || (stop && *stop))
		return NULL;
	sb_info("integrity check");
	o = sb_integrity_run(p, x, mnt, sb_scen_rebuild_limit_ms(c),
			     quick ? sb_scen_integrity_quick(c) : 0, stop, &msg);
	if (!o)
		o = json_object_new_object();
	if (json_object_object_get_ex(o, "errors", &e))
		errors = json_object_get_int64(e);
	json_object *d = data_verify(wl, n_wl, &data_bad);
	uint64_t fbad, fchecked;
	/* scenario.fill's file, read back from the array after it all */
	if (mnt && sb_scen_fill_verify(mnt, &fbad, &fchecked) == 0) {
		json_object_object_add(d, "fill_bad_blocks", json_object_new_int64((int64_t)fbad));
		json_object_object_add(d, "fill_checked_bytes",
				       json_object_new_int64((int64_t)fchecked));
		data_bad += (int64_t)fbad;
	}
	json_object_object_add(o, "data", d);
	json_object_object_add(o, "errors", json_object_new_int64(errors + data_bad));
	if (msg)
		sb_warn("%s: integrity: %s", variant, msg);
	if (errors + data_bad)
		sb_error("%s: integrity: %lld error(s) after the run (see result.json's integrity)",
			 variant, (long long)errors + (long long)data_bad);
	return o;
}
