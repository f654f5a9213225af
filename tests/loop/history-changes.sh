#!/bin/bash
# history's change points on imported synthetic sequences (2% noise per
# repeat): a 10% step from run 6 of 10 is marked at run 6, in the text and
# in the JSON; a flat sequence with the same noise gets none. report
# --history refuses a baseline from another host fingerprint (exit 3,
# naming the fields that differ), and compares with --any-host.
. "$SB_TOP/tests/lib.sh"
need_prog jq
cd "$SB_TMP"
syn=$SB_TOP/tests/loop/history-synth.py
python3 "$syn" step 10 --step-at 6 --step 10 --seed 3
python3 "$syn" flat 10 --seed 4
"$STACKBENCH" history --db step.db import step/* >/dev/null || fail "import step"
"$STACKBENCH" history --db flat.db import flat/* >/dev/null || fail "import flat"

"$STACKBENCH" history --db step.db --format json >step.json || fail "history json"
jq -e '.series | length == 1' step.json >/dev/null || fail "one series: $(jq -c . step.json)"
[ "$(jq -c '[.series[0].change_points[] | .run_id]' step.json)" = "[6]" ] ||
	fail "step: change points $(jq -c '.series[0].change_points' step.json), want run 6"
jq -e '.series[0].change_points[0] | .change_pct > 5 and .change_pct < 15 and .p < 0.01' step.json >/dev/null ||
	fail "step size: $(jq -c '.series[0].change_points' step.json)"
jq -e '.series[0].runs[5].change_point == true' step.json >/dev/null || fail "run 6 marked"
expect_exit 0 "$STACKBENCH" history --db step.db --metric block_write --variant ext4
echo "$OUT"
[ "$(echo "$OUT" | grep -c 'change point:')" = 1 ] && echo "$OUT" | grep -qE '^ +6 .*<- change point: \+' ||
	fail "text marks run 6"
# The HTML trend chart: one SVG per sequence, a change point line on the step's.
"$STACKBENCH" history --db step.db --format html >step.html || fail "history html"
[ "$(grep -c '<svg' step.html)" = 1 ] && [ "$(grep -c 'stroke-dasharray' step.html)" = 1 ] ||
	fail "html: $(grep -c '<svg' step.html) charts, $(grep -c 'stroke-dasharray' step.html) change points"
"$STACKBENCH" history --db flat.db --format html | grep -q 'stroke-dasharray' && fail "html: flat has a change point"
"$STACKBENCH" history --db flat.db --format json | jq -e '.series[0].change_points == [] and (.series[0].runs | length) == 10' >/dev/null ||
	fail "flat: $("$STACKBENCH" history --db flat.db --format json | jq -c '.series[0].change_points')"
expect_exit 0 "$STACKBENCH" history --db flat.db --metric nosuchmetric
[ -z "$OUT" ] || fail "unknown metric lists nothing: $OUT"

# Fingerprints: the history ran on kernel 6.1.0-test; a run on another kernel.
python3 "$syn" other 1 --seed 5 --kernel 6.9.9-other
jq '.created = "2026-11-02T00:00:00Z"' other/run01/result.json >other.json && mv other.json other/run01/result.json
expect_exit 3 "$STACKBENCH" report --history 5 --db flat.db other/run01
assert_contains "$OUT" "refusing to compare across hosts" "fingerprint refusal"
assert_contains "$OUT" "host.kernel" "differing field named"
expect_exit 0 "$STACKBENCH" report --history 5 --any-host --db flat.db other/run01
assert_contains "$OUT" "history(5 runs)" "any-host baseline"
# Same host: the last 5 of the flat sequence as the baseline.
python3 "$syn" same 1 --seed 6
jq '.created = "2026-11-02T00:00:00Z"' same/run01/result.json >same.json && mv same.json same/run01/result.json
expect_exit 0 "$STACKBENCH" report --history 5 --db flat.db same/run01
assert_contains "$OUT" "history(5 runs)" "baseline set named"
expect_exit 2 "$STACKBENCH" report --history 5 --db flat.db same/run01 other/run01
pass_msg "change point at run 6 of a 10% step, none in flat; fingerprint mismatch refused naming host.kernel"
