/* The process exit codes (DESIGN.md), low down so that every layer can
 * return one without knowing of the commands above it. */
#pragma once

enum sb_exit {
	SB_EXIT_OK = 0,
	SB_EXIT_FAILED = 1,  /* a step or workload failed (after teardown) */
	SB_EXIT_USAGE = 2,   /* usage or profile error */
	SB_EXIT_REFUSED = 3, /* refused by a safety check */
	SB_EXIT_INTERRUPTED = 130,
};
