/* libFuzzer target: the measure area's parsers of outside input. The first
 * byte picks one: a /sys/block/X/stat line, xfs_info output, dumpe2fs -h
 * output, btrfs dump-super output, a kernel log message, an extra.config
 * object (flattened, then diffed with itself: always an A/A warning, never a
 * note), an extra.devstat object (device shares as text) and the same read
 * as an extra.quiesce (phases begun over background work), pvs output
 * (pe_start per PV). */
#include "fuzz.h"
#include "report/measure.h"
#include "probe/devstat.h"
#include "workload/effconf.h"

#include <errno.h>

SB_FUZZ_TARGET(measure)
{
	static const char *const keys[] = {"Block size", "Filesystem features", "sectorsize",
					   "nodesize", NULL};
	static const char *const names[] = {"loop5", "md127", "sda1"};
	if (size < 1)
		return 0;
	char *s = sb_fuzz_strndup(data + 1, size - 1);
	json_object *o = NULL;
	switch (data[0] % 8) {
	case 0: {
		uint64_t v[SB_ST_N];
		int r = sb_devstat_parse(s, v);
		SB_FUZZ_CHECK(r == -EINVAL || (r >= 11 && r <= SB_ST_N));
		break;
	}
	case 1:
		o = sb_capture_parse_xfs_info(s);
		SB_FUZZ_CHECK(o != NULL);
		break;
	case 2:
		o = sb_capture_parse_keys(s, ':', keys);
		break;
	case 3:
		o = sb_capture_parse_keys(s, ' ', keys);
		break;
	case 4:
		(void)sb_effconf_mentions(s, names, 3);
		break;
	case 5: {
		json_object *cfg = json_tokener_parse(s);
		if (!cfg)
			break;
		struct sb_measure_var v[2] = {{"a", cfg, NULL}, {"b", cfg, NULL}};
		char *d = sb_measure_config_diff(v, 2, 0);
		SB_FUZZ_CHECK(d != NULL);
		SB_FUZZ_CHECK(strncmp(d, "warning: a and b", 16) == 0);
		SB_FUZZ_CHECK(strstr(d, "note:") == NULL);
		free(d);
		json_object_put(cfg);
		break;
	}
	case 6: {
		json_object *ds = json_tokener_parse(s);
		char *t = sb_measure_devstat_text(ds, "  ");
		SB_FUZZ_CHECK(t != NULL);
		free(t);
		/* the same object read as an extra.quiesce */
		t = sb_measure_quiesce_text(ds, "  ");
		SB_FUZZ_CHECK(t != NULL);
		free(t);
		json_object_put(ds);
		break;
	}
	case 7:
		o = sb_capture_parse_pvs(s);
		SB_FUZZ_CHECK(o != NULL);
		json_object_object_foreach(o, name, v)
		{
			/* a device name and a byte count, nothing else gets in */
			SB_FUZZ_CHECK(*name && !strchr(name, '/'));
			SB_FUZZ_CHECK(json_object_is_type(v, json_type_int));
		}
		break;
	}
	if (o)
		json_object_put(o);
	free(s);
	return 0;
}
