#!/bin/bash
# rand with engine=io_uring on an ext4 loop device attached with direct I/O
# over a file on a disk (not tmpfs): it runs, verifies every record, and
# keeps more I/Os in flight than psync: qd=32 reads give more IOPS than qd=1
# on the same device (a relative check, loose for a busy machine); qd=256
# random writes on a 64-block file verify clean (writes in flight never share
# a block); engine and qd are in result.json; bad combinations are exit 2.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
need_prog jq

# Keys that do not fit together: errors before anything runs.
d0="$SB_TMP/d0"
mkdir -p "$d0"
expect_exit 2 "$STACKBENCH" bench "$d0" -w rand:4k,engine=libaio
assert_contains "$OUT" "not an engine" "unknown engine"
expect_exit 2 "$STACKBENCH" bench "$d0" -w rand:4k,qd=8
assert_contains "$OUT" "needs engine=io_uring" "qd with psync"
expect_exit 2 "$STACKBENCH" bench "$d0" -w rand:4k,engine=io_uring,hipri=1
assert_contains "$OUT" "needs direct=1" "hipri without direct"
expect_exit 2 "$STACKBENCH" bench "$d0" -w rand:4k,sqpoll=1
if [ "$(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo 0)" = 2 ]; then
	skip "io_uring disabled on this machine (io_uring_disabled=2); the refusals were checked"
fi

dio_ext4 uring 512M
mnt=$DIO_MNT

q() { jq -r ".variants[0].repeats[0].workloads[$2] | $3" "$1/result.json"; }
metric() { q "$1" "$2" ".metrics[] | select(.name == \"$3\") | .value"; }
common="size=128M,direct=1,time=3s,write=0,drop=1"
expect_exit 0 "$STACKBENCH" bench "$mnt" --results "$SB_TMP/r" \
	-w "rand:4k,$common,engine=io_uring,qd=1" \
	-w "rand:4k,$common,engine=io_uring,qd=32" \
	-w "rand:4k,size=256k,engine=io_uring,qd=256,read=0,ops=20000,direct=1"
assert_eq "$(q "$SB_TMP/r" 1 .extra.engine)" io_uring "engine recorded"
assert_eq "$(q "$SB_TMP/r" 1 .extra.qd)" 32 "qd recorded"
assert_eq "$(q "$SB_TMP/r" 1 .extra.verify_errors)" 0 "qd=32 reads verified"
i1=$(metric "$SB_TMP/r" 0 read_iops)
i32=$(metric "$SB_TMP/r" 1 read_iops)
echo "io_uring 4k direct random read on a dio loop device: qd=1 $i1 IOPS, qd=32 $i32 IOPS"
awk -v a="$i1" -v b="$i32" 'BEGIN { exit !(b > a * 1.2) }' ||
	fail "qd=32 ($i32 IOPS) not clearly above qd=1 ($i1 IOPS)"
# 64 blocks, 256 asked in flight: every block written verified on read-back.
assert_eq "$(q "$SB_TMP/r" 2 .extra.verify_errors)" 0 "qd=256 writes on 64 blocks verified"
[ "$(q "$SB_TMP/r" 2 .extra.written_blocks)" -gt 0 ] || fail "no block written"
assert_eq "$(q "$SB_TMP/r" 2 '.flags | index("failed")')" null "qd=256 writes failed"
[ -z "$(find "$mnt" -mindepth 1 -maxdepth 1 ! -name lost+found)" ] || fail "files left: $(ls -A "$mnt")"
pass_msg "io_uring: refusals, qd=32 > qd=1 ($i32 vs $i1 IOPS), qd=256 writes on 64 blocks verify"
