#!/bin/bash
# A set whose variants ran side by side (profile.schedule.side_by_side) gets
# the crossover analysis of each headline row in the report: a block after
# the verdict in text, "side_by_side" in JSON. Its figures are checked here
# against the same model fitted independently in plain python (the normal
# equations of log y ~ variant + stack + round, and the round contrasts'
# SE). Sets without the record (run1, run2) get no block at all. No root,
# no stacks: recorded sets (side: 4 rounds of `run --loop`, side-2rounds: 2).
source "$SB_TOP/tests/lib.sh"
G=$SB_TOP/tests/golden/report/inputs
SIDE=$G/side/result.json
need_prog python3

# The text block: its heading, then one line per headline row with the
# effect and its interval as the independent fit gives them.
expect_exit 0 "$STACKBENCH" report --width 10000 "$SIDE"
text=$OUT
assert_contains "$text" "side by side: 2 stacks, 4 rounds, variants crossed over the stacks (the model: log figure ~ variant + stack + round)" "the block's heading"
# after the verdict, before the table
python3 -c 'import sys
t = sys.stdin.read()
v, s, m = t.find("verdict\n"), t.find("\nside by side:"), t.find("\nMETRIC ")
sys.exit(0 if 0 <= v < s < m else 1)' <<<"$text" || fail "the block is not between the verdict and the table: $text"

expect_exit 0 "$STACKBENCH" report --format json "$SIDE"
json=$OUT
# tdist.py: Student's t by Simpson's rule on the density (plain python, no
# scipy), for both checks below
cat >"$SB_TMP/tdist.py" <<'EOF'
import math

def t_cdf(x, df):
    k = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    f = lambda u: k * (1 + u * u / df) ** (-(df + 1) / 2)
    n, h = 20000, x / 20000
    s = f(0) + f(x) + sum((4 if i % 2 else 2) * f(i * h) for i in range(1, n))
    return 0.5 + s * h / 3

def t_quantile(p, df):
    lo, hi = 0.0, 1000.0
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if t_cdf(mid, df) < p else (lo, mid)
    return (lo + hi) / 2
EOF
# check.py JSON RESULT TEXT: the report's figures against a fit of its own
cat >"$SB_TMP/check.py" <<'EOF'
import json, math, os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tdist import t_quantile

rep = json.load(open(sys.argv[1]))
res = json.load(open(sys.argv[2]))
text = open(sys.argv[3]).read()
alpha = rep["alpha"]
side = res["profile"]["schedule"]["side_by_side"]
names = [v["name"] for v in res["variants"]]
base = names.index(rep["baseline"])

