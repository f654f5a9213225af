#!/bin/bash
# vm-seconds: 30 (usual guest time in make check, 2 cores, one guest CPU: contrib/vm/tier deals the scenarios to its guests by it)
# The VM tests' leftover check (vm_nothing_left, contrib/vm/guest-lib.sh)
# must see each thing a run could leave: a signature, a mount (btrfs's too,
# whose mounts carry an anonymous device number), an md array, an md
# superblock, a dm device, an LVM PV, a loop device, a partition table, a
# journal, a mount under a stackbench path; and pass on clean disks. Every
# VM test trusts it after each of its kill and failure runs.
# Run by tools/run-tests on the host; re-invoked with --guest inside the VM.

if [ "${1:-}" = --guest ]; then
	set -euo pipefail
	. contrib/vm/guest-lib.sh
	vm_want_disks 1 2
	H=${VM_HDDS[0]} H2=${VM_HDDS[1]}
	export STACKBENCH_STATE_DIR=/run/sb-nothing-left
	caught=0
	# must_catch WHAT: the check, in a subshell (its fail exits), must fail
	must_catch() {
		if (vm_nothing_left "$1" "${ALL[@]}") >/run/nl.out 2>&1; then
			fail "vm_nothing_left missed: $1"
		fi
		grep -q "FAIL: $1: " /run/nl.out || fail "$1: not named: $(cat /run/nl.out)"
		caught=$((caught + 1))
	}
	vm_nothing_left "clean disks" "${ALL[@]}"
	mkfs.ext4 -q "$H"
	must_catch "ext4 signature"
	mkdir -p /run/nl
	mount "$H" /run/nl
	must_catch "ext4 mounted"
	umount /run/nl
	wipefs -a -q "$H"
	# btrfs over two disks, mounted; its signatures hidden from the check
	# (wipefs and mdadm stubbed): the mount alone must be seen.
	mkfs.btrfs -q -f -d raid1 -m raid1 "$H" "$H2" >/dev/null
	mount "$H2" /run/nl
	if (wipefs() { :; }; mdadm() { :; }; vm_nothing_left "btrfs mounted" "${ALL[@]}") >/run/nl.out 2>&1; then
		fail "vm_nothing_left missed a mounted btrfs"
	fi
	grep -q "still mounted" /run/nl.out || fail "btrfs: $(cat /run/nl.out)"
	umount /run/nl
	wipefs -a -q "$H" "$H2"
	mdadm --create /dev/md/sbnl --run --level=1 --raid-devices=2 --metadata=1.2 --assume-clean \
		"$H" "$H2" >/dev/null 2>&1
	must_catch "md array"
	mdadm --stop /dev/md/sbnl >/dev/null 2>&1
	must_catch "md superblock"
	# mdadm's own look, with wipefs stubbed
	if (wipefs() { :; }; vm_nothing_left "md superblock by mdadm" "${ALL[@]}") >/run/nl.out 2>&1; then
		fail "vm_nothing_left missed an md superblock (mdadm --examine)"
	fi
	mdadm --zero-superblock "$H" "$H2"
	dmsetup create sbnl --table "0 1024 linear $H 0"
	must_catch "dm device"
	dmsetup remove sbnl
	pvcreate -qq "$H" >/dev/null 2>&1
	must_catch "LVM PV"
	pvremove -qq "$H" >/dev/null 2>&1
	truncate -s 8M /run/nl.img
	l=$(losetup -f --show /run/nl.img)
	must_catch "loop device"
	losetup -d "$l"
	rm -f /run/nl.img
	printf 'label: gpt\n,10M\n' | sfdisk -q "$H" >/dev/null 2>&1
	must_catch "partition table"
	wipefs -a -q "$H"
	blockdev --rereadpt "$H" 2>/dev/null || true
	mkdir -p "$STACKBENCH_STATE_DIR/x"
	: >"$STACKBENCH_STATE_DIR/x/journal.json"
	must_catch "journal"
	rm -rf "$STACKBENCH_STATE_DIR"
	mkdir -p /run/stackbench-nl
	mount -t tmpfs none /run/stackbench-nl
	must_catch "stackbench mount"
	umount /run/stackbench-nl
	t0=${EPOCHREALTIME/./}
	vm_nothing_left "clean again" "${ALL[@]}"
	ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
	echo "ok: vm_nothing_left caught $caught kinds of leftover and passed clean disks ($ms ms a check)"
	exit 0
fi

. "$SB_TOP/tests/lib.sh"
RUN="$SB_TOP/contrib/vm/run"
why=$("$RUN" --check 2>/dev/null) || skip "${why:-VM runner cannot run here}"
cd "$SB_TOP"
vm_guest -v -t 600 ssd:256M hdd:256M hdd:256M -- bash tests/vm/vm-nothing-left.sh --guest
pass_msg "the VM tests' leftover check sees every kind of leftover"
