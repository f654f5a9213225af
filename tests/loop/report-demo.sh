#!/bin/bash
# The demo's question answered first: each comparison of the verdict opens
# with one line "in short": which member role served the reads (the share
# of the members' read bytes over every repeat, workload and phase, against
# the baseline's), then of the headline rows the largest change each way and
# how many are equal, not resolved and untested. Checked on the recorded
# demo sets (md RAID1 of an SSD and two HDDs, three rounds and one) against
# shares computed here from result.json, and on the small sets. No root, no
# stacks.
. "$SB_TOP/tests/lib.sh"
need_prog python3
cd "$SB_TOP"
export LC_ALL=C.UTF-8
G=tests/golden/report/inputs

# share SET VARIANT ROLE: ROLE's share of the members' read bytes, in percent
share() {
	python3 - "$1/result.json" "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
role = {x["name"]: x.get("role") for x in d["devices"]}
def role_of(m):
    for n, r in role.items():
        if m.startswith(n):
            return r
tot = {}
v = [v for v in d["variants"] if v["name"] == sys.argv[2]][0]
for rep in v["repeats"]:
    for w in rep["workloads"]:
        for ph in ((w.get("extra") or {}).get("devstat") or {}).values():
            for dev in ph.get("devices", []):
                if dev.get("parent"):
                    r = role_of(dev["name"])
                    tot[r] = tot.get(r, 0) + dev.get("read_bytes", 0)
print("%.0f" % (100.0 * tot[sys.argv[3]] / sum(tot.values())))
PY
}

V0=md.write-mostly=none,md.write-behind=0
V1=md.write-mostly=hdd,md.write-behind=0
V2=md.write-mostly=hdd,md.write-behind=16383
s0=$(share $G/demo "$V0" ssd) s1=$(share $G/demo "$V1" ssd) s2=$(share $G/demo "$V2" ssd)
[ "$s1" -gt "$s0" ] || fail "the recorded demo: write-mostly HDDs did not move reads to the SSD ($s0% -> $s1%)"
expect_exit 0 "$STACKBENCH" report --width 1000 $G/demo
short=$(grep '^    in short: ' <<<"$OUT")
assert_eq "$(wc -l <<<"$short")" 2 "one short line per comparison"
assert_contains "$(sed -n 1p <<<"$short")" "in short: reads from ssd $s1% (was $s0%); of 10 headline rows: " \
	"write-mostly's share of the SSD's reads"
assert_contains "$(sed -n 2p <<<"$short")" "in short: reads from ssd $s2% (was $s0%); of 10 headline rows: " \
	"write-behind's share"
assert_not_contains "$short" "untested" "the three-round demo: no headline row untested"
# its counts are the verdict's: the rows listed below it
better=$(awk '/^  write-mostly=hdd write-behind=0 against/{on=1; next} /^  [^ ]/{on=0} on && /^    better /' <<<"$OUT" |
	grep -vc ': device \|: member \|: CPU \|: instructions \|: average ' || true)
assert_contains "$(sed -n 1p <<<"$short")" "$better better (largest: " "the better headline rows counted"
# the first comparison's verdict lines follow the short line
first=$(grep -A1 '^  write-mostly=hdd write-behind=0 against' <<<"$OUT" | tail -1)
assert_contains "$first" "    in short: " "the short line first"
pass_msg "demo: reads from ssd $s1% and $s2% (was $s0%), counts as the verdict lists"

expect_exit 0 "$STACKBENCH" report --width 1000 $G/demo-1
s0=$(share $G/demo-1 "$V0" ssd) s1=$(share $G/demo-1 "$V1" ssd)
assert_contains "$OUT" "    in short: reads from ssd $s1% (was $s0%); of 10 headline rows: 10 untested" \
	"one round: the share, every headline row untested"
pass_msg "demo, one round: the share, 10 untested"

# No member shares (one disk): the line starts with the rows.
expect_exit 0 "$STACKBENCH" report --width 1000 $G/run1
assert_contains "$OUT" "    in short: of 4 headline rows: 2 better (largest: command:make: Wall time -18.9% [-27.6, -9.3]), 1 worse (seq: Sequential Input Block -24.5% [-26.4, -22.6]), 1 untested" \
	"run1: the headline rows in short"
assert_not_contains "$OUT" "reads from" "no members, no share"
pass_msg "run1: headline counts, no share without members"

# The JSON verdict: the same short line, and the shares by role as numbers.
need_prog jq
expect_exit 0 "$STACKBENCH" report --format json $G/demo
assert_eq "$(jq -r '.verdict[0].in_short' <<<"$OUT")" "$(sed -n 1p <<<"$short" | sed 's/^    in short: //')" \
	"JSON in_short as the text's"
