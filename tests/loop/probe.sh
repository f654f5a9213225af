#!/bin/bash
# `stackbench probe` on loop devices this test makes: class, roles from
# queue/rotational, signatures, mounts, the root disk's verdict, non-root
# use, errors, and facts cross-checked against lsblk. Partitions: probe-partitions.sh.
. "$SB_TOP/tests/lib.sh"
need_loop
for p in python3 lsblk mkfs.ext4 setpriv; do need_prog "$p"; done
. "$SB_TOP/tests/golden/probe/helpers.bash"


L=$(new_loop plain 128M)
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

# btrfs mounts carry an anonymous device number: matched by source instead
if command -v mkfs.btrfs >/dev/null; then
	mkfs.btrfs -q -f "$L" >/dev/null
	mount "$L" "$SB_TMP/mnt"
	J=$(probe_json "$L")
	assert_eq "$(q "$J" "devs['$N']['mountpoints'], [s['type'] for s in devs['$N']['signatures']]")" \
		"(['$SB_TMP/mnt'], ['btrfs'])" "mounted btrfs"
	umount "$SB_TMP/mnt"
else
	echo "note: mkfs.btrfs missing, btrfs mount matching not exercised"
fi

# as non-root: facts still there, signatures unknown and said so
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
bin=$STACKBENCH
if ! as_nobody test -x "$bin"; then
	# the checkout may sit where nobody cannot go (/root): use a copy
	d=$(mktemp -d "/tmp/${SB_RUN_TAG:-sbtest-manual}-nobody-XXXXXX")
	SB_CLEANUPS+=("rm -rf $d")
	chmod 755 "$d"
	cp "$bin" "$d/stackbench"
	bin=$d/stackbench
fi
J=$(as_nobody "$bin" probe --json "$L") ||
	fail "probe as nobody failed"
assert_eq "$(q "$J" "devs['$N']['signatures'], devs['$N']['size'], devs['$N']['verdict']")" \
	"(None, 134217728, 'refused')" "non-root facts"
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
