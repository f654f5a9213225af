/* Messages to the user: one place formats them the util-linux way
 * ("stackbench: /dev/sdb: refusing: mounted on /home"). Helpers do not
 * print; commands call these once, naming the object. */
#pragma once

#include "util/macro.h"

enum sb_log_level { SB_LOG_QUIET = 0, SB_LOG_NORMAL = 1, SB_LOG_VERBOSE = 2, SB_LOG_DEBUG = 3 };

extern int sb_log_level;

/* Print "stackbench: MSG" on stderr; returns -1 so that "return sb_error(...)" works. */
int sb_error(const char *fmt, ...) _printf_(1, 2);
/* Same, with ": strerror(-err)" appended; returns err (a negative errno). */
int sb_error_errno(int err, const char *fmt, ...) _printf_(2, 3);
void sb_warn(const char *fmt, ...) _printf_(1, 2);
/* Progress and chatter on stderr, shown unless --quiet (info) or only with --verbose. */
void sb_info(const char *fmt, ...) _printf_(1, 2);
void sb_verbose(const char *fmt, ...) _printf_(1, 2);
void sb_debug(const char *fmt, ...) _printf_(1, 2);
