#!/bin/bash
# vm-boot: own (tests the runner itself: its timeout, its disks, its exit status): tools/run-tests runs it once the loop tier is done
# vm-seconds: 70 (usual time in make check, 2 cores)
# The VM runner itself: the command's exit status, working directory, writable
# share, environment and udevd reach the guest and back; a hung guest is
# killed after the timeout; disk files are always removed.
. "$SB_TOP/tests/lib.sh"
RUN="$SB_TOP/contrib/vm/run"
why=$("$RUN" --check 2>/dev/null) || skip "${why:-VM runner cannot run here}"
export TMPDIR=$SB_TMP

mkdir -p "$SB_TMP/out" "$SB_TMP/cwd"
guest='set -e
echo "cwd=$PWD"
echo "var=$SB_VM_PROBE"
echo written >"$OUT/file"
touch /etc/sbvm-overlay-write   # the root is writable (tmpfs overlay), not the host
test -S /run/udev/control
udevadm settle
ssd=$(grep -l "^0$" /sys/block/sd*/queue/rotational | cut -d/ -f4)
udevadm info --query=property --name=/dev/$ssd | grep "^ID_SERIAL=.*sbvm-ssd1"
ls /dev/disk/by-id/ | grep sbvm-ssd1 >/dev/null
exit 42'
rc=0
OUTPUT=$(SB_VM_PROBE=from-host "$RUN" -t 600 --udev --cwd "$SB_TMP/cwd" --share "$SB_TMP/out" -e "OUT=$SB_TMP/out" \
	hdd:64M ssd:64M -- bash -c "$guest" 2>&1) || rc=$?
echo "$OUTPUT"
assert_eq "$rc" 42 "exit status of the guest command"
assert_contains "$OUTPUT" "cwd=$SB_TMP/cwd" "working directory"
assert_contains "$OUTPUT" "var=from-host" "SB_* variables pass through"
assert_eq "$(cat "$SB_TMP/out/file")" written "file written to the share"
[ ! -e /etc/sbvm-overlay-write ] || fail "the guest wrote to the host's root"

# A guest that hangs is killed; the runner says so and exits 124.
rc=0
OUTPUT=$("$RUN" -t 30 ssd:64M -- sleep 3600 2>&1) || rc=$?
assert_eq "$rc" 124 "exit status after the timeout"
assert_contains "$OUTPUT" "timed out" "timeout message"
pgrep -f "$SB_TMP/sbvm-" >/dev/null && fail "qemu still running"

[ -z "$(find "$SB_TMP" -maxdepth 1 -name 'sbvm-*')" ] || fail "runner left its files: $(ls "$SB_TMP")"
pass_msg "runner: status, cwd, share, env, udev, timeout"
