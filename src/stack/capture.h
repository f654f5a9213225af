/* The capture interface: a stack layer's reading of the effective state of
 * its devices (md's array state, LVM's pe_start, every device's queue) or of
 * the file system mounted on them (mount options, geometry), declared in the layer's
 * file beside its other facts (struct sb_layer.capture) and gathered into
 * extra.config by workload/effconf.c, with the rows the report compares
 * (extra.config.rows): the layer alone knows which of its fields are
 * configuration and which change from run to run. It lives in stack/ so
 * that the layers need nothing from workload/: the dependency runs from
 * workload/ down. */
#pragma once

#include "probe/devstat.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

struct sb_capture {
	const char *key; /* "md": its object in extra.config */
	/* the devices it reads (sb_devstack's type: "md"); NULL: every one */
	const char *type;
	/* Adds what it reads of device st->dev[i] to into (its key's object,
	 * left out of extra.config when it stays empty). */
	void (*fn)(json_object *into, const struct sb_devstack *st, size_t i, int log_fd);
	/* Adds to rows what fn read (captured: its key's object) as
	 * comparable {"KEYn.field": "text"} pairs, n the device's place among
	 * this layer's devices rather than its name (device numbers change
	 * between variants). NULL: sb_capture_rows with skip. */
	void (*rows)(json_object *rows, const struct sb_capture *c, json_object *captured);
	/* Fields the default rows leave out: counters and states that change
	 * from run to run, identities (NULL-terminated, or NULL). */
	const char *const *skip;
	/* Or (fn NULL) what it reads of the file system mounted at dir: into
	 * is its key's object itself ({"fstype": "xfs"}), not one per device. */
	void (*mounted)(json_object *into, const char *dir, int log_fd);
	/* The profile parameters its rows follow: a variant that changes one
	 * of them asked for any difference in the rows of this layer (KEY's
	 * rows, "KEYn.field"): "fs.type", or "md*" for every parameter whose
	 * name starts with md. NULL-terminated, or NULL. */
	const char *const *follows;
	/* They follow only when a row is there on one side alone: a member
	 * taken out of an array is no longer captured, while a setting that
	 * differs on both sides is still a surprise. */
	bool follows_gone_only;
	/* A parameter word equal to key does not ask for all of its rows
	 * (mount options are asked for one by one). */
	bool no_section_word;
};
/* What c says its rows follow, as the object extra.config.follows holds
 * under its key ({"params": [...], "gone_only": false, "section_word":
 * true}); nothing when it says nothing. */
void sb_capture_follows(json_object *follows, const struct sb_capture *c);
/* The default rows: every scalar field of each device's object, but those
 * in c->skip, as "KEYn.field" (n its place in captured). */
void sb_capture_rows(json_object *rows, const struct sb_capture *c, json_object *captured);
/* Adds "value" under key to rows, numbers as their text (NULL: nothing). */
void sb_capture_row(json_object *rows, const char *key, json_object *value);
/* The layers' captures in the order of extra.config's rows: the mounted
 * file system's first, every device's queue last (stack/exec.c). */
size_t sb_layer_captures(const struct sb_capture **out, size_t max);
/* A program's stdout (malloc'ed), run with a time limit, its output also to
 * log_fd (>= 0); NULL when it failed. */
char *sb_capture_run(const char *const *argv, int log_fd);
/* `pvs --noheadings --nosuffix --units b -o pv_name,pe_start` lines
 * ("  /dev/sdb  1048576") into {"sdb": 1048576}; other lines are left out
 * (LVM's capture; pure, unit-tested and fuzzed). */
json_object *sb_capture_parse_pvs(const char *text);
/* xfs_info's "section=value key=value, key=value" lines into
 * {"data.bsize": "4096", ...} (values as text; device paths left out). */
json_object *sb_capture_parse_xfs_info(const char *text);
/* "Key:   value" (dumpe2fs -h) or "key\t\tvalue" (btrfs dump-super) lines
 * whose key is in keys (NULL-terminated) into {"Key": "value"}. */
json_object *sb_capture_parse_keys(const char *text, char sep, const char *const *keys);
