#!/bin/bash
# Devices with nothing on them, and journals whose devices are gone. A
# 0-byte loop device (and a detached one), one below any stack's minimum
# and one below the profile's file system's are refused at the verdict
# with their sizes (exit 3, nothing written). A journal whose objects are
# gone is cleared by `teardown --all` (exit 0, journal removed), which says
# what was undone and what was already gone: a --loop run killed mid-run
# whose loop devices and images then vanished (a reboot that emptied the
# loop directory), and a journal an earlier version wrote against an empty
# loop device (its undo failed with EIO for ever). An object that is not
# ours any more is left alone and said so (exit 1, journal kept).
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
cd "$SB_TOP"
WL=(-o workloads.run=command:true -o fs.type=ext4)

empty=$(new_loop empty 0)
SB_LOOPS+=("$empty")
tiny=$(new_loop tiny 512K)
SB_LOOPS+=("$tiny")
small=$(new_loop small 64M)
SB_LOOPS+=("$small")
expect_exit 0 "$STACKBENCH" probe "$empty" "$tiny"
assert_contains "$OUT" "refused: empty (0 bytes)" "probe: 0-byte device"
assert_contains "$OUT" "refused: too small: 512K (524288 bytes), any stack needs at least 1M (1048576 bytes)" "probe: tiny"
expect_exit 3 "$STACKBENCH" run single-disk --devices "$empty" --yes --wipe "${WL[@]}"
assert_contains "$OUT" "$empty: refusing: empty (0 bytes)" "run: 0-byte device"
expect_exit 3 "$STACKBENCH" run single-disk --devices "$small" --yes -o workloads.run=command:true -o fs.type=xfs
assert_contains "$OUT" "$small: refusing: too small: 64M (67108864 bytes), xfs needs at least 300M (314572800 bytes)" "run: below xfs's minimum"
# plan says so too, before anything runs (and mkfs.xfs's own dry run
# refuses the size: exit 2, with its words)
expect_exit 2 "$STACKBENCH" plan single-disk --devices "$small" -o workloads.run=command:true -o fs.type=xfs
assert_contains "$OUT" "run would refuse it: too small" "plan: below xfs's minimum"
assert_contains "$OUT" "Filesystem must be larger than 300MB" "plan: mkfs.xfs's dry run"
[ -z "$(blkid -p "$small" 2>/dev/null)" ] || fail "a refused run wrote $small"
# A detached loop device (the next free one), without --yes: whatever
# happens to it meanwhile, nothing is written.
free=$(losetup --find)
rc=0
out=$("$STACKBENCH" run single-disk --devices "$free" "${WL[@]}" 2>&1) || rc=$?
if [ -z "$(losetup -n -O BACK-FILE "$free" 2>/dev/null)" ]; then
	assert_eq "$rc" 3 "run on the detached $free"
	assert_contains "$out" "$free: refusing: empty (0 bytes): a loop device with nothing attached" "detached"
fi
[ -z "$(ls -A "$STACKBENCH_STATE_DIR" 2>/dev/null)" ] || fail "refused runs created state"
pass_msg "empty, detached and too small devices are refused with their sizes"

# A --loop run killed mid-run; then its loop devices and images vanish.
"$STACKBENCH" run single-disk --loop --quick -o "workloads.run=command:sleep 60" -o fs.type=ext4 \
	--results "$SB_TMP/r1" >"$SB_TMP/run1.out" 2>&1 &
kill_mid_run $!
for l in $(losetup -n -O NAME,BACK-FILE | awk -v t="$STACKBENCH_LOOP_DIR/" 'index($2, t) == 1 {print $1}'); do
	losetup -d "$l"
done
find "$STACKBENCH_LOOP_DIR" -name '*.img' -delete
expect_exit 0 "$STACKBENCH" teardown --all
assert_contains "$OUT" "already gone (skipped))" "teardown says what was gone"
[ -z "$(find "$STACKBENCH_STATE_DIR" -name 'journal*')" ] || fail "journal left"
! findmnt -rn -o TARGET | grep -F "$STACKBENCH_STATE_DIR" >/dev/null || fail "mount left"
expect_exit 0 "$STACKBENCH" teardown --all
assert_contains "$OUT" "nothing to tear down" "a second teardown"
pass_msg "a journal whose loop devices and images are gone is cleared"

