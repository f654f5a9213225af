/* The host's round floor: the SD of one round's effect (per cent, per
 * headline row label) that the A/A calibration measured on this host
 * (bench/aa-calibration.py --save), kept in the state directory as
 * SB_FLOOR_FILE. `run` records it with a side-by-side schedule, and
 * `report` floors each row's effect SE with it (report --round-floor
 * overrides). The file:
 *   {"version": 1, "rows": {"Random Read": 1.07, "Random Write": 0.78},
 *    "trials": 10, "measured": "2026-12-07T15:25:00Z", "how": "..."}
 * rows: 1 to SB_FLOOR_MAX_ROWS labels (1 to 200 bytes), each a per cent
 * above 0 and at most 100; trials (2 to 1000000), measured and how (text,
 * at most 200 bytes) optional; any other member is refused (a misspelt
 * one would be a floor silently not applied). */
#pragma once
#include <json-c/json.h>
#include <stddef.h>

#define SB_FLOOR_FILE "round-floor.json"
#define SB_FLOOR_MAX_BYTES (64u << 10)
#define SB_FLOOR_MAX_ROWS 256

/* Checks the object as the file holds it (path names it in messages,
 * NULL: "round_floor"): 0, or -EINVAL with *err (allocated) naming the
 * member and what was expected. Also what report checks of a recorded one. */
int sb_floor_check(json_object *o, const char *path, char **err);
/* Parses the file's text (file names it in messages): 0 with *out (new
 * reference), -EINVAL with *err, -ENOMEM. */
int sb_floor_parse(const char *text, size_t len, const char *file, json_object **out, char **err);
/* Reads path: 0 with *out; -ENOENT when there is no such file (no floor
 * kept: not an error); -EINVAL with *err (not a regular file, too large,
 * not valid); other -errno. */
int sb_floor_read(const char *path, json_object **out, char **err);
/* The floor of a row label in a checked object (per cent), 0 when none. */
double sb_floor_pct(json_object *o, const char *label);
