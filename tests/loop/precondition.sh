#!/bin/bash
# devices.precondition on loop devices: trim discards every member (its own
# discard counters in result.json) and mkfs runs without discard; steady
# writes past capacity and records its per-second series and verdict; a
# bad value is exit 2 naming file and line; a non-rotational stack without
# a precondition is flagged fresh and the report says so; a device that
# cannot discard is refused for trim before anything is written.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.btrfs
need_prog mkfs.ext4
need_prog jq
cd "$SB_TOP"

# Two whole SSDs under one btrfs RAID1; and one SSD with one HDD.
prof="$SB_TMP/two.conf"
cat >"$prof" <<'EOF'
[devices]
ssd = 2
loop.quick = 256M

[fs]
type = btrfs
data = raid1
metadata = raid1

[workloads]
run = command:true
EOF
rep='.variants[0].repeats[0]'
j() { jq -r "$2" "$1/result.json"; }
sed 's/^ssd = 2$/ssd = 1\nhdd = 1/' "$prof" >"$SB_TMP/mixed.conf"
grep -q '^hdd = 1$' "$SB_TMP/mixed.conf" || fail "mixed profile"

# 1. trim: every member discarded whole, mkfs -K.
res="$SB_TMP/res-trim"
expect_exit 0 "$STACKBENCH" run "$prof" --loop --quick --results "$res" -o devices.precondition=trim
assert_eq "$(j "$res" "$rep.precondition.mode")" trim "mode"
assert_eq "$(j "$res" "$rep.precondition.devices | length")" 2 "both members have a record"
for k in 0 1; do
	d="$rep.precondition.devices[$k]"
	size=$(j "$res" "$d.size")
	[ "$size" = $((256 << 20)) ] || fail "member $k: size $size"
	[ "$(j "$res" "$d.devstat.discard_ios")" -ge 1 ] || fail "member $k: no discard request counted"
	assert_eq "$(($(j "$res" "$d.devstat.discard_sectors") * 512))" "$size" "member $k: discarded sectors"
	assert_eq "$(j "$res" "$d.discarded_bytes")" "$size" "member $k: discarded bytes"
done
grep -q 'mkfs.btrfs -f -d raid1 -m raid1 -K ' "$res/plan.txt" || fail "plan.txt: mkfs without -K: $(grep mkfs "$res/plan.txt")"
grep -q '^\$ mkfs.btrfs -f -d raid1 -m raid1 -K ' "$res/run.log" || fail "run.log: mkfs ran without -K"
[ "$(grep -c '== step .*: precondition blkdiscard /dev/loop' "$res/run.log")" = 2 ] || fail "run.log: two journaled precondition steps"
assert_not_contains "$(j "$res" "$rep.workloads[0].flags | join(\",\")")" fresh "trimmed: not fresh"
nothing_left "trim"
# An HDD-role member is left alone (no flash state, no discard on a disk).
res="$SB_TMP/res-trim-mixed"
expect_exit 0 "$STACKBENCH" run "$SB_TMP/mixed.conf" --loop --quick --results "$res" -o devices.precondition=trim
assert_eq "$(j "$res" "$rep.precondition.devices | length")" 1 "only the ssd is trimmed"
[ "$(grep -c '== step .*: precondition blkdiscard /dev/loop' "$res/run.log")" = 1 ] || fail "run.log: one precondition step"
nothing_left "trim mixed"
pass_msg "trim: both SSDs discarded whole (counters), mkfs.btrfs -K; the HDD left alone"

# ext4 takes nodiscard inside its one -E.
expect_exit 0 "$STACKBENCH" plan single-disk --loop --quick -o fs.type=ext4 -o devices.precondition=trim
assert_contains "$OUT" "-E lazy_itable_init=0,lazy_journal_init=0,nodiscard" "ext4 nodiscard"

# 2. steady on a small ext4 device: past capacity, series and verdict recorded.
res="$SB_TMP/res-steady"
expect_exit 0 "$STACKBENCH" run single-disk --loop --quick --results "$res" -o fs.type=ext4 \
	-o devices.loop.quick=64M -o workloads.run=command:true -o devices.precondition=steady \
	-o devices.precondition-limit=6s
s="$rep.precondition.devices[0].steady"
reached=$(j "$res" "$s.reached")
[ "$reached" = true ] || [ "$reached" = false ] || fail "steady.reached: $reached"
assert_eq "$(j "$res" "$rep.precondition.steady_reached")" "$reached" "summary verdict"
awk -v p="$(j "$res" "$s.capacity_passes")" 'BEGIN { exit !(p >= 1) }' ||
	fail "not written past capacity: $(j "$res" "$s.capacity_passes") passes"
n=$(j "$res" "$s.series_mbps | length")
[ "$n" -ge 1 ] && [ "$n" -le 7 ] || fail "series of a <= 6 s precondition: $n points"
awk -v t="$(j "$res" "$s.seconds")" 'BEGIN { exit !(t <= 8) }' || fail "limit not kept: $(j "$res" "$s.seconds") s"
[ "$(j "$res" "$rep.precondition.devices[0].devstat.write_sectors")" -ge $((64 << 11)) ] ||
	fail "device counters: fewer sectors written than its capacity"
grep -q 'nodiscard' "$res/plan.txt" || fail "steady: mkfs.ext4 with discard"
nothing_left "steady"
pass_msg "steady: $n per-second points, past capacity, reached=$reached"

