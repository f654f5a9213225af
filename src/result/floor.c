/* The host's round floor file (floor.h): read, checked member by member
 * with the JSON getters, looked up by row label. */
#include "result/floor.h"
#include "result/result.h"
#include "util/json-get.h"
#include "util/macro.h"
#include "util/safefile.h"
#include "util/strutil.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define TEXT_MAX 200

static int text_ok(json_object *o, const char *path, const char *key, bool req, char **err)
{
	const char *s = NULL;
	char p[64];
	int r = sb_jm_str(o, path, key, req ? SB_J_REQ : SB_J_OPT, &s, err);
	if (r < 0 || !s)
		return r < 0 ? r : 0;
	if (strlen(s) > TEXT_MAX || memchr(s, '\n', strlen(s))) {
		sb_jpath(p, sizeof(p), "%s.%s", path, key);
		free(*err);
		*err = sb_asprintf("%s: expected one line of at most %d bytes", p, TEXT_MAX);
		return -EINVAL;
	}
	return 0;
}

int sb_floor_check(json_object *o, const char *path, char **err)
{
	static const char *const known[] = {"version", "rows", "trials", "measured", "how"};
	json_object *rows;
	int64_t v, trials;
	size_t n = 0;

	if (!path)
		path = "round_floor";
	if (sb_jv_object(o, path, SB_J_REQ, &o, err) < 0)
		return -EINVAL;
	json_object_object_foreach(o, key, val)
	{
		bool ok = false;
		(void)val;
		for (size_t i = 0; i < ARRAY_SIZE(known); i++)
			ok |= strcmp(key, known[i]) == 0;
		if (!ok) {
			free(*err);
			*err = sb_asprintf("%s: unknown member \"%.64s\" (expected version, rows, "
					   "trials, measured, how)",
					   path, key);
			return -EINVAL;
		}
	}
	if (sb_jm_int(o, path, "version", SB_J_REQ, 1, 1, &v, err) < 0 ||
	    sb_jm_object(o, path, "rows", SB_J_REQ, &rows, err) < 0 ||
	    sb_jm_int(o, path, "trials", SB_J_OPT, 2, 1000000, &trials, err) < 0 ||
	    text_ok(o, path, "measured", false, err) < 0 || text_ok(o, path, "how", false, err) < 0)
		return -EINVAL;
	json_object_object_foreach(rows, label, pct)
	{
		char p[300];
		double d;
		sb_jpath(p, sizeof(p), "%s.rows", path);
		if (!*label || strlen(label) > TEXT_MAX) {
			free(*err);
			*err =
			    sb_asprintf("%s: expected a row label of 1 to %d bytes", p, TEXT_MAX);
			return -EINVAL;
		}
		if (sb_jm_num(rows, p, label, SB_J_REQ, 0, 100, &d, err) < 0)
			return -EINVAL;
		if (!(d > 0)) {
			free(*err);
			*err = sb_asprintf("%s.%.200s: expected a per cent above 0 (the SD of one "
					   "round's effect), got 0",
					   p, label);
			return -EINVAL;
		}
		(void)pct;
		n++;
	}
	if (n < 1 || n > SB_FLOOR_MAX_ROWS) {
		free(*err);
		*err = sb_asprintf("%s.rows: expected 1 to %d rows, got %zu", path,
				   SB_FLOOR_MAX_ROWS, n);
		return -EINVAL;
	}
	return 0;
}

int sb_floor_parse(const char *text, size_t len, const char *file, json_object **out, char **err)
{
	json_object *o = NULL;
	_cleanup_free_ char *why = NULL;
	int r = sb_json_parse_text(text, len, file, &o, err);
	if (r < 0)
		return r;
	if (sb_json_all_finite(o, "round_floor", &why) < 0 ||
	    sb_floor_check(o, "round_floor", &why) < 0) {
		json_object_put(o);
		free(*err);
		*err = sb_asprintf("%s: %s", file, why ? why : "not a round floor");
		return -EINVAL;
	}
	*out = o;
	return 0;
}

int sb_floor_read(const char *path, json_object **out, char **err)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	mode_t mode = 0;
	int r = sb_read_regular(path, SB_FLOOR_MAX_BYTES, &buf, &len, &mode);
	if (r == -ENOENT)
		return r;
	if (r < 0) {
		free(*err);
		*err = r == -EINVAL
			   ? sb_asprintf("%s: %s, not a round floor file", path, sb_file_kind(mode))
		       : r == -EFBIG ? sb_asprintf("%s: over %u bytes, not a round floor file",
						   path, SB_FLOOR_MAX_BYTES)
				     : sb_asprintf("%s: %s", path, strerror(-r));
		return r == -EFBIG ? -EINVAL : r;
	}
	return sb_floor_parse(buf, len, path, out, err);
}

double sb_floor_pct(json_object *o, const char *label)
{
	json_object *rows, *v;
	if (!o || !label || !json_object_object_get_ex(o, "rows", &rows) ||
	    !json_object_object_get_ex(rows, label, &v))
		return 0;
	double d = json_object_get_double(v);
	return isfinite(d) && d > 0 ? d : 0;
}
