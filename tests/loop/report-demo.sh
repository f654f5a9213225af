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
