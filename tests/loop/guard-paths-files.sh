#!/bin/bash
# Paths not the run's own. `bench --bonnie FILE` follows no symlink (at
# FILE or on the way to it) and overwrites nothing; `--results` is walked
# component by component, so a symlink in the middle of it is refused like
# one at its end; a loop directory that is the state directory, inside it
# or above it is refused (exit 2); one without room for the images when
# full is refused with both sizes (exit 3). Nothing is written in each case.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
cd "$SB_TOP"

# --bonnie: a symlink to a file, a file already there, a symlinked directory.
mkdir "$SB_TMP/d" "$SB_TMP/real"
echo precious >"$SB_TMP/target"
ln -s "$SB_TMP/target" "$SB_TMP/link.csv"
expect_exit 2 "$STACKBENCH" bench "$SB_TMP/d" --workload meta,files=1 --quick --bonnie "$SB_TMP/link.csv"
assert_contains "$OUT" "$SB_TMP/link.csv: refusing: it exists" "--bonnie on a symlink"
expect_exit 2 "$STACKBENCH" bench "$SB_TMP/d" --workload meta,files=1 --quick --bonnie "$SB_TMP/target"
assert_contains "$OUT" "$SB_TMP/target: refusing: it exists" "--bonnie on a file there"
ln -s "$SB_TMP/real" "$SB_TMP/hop"
expect_exit 2 "$STACKBENCH" bench "$SB_TMP/d" --workload meta,files=1 --quick --bonnie "$SB_TMP/hop/x.csv"
assert_contains "$OUT" "refusing: its directory is a symbolic link, or a path through one" "--bonnie through a symlinked directory"
assert_eq "$(cat "$SB_TMP/target")" precious "the symlink's target"
[ -z "$(ls -A "$SB_TMP/real")" ] || fail "written through the symlinked directory"
# ... and a new file is written
expect_exit 0 "$STACKBENCH" bench "$SB_TMP/d" --workload meta,files=1 --quick --bonnie "$SB_TMP/new.csv"
[ -f "$SB_TMP/new.csv" ] && [ ! -L "$SB_TMP/new.csv" ] && grep -q , "$SB_TMP/new.csv" || fail "--bonnie: no CSV line in a new file"
pass_msg "--bonnie follows no symlink and overwrites nothing"

# --results with a symlink in the middle: refused, nothing written there.
expect_exit 3 "$STACKBENCH" run single-disk --loop --quick -o workloads.run=command:true -o fs.type=ext4 \
	--results "$SB_TMP/hop/res"
assert_contains "$OUT" "cannot use it for the results: is a symbolic link, or a path through one" "--results through a symlink"
[ -z "$(ls -A "$SB_TMP/real")" ] || fail "results written through the symlink: $(ls -A "$SB_TMP/real")"
# the same for bench
expect_exit 1 "$STACKBENCH" bench "$SB_TMP/d" --workload meta,files=1 --quick --results "$SB_TMP/hop/bres"
[ ! -e "$SB_TMP/real/bres/result.json" ] || fail "bench results written through the symlink"
nothing_left "results through a symlink"
pass_msg "--results: a symlink in the middle is refused"

# The loop directory and the state directory apart.
mkdir -p "$STACKBENCH_STATE_DIR"
for ld in "$STACKBENCH_STATE_DIR" "$STACKBENCH_STATE_DIR/" "$STACKBENCH_STATE_DIR/loops" "$SB_TMP" "$SB_TMP/hop/../state/x"; do
	expect_exit 2 "$STACKBENCH" run single-disk --loop --quick --loop-dir "$ld" -o workloads.run=command:true -o fs.type=ext4 --results "$SB_TMP/r2"
	assert_contains "$OUT" "refusing it as the loop directory: it is" "--loop-dir $ld"
	expect_exit 2 "$STACKBENCH" plan single-disk --loop --quick --loop-dir "$ld" -o workloads.run=command:true
done
[ -z "$(ls -A "$STACKBENCH_STATE_DIR")" ] || fail "a refused run left state"
[ ! -e "$SB_TMP/r2" ] || fail "a refused run made its results directory"
pass_msg "a loop directory in, at or above the state directory is refused"

# A loop directory without room for the images when full (a 16M ext4).
small=$(new_loop small 16M)
SB_LOOPS+=("$small")
mkfs.ext4 -q "$small"
mkdir "$SB_TMP/smallfs"
mount "$small" "$SB_TMP/smallfs"
SB_CLEANUPS+=("umount $SB_TMP/smallfs")
expect_exit 3 "$STACKBENCH" run single-disk --loop --quick --loop-dir "$SB_TMP/smallfs/l" -o workloads.run=command:true -o fs.type=ext4 --results "$SB_TMP/r3"
assert_contains "$OUT" "$SB_TMP/smallfs/l: refusing: " "no room"
assert_contains "$OUT" "free (" "no room: the free space"
assert_contains "$OUT" "the loop images of variant default need up to" "no room: what is needed"
expect_exit 0 "$STACKBENCH" plan single-disk --loop --quick --loop-dir "$SB_TMP/smallfs/l" -o workloads.run=command:true -o fs.type=ext4
assert_contains "$OUT" "run would refuse it: " "plan warns of the room"
[ ! -e "$SB_TMP/smallfs/l" ] || fail "a refused run made the loop directory"
[ -z "$(ls -A "$STACKBENCH_STATE_DIR")" ] || fail "a refused run left state"
pass_msg "a loop directory without room for the images is refused with the sizes"
