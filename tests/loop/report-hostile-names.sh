#!/bin/bash
# Issue 24 item 6: terminal escape sequences and other control characters
# in imported names (bonnie++ machine names, fio job names, variant, spec
# and host names, workload errors of a result.json) are escaped (\xHH) in
# every line of the text report, not only in its table cells: no ESC, C1
# control (CSI 0x9b), carriage return or bidi override reaches the
# terminal. No root needed.
. "$SB_TOP/tests/lib.sh"
need_prog python3
cd "$SB_TOP"
export LC_ALL=C.UTF-8
R1=tests/golden/report/inputs/run1/result.json
FIO=tests/golden/report/import/fio-jsonplus.json
CSV=tests/golden/report/import/host1-1.96.csv
T=$SB_TMP

EVIL=$'ev\e[2J\e]0;title\ail\xc2\x9b31m\xe2\x80\xae'
line=$(grep -v '^#' $CSV | head -1)
{
	sed "s/host1/$EVIL/" <<<"$line"
	sed "s/host1/b$EVIL/" <<<"$line"
} >"$T/evil.csv"
python3 - "$R1" "$T/evil.json" "$EVIL" <<'EOP'
import json, sys
d = json.load(open(sys.argv[1]))
evil = sys.argv[3].encode("utf-8", "surrogateescape").decode("utf-8")
d["host"]["hostname"] = evil
for i, v in enumerate(d["variants"]):
    v["name"] = "v%d%s" % (i, evil)
    for r in v["repeats"]:
        for w in r["workloads"]:
            w["spec"] = w["spec"] + evil
            w["error"] = "failed\r" + evil
            for m in w["metrics"]:
                m["label"] = m["name"] + evil
json.dump(d, open(sys.argv[2], "w"))
EOP
python3 - "$FIO" "$T/evil-fio.json" "$EVIL" <<'EOP'
import json, sys
t = open(sys.argv[1]).read()
d = json.loads(t[t.index("{"):])
evil = sys.argv[3].encode("utf-8", "surrogateescape").decode("utf-8")
for j in d["jobs"]:
    j["jobname"] = j["jobname"] + evil
json.dump(d, open(sys.argv[2], "w"))
EOP

# raw: the bytes a terminal would act on
raw() { LC_ALL=C grep -c $'\e\|\r\|\xc2\x9b\|\xe2\x80\xae' <<<"$1" || true; }
for args in "$T/evil.csv" "$T/evil.json" "$T/evil-fio.json" "$R1 $T/evil.json" \
	"--baseline-set $T/evil.json $T/evil.json"; do
	# shellcheck disable=SC2086
	out=$("$STACKBENCH" report $args 2>&1) || fail "report $args: $out"
	assert_eq "$(raw "$out")" 0 "raw control bytes in the report of $args"
	assert_contains "$out" '\x1b[2J' "escaped ESC in the report of $args"
done
# the lines outside the table: baseline, repeats, tallies, notes
out=$("$STACKBENCH" report "$T/evil.csv")
assert_contains "$out" 'baseline: ev\x1b[2J\x1b]0;title\x07il\xc2\x9b31m\xe2\x80\xae' "baseline line"
assert_contains "$out" 'repeats: ev\x1b[2J' "repeats line"
assert_contains "$out" 'note: ev\x1b[2J' "note line"
out=$("$STACKBENCH" report "$T/evil.json")
assert_contains "$out" 'failed\x0dev\x1b[2J' "a workload's error in a note"
# In the C locale every byte above ASCII is escaped too (libsmartcols,
# with its own encoding off, looped forever on one: a fuzzing find).
out=$(LC_ALL=C timeout 20 "$STACKBENCH" report "$T/evil.csv") || fail "C locale: exit $?"
assert_eq "$(LC_ALL=C grep -c $'[\x80-\xff]' <<<"$out" || true)" 0 "raw bytes above ASCII in the C locale"
assert_contains "$out" 'il\xc2\x9b31m\xe2\x80\xae' "C locale escapes"
timeout 20 env LC_ALL=C "$STACKBENCH" report fuzz/regress/import_bonnie/scols-noencoding-c-locale-hang.csv \
	>/dev/null || fail "the fuzzer's hang input"
# an error message naming a hostile value escapes it too
sed 's/"name": "v2/"name": "v0/' "$T/evil.json" >"$T/dup.json"
expect_exit 2 "$STACKBENCH" report "$T/dup.json"
assert_eq "$(raw "$OUT")" 0 "raw control bytes in the error"
assert_contains "$OUT" "are both named 'v0ev\\x1b[2J" "duplicate name escaped"
echo "ok: hostile names escaped in every line"