def solve(a, b):
    """Gauss-Jordan with partial pivoting: a x = b, a square."""
    n = len(a)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda i: abs(m[i][c]))
        m[c], m[p] = m[p], m[c]
        for i in range(n):
            if i != c:
                f = m[i][c] / m[c][c]
                m[i] = [x - f * y for x, y in zip(m[i], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]

def pct(x):
    return 100 * math.expm1(x)

def close(got, want, what, tol=1e-6):
    if not abs(got - want) <= tol * max(1, abs(want)):
        sys.exit(f"{what}: report {got}, independent fit {want}")

rows = {(r["spec"], r["metric"]): r for r in rep["side_by_side"][0]["rows"]}
heads = set()
for v in res["variants"]:
    for rp in v["repeats"]:
        for w in rp["workloads"]:
            heads |= {(w["spec"], m["name"]) for m in w["metrics"] if m.get("headline")}
if set(rows) != heads:
    sys.exit(f"rows {sorted(rows)}, headline rows {sorted(heads)}")

R = len(side["assignments"])
stack = {(r, a["variant"]): a["stack"] for r, rnd in enumerate(side["assignments"]) for a in rnd}
for (spec, metric), row in rows.items():
    obs = []  # (log y, variant, stack, round)
    for vi, v in enumerate(res["variants"]):
        for rp in v["repeats"]:
            for w in rp["workloads"]:
                for m in w["metrics"]:
                    if w["spec"] == spec and m["name"] == metric:
                        obs.append((math.log(m["value"]), vi, stack[(rp["index"], vi)], rp["index"]))
    other = 1 - base
    # dummy coding: intercept, the other variant, stack 1, rounds 1..R-1
    X = [[1, o[1] == other, o[2] == 1] + [o[3] == r for r in range(1, R)] for o in obs]
    y = [o[0] for o in obs]
    p = len(X[0])
    xtx = [[sum(x[i] * x[j] for x in X) for j in range(p)] for i in range(p)]
    xty = [sum(x[i] * yy for x, yy in zip(X, y)) for i in range(p)]
    b = solve(xtx, xty)
    res_ss = sum((yy - sum(bi * xi for bi, xi in zip(b, x))) ** 2 for x, yy in zip(X, y))
    df_turn = len(obs) - p
    s2 = res_ss / df_turn
    inv = [solve(xtx, [float(i == j) for i in range(p)]) for j in range(p)]
    se_turn = math.sqrt(s2 * inv[1][1])
    # the round contrasts, less the fitted stack effect: their spread, one
    # df taken by the stack (the variants crossed over), over R rounds
    d = []
    for r in range(R):
        lv = [o for o in obs if o[3] == r]
        yo = sum(o[0] - b[2] * (o[2] == 1) for o in lv if o[1] == other)
        yb = sum(o[0] - b[2] * (o[2] == 1) for o in lv if o[1] == base)
        d.append(yo - yb)
    mean = sum(d) / R
    df_round = R - 2
    se_round = math.sqrt(sum((x - mean) ** 2 for x in d) / df_round / R)
    close(mean, b[1], f"{metric}: the mean round contrast against the fit", 1e-9)
    # the larger SE wins (crossover.h); equal ones in theory, for k = 2
    se, df = (se_round, df_round) if se_round >= se_turn * (1 - 1e-9) else (se_turn, df_turn)
    t = t_quantile(1 - alpha / 2, df)
    e = row["effects"][0]
    close(e["est_pct"], pct(b[1]), f"{metric}: effect")
    close(e["lo_pct"], pct(b[1] - t * se), f"{metric}: effect's low end")
    close(e["hi_pct"], pct(b[1] + t * se), f"{metric}: effect's high end")
    close(e["df"], df, f"{metric}: df")
    close(row["var_turn"], s2, f"{metric}: turn variance")
    st = row["stack_effects"][0]
    t_turn = t_quantile(1 - alpha / 2, df_turn)
    se_st = math.sqrt(s2 * inv[2][2])
    close(st["est_pct"], pct(b[2]), f"{metric}: stack 1")
    close(st["lo_pct"], pct(b[2] - t_turn * se_st), f"{metric}: stack 1's low end")
    close(st["hi_pct"], pct(b[2] + t_turn * se_st), f"{metric}: stack 1's high end")
    if e["se_from"] not in ("rounds", "turns") or e["rounds"] != R:
        sys.exit(f"{metric}: se_from {e['se_from']}, rounds {e['rounds']}")
    # the text line says the same
    label = next(r["label"] for r in rep["rows"] if r["spec"] == spec and r["metric"] == metric)
    want = (f"  {spec}: {label}: {names[other]} vs {names[base]} "
            f"{pct(b[1]):+.1f}% [{pct(b[1] - t * se):+.1f}, {pct(b[1] + t * se):+.1f}] "
            f"(t, {df} df, SE from {e['se_from']}); ")
    want_st = f"; stack 1 vs stack 0 {pct(b[2]):+.1f}% [{pct(b[2] - t_turn * se_st):+.1f}, {pct(b[2] + t_turn * se_st):+.1f}]\n"
    line = next((l for l in text.splitlines(True) if l.startswith(want)), None)
    if not line or not line.endswith(want_st):
        sys.exit(f"{metric}: no line '{want}...{want_st}' in:\n{text}")
    print(f"{metric}: {pct(b[1]):+.2f}% [{pct(b[1] - t * se):+.2f}, {pct(b[1] + t * se):+.2f}]")
EOF
printf '%s\n' "$json" >"$SB_TMP/side.json"
printf '%s\n' "$text" >"$SB_TMP/side.txt"
python3 "$SB_TMP/check.py" "$SB_TMP/side.json" "$SIDE" "$SB_TMP/side.txt" ||
	fail "the side-by-side figures disagree with the independent fit"
pass_msg "4 rounds: each headline row's effect, interval, df and stack effect as the independent fit gives them, in text and JSON"

# folded to the report's width like the verdict's lines (the table's rows
# may not fit: a metric label too long even alone prints whole)
expect_exit 0 "$STACKBENCH" report --width 80 "$SIDE"
w=$(python3 -c 'import sys
t = sys.stdin.read()
block = t[t.index("side by side:"):].split("\n\n")[0]
print(max(len(l) for l in block.split("\n")))' <<<"$OUT")
[ "$w" -le 80 ] || fail "a side-by-side line of $w columns in --width 80"
assert_contains "$OUT" $'  rand:4k,direct=1: Random Read: mount.options=noatime,barrier=0 vs\n    mount.options=noatime' "a folded side-by-side line"
pass_msg "the block folds to --width 80"

# Two rounds crossed over leave no degree of freedom for an interval: one
# short line a row instead of figures.
expect_exit 0 "$STACKBENCH" report --width 10000 "$G/side-2rounds"
assert_contains "$OUT" "side by side: 2 stacks, 2 rounds," "the 2-round heading"
assert_contains "$OUT" "  rand:4k,direct=1: Random Read: mount.options=noatime,barrier=0 vs mount.options=noatime not fitted: 2 rounds with both: too few for an interval" "the 2-round line"
# a variant with no figures at all (it failed before its first): said so
python3 - "$SIDE" "$SB_TMP/failed.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for rp in d["variants"][1]["repeats"]:
    rp["workloads"] = []
json.dump(d, open(sys.argv[2], "w"))
EOF
expect_exit 0 "$STACKBENCH" report --width 10000 "$SB_TMP/failed.json"
assert_contains "$OUT" "  rand:4k,direct=1: Random Read: not fitted: no variant but the baseline has a figure of it" "a row with no other variant's figures"
expect_exit 0 "$STACKBENCH" report --format json "$SB_TMP/failed.json"
python3 -c 'import json, sys
r = json.load(sys.stdin)["side_by_side"][0]["rows"]
sys.exit(0 if r and all(not x["fitted"] and x["note"] for x in r) else 1)' <<<"$OUT" ||
	fail "JSON of the rows not fitted: $OUT"
pass_msg "too few rounds, a variant without figures: one short line, in text and JSON"

# --round-floor PCT: the host's calibrated round component floors each
# effect's SE at log(1 + PCT/100) / sqrt(R), df R - 1, where it is the
# largest; checked against the report without it.
expect_exit 0 "$STACKBENCH" report --format json "$SIDE"
printf '%s\n' "$OUT" >"$SB_TMP/nofloor.json"
for fl in 1 5 40; do
	expect_exit 0 "$STACKBENCH" report --format json --round-floor $fl "$SIDE"
	printf '%s\n' "$OUT" >"$SB_TMP/floor.json"
	python3 - "$SB_TMP/nofloor.json" "$SB_TMP/floor.json" $fl "$SB_TMP" <<'EOF2' || fail "--round-floor $fl: the intervals disagree with the floor"
import json, math, sys
sys.path.insert(0, sys.argv[4])
from tdist import t_quantile as t_q
a, b, fl = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), float(sys.argv[3])
sa, sb = a["side_by_side"][0], b["side_by_side"][0]
if sb["round_floor_pct"] != fl or sa["round_floor_pct"] is not None:
    sys.exit(f"round_floor_pct: {sa['round_floor_pct']} without, {sb['round_floor_pct']} with")
floored = 0
for ra, rb in zip(sa["rows"], sb["rows"]):
    ea, eb = ra["effects"][0], rb["effects"][0]
    R = ea["rounds"]
    se_fl = math.log1p(fl / 100) / math.sqrt(R)
    want_se, want_df, want_from = (se_fl, R - 1, "floor") if se_fl > ea["se_log"] else (ea["se_log"], ea["df"], ea["se_from"])
    floored += want_from == "floor"
    t = t_q(1 - a["alpha"] / 2, want_df)
    for k, want in (("se_log", want_se), ("df", want_df), ("est_log", ea["est_log"]),
                    ("lo_pct", 100 * math.expm1(ea["est_log"] - t * want_se)),
                    ("hi_pct", 100 * math.expm1(ea["est_log"] + t * want_se))):
        if abs(eb[k] - want) > 1e-6 * max(1, abs(want)):
            sys.exit(f"{rb['label']}: {k} {eb[k]}, want {want}")
    if eb["se_from"] != want_from:
        sys.exit(f"{rb['label']}: se_from {eb['se_from']}, want {want_from}")
print(f"floor {fl}%: {floored} of {len(sb['rows'])} rows floored")
EOF2
done
expect_exit 0 "$STACKBENCH" report --width 10000 --round-floor 5 "$SIDE"
assert_contains "$OUT" "  round floor 5% (the SD of one round's effect, the host's A/A calibration: --round-floor)" "the floor's line"
assert_contains "$OUT" "(t, 3 df, SE from floor)" "a row floored, with R - 1 df"
# Two rounds crossed over: the floor gives the interval the rounds cannot.
expect_exit 0 "$STACKBENCH" report --width 10000 --round-floor 10 "$G/side-2rounds"
assert_contains "$OUT" "(t, 1 df, SE from floor)" "2 rounds with a floor"
assert_not_contains "$OUT" "too few for an interval" "2 rounds with a floor"
expect_exit 2 "$STACKBENCH" report --round-floor 0 "$SIDE"
assert_contains "$OUT" "--round-floor '0': expected a number above 0" "--round-floor 0 refused"
pass_msg "--round-floor: each effect's SE floored as the calibration says, 2 rounds given an interval"

# The verdict of a headline row side by side is the crossover fit's: the
# cell's test, change, interval and p are the effect's (the correction
# then adjusts that p); a row the fit gives no interval (2 rounds, no
# floor) keeps the paired rounds.
cat >"$SB_TMP/xo_cells.py" <<'EOF'
import json, sys
r = json.load(sys.stdin)
sbs = r["side_by_side"][0]
n = 0
for sr in sbs["rows"]:
    row = next(x for x in r["rows"] if x["spec"] == sr["spec"] and x["metric"] == sr["metric"])
    for e in sr.get("effects") or []:
        c = next(c for c in row["cells"] if c["variant"] == e["variant"])
        if e.get("fitted"):
            n += 1
            got = (c["test"], c["change_pct"], c["diff_lo_pct"], c["diff_hi_pct"], c["p_value"])
            want = ("crossover-t-log", e["est_pct"], e["lo_pct"], e["hi_pct"], e["p"])
            if got[0] != want[0] or any(abs(a - b) > 1e-9 * max(1, abs(b)) for a, b in zip(got[1:], want[1:])):
                sys.exit("%s: cell %r, effect %r" % (sr["label"], got, want))
            # unresolved: the rounds that would resolve it, in whole crossover cycles
            if c.get("repeats_needed") is not None and c["repeats_needed"] % sbs["stacks"]:
                sys.exit("%s: %r rounds needed, not whole cycles of %d" % (sr["label"], c["repeats_needed"], sbs["stacks"]))
        elif c["test"] == "crossover-t-log":
            sys.exit("%s: no interval side by side, yet the cell says crossover-t-log" % sr["label"])
if n != int(sys.argv[1]):
    sys.exit("%d cells by the crossover fit, want %s" % (n, sys.argv[1]))
print("%d cells by the crossover fit" % n)
EOF
for s in "$SIDE" "$G/side-2rounds" "--round-floor 10 $G/side-2rounds"; do
	read -r -a args <<<"$s"
	expect_exit 0 "$STACKBENCH" report --format json "${args[@]}"
	want=2
	[ "$s" != "$G/side-2rounds" ] || want=0
	python3 "$SB_TMP/xo_cells.py" $want <<<"$OUT" || fail "report $s: the verdict is not the crossover fit's"
done
expect_exit 0 "$STACKBENCH" report --width 10000 "$SIDE"
assert_contains "$OUT" "(4 against 4 repeats, headline rows by the crossover fit, the rest rounds paired):" "the comparison says how it was tested"
assert_contains "$OUT" "Random Read -2.1% [-9.1, +5.4] (crossover-t-log, p adj " "the verdict line of a row side by side"
pass_msg "the verdict side by side: the crossover fit's effect, interval and p; paired rounds where it has no interval"

# The floor run recorded (side_by_side.round_floor: the host's file, per
# row label): a row it names is floored as --round-floor would floor it,
# one it does not name is not; --round-floor overrides it for every row.
python3 - "$SIDE" "$SB_TMP/rec/result.json" <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1]))
d["profile"]["schedule"]["side_by_side"]["round_floor"] = {
    "version": 1, "rows": {"Random Read": 5}, "trials": 10, "measured": "2026-12-07T15:25:00Z"}
