#!/bin/bash
# seq's min-time=: the block tests repeat whole passes over the file until
# they have lasted that long, with engine=psync and engine=io_uring, on an
# ext4 loop device with direct I/O. Each pass times and verifies every
# block (the rewrite's first pass reads generation 1, later ones 2), the
# rate's time is at least min-time, and later read passes without a cache
# drop (drop=0, buffered) are flagged. Without min-time (and without
# --quick) each test is one pass, as before.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
need_prog jq

dio_ext4 seqpass 192M
mnt=$DIO_MNT
q() { jq -r ".variants[0].repeats[0].workloads[0] | $2" "$1/result.json"; }
lat() { q "$1" ".latency[] | select(.op == \"$2\") | .count"; }
chunk=65536 size=$((8 << 20))
blocks=$((size / chunk))

# check_passes RES MIN_S: every block test ran >= 1 passes over >= MIN_S s
check_passes() {
	local res=$1 min=$2 op passes secs rw=0 rd=0
	for op in block_write rewrite block_read; do
		passes=$(q "$res" ".extra.${op}_passes")
		secs=$(q "$res" ".extra.${op}_passes_s")
		[ "$passes" -ge 1 ] || fail "$res: $op passes '$passes'"
		awk -v s="$secs" -v m="$min" 'BEGIN { exit !(s >= m) }' ||
			fail "$res: $op lasted $secs s in $passes passes, under min-time $min s"
		assert_eq "$(lat "$res" "${op//_/ }")" $((blocks * passes)) "$res: $op blocks timed"
		[ $op = rewrite ] && rw=$passes
		[ $op = block_read ] && rd=$passes
	done
	assert_eq "$(q "$res" .extra.verify_errors)" 0 "$res: verify errors"
	assert_eq "$(q "$res" .extra.verified_bytes)" $(((rw + rd) * size)) "$res: every pass verified"
	assert_eq "$(q "$res" .extra.rewritten_blocks)" $blocks "$res: rewritten blocks (the last pass)"
	assert_eq "$(q "$res" '.flags | index("failed")')" null "$res: failed"
	assert_eq "$(q "$res" '.flags | index("incomplete")')" null "$res: incomplete"
}

base="seq,size=8M,chunk=64k,perchar=0,seeks=50,seekers=1"
expect_exit 0 "$STACKBENCH" bench "$mnt" --results "$SB_TMP/psync" -w "$base,direct=1,min-time=300ms"
check_passes "$SB_TMP/psync" 0.3
# buffered and drop=0: later read passes find the file in the page cache
expect_exit 0 "$STACKBENCH" bench "$mnt" --results "$SB_TMP/cached" -w "$base,drop=0,min-time=300ms"
check_passes "$SB_TMP/cached" 0.3
if [ "$(q "$SB_TMP/cached" .extra.block_read_passes)" -gt 1 ]; then
	assert_eq "$(q "$SB_TMP/cached" .extra.block_read_passes_cached)" true "cached read passes flagged"
fi
# no min-time, no --quick: one pass each
expect_exit 0 "$STACKBENCH" bench "$mnt" --results "$SB_TMP/one" -w "$base,direct=1"
for op in block_write rewrite block_read; do
	assert_eq "$(q "$SB_TMP/one" ".extra.${op}_passes")" 1 "one $op pass by default"
	assert_eq "$(lat "$SB_TMP/one" "${op//_/ }")" $blocks "one pass: $op blocks"
done
# past the time limit: refused at spec check, nothing run
expect_exit 2 "$STACKBENCH" bench "$mnt" -w "$base,min-time=2s,timeout=1s"
assert_contains "$OUT" "must be shorter than timeout" "min-time past timeout"

if [ "$(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo 0)" != 2 ]; then
	expect_exit 0 "$STACKBENCH" bench "$mnt" --results "$SB_TMP/uring" \
		-w "$base,direct=1,engine=io_uring,qd=4,min-time=300ms"
	check_passes "$SB_TMP/uring" 0.3
	uring="; io_uring $(q "$SB_TMP/uring" .extra.block_read_passes) read passes"
else
	uring="; io_uring disabled here (io_uring_disabled=2), not run"
fi
[ -z "$(find "$mnt" -mindepth 1 -maxdepth 1 ! -name lost+found)" ] || fail "files left: $(ls -A "$mnt")"
pass_msg "psync $(q "$SB_TMP/psync" .extra.block_write_passes) write passes in $(q "$SB_TMP/psync" .extra.block_write_passes_s) s$uring"
