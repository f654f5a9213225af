#!/bin/bash
# Per-device accounting and time series on an ext4 loop device: every phase
# has extra.devstat with the loop device as top; a small data set read
# from the page cache is flagged cache-affected from the device counters
# even when the size rule does not apply (--ram 1M); a 10 s phase has about
# 10 per-second points; ramp= is recorded and leaves the warm-up out, and
# the warm-up's own rate is recorded apart (extra.warmup).
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
need_prog jq

dev=$(new_loop ext4 256M)
name=$(basename "$dev")
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$dev"
mnt="$SB_TMP/ext4"
mkdir -p "$mnt"
mount "$dev" "$mnt"
SB_MOUNTS+=("$mnt")
w='.variants[0].repeats[0].workloads[0]'
j() { jq -r "$w | $2" "$1/result.json"; }

# 1. Cached reads: the data set was just laid out and is not dropped.
res="$SB_TMP/res-cache"
expect_exit 0 "$STACKBENCH" bench "$mnt" --ram 1M --results "$res" -w rand:4k,size=16M,ops=4000,write=0,drop=0
assert_eq "$(j "$res" '.extra.devstat["random read"].devices[0].name')" "$name" "top device"
assert_eq "$(j "$res" '.extra.devstat["random read"].devices[0].kind')" top "top kind"
assert_eq "$(j "$res" '.extra.devstat["random read"].workload_read_bytes')" $((4000 * 4096)) "workload bytes"
assert_contains "$(j "$res" '.flags | join(",")')" cache-affected "cache-affected from the counters"
assert_eq "$(j "$res" '.extra.cache_affected_by.device | join(",")')" "random read" "reason: device"
assert_eq "$(j "$res" '.extra.cache_affected_by.size // "no"')" no "size rule did not apply"
# The layout phase wrote the data set through the device.
lw=$(j "$res" '.extra.devstat.layout.devices[0].write_bytes')
[ "$lw" -ge $((16 << 20)) ] || fail "layout: device wrote $lw bytes"
pass_msg "cached reads flagged from the device counters"

# 2. The same reads with the cache dropped are not flagged.
res="$SB_TMP/res-nocache"
expect_exit 0 "$STACKBENCH" bench "$mnt" --ram 1M --results "$res" -w rand:4k,size=16M,ops=4000,write=0,drop=1
assert_not_contains "$(j "$res" '.flags | join(",")')" cache-affected "reads from the device"
rb=$(j "$res" '.extra.devstat["random read"].devices[0].read_bytes')
[ "$rb" -ge $((4000 * 4096 / 2)) ] || fail "device read only $rb bytes"
pass_msg "device reads not flagged"

# 3. A 10 s phase has about 10 points; ramp=3s is recorded.
res="$SB_TMP/res-series"
expect_exit 0 "$STACKBENCH" bench "$mnt" --results "$res" -w rand:4k,size=16M,time=10s,write=0,ramp=3s
n=$(j "$res" '.extra.series["random read"].t | length')
[ "$n" -ge 9 ] && [ "$n" -le 11 ] || fail "points in a 10 s phase: $n"
for k in iops mbps p99_ms; do
	assert_eq "$(j "$res" ".extra.series[\"random read\"].$k | length")" "$n" "$k points"
done
r=$(j "$res" '.extra.series["random read"].ramp_s')
awk -v r="$r" 'BEGIN { exit !(r >= 3 && r < 4) }' || fail "ramp_s: $r"
awk -v v="$(j "$res" '.extra.series["random read"].iops[5]')" 'BEGIN { exit !(v > 0) }' ||
	fail "iops per second"
# The warm-up is recorded apart: its seconds, records done and their rate.
wup=$(j "$res" '.extra.warmup["random read"] | "\(.secs) \(.done) \(.unit) \(.per_s)"')
read -r ws wd wu wr <<<"$wup"
awk -v s="$ws" 'BEGIN { exit !(s >= 3 && s < 4) }' || fail "warm-up seconds: $wup"
assert_eq "$wu" ops "warm-up unit"
awk -v d="$wd" -v s="$ws" -v r="$wr" 'BEGIN { exit !(d > 0 && r > 0 && (d / s - r) ^ 2 < 1e-6 * r * r) }' ||
	fail "warm-up records and rate: $wup"
# Quiescence was checked before each phase.
[ -n "$(j "$res" '.extra.quiesce["random read"].wait_ms')" ] || fail "quiesce record"
pass_msg "a 10 s phase has $n points, ramp ${r}s"