# 3. A bad value: exit 2 with file and line, from a profile and from -o.
bad="$SB_TMP/bad.conf"
printf '[devices]\nany = 1\nprecondition = trimm\n\n[fs]\ntype = xfs\n' >"$bad"
expect_exit 2 "$STACKBENCH" plan "$bad" --loop
assert_contains "$OUT" "$bad:3: devices.precondition: expected one of none, trim, steady, got 'trimm'" "bad value in a profile"
expect_exit 2 "$STACKBENCH" run single-disk --loop --quick -o devices.precondition=yes
assert_contains "$OUT" "devices.precondition: expected one of none, trim, steady" "bad -o value"
nothing_left "bad value"
pass_msg "a bad value is exit 2 naming file and line"

# 4. No precondition on a non-rotational loop device: fresh, and the report says so.
res="$SB_TMP/res-fresh"
expect_exit 0 "$STACKBENCH" run "$SB_TMP/mixed.conf" --loop --quick --results "$res"
assert_contains "$(j "$res" "$rep.workloads[0].flags | join(\",\")")" fresh "flagged fresh"
assert_eq "$(j "$res" "$rep.precondition.fresh")" true "precondition.fresh"
assert_eq "$(j "$res" "$rep.precondition.mode")" none "mode none"
assert_eq "$(j "$res" "$rep.precondition.non_rotational | length")" 1 "only the ssd is non-rotational"
expect_exit 0 "$STACKBENCH" report "$res"
assert_contains "$OUT" "fresh (non-rotational, no devices.precondition)" "report note"
# An all-rotational stack is not fresh.
res="$SB_TMP/res-hdd"
printf '[devices]\nhdd = 1\nloop.quick = 320M\n\n[fs]\ntype = xfs\n\n[workloads]\nrun = command:true\n' >"$SB_TMP/hdd.conf"
expect_exit 0 "$STACKBENCH" run "$SB_TMP/hdd.conf" --loop --quick --results "$res"
assert_not_contains "$(j "$res" "$rep.workloads[0].flags | join(\",\")")" fresh "rotational: not fresh"
nothing_left "fresh"
pass_msg "non-rotational without precondition: fresh, in the report"

# 5. A device that cannot discard: trim refused at the verdict, nothing
# written. A loop device over a ramfs file has no discard (ramfs cannot
# punch holes); writing 0 to queue/discard_max_bytes instead would outlive
# the device's detach and take discard from whoever gets that loop next.
mkdir -p "$SB_TMP/ramfs"
mount -t ramfs ramfs "$SB_TMP/ramfs"
SB_MOUNTS+=("$SB_TMP/ramfs")
truncate -s 64M "$SB_TMP/ramfs/nodiscard.img"
dev=$(losetup --find --show "$SB_TMP/ramfs/nodiscard.img")
# (sb_detach at exit: the test detaches it below, and by then the number
# may be a neighbour's; sb_detach acts only on a backing file of ours)
SB_CLEANUPS=("sb_detach $dev" "${SB_CLEANUPS[@]}")
name=${dev#/dev/}
[ "$(cat "/sys/block/$name/queue/discard_max_bytes")" = 0 ] || skip "a loop device over ramfs has discard here"
printf 'stackbench-precondition-test' | dd of="$dev" bs=512 seek=100 conv=notrunc status=none
before=$(dd if="$dev" bs=1M count=4 status=none | sha256sum)
expect_exit 0 "$STACKBENCH" plan single-disk --devices "$dev" -o fs.type=ext4 -o devices.precondition=trim
assert_contains "$OUT" "run would refuse it: devices.precondition = trim needs discard" "plan warns"
expect_exit 3 "$STACKBENCH" run single-disk --devices "$dev" --yes --quick -o fs.type=ext4 \
	-o workloads.run=command:true -o devices.precondition=trim --results "$SB_TMP/res-nodiscard"
assert_contains "$OUT" "$dev: refusing: devices.precondition = trim (variant" "verdict"
assert_contains "$OUT" "queue/discard_max_bytes is 0" "why"
assert_eq "$(dd if="$dev" bs=1M count=4 status=none | sha256sum)" "$before" "device untouched"
losetup -d "$dev"
umount "$SB_TMP/ramfs"
nothing_left "no discard"
pass_msg "trim on a device without discard: refused before any write (exit 3)"

# 6. Ctrl-C while steady writes: exit 130 right away, everything torn down.
res="$SB_TMP/res-int"
"$STACKBENCH" run single-disk --loop -o fs.type=ext4 -o devices.loop.any=256M \
	-o workloads.run=command:true -o devices.precondition=steady -o devices.precondition-limit=60s \
	--results "$res" >"$SB_TMP/int.out" 2>&1 &
pid=$!
for _ in $(seq 50); do
	grep -q 'step 2/4: precondition' "$SB_TMP/int.out" && break
	sleep 0.1
done
sleep 1
kill -INT $pid
t0=$SECONDS rc=0
wait $pid || rc=$?
assert_eq "$rc" 130 "exit after SIGINT"
[ $((SECONDS - t0)) -le 10 ] || fail "the precondition did not stop at once ($((SECONDS - t0)) s)"
assert_contains "$(cat "$SB_TMP/int.out")" "preconditioning interrupted" "stopped in the step"
nothing_left "interrupted steady"
[ -z "$(ls -A "$STACKBENCH_STATE_DIR")" ] || fail "state left after the interrupt"
pass_msg "SIGINT during steady: exit 130, nothing left"
