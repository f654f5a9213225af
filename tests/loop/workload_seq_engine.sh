#!/bin/bash
# seq's block tests with engine=io_uring on an ext4 loop device attached with
# direct I/O over a file on a disk: qd=8 blocks in flight for the block
# write, the rewrite and the block read; every block is verified (the
# rewrite reads back what the write left, the read what the rewrite left),
# all of them are rewritten, and engine, qd and the batches are in
# result.json (submitting 4 and reaping 2 at a time). Keys that
# do not fit together are refused at spec check (exit 2), nothing run.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
need_prog jq

d0="$SB_TMP/d0"
mkdir -p "$d0"
expect_exit 2 "$STACKBENCH" bench "$d0" -w seq,engine=libaio
assert_contains "$OUT" "not an engine" "unknown engine"
expect_exit 2 "$STACKBENCH" bench "$d0" -w seq,qd=8
assert_contains "$OUT" "needs engine=io_uring" "qd with psync"
expect_exit 2 "$STACKBENCH" bench "$d0" -w seq,fixed=1
assert_contains "$OUT" "fixed= is for engine=io_uring" "fixed with psync"
expect_exit 2 "$STACKBENCH" bench "$d0" -w seq,sqpoll=1
assert_contains "$OUT" "sqpoll= is for engine=io_uring" "sqpoll with psync"
expect_exit 2 "$STACKBENCH" bench "$d0" -w seq,batch_submit=4
assert_contains "$OUT" "batch_submit= is for engine=io_uring" "batch_submit with psync"
expect_exit 2 "$STACKBENCH" bench "$d0" -w seq,engine=io_uring,hipri=1
assert_contains "$OUT" "needs direct=1" "hipri without direct"
[ -z "$(ls -A "$d0")" ] || fail "a refused spec left files: $(ls -A "$d0")"
if [ "$(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo 0)" = 2 ]; then
	skip "io_uring disabled on this machine (io_uring_disabled=2); the refusals were checked"
fi

dio_ext4 seqeng 256M
mnt=$DIO_MNT
q() { jq -r ".variants[0].repeats[0].workloads[0] | $2" "$1/result.json"; }
metric() { q "$1" ".metrics[] | select(.name == \"$2\") | .value"; }
size=$((32 << 20)) chunk=8192
expect_exit 0 "$STACKBENCH" bench "$mnt" --results "$SB_TMP/r" \
	-w "seq,size=32M,chunk=8k,direct=1,perchar=0,seeks=200,seekers=1,drop=0,engine=io_uring,qd=8,batch_submit=4,batch_complete=2"
assert_eq "$(q "$SB_TMP/r" .extra.engine)" io_uring "engine recorded"
assert_eq "$(q "$SB_TMP/r" .extra.qd)" 8 "qd recorded"
assert_eq "$(q "$SB_TMP/r" .extra.batch_submit)" 4 "batch_submit recorded"
assert_eq "$(q "$SB_TMP/r" .extra.batch_complete)" 2 "batch_complete recorded"
assert_eq "$(q "$SB_TMP/r" .extra.verify_errors)" 0 "blocks verified clean"
# rewrite and block read each check every block
assert_eq "$(q "$SB_TMP/r" .extra.verified_bytes)" $((2 * size)) "every block verified twice"
assert_eq "$(q "$SB_TMP/r" .extra.rewritten_blocks)" $((size / chunk)) "every block rewritten"
assert_eq "$(q "$SB_TMP/r" '.flags | index("failed")')" null "seq failed"
for m in block_write rewrite block_read; do
	v=$(metric "$SB_TMP/r" $m)
	awk -v v="$v" 'BEGIN { exit !(v > 0) }' || fail "$m is '$v'"
done
n=$(q "$SB_TMP/r" '.latency[] | select(.op == "block read") | .count')
assert_eq "$n" $((size / chunk)) "every block read timed"
[ -z "$(find "$mnt" -mindepth 1 -maxdepth 1 ! -name lost+found)" ] || fail "files left: $(ls -A "$mnt")"
pass_msg "seq io_uring qd=8 direct: $(metric "$SB_TMP/r" block_write) KB/s write, $(metric "$SB_TMP/r" block_read) KB/s read, all verified"
