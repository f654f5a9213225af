#!/bin/bash
# The configuration the kernel applied (extra.config) and its diff in the
# report: btrfs turns `ssd` on by itself on a non-rotational device, so
# `-o ssd` against the default is reported as an A/A test posing as A/B,
# while nossd against the default is not (and its difference is explained).
# A fresh ext4-vs-xfs pair carries what each layer's rows follow
# (extra.config.follows), and the report judges by it: another fs.type
# asked for the mount and geometry rows that came with it.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.btrfs
need_prog mkfs.ext4
need_prog mkfs.xfs
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

# A fresh pair whose file system type differs: the layers' rules in the set.
fx="$SB_TMP/fstype"
expect_exit 0 "$STACKBENCH" run single-disk --loop --quick --yes --no-db \
	-o workloads.run=command:true -o "matrix.fs.type=ext4|xfs" --results "$fx"
c='.repeats[0].workloads[0].extra.config'
assert_eq "$(jq -c "[.variants[] | $c.follows.mount.params]" "$fx/result.json")" \
	'[["fs.type"],["fs.type"]]' "follows: mount rows follow fs.type"
assert_contains "$(jq -c ".variants[1]$c.follows.geometry.params" "$fx/result.json")" \
	'"fs.type"' "follows: geometry rows follow fs.type"
[ "$(jq ".variants[1]$c.rows | keys | map(select(startswith(\"geometry.\"))) | length" \
	"$fx/result.json")" -gt 0 ] || fail "fresh pair: no geometry rows"
pair="fs.type=ext4 vs fs.type=xfs"
expect_exit 0 "$STACKBENCH" report --width 10000 "$fx"
assert_contains "$OUT" "changed: $pair: mount.fstype is ext4 vs xfs, as asked" "fstype as asked"
assert_not_contains "$OUT" "which no parameter asked for" "mount and geometry asked by fs.type"
# The same set without the rules for its rows: the report takes the set's
# rules (none here), not a table of its own, and notes what fs.type brought.
mkdir -p "$SB_TMP/norules"
jq '.variants[].repeats[].workloads[].extra.config.follows = {}' "$fx/result.json" \
	>"$SB_TMP/norules/result.json"
expect_exit 0 "$STACKBENCH" report --width 10000 "$SB_TMP/norules"
assert_contains "$OUT" "note: $pair: mount.fstype is ext4 vs xfs, which no parameter asked for" \
	"no rules: fstype noted"
assert_contains "$OUT" "note: $pair: geometry." "no rules: geometry noted"
pass_msg "btrfs ssd vs default reported as A/A; ext4 vs xfs rows followed fs.type as the set says"
