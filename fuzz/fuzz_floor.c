/* libFuzzer target: the host's round floor file (result/floor.h), which
 * run reads from the state directory. Whatever it is given: accepted with
 * every row's floor above 0 and at most 100, or refused with a message
 * naming the file. */
#include "fuzz.h"
#include "result/floor.h"

#include <errno.h>
#include <string.h>

SB_FUZZ_TARGET(floor)
{
	char *s = sb_fuzz_strndup(data, size);
	json_object *o = NULL, *rows = NULL;
	char *err = NULL;
	int r = sb_floor_parse(s, size, "round-floor.json", &o, &err);
	if (r == 0) {
		SB_FUZZ_CHECK(o && !err);
		SB_FUZZ_CHECK(json_object_object_get_ex(o, "rows", &rows));
		json_object_object_foreach(rows, label, v)
		{
			double d = sb_floor_pct(o, label);
			(void)v;
			SB_FUZZ_CHECK(d > 0 && d <= 100);
		}
		SB_FUZZ_CHECK(sb_floor_check(o, NULL, &err) == 0);
		SB_FUZZ_CHECK(sb_floor_pct(o, "no such row\x01") == 0);
		json_object_put(o);
	} else {
		SB_FUZZ_CHECK(r == -EINVAL || r == -ENOMEM);
		SB_FUZZ_CHECK(r == -ENOMEM || (err && strncmp(err, "round-floor.json: ", 18) == 0));
	}
	free(err);
	free(s);
	return 0;
}
