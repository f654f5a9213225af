#!/bin/bash
# vm-seconds: 25 (usual guest time in make check, 2 cores, one guest CPU: contrib/vm/tier deals the scenarios to its guests by it)
# --loop in the VM runner's guest: its root (and so /var/tmp, the default
# loop directory) is overlayfs over tmpfs, which takes O_DIRECT and fails
# every such I/O, so that mdadm said only "Failed to write metadata to
# /dev/loop0". Now the loop step refuses at once (exit 3, before anything
# is built on it) with the reason and what to do; named on purpose, a
# tmpfs loop directory (/run/...) runs the md profile. Nothing is left.
# No disks: it shares the VM tier's boot.

PROFILE=profiles/md-raid1-ssd-2hdd.conf

if [ "${1:-}" = --guest ]; then
	set -uo pipefail
	fail() { echo "FAIL: $*" >&2; exit 1; }
	SB=$PWD/build/stackbench
	export STACKBENCH_STATE_DIR=/run/sb-state
	unset STACKBENCH_LOOP_DIR
	ov=(-o md.assume-clean=yes -o workloads.run=command:true -o 'matrix.md.write-behind=0')
	rc=0
	out=$($SB run "$PROFILE" --loop --quick --yes --results /run/res1 "${ov[@]}" 2>&1) || rc=$?
	[ $rc = 3 ] || fail "--loop on the overlay root: exit $rc, want 3: $out"
	grep -q "direct I/O to its backing file in /var/tmp/stackbench/.* fails" <<<"$out" ||
		fail "no reason given: $out"
	grep -q -- "--loop-dir" <<<"$out" || fail "no way out named: $out"
	! grep -q "Failed to write metadata" <<<"$out" || fail "mdadm ran: $out"
	! grep -q "variant 2 of 2, repeat" <<<"$out" || fail "the run went on to the next variant after a refusal: $out"
	[ -z "$(losetup -a)" ] || fail "loop devices left: $(losetup -a)"
	! grep -q '^md' /proc/mdstat || fail "arrays left: $(cat /proc/mdstat)"
	[ -z "$(ls -A /var/tmp/stackbench 2>/dev/null)" ] || fail "images left: $(ls -A /var/tmp/stackbench)"
	rc=0
	out=$($SB run "$PROFILE" --loop --loop-dir /run/sb-loops --quick --yes --results /run/res2 "${ov[@]}" 2>&1) || rc=$?
	[ $rc = 0 ] || fail "--loop-dir /run/sb-loops: exit $rc: $out"
	[ -z "$(losetup -a)" ] || fail "loop devices left: $(losetup -a)"
	! grep -q '^md' /proc/mdstat || fail "arrays left: $(cat /proc/mdstat)"
	echo "guest: --loop on the overlay root refused with the reason; on /run it runs"
	exit 0
fi

. "$SB_TOP/tests/lib.sh"
why=$("$SB_TOP/contrib/vm/run" --check 2>/dev/null) || skip "${why:-VM runner cannot run here}"
cd "$SB_TOP" || fail "cannot enter $SB_TOP"
# The runner's guest memory (4 GiB) leaves its tmpfs (the overlay's upper
# layer, half of it) room for the md profile's three quick images (960M)
# when they fill: else the loop directory's space check refuses first.
# No disks and no runner options of its own: under the vm tier it shares
# the tier's one boot (vm_guest).
vm_guest -t 600 -- bash tests/vm/run-mistakes-vm-loop.sh --guest
pass_msg "--loop in the VM runner: refused early with the reason, runs on a named tmpfs"
