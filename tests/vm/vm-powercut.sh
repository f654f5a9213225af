#!/bin/bash
# vm-boot: own (three boots on the same disk images, one powered off mid-run): tools/run-tests runs it once the loop tier is done
# vm-seconds: 150 (usual time in make check, 2 cores)
# Power cut mid-run (issue 10). Boot 1: md-raid1-ssd-2hdd on an SSD and two
# HDDs, with the default state directory (/var/lib/stackbench) on a disk of
# its own; while the workload runs the guest is powered off (sysrq o: no
# sync, no unmount, no teardown). Boot 2, on the same disk images and with
# udevd, which assembles the array again from its superblocks: `teardown
# --all` finds the run in the state directory and removes the array udev
# assembled, the file system and the md superblocks. A bystander disk the
# tool was never given is byte-identical on the host after both boots.
# Boot 3: one disk attached twice (two names, one serial) is refused under
# either name, and not written.

PROFILE=profiles/md-raid1-ssd-2hdd.conf
# Sizes tell the disks apart in the guest (names do not follow the order).
MEMBER_SECTORS=2097152 # 1G
STATE_SECTORS=524288   # 256M
BYSTANDER_SECTORS=131072 # 64M

# guest_disks: MEMBERS (the 1G disks), STATE_DISK, BYSTANDER.
guest_disks() {
	local b s
	MEMBERS=() STATE_DISK='' BYSTANDER=''
	for b in /sys/block/sd*; do
		s=$(cat "$b/size")
		case $s in
		"$MEMBER_SECTORS") MEMBERS+=("/dev/${b##*/}") ;;
		"$STATE_SECTORS") STATE_DISK=/dev/${b##*/} ;;
		"$BYSTANDER_SECTORS") BYSTANDER=/dev/${b##*/} ;;
		esac
	done
}

# mount_state: the state disk at the default state directory.
mount_state() {
	unset STACKBENCH_STATE_DIR
	mkdir -p /var/lib/stackbench
	mount "$STATE_DISK" /var/lib/stackbench || vm_fail "cannot mount the state disk $STATE_DISK"
	chmod 700 /var/lib/stackbench
}

# --pull-plug MARK: the workload of boot 1, in the mounted file system.
if [ "${1:-}" = --pull-plug ]; then
	{
		grep '^md' /proc/mdstat
		findmnt -rn -o SOURCE,FSTYPE --target .
		ls /var/lib/stackbench
		for m in /sys/block/md*/md/dev-*; do echo "member ${m##*dev-}"; done
	} >"$2/cut.tmp" 2>&1
	mv "$2/cut.tmp" "$2/cut"
	# Dirty data stays dirty: this is the power cut.
	echo o >/proc/sysrq-trigger
	sleep 60
	exit 1
fi

