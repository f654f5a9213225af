/* One key=value row of a spec's option table ("direct=1"): its name, type,
 * defaults, bounds and help, and where its value goes in the owner's typed
 * struct (offsetof). The workloads' tables (src/workload/) and the engines'
 * rows (src/engine/engine.h) are made of these; the spec parser fills the
 * struct through them. The types are the value types of util/value.h,
 * which profile keys have too, parsed and worded by it. Storage by type:
 * SB_WO_UINT, SB_WO_SIZE and SB_WO_DURATION (milliseconds) a uint64_t,
 * SB_WO_BOOL a bool, SB_WO_STRING a char * (malloc'ed, freed with the
 * spec). */
#pragma once

#include "util/value.h"

#include <stddef.h>
#include <stdint.h>

/* The value types a spec option may have, by the tables' names. */
#define SB_WO_UINT SB_VT_UINT
#define SB_WO_SIZE SB_VT_SIZE
#define SB_WO_DURATION SB_VT_DURATION
#define SB_WO_BOOL SB_VT_BOOL
#define SB_WO_STRING SB_VT_STRING

struct sb_wl_opt {
	const char *name;
	enum sb_vtype type;
	const char *def;       /* default as the user would write it; NULL: computed (see help) */
	const char *quick_def; /* default under --quick; NULL: same as def */
	uint64_t min, max;     /* accepted range of the parsed value (max 0: unbounded) */
	const char *help;
	size_t off;  /* offsetof the value in the typed struct */
	size_t size; /* sizeof the value (checked against type by the parser's test) */
};

/* A row of struct T's member M (a path such as "eng.qd" works too). */
#define SB_WO(T, M, name, type, def, quick_def, min, max, help)                                    \
	{                                                                                          \
		name, type, def, quick_def, min, max, help, offsetof(T, M), sizeof(((T *)0)->M)    \
	}
