#!/bin/bash
# --cap-cache: with --ram 64M, seq's block read of a 192M file just written
# (drop=0, so nothing empties the cache for it) is read from the device, not
# from the page cache: the loop device reads the whole file, no
# cache-affected flag, the cap recorded in extra; without --cap-cache the
# same read comes from the cache (flagged, the device reads next to
# nothing). The memory cgroup is gone afterwards, and --cap-cache without
# --ram is a usage error (exit 2) that runs nothing.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
need_prog jq
memcg=/sys/fs/cgroup/memory$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3 }' /proc/self/cgroup)
[ -f "$memcg/memory.limit_in_bytes" ] || [ -f /sys/fs/cgroup/cgroup.controllers ] ||
	skip "no memory cgroup here (v1 or v2)"

expect_exit 2 "$STACKBENCH" bench "$SB_TMP" --cap-cache -w seq,size=1M
assert_contains "$OUT" "--cap-cache needs --ram" "usage error"

dio_ext4 capcache 600M
size=$((192 << 20))
spec="seq,size=192M,perchar=0,drop=0,seeks=100,seekers=1"
w='.variants[0].repeats[0].workloads[0]'
j() { jq -r "$w | $2" "$1/result.json"; }
dev=$(basename "$DIO_DEV")
devread() { j "$1" ".extra.devstat[\"block read\"].devices[] | select(.name == \"$dev\") | .read_bytes"; }

expect_exit 0 "$STACKBENCH" bench "$DIO_MNT" --ram 64M --results "$SB_TMP/free" -w "$spec"
assert_contains "$(j "$SB_TMP/free" '.flags | join(",")')" cache-affected "uncapped: served by the cache"
free_read=$(devread "$SB_TMP/free")
[ "$free_read" -lt $((size / 2)) ] || fail "uncapped: the device read $free_read of $size (want the cache to serve it)"

expect_exit 0 "$STACKBENCH" bench "$DIO_MNT" --ram 64M --cap-cache --results "$SB_TMP/capped" -w "$spec"
assert_not_contains "$(j "$SB_TMP/capped" '.flags | join(",")')" cache-affected "capped: not cache-affected"
assert_eq "$(j "$SB_TMP/capped" .extra.memory_cap_bytes)" $((64 << 20)) "cap recorded"
cap_read=$(devread "$SB_TMP/capped")
[ "$cap_read" -ge $((size * 9 / 10)) ] || fail "capped: the device read $cap_read of $size"
left=$(find /sys/fs/cgroup -maxdepth 6 -type d -name 'stackbench-*' 2>/dev/null | head -3)
[ -z "$left" ] || fail "memory cgroups left: $left"
pass_msg "--cap-cache 64M: the device read $cap_read of $size bytes (uncapped: $free_read), cgroup $(j "$SB_TMP/capped" .extra.memory_cap_cgroup), removed after"
