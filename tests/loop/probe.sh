#!/bin/bash
# `stackbench probe` on loop devices this test makes: class, roles from
# queue/rotational, signatures, mounts, partitions, the root disk's verdict,
# and facts cross-checked against lsblk.
. "$SB_TOP/tests/lib.sh"
need_loop
for p in python3 lsblk mkfs.ext4 sfdisk partx setpriv; do need_prog "$p"; done

# q JSON EXPR: evaluates EXPR with devs = {name: device} from probe JSON
q() { python3 -c "import json,sys; devs={d['name']: d for d in json.loads(sys.argv[1])['devices']}; print(($2))" "$1"; }
probe_json() { "$STACKBENCH" probe --json "$@"; }

# lsblk and we must agree on size and rotational for every device named
same_as_lsblk() {
	local ours theirs
	ours=$(probe_json "$@")
	theirs=$(lsblk -J -b -o NAME,SIZE,ROTA "$@")
	python3 - "$ours" "$theirs" <<'PY' || fail "probe and lsblk disagree on $*"
import json, sys
ours = {d["name"]: d for d in json.loads(sys.argv[1])["devices"]}
def walk(devs):
    for d in devs:
        yield d
        yield from walk(d.get("children", []))
n = 0
for d in walk(json.loads(sys.argv[2])["blockdevices"]):
    o = ours.get(d["name"])
    if o is None:
        continue
    n += 1
    rota = d["rota"] in (True, "1", 1)
    if o["size"] != int(d["size"]) or o["rotational"] != rota:
        sys.exit(f"{d['name']}: ours size={o['size']} rota={o['rotational']}, lsblk {d}")
if n != len(ours):
    sys.exit(f"compared {n} of {len(ours)} devices")
PY
}

L=$(new_loop plain 64M)
SB_LOOPS+=("$L") # new_loop ran in a subshell: its own record of L is lost
N=${L#/dev/}

# plain loop, non-rotational: loop class, usable, plays an SSD
echo 0 >"/sys/block/$N/queue/rotational"
J=$(probe_json "$L")
assert_eq "$(q "$J" "len(devs)")" 1 "only the named device"
assert_eq "$(q "$J" "devs['$N']['class'], devs['$N']['verdict'], devs['$N']['rotational']")" \
	"('loop', 'usable', False)" "plain loop"
assert_eq "$(q "$J" "'ssd' in devs['$N']['roles'], 'hdd' in devs['$N']['roles']")" "(True, False)" "non-rotational loop roles"
assert_eq "$(q "$J" "devs['$N']['signatures'], devs['$N']['reasons'], devs['$N']['backing_file']")" \
	"([], [], '$SB_TMP/plain.img')" "plain loop facts"
same_as_lsblk "$L"

# rotational: now an HDD for role matching, still class loop
echo 1 >"/sys/block/$N/queue/rotational"
J=$(probe_json "$L")
assert_eq "$(q "$J" "devs['$N']['class'], devs['$N']['rotational'], 'hdd' in devs['$N']['roles'], 'ssd' in devs['$N']['roles']")" \
	"('loop', True, True, False)" "rotational loop"
same_as_lsblk "$L"

# a file system: signature ext4, refused
mkfs.ext4 -q -F -L sbprobe "$L"
J=$(probe_json "$L")
assert_eq "$(q "$J" "[(s['type'], s['usage'], s['label']) for s in devs['$N']['signatures']]")" \
	"[('ext4', 'filesystem', 'sbprobe')]" "ext4 signature"
assert_eq "$(q "$J" "devs['$N']['verdict'], devs['$N']['refuse'], devs['$N']['reasons']")" \
	"('refused', ['signatures'], ['carries signatures: ext4'])" "ext4 verdict"
[ "$(q "$J" "devs['$N']['signatures'][0]['uuid']")" = "$(blkid -p -s UUID -o value "$L")" ] ||
	fail "uuid differs from blkid's"

# mounted: refused with the mount point, in JSON and in the table
mkdir "$SB_TMP/mnt"
mount "$L" "$SB_TMP/mnt"
SB_MOUNTS+=("$SB_TMP/mnt")
J=$(probe_json "$L")
assert_eq "$(q "$J" "devs['$N']['mountpoints'], devs['$N']['reasons'][0]")" \
	"(['$SB_TMP/mnt'], 'mounted on $SB_TMP/mnt')" "mounted loop"
T=$("$STACKBENCH" probe "$L")
assert_contains "$T" "refused: mounted on $SB_TMP/mnt; carries signatures: ext4" "table verdict"
assert_contains "$T" "$SB_TMP/mnt" "table mount point"
umount "$SB_TMP/mnt"

# a GPT with two partitions, attached with partition scanning. This kernel
# has no partition parsers: partx adds the partitions from user space.
truncate -s 64M "$SB_TMP/parted.img"
printf 'label: gpt\n,20M\n,\n' | sfdisk -q "$SB_TMP/parted.img"
P=$(losetup -P --find --show "$SB_TMP/parted.img")
SB_LOOPS+=("$P")
PN=${P#/dev/}
SB_CLEANUPS+=("partx -d $P")
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

# as non-root: facts still there, signatures unknown and said so
J=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$STACKBENCH" probe --json "$L") ||
	fail "probe as nobody failed"
assert_eq "$(q "$J" "devs['$N']['signatures'], devs['$N']['size'], devs['$N']['verdict']")" \
	"(None, 67108864, 'refused')" "non-root facts"
assert_contains "$(q "$J" "devs['$N']['reasons']")" "signatures unknown: permission denied" "non-root reason"

# the whole machine: valid JSON; the disk that holds / is refused for it
"$STACKBENCH" probe --json | python3 -m json.tool >/dev/null || fail "json.tool rejects probe --json"
"$STACKBENCH" probe >/dev/null || fail "table of all devices"
rootdev=$(findmnt -n -o MAJ:MIN / | head -1 | tr -d " ")
if [ "${rootdev%%:*}" != 0 ]; then
	J=$(probe_json)
	rootname=$(basename "$(readlink -f "/sys/dev/block/$rootdev")")
	disk=$(lsblk -dno PKNAME "/dev/$rootname" 2>/dev/null || true)
	for d in $rootname $disk; do
		assert_eq "$(q "$J" "devs['$d']['verdict'], 'holds the root file system' in devs['$d']['reasons']")" \
			"('refused', True)" "root device $d"
	done
	pass_msg "root on $rootname${disk:+ (disk $disk)} refused"
else
	echo "note: / is not on a block device here, root check not exercised"
fi

# errors: unknown device exits 1 naming it; usage errors exit 2
expect_exit 1 "$STACKBENCH" probe /dev/nope
assert_eq "$OUT" "stackbench: /dev/nope: no such block device" "missing device message"
expect_exit 1 "$STACKBENCH" probe --json "$L" /dev/nope
expect_exit 2 "$STACKBENCH" probe --jsn
assert_contains "$OUT" "did you mean '--json'" "option suggestion"
expect_exit 2 "$STACKBENCH" probe -o NAME,SIZ
assert_contains "$OUT" "did you mean 'SIZE'" "column suggestion"
pass_msg "probe facts, verdicts and errors"
