#!/bin/bash
# `stackbench probe` on a GPT-partitioned loop device: partitions with their
# parent, a mounted partition refusing its disk, a partition without /dev
# node read through its disk, facts cross-checked against lsblk.
. "$SB_TOP/tests/lib.sh"
need_loop
for p in python3 lsblk mkfs.ext4 partx; do need_prog "$p"; done
command -v sfdisk >/dev/null || skip "sfdisk not installed (Debian package fdisk)"
. "$SB_TOP/tests/golden/probe/helpers.bash"
mkdir "$SB_TMP/mnt"

# a GPT with two partitions, attached with partition scanning. This kernel
# has no partition parsers: partx adds the partitions from user space.
truncate -s 64M "$SB_TMP/parted.img"
printf 'label: gpt\n,20M\n,\n' | sfdisk -q "$SB_TMP/parted.img"
P=$(losetup -P --find --show "$SB_TMP/parted.img")
SB_LOOPS+=("$P")
PN=${P#/dev/}
# before the loop goes: a partition still mounted after a failure, the partitions
SB_CLEANUPS+=("umount $SB_TMP/mnt; partx -d $P")
[ -e "/sys/class/block/${PN}p1" ] || partx -a "$P"
[ -e "/sys/class/block/${PN}p2" ] || fail "partitions of $P did not appear"
J=$(probe_json "$P" "${P}p1" "${P}p2")
assert_eq "$(q "$J" "sorted(devs)")" "['$PN', '${PN}p1', '${PN}p2']" "disk and partitions"
assert_eq "$(q "$J" "[(d['parent'], d['partition'], d['partition_number'], d['class']) for d in devs.values()]")" \
	"[(None, False, None, 'loop'), ('$PN', True, 1, 'loop'), ('$PN', True, 2, 'loop')]" "partition parents"
assert_eq "$(q "$J" "sorted({s['type'] for s in devs['$PN']['signatures']}), devs['$PN']['verdict']")" \
	"(['PMBR', 'gpt'], 'refused')" "partition table signatures"
assert_eq "$(q "$J" "devs['${PN}p1']['size'], devs['${PN}p1']['start'], devs['${PN}p2']['verdict']")" \
	"(20971520, 1048576, 'usable')" "partition geometry"
same_as_lsblk "$P"
# the table shows partitions under their disk
T=$("$STACKBENCH" probe -o NAME,SIZE "$P" "${P}p1" "${P}p2")
assert_contains "$T" "-${PN}p1" "tree line of p1"

# a mounted partition refuses its disk too
mkfs.ext4 -q -F "${P}p1"
mount "${P}p1" "$SB_TMP/mnt"
J=$(probe_json "$P" "${P}p1")
assert_eq "$(q "$J" "sorted(devs['$PN']['refuse']), sorted(devs['${PN}p1']['refuse'])")" \
	"(['partitions', 'signatures'], ['mounted', 'signatures'])" "disk of a mounted partition"
assert_contains "$(q "$J" "devs['$PN']['reasons']")" "partitions in use: ${PN}p1" "partition in use reason"
umount "$SB_TMP/mnt"

# Without udev a partition may have no node: read through the disk. Only our
# own partition's node is removed (devtmpfs made it; partx -d drops the rest).
mkfs.ext4 -q -F -L nodeless "${P}p2"
rm -f "${P}p2"
J=$(probe_json "${PN}p2")
assert_eq "$(q "$J" "devs['${PN}p2']['device_node'], [s['label'] for s in devs['${PN}p2']['signatures']]")" \
	"(False, ['nodeless'])" "partition without node"
assert_contains "$(q "$J" "devs['${PN}p2']['note']")" "read through $P" "note on node-less partition"

pass_msg "partitions, parents and node-less partitions"