s0=$(share $G/demo "$V0" ssd) s1=$(share $G/demo "$V1" ssd)
assert_eq "$(jq -r '.verdict[0].read_shares.ssd * 100 | round' <<<"$OUT")" "$s1" "JSON read share of the ssd"
assert_eq "$(jq -r '.verdict[0].baseline_read_shares.ssd * 100 | round' <<<"$OUT")" "$s0" "JSON baseline's read share"
pass_msg "JSON: in_short and the read shares by role"

# The profile's question first (workloads.answer): each row it names gets
# the verdict's own words for it, before the counts; a label no workload
# recorded says so. The recorded demo set with the key added as a run
# would record it.
A=$SB_TMP/answer
mkdir -p "$A"
python3 - "$G/demo/result.json" "$A/result.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["profile"]["values"]["workloads.answer"] = ("rand: Random Read; mixed: 4 readers + 1 writer: "
    "read rate (data); rand: random write; mixed: no such label")
json.dump(d, open(sys.argv[2], "w"))
PY
expect_exit 0 "$STACKBENCH" report --width 1000 "$A"
short=$(grep -m1 '^    in short: ' <<<"$OUT")
v1=$(awk '/^  write-mostly=hdd write-behind=0 against/{on=1; next} /^  [^ ]/{on=0} on' <<<"$OUT")
# not resolved: the change and the repeats as the verdict's line has them
line=$(grep -m1 '^    not resolved: rand:16k,direct=1: Random Read ' <<<"$v1") ||
	fail "the verdict lists Random Read as not resolved"
ch=$(sed 's/^    not resolved: rand:16k,direct=1: Random Read \(.*\] \).*/\1/' <<<"$line")
need=$(sed 's/.*): \(.* would resolve .*\)$/\1/' <<<"$line")
# better: as the verdict's line
line=$(grep -m1 '^    better  mixed:4r1w: 4 readers + 1 writer: read rate (data) ' <<<"$v1") ||
	fail "the verdict lists the 4 readers + 1 writer read rate as better"
bch=$(sed 's/^    better  mixed:4r1w: 4 readers + 1 writer: read rate (data) \(.*\]\) (.*/\1/' <<<"$line")
# equal: the verdict lists Random Write among its equal rows
grep -q '^    equal within ±5%: rand:16k,direct=1: Random Write' <<<"$v1" ||
	fail "the verdict lists Random Write as equal"
assert_contains "$short" "in short: reads from ssd $s1% (was $s0%); rand: Random Read ${ch% }, not resolved: $need; mixed: 4 readers + 1 writer: read rate (data) better $bch; rand: Random Write equal within ±5% (" \
	"the answer's rows first, in the verdict's words"
assert_contains "$short" "; mixed: no such label: no such row; of 10 headline rows: " \
	"a label no workload recorded, then the counts"
expect_exit 0 "$STACKBENCH" report --format json "$A"
assert_eq "$(jq -r '.verdict[0].in_short' <<<"$OUT")" "${short#    in short: }" "JSON in_short with the answer"
# ... and as data: each row's verdict, its change as the text rounds it
assert_eq "$(jq -r '[.verdict[0].answer[] | .verdict] | join(",")' <<<"$OUT")" \
	"not resolved,better,equal,no such row" "JSON answer: the rows' verdicts"
assert_eq "$(jq -r '.verdict[0].answer[0] | "\(.workload): \(.label) \(.spec)"' <<<"$OUT")" \
	"rand: Random Read rand:16k,direct=1" "JSON answer: the row found"
assert_eq "$(jq -r '.verdict[0].answer[1].change_pct | . * 10 | round / 10' <<<"$OUT")" \
	"$(sed 's/^+\([0-9.]*\)% .*/\1/' <<<"$bch")" "JSON answer: the better row's change"
[ "$(jq -r '.verdict[0].answer[0].repeats_needed' <<<"$OUT")" -gt 0 ] || fail "JSON answer: no repeats needed for the unresolved row"
assert_eq "$(jq -r '.verdict[1].answer | length' <<<"$OUT")" 4 "JSON answer in each comparison"
# the one-round set: each answer row untested, with why
python3 - "$G/demo-1/result.json" "$A/result.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["profile"]["values"]["workloads.answer"] = "rand: Random Read"
json.dump(d, open(sys.argv[2], "w"))
PY
expect_exit 0 "$STACKBENCH" report --width 1000 "$A"
assert_contains "$OUT" "in short: reads from ssd $(share $G/demo-1 "$V1" ssd)% (was $(share $G/demo-1 "$V0" ssd)%); rand: Random Read untested (1 repeat against 1: at least 3 a side are needed); of 10 headline rows: 10 untested" \
	"one round: the answer's row untested, and why"
expect_exit 0 "$STACKBENCH" report --format json "$A"
assert_eq "$(jq -r '.verdict[0].answer[0] | "\(.verdict): \(.why)"' <<<"$OUT")" \
	"untested: 1 repeat against 1: at least 3 a side are needed" "JSON answer: untested and why"
pass_msg "workloads.answer: its rows first, changed, equal, not resolved, untested, missing"
