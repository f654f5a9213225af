#!/bin/bash
# Per-member cost rows: btrfs RAID-1 over two partitions of one loop device
# writes every byte to both members, so its device bytes written per
# workload byte are about twice those of btrfs on one partition, and the
# members' shares (rows keyed by role, labelled with the kernel name and
# class) sum to the top's. A single device has no member rows.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.btrfs
need_prog jq
cd "$SB_TOP"

cat >"$SB_TMP/raid1.conf" <<'EOP'
[devices]
ssd = 1
loop.ssd = 1280M

[partition]
count = 2

[fs]
type = btrfs

[workloads]
run = seq,size=32M,perchar=0,seeks=200

[matrix]
fs.on; fs.data; fs.metadata = all; raid1; raid1 | ssd.p1; single; single
EOP
res="$SB_TMP/res"
expect_exit 0 "$STACKBENCH" run "$SB_TMP/raid1.conf" --loop --quick --results "$res"
nothing_left "raid1 run"
j="$res/result.json"
m() { # VARIANT-SUBSTRING METRIC-REGEX: "name value" lines
	jq -r --arg v "$1" --arg m "$2" '.variants[] | select(.name | contains($v)) | .repeats[0]
		| .workloads[0].metrics[] | select(.name | test($m)) | "\(.name) \(.value)"' "$j"
}
raid=$(m raid1 '^block_write_dev_w_per_b$' | cut -d' ' -f2)
single=$(m single '^block_write_dev_w_per_b$' | cut -d' ' -f2)
if [ -z "$raid" ] || [ -z "$single" ]; then
	fail "no block write rows: raid1 '$raid', single '$single'"
fi
ratio=$(awk -v r="$raid" -v s="$single" 'BEGIN { printf "%.3f", r / s }')
awk -v r="$ratio" 'BEGIN { exit !(r >= 1.7 && r <= 2.5) }' ||
	fail "raid1 / single device writes per byte: $ratio (raid1 $raid, single $single)"

members=$(m raid1 '^block_write_member_w_per_b:')
assert_eq "$(wc -l <<<"$members")" 2 "two member rows: $members"
grep -q '^block_write_member_w_per_b:ssd#1 ' <<<"$members" || fail "keyed by role: $members"
sum=$(awk '{ s += $2 } END { printf "%.4f", s }' <<<"$members")
awk -v s="$sum" -v r="$raid" 'BEGIN { d = s - r; if (d < 0) d = -d; exit !(d < 0.001 * r + 1e-9) }' ||
	fail "member shares sum to $sum, the top wrote $raid per byte"
while read -r _ v; do
	awk -v v="$v" 'BEGIN { exit !(v >= 0.8 && v <= 1.3) }' || fail "a member wrote $v per byte"
done <<<"$members"
for k in 1 2; do
	label=$(jq -r --arg n "block_write_member_w_per_b:ssd#$k" '.variants[] | select(.name | contains("raid1"))
		| .repeats[0].workloads[0].metrics[] | select(.name == $n) | .label' "$j")
	assert_contains "$label" "p$k, ssd, loop)" "kernel name and class in the label"
done
assert_eq "$(m single '_member_' | wc -l)" 0 "no member rows on a single device"
pass_msg "btrfs raid1 $raid vs single $single per byte (ratio $ratio); members: ${members//$'\n'/; }"
