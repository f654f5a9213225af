#!/bin/bash
# report --format html --history N draws each headline metric's trend: the
# N runs pooled as the baseline and the result set itself (when recorded)
# as points with their intervals, the levels, and a dashed line at the
# change point of a 10% step from run 6 of 10; a result set that is not in
# the history is said to be missing from its chart; without --history, and
# in the text report, there is no history section.
. "$SB_TOP/tests/lib.sh"
need_prog sqlite3
cd "$SB_TMP"
syn=$SB_TOP/tests/loop/history-synth.py
python3 "$syn" step 10 --step-at 6 --step 10 --seed 3
section() { sed -n '/<h2 id="history">/,/<details>/p' "$1"; }

"$STACKBENCH" history --db s.db import step/* >/dev/null || fail "import"
expect_exit 0 "$STACKBENCH" report --format html --history 9 --db s.db step/run10
echo "$OUT" >with.html
section with.html >sec.html
[ -s sec.html ] || fail "no history section in the HTML report"
[ "$(grep -c '<svg' sec.html)" = 1 ] || fail "one trend chart: $(grep -c '<svg' sec.html)"
[ "$(grep -c '<circle' sec.html)" = 10 ] || fail "10 runs drawn: $(grep -c '<circle' sec.html)"
grep -q '<title>run 10: ' sec.html || fail "the result set itself is the last point"
grep -q 'this result set (run 10, the last point)' sec.html || fail "caption"
[ "$(grep -c 'stroke-dasharray' sec.html)" = 1 ] && grep -q 'fill="#c00">+[0-9.]*%' sec.html ||
	fail "one change point line, a step up: $(grep 'c00' sec.html)"
# Interval bars: one line per run besides the levels and the change point.
[ "$(grep -c 'stroke="#36c"' sec.html)" = 10 ] || fail "interval bars"

# The same result set not recorded: the 9 before it, and said so.
"$STACKBENCH" history --db s9.db import step/run0* >/dev/null || fail "import 9"
expect_exit 0 "$STACKBENCH" report --format html --history 9 --db s9.db step/run10
echo "$OUT" >without.html
section without.html >sec9.html
[ "$(grep -c '<circle' sec9.html)" = 9 ] || fail "9 runs drawn: $(grep -c '<circle' sec9.html)"
grep -q 'without this result set (it is not recorded there)' sec9.html || fail "missing run said"

expect_exit 0 "$STACKBENCH" report --format html step/run10
echo "$OUT" | grep -q 'id="history"' && fail "a history section without --history"
expect_exit 0 "$STACKBENCH" report --history 9 --db s.db step/run10
assert_contains "$OUT" "history(9 runs)" "text report against the history"
echo "$OUT" | grep -q '<svg' && fail "SVG in the text report"
pass_msg "report --format html --history: the trend of 10 runs with intervals and the change point at run 6"
