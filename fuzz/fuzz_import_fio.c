/* libFuzzer target: the importer of fio's JSON output behind `report`
 * (src/report/import.c); see fuzz_import.h. */
#include "fuzz_import.h"
/* wrong-typed members, not only broken syntax (json_mutate.h) */
#define SB_FUZZ_JSON_MUTATOR
#include "json_mutate.h"

SB_FUZZ_TARGET(import_fio)
{
	return sb_fuzz_import(sb_import_fio_json, data, size);
}
