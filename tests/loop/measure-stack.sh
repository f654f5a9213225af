#!/bin/bash
# The stack under a multi-device file system and quiescence: btrfs RAID1 on
# two loop devices (the mount source names one member) has both members as
# top devices in extra.devstat, and together they write about twice the
# workload's bytes (two copies); a phase started right after 200 MiB were
# left dirty waits for writeback or is marked busy in extra.quiesce.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.btrfs
need_prog jq

a=$(new_loop a 512M)
b=$(new_loop b 512M)
mkfs.btrfs -q -f -d raid1 -m raid1 "$a" "$b" >/dev/null
btrfs device scan "$a" "$b" >/dev/null 2>&1 || true
mnt="$SB_TMP/mnt"
mkdir -p "$mnt"
mount "$a" "$mnt"
SB_MOUNTS+=("$mnt")
w='.variants[0].repeats[0].workloads[0]'
res="$SB_TMP/res"

# Dirty data left behind by "a previous phase" (no sync).
dd if=/dev/urandom of="$mnt/junk" bs=1M count=200 status=none
expect_exit 0 "$STACKBENCH" bench "$mnt" --quick --results "$res" -w seq,size=64M,perchar=0,seeks=50
r="$res/result.json"
tops=$(jq -r "$w.extra.devstat[\"block write\"].devices | map(select(.kind == \"top\") | .name) | sort | join(\" \")" "$r")
assert_eq "$tops" "$(printf '%s\n' "$(basename "$a")" "$(basename "$b")" | sort | tr '\n' ' ' | sed 's/ $//')" "both btrfs members are top devices"
share=$(jq -r "$w.extra.devstat[\"block write\"] | ([.devices[] | select(.kind == \"top\") | .write_bytes] | add) / .workload_write_bytes" "$r")
awk -v s="$share" 'BEGIN { exit !(s >= 1.9 && s < 2.6) }' || fail "RAID1 members wrote $share x the workload's bytes"
pass_msg "btrfs RAID1: both members accounted, ${share}x the workload's bytes written"

q=$(jq -c "$w.extra.quiesce[\"block write\"]" "$r")
waited=$(jq -r .wait_ms <<<"$q")
busy=$(jq -r .busy <<<"$q")
# Other programs on the machine may flush our dirty pages (sync) before the
# phase begins; then there is nothing to wait for, and the record says so.
dirty=$(jq -r .dirty_kb <<<"$q")
if [ "$busy" = true ]; then
	assert_contains "$(jq -r .reason <<<"$q")" "dirty" "busy reason"
	assert_eq "$(jq -r "$w.extra.started_busy" "$r")" true "started_busy"
else
	[ "$dirty" -le $((16 * 1024)) ] || fail "not busy with $dirty KiB dirty"
fi
echo "quiesce before block write: $q"
pass_msg "quiescence waited ${waited} ms (busy: $busy)"
rm -f "$mnt/junk"
