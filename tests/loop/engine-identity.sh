#!/bin/bash
# Identity in the journal, exclusive opens, loop devices that behave like
# disks:
#  1. a run on a named loop device killed with -9 mid-workload; the device
#     detached and another image attached under the SAME /dev/loopN; then
#     `teardown --all` leaves the other image byte-identical, keeps the
#     journal, exits non-zero and says what differs;
#  2. a journal whose loop record names a backing file outside its run
#     directory deletes nothing (and neither does one damaged in the middle);
#  3. a device another program holds open O_EXCL is refused (exit 3, the
#     holder named) and its bytes do not change;
#  4. a --loop run's devices have loop/dio = 1 and backing files outside
#     tmpfs; a loop directory on tmpfs is refused unless named on purpose;
#  5. teardown acts on run directories only (lost+found stays).
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
need_prog python3
cd "$SB_TOP"

sum() { sha256sum <"$1" | cut -d' ' -f1; }

# ---- 1. kill -9, another image under the same name, teardown --all ----
dev=$(new_loop disk 128M)
SB_LOOPS+=("$dev") # new_loop runs in a subshell here
"$STACKBENCH" run single-disk --devices "$dev" --yes -o fs.type=ext4 \
	-o "workloads.run=command:sleep 60" --results "$SB_TMP/res1" -q >/dev/null 2>&1 &
kill_mid_run $!
# Another image of the same size under the same name: same device number,
# same size, another backing file. Made before the detach, so that the
# number is free only for the moment losetup takes to attach it again (a
# neighbour's losetup --find may take it then: the attach below retries,
# and fails the test rather than touch the neighbour's device).
truncate -s 128M "$SB_TMP/other.img"
mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 "$SB_TMP/other.img"
uuid_before=$(blkid -o value -s UUID "$SB_TMP/other.img")
losetup -d "$dev"
for _ in $(seq 20); do losetup "$dev" "$SB_TMP/other.img" 2>/dev/null && break; sleep 0.1; done
[ "$(losetup -n -O BACK-FILE "$dev")" = "$SB_TMP/other.img" ] || fail "could not attach the other image at $dev"
before=$(sum "$SB_TMP/other.img")

