#!/bin/bash
# vm-seconds: 30 (usual guest time in make check, 2 cores, one guest CPU: contrib/vm/tier deals the scenarios to its guests by it)
# VM smoke test: boots the runner's guest with an SSD and two HDDs and builds an
# md RAID1 by hand (write-mostly HDDs, write-behind, internal bitmap), checks
# that reads go to the SSD, then stops it and wipes the superblocks.
# Run by tools/run-tests on the host; re-invoked with --guest inside the VM.

if [ "${1:-}" = --guest ]; then
	set -euo pipefail
	. contrib/vm/guest-lib.sh
	# Roles by probing: SCSI names do not follow the command line's order.
	vm_disks
	ssd=${VM_SSDS[*]} hdds=("${VM_HDDS[@]}")
	[ -n "$ssd" ] && [ ${#hdds[@]} -eq 2 ] || fail "want 1 SSD and 2 HDDs, found ssd='$ssd' hdds='${hdds[*]}'"
	echo "guest: ssd $ssd, hdds ${hdds[*]}"

	mdadm --create /dev/md0 --run --level=1 --raid-devices=3 --metadata=1.2 \
		--assume-clean --bitmap=internal --write-behind=4096 \
		"$ssd" --write-mostly "${hdds[@]}" >/dev/null 2>&1 || fail "mdadm --create failed"
	grep -q '^md0 : active raid1' /proc/mdstat || fail "md0 not active: $(cat /proc/mdstat)"
	for h in "${hdds[@]}"; do
		n=${h#/dev/}
		grep -q "$n\[[0-9]\](W)" /proc/mdstat || fail "$n not write-mostly in /proc/mdstat: $(cat /proc/mdstat)"
		grep -qw write_mostly "/sys/block/md0/md/dev-$n/state" || fail "$n: sysfs state lacks write_mostly"
	done
	! grep -qw write_mostly "/sys/block/md0/md/dev-${ssd#/dev/}/state" || fail "the SSD is write-mostly"
	[ "$(cat /sys/block/md0/md/bitmap/backlog)" = 4096 ] || fail "write-behind backlog is $(cat /sys/block/md0/md/bitmap/backlog), want 4096"

	# Reads must be served by the SSD: the HDDs are write-mostly.
	reads() { awk '{ print $1 }' "/sys/block/${1#/dev/}/stat"; }
	h0=$(reads "${hdds[0]}") h1=$(reads "${hdds[1]}") s0=$(reads "$ssd")
	dd if=/dev/md0 of=/dev/null bs=64k count=256 iflag=direct status=none
	[ $(($(reads "$ssd") - s0)) -ge 256 ] || fail "the SSD served $(($(reads "$ssd") - s0)) reads, want >= 256"
	[ $(($(reads "${hdds[0]}") - h0 + $(reads "${hdds[1]}") - h1)) -eq 0 ] || fail "write-mostly HDDs served reads"

	mkfs.xfs -q /dev/md0
	mkdir -p /run/smoke
	mount -o noatime,logbufs=8,logbsize=256k /dev/md0 /run/smoke
	findmnt -no OPTIONS /run/smoke | grep logbsize=256k >/dev/null || fail "xfs mount options not applied"
	dd if=/dev/zero of=/run/smoke/f bs=1M count=8 conv=fsync status=none
	umount /run/smoke

	mdadm --stop /dev/md0 >/dev/null 2>&1 || fail "mdadm --stop failed"
	# md deletes the stopped array's device from a work queue: gone soon
	# after mdadm returns, not at once (seen still there under load)
	for _ in $(seq 50); do
		[ -e /sys/block/md0/md ] || break
		sleep 0.1
	done
	[ ! -e /sys/block/md0/md ] || fail "md0 still there 5 s after --stop"
	for d in "$ssd" "${hdds[@]}"; do
		mdadm --examine "$d" >/dev/null 2>&1 || fail "$d lost its superblock before --zero-superblock"
		mdadm --zero-superblock "$d" || fail "--zero-superblock $d failed"
		! mdadm --examine "$d" >/dev/null 2>&1 || fail "$d still has an md superblock"
		[ -z "$(blkid -p -o value -s TYPE "$d" 2>/dev/null)" ] || fail "$d still carries a signature"
	done
	grep -q '^md' /proc/mdstat && fail "arrays left: $(cat /proc/mdstat)"

	# device-mapper and LVM work without udevd.
	dmsetup create sbsmoke --table "0 $(blockdev --getsz "$ssd") delay $ssd 0 5" || fail "dm-delay"
	dd if=/dev/mapper/sbsmoke of=/dev/null bs=4k count=4 iflag=direct status=none || fail "read through dm-delay"
	dmsetup remove sbsmoke || fail "dmsetup remove"
	pvcreate -qq "${hdds[0]}" && vgcreate -qq sbsmoke "${hdds[0]}" && lvcreate -qq -y -n lv -L 64M sbsmoke ||
		fail "LVM create"
	[ -b /dev/sbsmoke/lv ] || [ -b /dev/mapper/sbsmoke-lv ] || fail "no LV node"
	vgremove -qq -f sbsmoke && pvremove -qq "${hdds[0]}" || fail "LVM remove"
	[ -z "$(dmsetup ls | grep -v 'No devices found')" ] || fail "dm devices left: $(dmsetup ls)"
	echo "guest: md raid1 write-mostly/write-behind, xfs, dm-delay, LVM ok"
	exit 0
fi

. "$SB_TOP/tests/lib.sh"
RUN="$SB_TOP/contrib/vm/run"
why=$("$RUN" --check 2>/dev/null) || skip "${why:-VM runner cannot run here}"

cd "$SB_TOP"
vm_guest -v -t 600 ssd:1G hdd:1G hdd:1G -- bash tests/vm/vm-smoke.sh --guest
# (in the vm tier's one boot, contrib/vm/tier checks this of that boot)
grep -q 'sbvm: boot' "$SB_TMP/vm.err" || fail "runner did not report its boot time"
pass_msg "md raid1 in the VM"