os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True)
json.dump(d, open(sys.argv[2], "w"))
EOF
expect_exit 0 "$STACKBENCH" report --format json "$SB_TMP/rec"
printf '%s\n' "$OUT" >"$SB_TMP/rec.json"
expect_exit 0 "$STACKBENCH" report --format json --round-floor 5 "$SIDE"
printf '%s\n' "$OUT" >"$SB_TMP/floor5.json"
expect_exit 0 "$STACKBENCH" report --format json --round-floor 1 "$SB_TMP/rec"
printf '%s\n' "$OUT" >"$SB_TMP/rec-opt1.json"
expect_exit 0 "$STACKBENCH" report --format json --round-floor 1 "$SIDE"
printf '%s\n' "$OUT" >"$SB_TMP/floor1.json"
python3 - "$SB_TMP" <<'EOF' || fail "the recorded round floor: see above"
import json, sys
load = lambda n: json.load(open(f"{sys.argv[1]}/{n}.json"))["side_by_side"][0]
rec, f5, no, o1, f1 = load("rec"), load("floor5"), load("nofloor"), load("rec-opt1"), load("floor1")
bad = []
if rec["round_floor_pct"] is not None or rec["round_floor"]["rows"] != {"Random Read": 5}:
    bad.append(f"side: round_floor_pct {rec['round_floor_pct']}, round_floor {rec['round_floor']}")
