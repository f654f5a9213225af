#!/bin/bash
# The configuration the kernel applied (extra.config) and its diff in the
# report: btrfs turns `ssd` on by itself on a non-rotational device, so
# `-o ssd` against the default is reported as an A/A test posing as A/B,
# while nossd against the default is not (and its difference is explained).
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.btrfs
need_prog jq

dev=$(new_loop btrfs 512M)
name=$(basename "$dev")
# Our own loop device, told it is an SSD.
echo 0 >"/sys/block/$name/queue/rotational"
mkfs.btrfs -q -f "$dev" >/dev/null
mnt="$SB_TMP/mnt"
mkdir -p "$mnt"
w='.variants[0].repeats[0].workloads[0]'
spec=seq,size=16M,perchar=0,seeks=50
for v in default ssd nossd; do
	opt=()
	[ $v = default ] || opt=(-o "$v")
	mount "${opt[@]}" "$dev" "$mnt"
	SB_MOUNTS+=("$mnt")
	expect_exit 0 "$STACKBENCH" bench "$mnt" --quick --name "$v" --results "$SB_TMP/res-$v" -w "$spec"
	umount "$mnt"
done

r="$SB_TMP/res-default/result.json"
assert_eq "$(jq -r "$w.extra.config.mount.fstype" "$r")" btrfs "config: fstype"
assert_contains "$(jq -r "$w.extra.config.mount.options" "$r")" ssd "config: ssd applied by the kernel"
assert_eq "$(jq -r "$w.extra.config.queue[\"$name\"].rotational" "$r")" 0 "config: rotational"
[ -n "$(jq -r "$w.extra.config.queue[\"$name\"].scheduler // empty" "$r")" ] || fail "config: scheduler"
assert_eq "$(jq -r "$w.extra.config.geometry.sectorsize" "$r")" 4096 "config: geometry"
[ -n "$(jq -r "$w.extra.config.sysctl[\"vm.dirty_ratio\"] // empty" "$r")" ] || fail "config: sysctl"
assert_contains "$(jq -r "$w.extra.config.kmsg | join(\"\\n\")" "$r")" "$name" "config: kernel log lines"

expect_exit 0 "$STACKBENCH" report --width 10000 "$SB_TMP/res-default" "$SB_TMP/res-ssd" "$SB_TMP/res-nossd"
assert_contains "$OUT" "warning: default and ssd ran with the same effective configuration" "A/A warning"
assert_contains "$OUT" "A/A test posing as A/B" "A/A wording"
assert_not_contains "$OUT" "warning: default and nossd" "nossd differs"
assert_contains "$OUT" "default vs nossd: mount.option.nossd" "nossd difference listed"
# The device lines follow the table.
assert_contains "$OUT" "block write: top device/workload bytes:" "device ratio"
pass_msg "btrfs ssd vs default on a non-rotational loop device reported as A/A"
