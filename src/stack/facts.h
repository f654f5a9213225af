/* The typed answers a layer gives the others: a fact one layer needs of
 * another's keys is asked here, never looked up by the key's name, so that
 * renaming a key breaks the build instead of a rule (tools/lint-keys).
 * Each is defined in the file of the layer that owns the keys. Pure. */
#pragma once

#include "profile/profile.h"

#include <stdbool.h>
#include <stdint.h>

/* scenario_check.c: is the integrity check on for this variant
 * (scenario.integrity; auto: md with redundancy, or btrfs RAID)? */
bool sb_scen_integrity_on(const struct sb_config *c);
/* scenario_check.c: scenario.rebuild-limit (ms), the longest wait for a
 * rebuild or a check to end; scenario.integrity-quick (bytes), how much of
 * the array md's check covers under --quick (0: all). */
uint64_t sb_scen_rebuild_limit_ms(const struct sb_config *c);
uint64_t sb_scen_integrity_quick(const struct sb_config *c);
/* precond.c: devices.precondition ("none", "trim" or "steady"). */
const char *sb_precond_mode(const struct sb_config *c);
/* loop.c: does --loop build the 'any' devices as emulated arrays
 * (devices.loop.emulate)? */
bool sb_loop_emulates(const struct sb_config *c);
/* part.c: the roles partition.on splits, as the profile wrote them. */
const char *sb_part_on_text(const struct sb_config *c);
/* lvm.c: is the LVM layer on ([lvm] given, lvm.enable)? */
bool sb_lvm_on(const struct sb_config *c);
/* md.c: does the array keep an internal write-intent bitmap (md.bitmap)? */
bool sb_md_bitmap_internal(const struct sb_config *c);
/* mount.c: the id of mount.options (the key a refused option blames). */
int sb_mount_key_options(void);
/* fs.c: fs.type ("xfs"); the role of the log's own device (fs.log), or -1;
 * the id of a key other layers blame. */
const char *sb_fs_type_name(const struct sb_config *c);
int sb_fs_log_role(const struct sb_config *c);
enum sb_fs_keyname { SB_FS_KEY_MKFS, SB_FS_KEY_LOG };
int sb_fs_key(enum sb_fs_keyname k);