for row, r5, r0, ro, r1 in zip(rec["rows"], f5["rows"], no["rows"], o1["rows"], f1["rows"]):
    want = r5 if row["label"] == "Random Read" else r0
    if row["round_floor_pct"] != (5 if row["label"] == "Random Read" else None):
        bad.append(f"{row['label']}: round_floor_pct {row['round_floor_pct']}")
    if row["effects"] != want["effects"]:
        bad.append(f"{row['label']}: {row['effects']} != {want['effects']}")
    if ro["effects"] != r1["effects"] or ro["round_floor_pct"] != 1:
        bad.append(f"{row['label']}: --round-floor 1 does not override the record")
if not any(r["effects"][0]["se_from"] == "floor" for r in rec["rows"]):
    bad.append("no row floored by the record")
if bad:
    print("\n".join(bad)); sys.exit(1)
EOF
expect_exit 0 "$STACKBENCH" report --width 10000 "$SB_TMP/rec"
assert_contains "$OUT" "  round floor Random Read 5% (the SD of one round's effect: the host's A/A calibration, 10 trials, measured 2026-12-07T15:25:00Z, recorded by run; --round-floor overrides)" "the recorded floor's line"
assert_not_contains "$OUT" "Random Write 5%" "the floor's line names its rows only"
python3 - "$SB_TMP/rec/result.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["profile"]["schedule"]["side_by_side"]["round_floor"]["rows"]["Random Read"] = 0
json.dump(d, open(sys.argv[1], "w"))
EOF
expect_exit 2 "$STACKBENCH" report "$SB_TMP/rec"
assert_contains "$OUT" "profile.schedule.side_by_side.round_floor.rows.Random Read: expected a per cent above 0" "a recorded floor of 0 refused"
pass_msg "the round floor run recorded: the rows it names floored, --round-floor overrides"

# A record that is not what run writes: refused, naming the member.
python3 - "$SIDE" "$SB_TMP/bad.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["profile"]["schedule"]["side_by_side"]["assignments"][1][0]["stack"] = 5
json.dump(d, open(sys.argv[2], "w"))
EOF
expect_exit 2 "$STACKBENCH" report "$SB_TMP/bad.json"
assert_contains "$OUT" "profile.schedule.side_by_side.assignments[1][0].stack: 5 out of range" "a stack out of range"
pass_msg "a damaged side_by_side record: refused, naming the member"

# Sets without the record: no block, no member.
for s in "$G/run1" "$G/run1 $G/run2"; do
	read -r -a args <<<"$s"
	expect_exit 0 "$STACKBENCH" report --width 10000 "${args[@]}"
	assert_not_contains "$OUT" "side by side" "report $s"
	expect_exit 0 "$STACKBENCH" report --format json "${args[@]}"
	assert_not_contains "$OUT" '"side_by_side"' "report --format json $s"
done
pass_msg "run1, run1 + run2: no side-by-side block"
