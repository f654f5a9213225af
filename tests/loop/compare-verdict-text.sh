#!/bin/bash
# The verdict first, in every format (issue 20 item 5), on the fixture sets:
# the text opens with a block headed "verdict", per variant against its
# baseline: resolved changes largest first with interval and test, rows
# equal within +-X% (--equal sets X), unresolved rows with the repeats that
# would resolve them, untested rows with why; the table below has only the
# headline and cost rows, --all adds the latency and %CPU rows. JSON and
# CSV carry the verdict, the test used and the repeats estimate; the HTML
# opens with the verdict and a forest plot, the table in a scrolling box.
. "$SB_TOP/tests/lib.sh"
need_prog jq
need_prog python3
cd "$SB_TOP"
export LC_ALL=C
R1=tests/golden/report/inputs/run1

text=$("$STACKBENCH" report $R1)
assert_eq "$(head -1 <<<"$text")" "verdict" "first line"
block=$(sed '/^$/q' <<<"$text")
assert_contains "$block" "  xfs against ext4 (3 against 3 repeats, rounds paired):" "per variant"
# largest first: -24.5% before -18.9% before +9.9%
order=$(grep -E '^    (worse|better)' <<<"$block" | sed 's/.*\(Block\|Wall\).*/\1/' | tr '\n' ' ')
assert_eq "$order" "Block Wall Block " "largest change first"
assert_contains "$block" "    worse   seq: Sequential Input Block -24.5% [-26.4, -22.6] (paired-t-log" \
	"change, interval and test"
assert_contains "$block" "untested: seq: Sequential Output Block: 2 repeats against 3" "untested why"
assert_contains "$block" "    seen in 2 against 3 repeats, not tested: seq: Sequential Output Block -50.0%" \
	"too few repeats: the change as seen, said untested"
assert_contains "$block" "    next: run with --repeat 3 or more (or --repeat auto) for a verdict" "next step"
# One repeat a side (a plain run): one line for all the rows that share the
# reason, not one per row.
mkdir -p "$SB_TMP/one"
python3 - "$R1/result.json" "$SB_TMP/one/result.json" <<'EOP'
import json, sys
r = json.load(open(sys.argv[1]))
for v in r["variants"]:
    v["repeats"] = v["repeats"][:1]
    for rep in v["repeats"]:
        for w in rep["workloads"]:  # more rows than a line each: 4 copies of each
            w["metrics"] += [dict(m, name=m["name"] + "_c%d" % k, headline=True,
                                  label=m.get("label", m["name"]) + " copy %d" % k)
                             for m in w["metrics"] for k in range(4)]
json.dump(r, open(sys.argv[2], "w"))
EOP
one=$("$STACKBENCH" report "$SB_TMP/one")
one=$(sed '/^$/q' <<<"$one")
grep -qE '^    untested, [0-9]+ rows \([0-9]+ headline\): 1 repeat against 1: at least 3 a side are needed: seq: ' <<<"$one" ||
	fail "one repeat: no grouped untested line: $one"
[ "$(grep -c '^    untested: ' <<<"$one" || true)" -le 6 ] || fail "one repeat: a line per row: $one"
assert_contains "$one" "seen in 1 against 1 repeats, not tested: seq: Sequential Output Block" "one repeat: seen"
assert_not_contains "$text" "random read p99" "latency rows hidden by default"
assert_contains "$text" "latency and %CPU rows not shown: report --all" "hint"
all=$("$STACKBENCH" report --all $R1)
assert_contains "$all" "random read p99" "--all: latency rows"
assert_contains "$all" "Sequential Output Block %CP" "--all: %CPU rows"

# equal within +-X%, and not resolved with the repeats: run2 against run1
two=$("$STACKBENCH" report --baseline-set $R1 tests/golden/report/inputs/run2)
assert_contains "$two" "equal within +-5%: seq: Sequential Output Block" "equal"
assert_contains "$two" "sets not run together: Welch" "unpaired"
assert_contains "$two" "note: unpaired: the sets ran at different times" "the unpaired note"
assert_not_contains "$text" "note: unpaired" "no unpaired note on paired rounds"
"$STACKBENCH" report --format json --baseline-set $R1 tests/golden/report/inputs/run2 |
	jq -e '.verdict[0].paired == false and (.verdict[0].note | test("^unpaired: "))' >/dev/null ||
	fail "JSON: the unpaired verdict has no note"
"$STACKBENCH" report --format html --baseline-set $R1 tests/golden/report/inputs/run2 >"$SB_TMP/two.html" ||
	fail "HTML report"
grep -q '<li class="unresolved">note: unpaired: ' "$SB_TMP/two.html" || fail "HTML: no unpaired note"
wide=$("$STACKBENCH" report --equal 2 --baseline-set $R1 tests/golden/report/inputs/run2)
assert_contains "$wide" "not resolved: seq: Sequential Output Block +0.0% [" "--equal narrows"
assert_contains "$wide" "(welch-log, p adj 1): about " "repeats needed"

"$STACKBENCH" report --format json $R1 | python3 -c '
import json, sys
r = json.load(sys.stdin)
v = r["verdict"]
assert [x["variant"] for x in v] == ["xfs", "xfs-sync"], v
ch = v[0]["changed"]
assert [round(c["change_pct"], 1) for c in ch] == [-24.5, -18.9, 9.9], ch
assert all(c["test"] == "paired-t-log" for c in ch) and v[0]["paired"] is True
rows = {(x["spec"], x["metric"]): x for x in r["rows"]}
cpu = {c["variant"]: c for c in rows[("seq", "block_write_cpu")]["cells"]}["xfs"]
assert cpu["verdict"] == "not resolved" and cpu["repeats_needed"] >= 3, cpu
assert cpu["test"] == "paired-t-log" and "cost" in rows[("seq", "block_write")]
' || fail "json verdict"
csv=$("$STACKBENCH" report --format csv $R1)
assert_contains "$(head -1 <<<"$csv")" ",baseline,test,repeats_needed,cost" "csv header"
assert_contains "$csv" "block_write_cpu" "csv keeps every row"
grep -q '^seq,seq,block_read,.*,xfs,.*,worse,.*,paired-t-log,,false$' <<<"$csv" ||
	fail "csv row with verdict and test: $(grep block_read, <<<"$csv")"

html=$("$STACKBENCH" report --format html $R1)
python3 -c '
import sys
s = sys.stdin.read()
v, f, t, d = (s.index(k) for k in ("<h2>Verdict</h2>", "<svg class=\"forest\"",
                                    "<div class=\"scroll\">", "<details>"))
assert v < f < t < d, (v, f, t, d)
assert s.count("<circle") >= 3 and "paired-t-log" in s[v:f]
' <<<"$html" || fail "html order: verdict, forest plot, scrolling table, details"
pass_msg "verdict first in text, JSON, CSV and HTML; --all; --equal"
