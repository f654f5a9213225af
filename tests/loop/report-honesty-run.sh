#!/bin/bash
# Honesty of the significance marks through `stackbench run --loop`: the
# stack engine builds a fresh ext4 loop device for every variant and repeat,
# interleaves the repeats (A B A B), and prints the report at its end.
# - A/A: variants that differ only in a time limit that is never reached
#   (the same stack, the same options, the same seeded workload): nothing may
#   be marked.
# - A/B: mount -o sync against the default for random 4k writes (a known,
#   large effect): write IOPS and MB/s marked significantly worse ("!").
# The p-values are adjusted over the rows of a comparison (Holm), so a
# correct report marks an A/A comparison anywhere at most once in 20; a
# marked A/A run is repeated once and fails only if marked again (see
# report-honesty.sh). "not resolved" is no mark.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
need_prog python3
cd "$SB_TOP"

REPEATS=5
SPEC=rand:4k,size=4M,read=0,seed=7

# run_set NAME MATRIX: a run with REPEATS interleaved repeats; its stdout in
# $SB_TMP/NAME.out, its result set in $SB_TMP/NAME
run_set() {
	"$STACKBENCH" run single-disk --loop --quick --repeat $REPEATS -o fs.type=ext4 \
		-o "workloads.run=$SPEC" -o "$2" --results "$SB_TMP/$1" \
		>"$SB_TMP/$1.out" 2>"$SB_TMP/$1.err" ||
		fail "run $1 failed: $(tail -5 "$SB_TMP/$1.err")"
	nothing_left "run $1"
}

# verdicts NAME: "metric verdict" of the second column, from the report
verdicts() {
	"$STACKBENCH" report --format json "$SB_TMP/$1" | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert len(r["variants"]) == 2, r["variants"]
for row in r["rows"]:
    a, b = row["cells"]
    # a cost row whose counter the kernel refused: no figure, by design
    if a["n"] == b["n"] == 0 and "(unavailable: " in row["label"]:
        continue
    assert a["n"] == b["n"] == '$REPEATS', (row["metric"], a["n"], b["n"])
    print(row["metric"], b["verdict"])
'
}

aa_marked() {
	local out
	run_set "aa$1" "matrix.workloads.time-limit=10m|11m"
	out=$(verdicts "aa$1") || fail "A/A report"
	echo "A/A run $1:" $out >&2
	grep -qE ' (better|worse|different)$' <<<"$out"
}
if aa_marked 1; then
	aa_marked 2 && fail "A/A: identical variants marked significantly different twice in a row"
fi

# The A/B marks must survive the correction over the 7 rows of a write-only
# rand workload (3 figures, 4 latency rows) on a loaded shared machine, where
# buffered async writes vary by 40% between repeats: 7 repeats, not 5.
REPEATS=7
run_set ab "matrix.mount.options=noatime|noatime,sync"
out=$(verdicts ab) || fail "A/B report"
echo "A/B:" $out
assert_contains "$out" "write_iops worse" "sync writes: IOPS marked worse"
assert_contains "$out" "write_mbs worse" "sync writes: MB/s marked worse"
# run's own closing report says so too
text=$(cat "$SB_TMP/ab.out")
assert_contains "$text" "baseline: mount.options=noatime" "run prints the report"
# (its table has the headline rows: the MB/s one; IOPS is in report --all)
grep -E 'Random Write ' <<<"$text" | grep -qE '\(-[0-9.]+% \[[^]]*\]\)!' ||
	fail "run's report: write MB/s of the sync variant not marked '!': $text"
assert_contains "$text" "results: $SB_TMP/ab" "run prints where the results are"
pass_msg "run --loop: A/A not marked, A/B (mount -o sync) marked worse, 5 (A/A) and 7 (A/B) interleaved repeats"
