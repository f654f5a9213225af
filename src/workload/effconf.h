/* The configuration the kernel applied, captured once per workload run in
 * the mounted file system (extra.config): effective mount options, the
 * kernel's log lines about the stack's devices, the file system's geometry
 * (xfs_info, dumpe2fs -h, btrfs inspect-internal dump-super: key lines
 * only), what each stack layer reads of its own devices (its capture:
 * md's state, LVM's pe_start), every device's queue/ settings and the
 * vm.dirty_* sysctls. The parsers of the programs' output are pure (unit-tested and
 * fuzzed on captured text). */
#pragma once

#include "probe/devstat.h"
#include "stack/capture.h" /* the layers' captures it gathers */

#include <json-c/json.h>
#include <stdbool.h>

/* extra.config for the file system mounted at dir over the devices st
 * (NULL: none known). log_fd >= 0: the programs' output also goes there.
 * Never fails as a whole: what could not be read is left out. */
json_object *sb_effconf_capture(const char *dir, const struct sb_devstack *st, int log_fd);

/* xfs_info's "section=value key=value, key=value" lines into
 * {"data.bsize": "4096", ...} (values as text; device paths left out). */
json_object *sb_effconf_parse_xfs_info(const char *text);
/* "Key:   value" (dumpe2fs -h) or "key\t\tvalue" (btrfs dump-super) lines
 * whose key is in keys (NULL-terminated) into {"Key": "value"}. */
json_object *sb_effconf_parse_keys(const char *text, char sep, const char *const *keys);
/* Does a kernel log message mention one of the names as a word
 * ("loop5" but not "loop50")? */
bool sb_effconf_mentions(const char *msg, const char *const *names, size_t n);