expect_exit 1 "$STACKBENCH" teardown --all
assert_contains "$OUT" "$dev: not ours: backing file inode" "teardown says what differs"
assert_contains "$OUT" "left alone" "teardown leaves it alone"
assert_contains "$OUT" "journal kept" "the journal is kept"
ls "$STACKBENCH_STATE_DIR"/*/journal >/dev/null 2>&1 || fail "journal removed after a mismatch"
# Twice: the same answer, still nothing touched.
expect_exit 1 "$STACKBENCH" teardown --all
assert_contains "$OUT" "$dev: not ours" "second teardown"
# Read-only, never rw: the image's bytes must not change by our looking.
mkdir "$SB_TMP/ro"
mount -o ro,noload "$dev" "$SB_TMP/ro"
umount "$SB_TMP/ro"
losetup -d "$dev"
[ "$(sum "$SB_TMP/other.img")" = "$before" ] || fail "teardown changed the other image"
[ "$(blkid -o value -s UUID "$SB_TMP/other.img")" = "$uuid_before" ] || fail "other image's file system changed"
rm -rf "${STACKBENCH_STATE_DIR:?}"/*
pass_msg "replaced device: left alone, journal kept, exit 1"

# ---- 2. journals that must not be trusted delete nothing ----
mkdir -p "$STACKBENCH_STATE_DIR/20260101-000000-1"
chmod 700 "$STACKBENCH_STATE_DIR" "$STACKBENCH_STATE_DIR/20260101-000000-1"
echo precious >"$SB_TMP/victim.img"
j="$STACKBENCH_STATE_DIR/20260101-000000-1/journal"
printf '%s\n' '{"journal":"stackbench","version":1,"run":"20260101-000000-1","pid":1}' \
	"{\"rec\":\"begin\",\"step\":1,\"kind\":\"loop\",\"args\":{\"file\":\"$SB_TMP/victim.img\",\"dir\":\"$SB_TMP\",\"size\":1048576,\"var\":\"any\"}}" >"$j"
expect_exit 1 "$STACKBENCH" teardown --all
assert_contains "$OUT" "lies outside the run directory" "outside path refused"
assert_contains "$OUT" "nothing was touched" "refused as a whole"
[ "$(cat "$SB_TMP/victim.img")" = precious ] || fail "a file outside the run directory was deleted"
# A damaged line in the middle: refused, the mount point it names stays.
mkdir "$STACKBENCH_STATE_DIR/20260101-000000-1/mnt"
printf '%s\n' '{"journal":"stackbench","version":1,"run":"20260101-000000-1","pid":1}' \
	"{\"rec\":\"begin\",\"step\":1,\"kind\":\"mount\",\"args\":{\"devs\":[\"/dev/nonexistent\"],\"dir\":\"$STACKBENCH_STATE_DIR/20260101-000000-1/mnt\",\"type\":\"xfs\"}}" \
	'garbage' '{"rec":"done","step":1,"result":{}}' >"$j"
expect_exit 1 "$STACKBENCH" teardown --all
assert_contains "$OUT" "line 3 is damaged" "corrupt middle line refused"
[ -d "$STACKBENCH_STATE_DIR/20260101-000000-1/mnt" ] || fail "a refused journal was acted on"
rm -rf "${STACKBENCH_STATE_DIR:?}"/*
pass_msg "journal pointing outside its run directory, or damaged in the middle: nothing touched"

# ---- 3. held open O_EXCL by another program: refused, unchanged ----
held=$(new_loop held 64M)
SB_LOOPS+=("$held")
before=$(sum "$SB_TMP/held.img")
hold_excl "$held"
holder=$HOLDER
expect_exit 3 "$STACKBENCH" run single-disk --devices "$held" --yes -o fs.type=ext4 \
	-o workloads.run=command:true --results "$SB_TMP/res3"
# (refused at the verdict, or by the O_EXCL proof right before the write)
assert_contains "$OUT" "held open exclusively by" "O_EXCL holder refused"
assert_contains "$OUT" "pid $holder (python3)" "holder named"
kill $holder
wait $holder 2>/dev/null || true
[ "$(sum "$SB_TMP/held.img")" = "$before" ] || fail "a device held by another program was written"
losetup -d "$held"
nothing_left "after the refusal"
pass_msg "device held O_EXCL by another program: exit 3, holder named, bytes unchanged"

# ---- 4. --loop: direct I/O, backing files on a disk file system ----
cat >"$SB_TMP/check.sh" <<'EOS'
#!/bin/sh
set -e
src=$(findmnt -n -o SOURCE --target .)
n=${src#/dev/}
back=$(cat /sys/block/$n/loop/backing_file)
echo "dio=$(cat /sys/block/$n/loop/dio) fs=$(stat -f -c %T "$(dirname "$back")") back=$back" >>"$LOG"
EOS
chmod +x "$SB_TMP/check.sh"
export LOG="$SB_TMP/seen.log"
mkdir "$SB_TMP/loops"
expect_exit 0 "$STACKBENCH" run single-disk --loop --quick --loop-dir "$SB_TMP/loops" -o fs.type=ext4 \
	-o "workloads.run=command:$SB_TMP/check.sh" --results "$SB_TMP/res4"
assert_contains "$(cat "$LOG")" "dio=1" "loop attached with direct I/O"
assert_contains "$(cat "$LOG")" "back=$SB_TMP/loops/" "backing file in the loop directory"
assert_not_contains "$(cat "$LOG")" "fs=tmpfs" "backing file not on tmpfs"
[ -z "$(ls -A "$SB_TMP/loops")" ] || fail "backing files left: $(ls -A "$SB_TMP/loops")"
nothing_left "after the --loop run"
# A loop directory on tmpfs: refused by default, accepted when named.
mkdir "$SB_TMP/ram"
mount -t tmpfs -o size=512M tmpfs "$SB_TMP/ram"
SB_MOUNTS+=("$SB_TMP/ram")
STACKBENCH_LOOP_DIR="$SB_TMP/ram" expect_exit 3 "$STACKBENCH" run single-disk --loop --quick \
	-o fs.type=ext4 -o workloads.run=command:true --results "$SB_TMP/res5"
assert_contains "$OUT" "is on tmpfs (RAM)" "tmpfs refused"
[ -z "$(ls -A "$SB_TMP/ram")" ] || fail "a refused run wrote to the tmpfs: $(ls -A "$SB_TMP/ram")"
: >"$LOG"
expect_exit 0 "$STACKBENCH" run single-disk --loop --quick --loop-dir "$SB_TMP/ram" -o fs.type=ext4 \
	-o "workloads.run=command:$SB_TMP/check.sh" --results "$SB_TMP/res6"
assert_contains "$OUT" "measure memory, not a disk" "tmpfs named on purpose: warned"
assert_contains "$(cat "$LOG")" "fs=tmpfs" "tmpfs named on purpose: used"
[ -z "$(ls -A "$SB_TMP/ram")" ] || fail "backing files left on the tmpfs: $(ls -A "$SB_TMP/ram")"
umount "$SB_TMP/ram"
nothing_left "after the tmpfs runs"
pass_msg "--loop: dio=1, backing files on a disk file system; tmpfs only on purpose"

# 5. Only runs are torn down: a state directory that is a file system of
# its own has lost+found, and a user may keep notes there.
mkdir -p "$STACKBENCH_STATE_DIR/lost+found" "$STACKBENCH_STATE_DIR/notes"
echo keep >"$STACKBENCH_STATE_DIR/notes/README"
expect_exit 0 "$STACKBENCH" teardown --all
[ -d "$STACKBENCH_STATE_DIR/lost+found" ] && [ -f "$STACKBENCH_STATE_DIR/notes/README" ] ||
	fail "teardown --all removed what is not a run: $(ls -A "$STACKBENCH_STATE_DIR")"
expect_exit 2 "$STACKBENCH" teardown lost+found
assert_contains "$OUT" "'lost+found' is not a run id" "teardown NAME of a non-run"
rm -r "$STACKBENCH_STATE_DIR/lost+found" "$STACKBENCH_STATE_DIR/notes"
pass_msg "teardown acts only on run directories (lost+found and notes left alone)"
