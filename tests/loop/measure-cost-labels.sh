#!/bin/bash
# Where a label does not hold, the result says so and the report notes it:
# a loop device with queue/rotational set plays an "hdd" by the flag alone
# (devstat: class "hdd, loop", emulated "rotational flag only"), and an
# O_DIRECT phase on ext4 data=journal got the page cache (flagged per
# phase). A plain ext4 (data=ordered, the flag cleared) has neither.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
need_prog jq

dev=$(new_loop lbl 128M)
name=$(basename "$dev")
rot=/sys/block/$name/queue/rotational
[ -w "$rot" ] || skip "$rot not writable"
echo 1 >"$rot"
mkfs.ext4 -q -F "$dev"
mnt="$SB_TMP/m"
mkdir -p "$mnt"
mount -o data=journal "$dev" "$mnt"
SB_MOUNTS+=("$mnt")
res="$SB_TMP/res"
expect_exit 0 "$STACKBENCH" bench "$mnt" --quick --results "$res" -w rand:16k,size=4M,direct=1
w='.variants[0].repeats[0].workloads[0]'
d=$(jq -c "$w.extra.devstat[\"random write\"].devices[0]" "$res/result.json")
assert_eq "$(jq -r .class <<<"$d")" "hdd, loop" "class"
assert_eq "$(jq -r .emulated <<<"$d")" "rotational flag only" "emulated"
fb=$(jq -r "$w.extra.direct_fallback_phases | keys | join(\",\")" "$res/result.json")
assert_eq "$fb" "random read,random write" "phases that got the page cache"
"$STACKBENCH" report "$res" >"$SB_TMP/r.txt" || fail "report"
grep -q "not a slow disk" "$SB_TMP/r.txt" || fail "report: no note on the emulated hdd"
grep -q "random write: asked for O_DIRECT and got buffered I/O" "$SB_TMP/r.txt" ||
	fail "report: no note on the fallback"
pass_msg "emulated hdd and O_DIRECT fallback recorded and noted"

umount "$mnt"
echo 0 >"$rot"
mount "$dev" "$mnt"
res="$SB_TMP/res2"
expect_exit 0 "$STACKBENCH" bench "$mnt" --quick --results "$res" -w rand:16k,size=4M,direct=1
d=$(jq -c "$w.extra.devstat[\"random write\"].devices[0]" "$res/result.json")
assert_eq "$(jq -r .class <<<"$d")" "ssd, loop" "class"
assert_eq "$(jq -r '.emulated // "none"' <<<"$d")" none "not emulated"
assert_eq "$(jq -r "$w.extra.direct_fallback_phases // \"none\"" "$res/result.json")" none "no fallback"
assert_eq "$(jq -r "$w.extra.cost[\"random read\"].direct_fallback" "$res/result.json")" false "checked"
"$STACKBENCH" report "$res" >"$SB_TMP/r2.txt" || fail "report"
! grep -q "not a slow disk\|got buffered I/O" "$SB_TMP/r2.txt" || fail "report: a note without cause"
pass_msg "plain ext4: neither"
