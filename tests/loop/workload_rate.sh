#!/bin/bash
# rand's open loop: with rate=R every record is due on a schedule and timed
# from when it was due. The file system under it is frozen for 2 s mid-test
# (fsfreeze: O_DIRECT writes wait), so about R x 2 s records must come out
# late, and the latency tail must show the stall, instead of a closed loop
# quietly issuing fewer I/Os: with engine=psync and with engine=io_uring
# (qd=16: the first 16 due in the stall wait in the queue, the rest go out
# late). burst= with idle= gives one p99 per burst.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
need_prog jq
need_prog fsfreeze

expect_exit 2 "$STACKBENCH" bench "$SB_TMP" -w rand:4k,burst=10
assert_contains "$OUT" "burst= needs rate=" "burst without rate"
expect_exit 2 "$STACKBENCH" bench "$SB_TMP" -w rand:4k,rate=100,burst=10,engine=io_uring
assert_contains "$OUT" "engine=psync only" "burst with io_uring"

dio_ext4 rate 256M
mnt=$DIO_MNT
# Thawed before anything is unmounted (a frozen file system would hang it).
SB_CLEANUPS=("fsfreeze -u $mnt" "${SB_CLEANUPS[@]}")

q() { jq -r ".variants[0].repeats[0].workloads[0] | $2" "$1/result.json"; }
rate=400
# frozen NAME ENGINE-KEYS: the write test at rate= with a 2 s freeze in it
frozen() {
	local out=$SB_TMP/out-$1 res=$SB_TMP/r-$1 bpid late maxms want
	"$STACKBENCH" bench "$mnt" --results "$res" \
		-w "rand:4k,size=32M,direct=1,read=0,fsync=0,rate=$rate,time=7s,$2" >"$out" 2>&1 &
	bpid=$!
	# Freeze once the write test is under way (the layout is written first).
	for _ in $(seq 200); do
		grep -q 'random write' "$out" 2>/dev/null && break
		[ -n "$(find "$mnt" -name rand.dat -size +31M 2>/dev/null)" ] && break
		sleep 0.05
	done
	sleep 2.5
	fsfreeze -f "$mnt"
	sleep 2
	fsfreeze -u "$mnt"
	wait "$bpid" || fail "$1: bench failed: $(cat "$out")"
	assert_eq "$(q "$res" .extra.engine)" "$1" "$1: engine recorded"
	assert_eq "$(q "$res" .extra.verify_errors)" 0 "$1: writes verified"
	late=$(q "$res" .extra.write_late)
	maxms=$(q "$res" '.latency[] | select(.op == "random write") | .max_ms')
	echo "$1: rate=$rate/s, 2 s frozen: $late records late, max latency $maxms ms"
	want=$((rate * 2))
	# At least half the stall's records (a closed loop shows none); at most
	# three times them, below the test's 7 s x rate: a loaded host (the VM
	# tier beside this one) makes records late on its own, up to 1931 of
	# the 800 seen, and only "every record late" is a fault.
	[ "$late" -ge $((want / 2)) ] && [ "$late" -le $((want * 3)) ] ||
		fail "$1: late records $late, want about $want (rate x 2 s)"
	awk -v m="$maxms" 'BEGIN { exit !(m >= 1500) }' || fail "$1: max latency $maxms ms does not show the 2 s stall"
	LATE+="$1 $late "
}
LATE=
frozen psync engine=psync
if [ "$(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo 0)" != 2 ]; then
	frozen io_uring engine=io_uring,qd=16
else
	echo "io_uring disabled here (io_uring_disabled=2): its open loop not checked"
fi

# Bursts: one p99 per burst.
expect_exit 0 "$STACKBENCH" bench "$mnt" --results "$SB_TMP/b" \
	-w "rand:4k,size=8M,direct=1,read=0,rate=1000,burst=100,idle=100ms,time=2s"
nb=$(q "$SB_TMP/b" '.extra.write_burst_p99_ms | length')
[ "$nb" -ge 5 ] && [ "$nb" -le 11 ] || fail "$nb burst p99 figures for ~2 s of 200 ms bursts"
# A paced phase's throughput is the schedule's: no headline figure, its
# label says so; its p99 is the headline row of the report, and so a row of
# the verdict and the default table (not only of report --all).
b=$SB_TMP/b/result.json
assert_eq "$(jq -r '.variants[0].repeats[0].workloads[0].metrics[] | select(.name == "write_mbs")
	| "\(.headline) \(.label | test("paced by rate=1000/s"))"' "$b")" "false true" "paced MB/s: no headline, labelled"
assert_eq "$(jq -r '.variants[0].repeats[0].workloads[0].extra.paced | join(",")' "$b")" "random write" "extra.paced"
"$STACKBENCH" report --format json "$SB_TMP/b" >"$SB_TMP/b.json" || fail "report of the bursts"
assert_eq "$(jq -r '[.rows[] | select(.headline) | .metric] | join(",")' "$SB_TMP/b.json")" \
	"latency:random write:p99" "the paced phase's headline row is its p99"
"$STACKBENCH" report "$SB_TMP/b" >"$SB_TMP/b.txt" || fail "text report of the bursts"
grep -q "random write p99 (paced: the headline)" "$SB_TMP/b.txt" ||
	fail "the default table lacks the paced p99: $(cat "$SB_TMP/b.txt")"
pass_msg "open loop: late records for a 2 s stall at $rate/s: $LATE; $nb bursts with a p99 each"
