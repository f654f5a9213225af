#!/bin/bash
# bench/run's figures come from stackbench report, not from the script: the
# buffered rand:4k section (ours against fio psync and the bare pread loop,
# 3 rounds of 1 s) keeps every run's result set; the arranged set pairs
# round r of both sides as repeat r-1, each value the run's own figure; the
# table's means, factor, interval and test are the report's; a bad --rounds
# is a usage error.
. "$SB_TOP/tests/lib.sh"
need_prog fio
need_prog jq
need_prog cc
[ -e /usr/include/liburing.h ] || skip "liburing-dev not installed (bench/uring_floor.c)"
cd "$SB_TOP"
K=$SB_TMP/keep R=$SB_TMP/results.json

rc=0
bench/run --rounds x >"$SB_TMP/usage.out" 2>&1 || rc=$?
[ $rc = 2 ] || fail "bench/run --rounds x: exit $rc, expected 2"
grep -q -- '--rounds needs a number' "$SB_TMP/usage.out" || fail "bench/run --rounds x: no message"

BENCH_ONLY=rand-shm BENCH_T=1 BENCH_RESULTS=$R STACKBENCH=$STACKBENCH \
	bench/run --quick --rounds 3 --keep "$K" >"$SB_TMP/bench.out" 2>&1 ||
	{ cat "$SB_TMP/bench.out"; fail "bench/run failed"; }
grep -q '^rand 4k buffered read qd1, /dev/shm$' "$SB_TMP/bench.out" || { cat "$SB_TMP/bench.out"; fail "no table"; }

S=$K/rand-shm-fio
# the arranged set: fio psync the baseline, 3 repeats a side, each value the
# one of that round's own result set
jq -e '[.variants[].name] == ["fio psync", "stackbench"] and all(.variants[]; (.repeats | length) == 3)' \
	"$S/result.json" >/dev/null || fail "arranged set: variants or repeats wrong"
for r in 1 2 3; do
	want=$(jq '.variants[0].repeats[0].workloads[0].metrics[] | select(.name == "read_iops") | .value' "$K/runs/rand-shm/ours/$r/result.json")
	got=$(jq --argjson i $((r - 1)) '.variants[1].repeats[] | select(.index == $i) | .workloads[0].metrics[] | select(.name == "qd1") | .value' "$S/result.json")
	[ "$want" = "$got" ] || fail "round $r: arranged $got, the run's own $want"
	want=$(jq '.variants[0].repeats[0].workloads[0].extra.fio_output.jobs[0].read.iops' "$K/runs/rand-shm/fio/$r/result.json")
	got=$(jq --argjson i $((r - 1)) '.variants[0].repeats[] | select(.index == $i) | .workloads[0].metrics[] | select(.name == "qd1") | .value' "$S/result.json")
	[ "$want" = "$got" ] || fail "round $r: fio arranged $got, the run's own $want"
done

# the row of results.json is the report's cell, figure for figure
jq -e --slurpfile rep "$S/report.json" '
	($rep[0].rows[] | select(.metric == "qd1") | .cells) as [$p, $o] |
	.comparisons[] | select(.set == "rand 4k buffered read qd1, /dev/shm" and .name == "qd1") |
	.ours == $o.mean and .peer == $p.mean and .ratio == 1 + $o.change_pct / 100 and
	.ratio_lo == 1 + $o.diff_lo_pct / 100 and .test == $o.test and .test == "paired-t-log" and
	.rounds == 3 and .pairs == 3' "$R" >/dev/null || fail "results.json's qd1 row is not the report's cell"
# a target is judged on the interval: yes only when all of it is above 1.2
jq -e '.comparisons[] | select(.target == ">= 1.2") |
	.holds == (if .ratio_lo >= 1.2 then true elif .ratio_hi < 1.2 then false else null end)' "$R" >/dev/null ||
	fail "the >= 1.2 target judged otherwise than by its interval"
nothing_left
echo "ok: bench rows are the report's"