if [ "${1:-}" = --cut ]; then
	set -euo pipefail
	. contrib/vm/guest-lib.sh
	guest_disks
	[ ${#MEMBERS[@]} = 3 ] && [ -n "$STATE_DISK" ] || vm_fail "disks: ${MEMBERS[*]} / $STATE_DISK"
	mount_state
	DEVS=$(IFS=,; echo "${MEMBERS[*]}")
	./stackbench run "$PROFILE" --devices "$DEVS" --yes --quick -o md.assume-clean=yes \
		--results /run/res -o "workloads.run=command:bash $PWD/tests/vm/vm-powercut.sh --pull-plug $2" \
		>/run/out 2>&1 || true
	cat /run/out
	vm_fail "the run ended: the power cut did not happen"
fi

if [ "${1:-}" = --after ]; then
	set -euo pipefail
	. contrib/vm/guest-lib.sh
	guest_disks
	[ ${#MEMBERS[@]} = 3 ] && [ -n "$STATE_DISK" ] || vm_fail "disks: ${MEMBERS[*]} / $STATE_DISK"
	udevadm settle --timeout=60 || true
	mount_state
	# The scenario needs what a reboot leaves: an array udev assembled and
	# the run's journal.
	arrays=$(grep '^md' /proc/mdstat || true)
	[ -n "$arrays" ] || vm_fail "udev assembled no array from the members' superblocks"
	journals=$(find /var/lib/stackbench -name journal)
	[ -n "$journals" ] || vm_fail "no journal survived the power cut"
	echo "after the reboot: $arrays; journal $journals"
	# The members' names now, against boot 1's (cut lists them).
	moved=0
	for m in "${MEMBERS[@]}"; do
		grep -qx "member ${m#/dev/}" "$2/cut" || moved=$((moved + 1))
	done
	rc=0
	./stackbench teardown --all >/run/out 2>&1 || rc=$?
	cat /run/out
	[ $rc = 0 ] || vm_fail "teardown --all exited $rc"
	if [ $moved -gt 0 ]; then
		grep -F "now (same" /run/out >/dev/null || vm_fail "$moved members have other names, and teardown did not say where it found them"
	fi
	# The bystander's file system is still there (the host checks its bytes).
	[ "$(blkid -o value -s LABEL "$BYSTANDER")" = bystander ] || vm_fail "the bystander lost its file system"
	[ -d /var/lib/stackbench/lost+found ] || vm_fail "teardown removed lost+found from the state file system"
	udevadm settle --timeout=60 || true
	journals=$(find /var/lib/stackbench -name journal)
	[ -z "$journals" ] || vm_fail "journal left after teardown: $journals"
	umount /var/lib/stackbench
	vm_nothing_left "after the power cut and teardown --all" "${MEMBERS[@]}"
	echo "ok: teardown --all after a power cut removed what udev assembled"
	exit 0
fi

# --twice: boot 3, the first member attached twice.
if [ "${1:-}" = --twice ]; then
	set -euo pipefail
	. contrib/vm/guest-lib.sh
	guest_disks
	export STACKBENCH_STATE_DIR=/run/stackbench-test
	[ ${#MEMBERS[@]} = 2 ] || vm_fail "want one disk under two names, found ${MEMBERS[*]}"
	a=${MEMBERS[0]} b=${MEMBERS[1]}
	[ "$(cat "/sys/block/${a#/dev/}/device/vpd_pg80" 2>/dev/null | tr -dc '[:print:]')" = \
	  "$(cat "/sys/block/${b#/dev/}/device/vpd_pg80" 2>/dev/null | tr -dc '[:print:]')" ] ||
		vm_fail "$a and $b do not show one serial"
	before=$(dd if="$a" bs=1M count=64 status=none | md5sum)
	for d in "$a" "$b"; do
		rc=0
		./stackbench run profiles/single-disk.conf --devices "$d" --yes --quick \
			-o workloads.run=command:true --results "/run/tw-${d#/dev/}" >/run/out 2>&1 || rc=$?
		[ $rc = 3 ] || { cat /run/out; vm_fail "$d: want exit 3 (refused), got $rc"; }
		grep -F "the same disk is also" /run/out >/dev/null ||
			{ cat /run/out; vm_fail "$d: the refusal does not name the other path"; }
	done
	[ "$(dd if="$a" bs=1M count=64 status=none | md5sum)" = "$before" ] || vm_fail "the twice-attached disk was written"
	echo "ok: one disk under two names is refused under either name"
	exit 0
fi

. "$SB_TOP/tests/lib.sh"
RUN="$SB_TOP/contrib/vm/run"
why=$("$RUN" --check 2>/dev/null) || skip "${why:-VM runner cannot run here}"
need_prog mkfs.ext4
export TMPDIR=$SB_TMP
cd "$SB_TOP"
D=$SB_TMP/disks MARK=$SB_TMP/mark
mkdir -p "$D" "$MARK"
# Named disks keep their serials wherever they stand; boot 2 puts the
# bystander first, so the kernel gives the members other names than in
# boot 1 (as a reboot or a re-plug may): teardown must find them by serial,
# and must not take the bystander, now under a member's old name, for one.
DISKS=(ssd:1G@ssd hdd:1G@hdd1 hdd:1G@hdd2 hdd:256M@state hdd:64M@bystander)
DISKS2=(hdd:64M@bystander hdd:256M@state hdd:1G@hdd2 hdd:1G@hdd1 ssd:1G@ssd)
# The state disk and the bystander are made here, on the host: images are
# files, so the bystander's checksum is taken without any guest.
truncate -s 256M "$D/state.img"
mkfs.ext4 -q -F "$D/state.img"
truncate -s 64M "$D/bystander.img"
mkfs.ext4 -q -F -L bystander "$D/bystander.img"
by=$(sha256sum <"$D/bystander.img")

rc=0
"$RUN" -v -t 1200 --disk-dir "$D" -s "$MARK" "${DISKS[@]}" -- \
	bash tests/vm/vm-powercut.sh --cut "$MARK" || rc=$?
[ -f "$MARK/cut" ] || fail "boot 1 exited $rc before the power cut"
[ $rc = 125 ] || fail "boot 1: want the guest gone without an exit status (125), got $rc"
echo "at the power cut: $(tr '\n' ' ' <"$MARK/cut")"
grep '^md' "$MARK/cut" >/dev/null || fail "no array at the power cut: $(cat "$MARK/cut")"

rc=0
"$RUN" -v -t 1200 --udev --disk-dir "$D" -s "$MARK" "${DISKS2[@]}" -- bash tests/vm/vm-powercut.sh --after "$MARK" || rc=$?
[ $rc = 0 ] || fail "boot 2 (teardown after the power cut) exited $rc"
[ "$(sha256sum <"$D/bystander.img")" = "$by" ] || fail "the bystander disk changed"

rm -f "$D"/*.img
rc=0
"$RUN" -v -t 900 --twice 0 ssd:1G hdd:64M -- bash tests/vm/vm-powercut.sh --twice || rc=$?
[ $rc = 0 ] || fail "boot 3 (one disk attached twice) exited $rc"
[ -z "$(find "$SB_TMP" -maxdepth 1 -name 'sbvm-*')" ] || fail "runner left its files: $(ls "$SB_TMP")"
pass_msg "power cut, reboot, teardown --all; one disk under two names refused"
