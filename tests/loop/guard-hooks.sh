#!/bin/bash
# Test hooks cannot weaken a real run: with STACKBENCH_PROBE_ROOT pointing
# at a fake tree in which a really mounted loop device looks idle, run is
# refused before anything (exit 2) and the device is unchanged; teardown is
# refused too; probe keeps the hook. STACKBENCH_FAIL_STEP is refused by run
# with the default state directory (tests/loop/stack-fail.sh uses it with a
# state directory of its own).
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
cd "$SB_TOP"
sum() { md5sum <"$1" | cut -d' ' -f1; }

dev=$(new_loop mounted 64M)
SB_LOOPS+=("$dev")
mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 "$dev"
mkdir "$SB_TMP/mnt"
mount -o ro "$dev" "$SB_TMP/mnt"
SB_CLEANUPS+=("umount $SB_TMP/mnt")
name=${dev#/dev/}
before=$(sum "$dev")

# The fake tree: the same device, idle (no mounts, no holders, no signature).
fake="$SB_TMP/fake"
sys="/sys/devices/virtual/block/$name"
cat >"$SB_TMP/fake.tree" <<EOT
l /sys/class/block/$name ../../devices/virtual/block/$name
d $sys
f $sys/dev $(cat "/sys/class/block/$name/dev")
f $sys/size 131072
f $sys/ro 0
f $sys/removable 0
f $sys/queue/rotational 0
f $sys/queue/logical_block_size 512
f $sys/queue/physical_block_size 512
f $sys/loop/backing_file $SB_TMP/mounted.img
d $sys/holders
img /dev/$name 64M none
f /proc/swaps Filename	Type	Size	Used	Priority
f /proc/self/mountinfo
EOT
python3 "$SB_TOP/tests/golden/probe/mktree.py" "$SB_TMP/fake.tree" "$fake" || fail "fake tree"
out=$(STACKBENCH_PROBE_ROOT=$fake "$STACKBENCH" probe "$dev") || fail "probe with the hook"
assert_contains "$out" "usable" "the fake tree makes it look idle to probe"

expect_exit 2 env STACKBENCH_PROBE_ROOT="$fake" "$STACKBENCH" run single-disk --devices "$dev" --yes \
	-o fs.type=ext4 -o workloads.run=command:true --results "$SB_TMP/res"
assert_contains "$OUT" "run: refusing: STACKBENCH_PROBE_ROOT is set" "run refused"
expect_exit 2 env STACKBENCH_PROBE_ROOT="$fake" "$STACKBENCH" run single-disk --loop --quick \
	-o workloads.run=command:true --results "$SB_TMP/res2"
expect_exit 2 env STACKBENCH_PROBE_ROOT="$fake" "$STACKBENCH" teardown --all
assert_contains "$OUT" "teardown: refusing: STACKBENCH_PROBE_ROOT is set" "teardown refused"
assert_eq "$(sum "$dev")" "$before" "the mounted device is unchanged"
findmnt -rn -o SOURCE --target "$SB_TMP/mnt" | grep -qx "$dev" || fail "no longer mounted"
[ -z "$(ls -A "$STACKBENCH_STATE_DIR" 2>/dev/null)" ] || fail "a refused run created state"
[ ! -e "$SB_TMP/res" ] || fail "a refused run created its results directory"
pass_msg "STACKBENCH_PROBE_ROOT: run and teardown refused, the mounted device untouched"
umount "$SB_TMP/mnt"
losetup -d "$dev"

# STACKBENCH_FAIL_STEP with the default state directory: refused before
# anything (nothing is created under /var/lib/stackbench by this).
for sd in "" /var/lib/stackbench; do
	expect_exit 2 env STACKBENCH_STATE_DIR="$sd" STACKBENCH_FAIL_STEP=1 "$STACKBENCH" run single-disk --loop --quick \
		-o workloads.run=command:true --results "$SB_TMP/res3"
	assert_contains "$OUT" "STACKBENCH_FAIL_STEP is a test hook" "FAIL_STEP refused (state dir '$sd')"
done
# With a test's own state directory it works (stack-fail.sh proves every step).
STACKBENCH_FAIL_STEP=2 expect_exit 1 "$STACKBENCH" run single-disk --loop --quick \
	-o workloads.run=command:true --results "$SB_TMP/res4"
assert_contains "$OUT" "STACKBENCH_FAIL_STEP=2" "FAIL_STEP honoured in a test"
nothing_left "FAIL_STEP"
pass_msg "STACKBENCH_FAIL_STEP: only with a test's own state directory"
