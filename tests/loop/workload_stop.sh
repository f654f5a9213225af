#!/bin/bash
# Time limits and interrupts: a phase past its timeout= stops, keeps its
# figures and is flagged incomplete; SIGINT stops the run (exit 130) and
# removes every file the workload created.
. "$SB_TOP/tests/lib.sh"
need_root
need_prog jq

d="$SB_TMP/tmpfs"
mkdir -p "$d"
mount -t tmpfs -o size=128m sbtest "$d"
SB_MOUNTS+=("$d")

res="$SB_TMP/res"
expect_exit 0 "$STACKBENCH" bench "$d" --results "$res" -w rand:4k,size=16M,ops=1000000000,write=0,timeout=1s
w='.variants[0].repeats[0].workloads[0]'
assert_contains "$(jq -r "$w.flags | join(\",\")" "$res/result.json")" incomplete "timeout flag"
assert_contains "$(jq -r "$w.error" "$res/result.json")" "hit its time limit" "timeout reason"
n=$(jq -r "$w.latency[0].count" "$res/result.json")
[ "$n" -gt 0 ] && [ "$n" -lt 1000000000 ] || fail "reads done before the limit: $n"
[ -n "$(jq -r "$w.metrics[] | select(.name == \"read_iops\") | .value" "$res/result.json")" ] ||
	fail "figures of the stopped phase kept"
[ -z "$(ls -A "$d")" ] || fail "files left after a timeout: $(ls -A "$d")"

# SIGINT in the middle of a long phase
"$STACKBENCH" bench "$d" --results "$res" -w mixed:2r2w,files=200,time=60s,maxfile=16k >"$SB_TMP/out" 2>&1 &
pid=$!
for _ in $(seq 50); do
	[ -n "$(ls -A "$d")" ] && break
	sleep 0.1
done
[ -n "$(ls -A "$d")" ] || fail "the workload never started"
sleep 1.5
kill -INT $pid
rc=0
wait $pid || rc=$?
assert_eq "$rc" 130 "exit code after SIGINT"
[ -z "$(ls -A "$d")" ] || fail "files left after SIGINT: $(ls -A "$d")"
assert_contains "$(jq -r "$w.flags | join(\",\")" "$res/result.json")" incomplete "SIGINT flag"
umount "$d"
SB_MOUNTS=()
pass_msg "timeout keeps figures and flags incomplete; SIGINT removes everything, exit 130"
