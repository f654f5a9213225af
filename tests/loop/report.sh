#!/bin/bash
# `stackbench report` on fixture result sets (written by the result API in
# tests/unit/test_report.c, whose expected statistics were checked with
# python3): golden text, CSV and JSON; bad inputs give a clear error, exit 2,
# and nothing on stdout. SB_UPDATE_GOLDEN=1 rewrites the golden outputs.
. "$SB_TOP/tests/lib.sh"
cd "$SB_TOP"
export LC_ALL=C
G=tests/golden/report
R1=$G/inputs/run1
R2=$G/inputs/run2

# name | arguments
cases=(
	"one.txt|$R1"
	"one.csv|--format csv $R1"
	"one.json|--format json $R1"
	"two-baseline.txt|$R1/result.json $R2 --baseline xfs"
	"two-merge.txt|--merge $R1 $R2"
	"two-merge.csv|-f csv -m $R1 $R2"
	"two.bonnie|--format bonnie $R1 $R2"
)
for c in "${cases[@]}"; do
	name=${c%%|*}
	read -r -a args <<<"${c#*|}"
	expect_exit 0 "$STACKBENCH" report "${args[@]}"
	got=$("$STACKBENCH" report "${args[@]}" 2>/dev/null)
	if [ -n "${SB_UPDATE_GOLDEN:-}" ]; then
		printf '%s\n' "$got" >"$G/$name"
	fi
	diff -u "$G/$name" <(printf '%s\n' "$got") || fail "report ${args[*]}: differs from $G/$name"
done

# Numbers stay numbers in JSON; the verdicts match what the unit test computed.
"$STACKBENCH" report --format json $R1 | python3 -c '
import json, sys
r = json.load(sys.stdin)
rows = {(x["spec"], x["metric"]): x for x in r["rows"]}
bw = {c["variant"]: c for c in rows[("seq", "block_write")]["cells"]}
assert isinstance(bw["xfs"]["mean"], float) and bw["xfs"]["mean"] == 111000, bw["xfs"]
assert bw["xfs"]["verdict"] == "better" and bw["xfs"]["significant"] is True
assert bw["xfs-sync"]["verdict"] == "not resolved" and bw["xfs-sync"]["n"] == 2
assert bw["xfs"]["p_adjusted"] >= bw["xfs"]["p_value"] and bw["xfs"]["mde_pct"] > 0
assert bw["xfs"]["diff_lo_pct"] < bw["xfs"]["change_pct"] < bw["xfs"]["diff_hi_pct"]
assert r["correction"] == "holm" and r["version"] == 2
lat = rows[("rand:4k", "latency:random read:p99")]
assert lat["better"] == "lower" and lat["cells"][0]["n"] == 3 and lat["headline"] is False
assert rows[("seq", "block_read")]["cells"][1]["verdict"] == "worse"
assert rows[("seq", "seeks")]["cells"][1]["n"] == 0 and rows[("seq", "seeks")]["cells"][1]["mean"] is None
' || fail "json report content"

# A UTF-8 terminal gets the plus-minus sign.
out=$(LC_ALL=C.UTF-8 "$STACKBENCH" report $R1)
assert_contains "$out" "111000 ±2484 (+9.9% [+7, +13])*" "utf-8 text cell"

# Bad input: each a clear error naming the file, exit 2, empty stdout.
B=$SB_TMP/bad
mkdir -p "$B/empty"
printf '{"format":"stackbench-result","version":1,\n"variants":[' >"$B/trunc.json"
printf '{"a":1,\n "b": x}' >"$B/syntax.json"
: >"$B/zero.json"
echo '{"a":1}' >"$B/other.json"
sed 's/"version":1/"version":99/' $R1/result.json >"$B/v99.json"
sed 's/"variants":\[/"variants":7,"x":[/' $R1/result.json >"$B/novariants.json"
sed '0,/"name":"block_write"/s//"nam":"block_write"/' $R1/result.json >"$B/noname.json"
grep -q '"version":99' "$B/v99.json" || fail "fixture: version not replaced"
bad=(
	"$B/missing|$B/missing: No such file or directory"
	"$B/empty|$B/empty/result.json: no such file (not a result set directory)"
	"$B/trunc.json|$B/trunc.json: line 2: unexpected end of file"
	"$B/syntax.json|$B/syntax.json: line 2, column 7: not valid JSON"
	"$B/zero.json|$B/zero.json: empty file"
	"$B/other.json|$B/other.json: not a stackbench result"
	"$B/v99.json|$B/v99.json: result format version 99 is not supported"
	"$B/novariants.json|$B/novariants.json: variants: expected an array, got an integer"
	"$B/noname.json|$B/noname.json: variants[0].repeats[0].workloads[0].metrics[0].name: expected a string, got null or nothing"
)
for c in "${bad[@]}"; do
	path=${c%%|*}
	# the bad set after a good one: nothing may be printed for the good one
	expect_exit 2 "$STACKBENCH" report $R1 "$path"
	assert_contains "$OUT" "stackbench: ${c#*|}" "error for $path"
	stdout=$("$STACKBENCH" report $R1 "$path" 2>/dev/null) || true
	assert_eq "$stdout" "" "stdout for $path"
done

expect_exit 2 "$STACKBENCH" report --format htm $R1
assert_contains "$OUT" "unknown format 'htm' (did you mean 'html'?)" "bad format"
expect_exit 2 "$STACKBENCH" report --baseline xfz $R1
assert_contains "$OUT" "unknown baseline variant 'xfz' (did you mean 'xfs'?)" "bad baseline"
expect_exit 2 "$STACKBENCH" report --baseline ext4 $R1 $R2
assert_contains "$OUT" "baseline 'ext4' is ambiguous" "ambiguous baseline"
expect_exit 2 "$STACKBENCH" report
assert_contains "$OUT" "expected at least one result set" "no arguments"
# The bonnie++ lines are what bonnie++'s own tools read, with our numbers.
sed 's/"workload":"seq"/"workload":"sequential"/g' $R1/result.json >"$B/noseq.json"
expect_exit 2 "$STACKBENCH" report --format bonnie "$B/noseq.json"
assert_contains "$OUT" "no seq or meta workload results" "bonnie without seq"
bon=""
if command -v bon_csv2txt >/dev/null; then
	txt=$("$STACKBENCH" report --format bonnie $R1 | bon_csv2txt) || fail "bon_csv2txt failed"
	assert_contains "$txt" "Sequential Output" "bon_csv2txt header"
	assert_eq "$(grep -c '^xfs ' <<<"$txt")" 3 "bon_csv2txt: a row per xfs repeat"
	# 111000 KB/s is 108.4 MiB/s: bon_csv2txt prints "108m"
	assert_contains "$(grep '^xfs ' <<<"$txt" | sed -n 2p)" "108m" "bon_csv2txt block write"
	bon=", bon_csv2txt reads the bonnie lines"
fi
pass_msg "report goldens and bad inputs$bon"
