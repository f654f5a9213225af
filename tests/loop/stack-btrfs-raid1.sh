#!/bin/bash
# End to end: btrfs-raid1-partitions.conf on a loop device: GPT with two
# partitions (nodes made from sysfs, no udev here), btrfs RAID1 data and
# metadata across both, the variant's mount option. Nothing left after.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.btrfs
need_prog btrfs
cd "$SB_TOP"

cat >"$SB_TMP/check.sh" <<'EOS'
#!/bin/sh
set -e
[ "$(findmnt -n -o FSTYPE --target .)" = btrfs ] || { echo "not btrfs" >&2; exit 1; }
opts=$(findmnt -n -o OPTIONS --target .)
df=$(btrfs filesystem df .)
echo "$df" | grep -q '^Data, RAID1' || { echo "data not raid1: $df" >&2; exit 1; }
echo "$df" | grep -q '^Metadata, RAID1' || { echo "metadata not raid1: $df" >&2; exit 1; }
n=$(btrfs filesystem show . | grep -c 'devid.*p[12]$')
[ "$n" = 2 ] || { echo "expected 2 partitions in the file system, got $n" >&2; exit 1; }
echo "$opts" >>"$LOG"
EOS
chmod +x "$SB_TMP/check.sh"
export LOG="$SB_TMP/seen.log"
WL="workloads.run=command:$SB_TMP/check.sh"

: >"$LOG"
expect_exit 0 "$STACKBENCH" run btrfs-raid1-partitions --loop --quick -o mount.options=nossd -o "$WL" \
	--results "$SB_TMP/res1"
grep -q 'nossd' "$LOG" || fail "mount option nossd not seen: $(cat "$LOG")"
nothing_left "one variant"
pass_msg "one variant: raid1 over two partitions, nossd"

: >"$LOG"
expect_exit 0 "$STACKBENCH" run btrfs-raid1-partitions --loop --quick \
	-o 'matrix.mount.options=ssd|compress=zstd' -o "$WL" --results "$SB_TMP/res2"
[ "$(wc -l <"$LOG")" = 2 ] || fail "expected two variants, log: $(cat "$LOG")"
# (side by side, in either order)
grep -v 'compress=zstd' "$LOG" | grep -q '\bssd\b' || fail "the other variant not mounted ssd: $(cat "$LOG")"
[ "$(grep -c 'compress=zstd' "$LOG")" = 1 ] || fail "one variant compressed: $(cat "$LOG")"
nothing_left "two variants"
# side by side, each stack scrubbed after the turns: its own variant's check
need_prog jq
assert_eq "$(jq -r .profile.schedule.side_by_side.stacks "$SB_TMP/res2/result.json")" 2 "two stacks side by side"
assert_eq "$(jq -c '[.variants[].repeats[0].integrity | [(.btrfs.exit // "none"), .errors]]' "$SB_TMP/res2/result.json")" \
	'[[0,0],[0,0]]' "each stack's scrub"
[ -z "$(ls -A "$STACKBENCH_STATE_DIR")" ] || fail "state left: $(ls -A "$STACKBENCH_STATE_DIR")"
compgen -G "/dev/loop[0-9]*p[0-9]*" >/dev/null && ! grep -q "loop[0-9]*p[0-9]" /proc/partitions &&
	fail "stale partition nodes left: $(compgen -G '/dev/loop[0-9]*p[0-9]*' | tr '\n' ' ')"
pass_msg "two variants side by side: ssd, compress=zstd, each stack scrubbed"

# Sizes instead of a count: the first partition exactly 288M, the second the rest.
cat >"$SB_TMP/sizes.sh" <<'EOS'
#!/bin/sh
for p in $(btrfs filesystem show . | awk '/devid/ {print $NF}'); do blockdev --getsize64 "$p"; done >"$LOG"
EOS
chmod +x "$SB_TMP/sizes.sh"
expect_exit 0 "$STACKBENCH" run btrfs-raid1-partitions --loop --quick -o mount.options=ssd \
	-o partition.sizes=288M,rest -o "workloads.run=command:$SB_TMP/sizes.sh" --results "$SB_TMP/res3"
assert_eq "$(sed -n 1p "$LOG")" "$((288 << 20))" "first partition's size"
[ "$(sed -n 2p "$LOG")" -gt "$((300 << 20))" ] || fail "second partition too small: $(sed -n 2p "$LOG")"
nothing_left "sizes"
pass_msg "partition sizes: 288M and the rest"
