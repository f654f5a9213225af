/* libFuzzer target: the importer of bonnie++ CSV lines (1.03, 1.9x, 1.98)
 * behind `report` (src/report/import.c); see fuzz_import.h. */
#include "fuzz_import.h"

SB_FUZZ_TARGET(import_bonnie)
{
	return sb_fuzz_import(sb_import_bonnie_csv, data, size);
}
