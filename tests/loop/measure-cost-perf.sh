#!/bin/bash
# An instruction counter the kernel (or the administrator) refuses is a row
# that says "unavailable: perf_event_paranoid=N", with a null value, never a
# zero. perf_event_paranoid is raised to 3 for the run and restored on exit
# (the cleanup trap), whatever happens.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog jq
need_prog mkfs.ext4
f=/proc/sys/kernel/perf_event_paranoid
[ -w "$f" ] || skip "$f not writable"
old=$(cat "$f")
SB_CLEANUPS+=("echo $old >$f")
echo 3 >"$f" 2>/dev/null || skip "perf_event_paranoid cannot be set to 3 here"
[ "$(cat "$f")" = 3 ] || skip "perf_event_paranoid did not take 3"

dio_ext4 perf 128M
res="$SB_TMP/res"
expect_exit 0 "$STACKBENCH" bench "$DIO_MNT" --quick --results "$res" -w meta,files=1 \
	-w rand:16k,size=4M,direct=1
j="$res/result.json"
rows=$(jq -c '[.variants[0].repeats[0].workloads[].metrics[] | select(.name | test("_instr_per_op$"))]' "$j")
n=$(jq 'length' <<<"$rows")
[ "$n" -ge 8 ] || fail "expected an instructions row per phase (6 meta, 2 rand), got $n: $rows"
assert_eq "$(jq '[.[] | select(.value != null)] | length' <<<"$rows")" 0 "no value when refused"
assert_eq "$(jq '[.[] | select(.cost != true)] | length' <<<"$rows")" 0 "cost rows"
assert_eq "$(jq '[.[] | select(.label | endswith("(unavailable: perf_event_paranoid=3)") | not)] | length' <<<"$rows")" 0 \
	"every row says why: $(jq -r '.[0].label' <<<"$rows")"
assert_eq "$(jq -r '.variants[0].repeats[0].workloads[0].extra.instructions' "$j")" \
	"perf_event_paranoid=3" "the workload's record"
assert_eq "$(jq -r '.variants[0].repeats[0].workloads[0].extra.cost["seq create"].instructions_unavailable' "$j")" \
	"perf_event_paranoid=3" "the phase's record"
# The report shows the row with its reason and no figure.
"$STACKBENCH" report "$res" >"$SB_TMP/report.txt" || fail "report failed"
grep -q "instructions per op (unavailable: perf_event_paranoid=3)" "$SB_TMP/report.txt" ||
	fail "report: no unavailable row: $(grep -i instr "$SB_TMP/report.txt" | head -3)"
pass_msg "$n instruction rows unavailable: perf_event_paranoid=3"
