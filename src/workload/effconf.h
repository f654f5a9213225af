/* The configuration the kernel applied, captured once per workload run in
 * the mounted file system (extra.config): what each stack layer reads of
 * the mounted file system or of its own devices (its capture: effective
 * mount options, the file system's geometry, md's state, LVM's pe_start,
 * every device's queue/ settings), the kernel's log lines about the
 * stack's devices and the vm.dirty_* sysctls. */
#pragma once

#include "probe/devstat.h"
#include "stack/capture.h" /* the layers' captures it gathers */

#include <json-c/json.h>
#include <stdbool.h>

/* extra.config for the file system mounted at dir over the devices st
 * (NULL: none known). log_fd >= 0: the programs' output also goes there.
 * Never fails as a whole: what could not be read is left out. */
json_object *sb_effconf_capture(const char *dir, const struct sb_devstack *st, int log_fd);

/* Does a kernel log message mention one of the names as a word
 * ("loop5" but not "loop50")? */
bool sb_effconf_mentions(const char *msg, const char *const *names, size_t n);
