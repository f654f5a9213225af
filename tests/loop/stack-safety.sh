#!/bin/bash
# Safety: a loop device with ext4 mounted, one with an ext4 signature, one
# read-only are refused (exit 3, every reason listed) and their bytes do not
# change; --wipe lifts only the signature reason; no --yes without a terminal
# is refused; a device whose class fits no role is refused with the reason.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
cd "$SB_TOP"
WL=(-o workloads.run=command:true -o fs.type=ext4)

mounted=$(new_loop mounted 64M)
SB_LOOPS+=("$mounted") # new_loop runs in a subshell here
mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 "$mounted"
mkdir "$SB_TMP/mnt"
# Read-only, so that the kernel itself does not change the bytes we compare.
mount -o ro "$mounted" "$SB_TMP/mnt"
# Unmounted for real (not lazily) so that its loop device can be detached.
SB_CLEANUPS+=("umount $SB_TMP/mnt")
sig=$(new_loop sig 64M)
SB_LOOPS+=("$sig") # new_loop runs in a subshell here
mkfs.ext4 -q "$sig"
ro=$(new_loop ro 64M)
SB_LOOPS+=("$ro") # new_loop runs in a subshell here
blockdev --setro "$ro"
# The flag outlives the attachment: give the next user a writable device.
SB_CLEANUPS+=("blockdev --setrw $ro")
plain=$(new_loop plain 64M)
SB_LOOPS+=("$plain") # new_loop runs in a subshell here

sum() { md5sum <"$1" | cut -d' ' -f1; }
before_m=$(sum "$mounted") before_s=$(sum "$sig") before_r=$(sum "$ro")

expect_exit 3 "$STACKBENCH" run single-disk --devices "$mounted" --yes "${WL[@]}"
assert_contains "$OUT" "$mounted: refusing: mounted on $SB_TMP/mnt" "mounted"
assert_contains "$OUT" "carries signatures: ext4" "mounted device: every reason"
expect_exit 3 "$STACKBENCH" run single-disk --devices "$mounted" --yes --wipe "${WL[@]}"
assert_contains "$OUT" "mounted on" "--wipe does not lift mounted"
expect_exit 3 "$STACKBENCH" run single-disk --devices "$sig" --yes "${WL[@]}"
assert_contains "$OUT" "$sig: refusing: carries signatures: ext4" "signature"
expect_exit 3 "$STACKBENCH" run single-disk --devices "$ro" --yes "${WL[@]}"
assert_contains "$OUT" "$ro: refusing: read-only" "read-only"
# Without --yes and no terminal: refused before anything is written.
expect_exit 3 "$STACKBENCH" run single-disk --devices "$sig" --wipe "${WL[@]}"
assert_contains "$OUT" "give --yes" "confirmation"
assert_contains "$OUT" "signature: ext4" "shows what will be destroyed"

assert_eq "$(sum "$mounted")" "$before_m" "mounted device unchanged"
assert_eq "$(sum "$sig")" "$before_s" "signature device unchanged"
assert_eq "$(sum "$ro")" "$before_r" "read-only device unchanged"
[ -z "$(ls -A "$STACKBENCH_STATE_DIR" 2>/dev/null)" ] || fail "refused runs created state"
pass_msg "mounted, signature, read-only refused with exit 3, bytes unchanged"

# A class that fits no role: btrfs-raid1-partitions needs an ssd.
echo 1 >"/sys/block/${plain#/dev/}/queue/rotational"
expect_exit 3 "$STACKBENCH" run btrfs-raid1-partitions --devices "$plain" --yes -o workloads.run=command:true
assert_contains "$OUT" "role 'ssd' needs 1 device, 0 fit ($plain is rotational)" "role refused"
pass_msg "role mismatch refused with the reason"

# --wipe lifts the signature reason: the run goes ahead and wipes it.
expect_exit 0 "$STACKBENCH" run single-disk --devices "$sig" --wipe --yes "${WL[@]}" --results "$SB_TMP/res"
[ -z "$(blkid -p "$sig" 2>/dev/null)" ] || fail "signature left after the run: $(blkid -p "$sig")"
! findmnt -rn -o TARGET | grep -qF "$STACKBENCH_STATE_DIR" || fail "--wipe run: mount left"
[ -z "$(ls -A "$STACKBENCH_STATE_DIR")" ] || fail "--wipe run: state left: $(ls -A "$STACKBENCH_STATE_DIR")"
pass_msg "--wipe accepts a device with signatures"

# Another holder of the device's lock (a tool that keeps it): refused after
# the wait, untouched. (A holder that is a run: stack-lock-wait.sh.)
before_p=$(sum "$plain")
echo 0 >"/sys/block/${plain#/dev/}/queue/rotational"
exec 9<"$plain"
flock -x 9
expect_exit 3 "$STACKBENCH" run single-disk --devices "$plain" --yes "${WL[@]}"
assert_contains "$OUT" "$plain: refusing: another program" "locked device"
exec 9<&-
assert_eq "$(sum "$plain")" "$before_p" "locked device unchanged"
pass_msg "a device locked by another program is refused"

# Programs missing: all reported with their package, nothing touched.
mkdir "$SB_TMP/emptybin"
PATH="$SB_TMP/emptybin" expect_exit 1 "$STACKBENCH" run single-disk --loop --quick -o workloads.run=command:true
assert_contains "$OUT" "mkfs.ext4: not found (install the Debian package e2fsprogs)" "ext4 tools"
assert_contains "$OUT" "mkfs.xfs: not found (install the Debian package xfsprogs)" "xfs tools"
[ -z "$(ls -A "$STACKBENCH_STATE_DIR" 2>/dev/null)" ] || fail "missing programs: state created"
pass_msg "missing programs reported at once with their packages"

# On a terminal: the device names typed back confirm; anything else refuses.
if command -v script >/dev/null; then
	sumb=$(sum "$plain")
	cmd="$STACKBENCH run single-disk --devices $plain -o fs.type=ext4 -o workloads.run=command:true --results $SB_TMP/res-tty"
	rc=0
	(sleep 0.5; echo "/dev/wrong") | script -qec "$cmd" /dev/null >"$SB_TMP/tty1" 2>&1 || rc=$?
	[ $rc -eq 3 ] || fail "wrong name typed: exit $rc: $(cat "$SB_TMP/tty1")"
	grep -q "is not one of the devices" "$SB_TMP/tty1" || fail "wrong name: $(cat "$SB_TMP/tty1")"
	assert_eq "$(sum "$plain")" "$sumb" "device unchanged after a wrong confirmation"
	rc=0
	(sleep 0.5; echo "$plain") | script -qec "$cmd" /dev/null >"$SB_TMP/tty2" 2>&1 || rc=$?
	[ $rc -eq 0 ] || fail "right name typed: exit $rc: $(cat "$SB_TMP/tty2")"
	pass_msg "typed confirmation on a terminal"
fi