# journal ID DEV IDENT: a run directory as an earlier version left it, with
# one mkfs step on DEV that began and never finished.
journal() {
	local d=$STACKBENCH_STATE_DIR/$1
	mkdir -p "$STACKBENCH_STATE_DIR" "$d" && chmod 0700 "$STACKBENCH_STATE_DIR" "$d"
	: >"$d/lock"
	printf '%s\n' \
		"{\"journal\":\"stackbench\",\"version\":1,\"run\":\"$1\",\"pid\":1,\"created\":\"2026-01-01T00:00:00Z\"}" \
		"{\"rec\":\"begin\",\"step\":1,\"kind\":\"mkfs\",\"args\":{\"type\":\"ext4\",\"devs\":[\"$2\"],\"opts\":[],\"log_size\":0},\"ident\":{\"$2\":$3}}" \
		>"$d/journal"
	chmod 0600 "$d/journal"
}
# ... against a detached loop device (the next free one: should another
# program attach it meanwhile, its size differs and it is left alone)
free=$(losetup --find)
mm=$(cat "/sys/block/${free#/dev/}/dev")
journal 20260101-000000-1 "$free" "{\"rdev\":\"$mm\",\"size\":0}"
rc=0
out=$("$STACKBENCH" teardown --all 2>&1) || rc=$?
if [ -z "$(losetup -n -O BACK-FILE "$free" 2>/dev/null)" ]; then
	assert_eq "$rc" 0 "teardown of a journal naming the detached $free: $out"
	assert_contains "$out" "20260101-000000-1: torn down (0 undone, 1 already gone (skipped))" "detached device's journal"
	[ ! -e "$STACKBENCH_STATE_DIR/20260101-000000-1" ] || fail "journal of the detached device kept"
fi
rm -rf "${STACKBENCH_STATE_DIR:?}/20260101-000000-1"
# ... and against a 0-byte one of ours
mm=$(cat "/sys/block/${empty#/dev/}/dev")
journal 20260101-000000-3 "$empty" "{\"rdev\":\"$mm\",\"size\":0}"
expect_exit 0 "$STACKBENCH" teardown --all
assert_contains "$OUT" "20260101-000000-3: torn down (0 undone, 1 already gone (skipped))" "empty device's journal"
[ ! -e "$STACKBENCH_STATE_DIR/20260101-000000-3" ] || fail "journal of the empty device kept"
pass_msg "a journal naming an empty device is cleared"

# Not ours any more (another device number under the name): left alone.
before=$(md5sum <"$small")
journal 20260101-000000-2 "$small" '{"rdev":"7:250","size":67108864}'
expect_exit 1 "$STACKBENCH" teardown --all
assert_contains "$OUT" "left alone" "a device not ours"
assert_contains "$OUT" "20260101-000000-2: 0 undone, 0 already gone (skipped), 1 left alone (not ours)" "what was not undone"
[ -e "$STACKBENCH_STATE_DIR/20260101-000000-2/journal" ] || fail "journal removed though an object is not ours"
assert_eq "$(md5sum <"$small")" "$before" "the device not ours unchanged"
rm -rf "${STACKBENCH_STATE_DIR:?}/20260101-000000-2"
pass_msg "an object that is not ours is left alone, said, the journal kept"

# A loop node left read-only: blockdev --setro outlives the attachment (a
# test killed before its cleanup left one, and every --loop run that got
# the node then failed at mkfs with EPERM). Our own node, set read-only and
# detached: alone here, it is the lowest free one, so the run's image gets
# it; the run sets it read-write for its image and says so in run.log.
left=$(new_loop left 8M)
blockdev --setro "$left"
SB_CLEANUPS+=("blockdev --setrw $left")
losetup -d "$left"
[ "$(blockdev --getro "$left")" = 1 ] || fail "$left: the read-only flag did not outlive the attachment"
[ "$(losetup --find)" = "$left" ] || skip "$left is not the lowest free loop device (another program took one)"
expect_exit 0 "$STACKBENCH" run single-disk --loop --quick "${WL[@]}" --results "$SB_TMP/r-ro"
assert_contains "$(cat "$SB_TMP/r-ro/run.log")" "attached as $left" "the run got the read-only node"
assert_contains "$(cat "$SB_TMP/r-ro/run.log")" "$left: was read-only (blockdev --setro left on the node by an earlier user): set read-write" "run.log says so"
! losetup -a | grep -F "$STACKBENCH_LOOP_DIR" >/dev/null || fail "the run's loop devices left: $(losetup -a)"
no_journal_left "after the run on a node left read-only" "$STACKBENCH_STATE_DIR"
pass_msg "a loop node left read-only is set read-write for the run's own image"
