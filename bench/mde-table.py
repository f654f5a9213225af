#!/usr/bin/python3
"""Same wall time, several layouts (bench/side-by-side, bench/turns): DIR
holds one report per run (REP-LAYOUT.json, `report --format json`), its
wall time (.time) and the host's state (.state), and `order` lists "REP
LAYOUT" as they ran. Per run and headline row the mde of the second
variant against the first; per repetition the ratio of each layout's
median mde to the rounds' (target: at most 0.5, issue 41); for the turns
layout also its median and worst mde (targets: 3% and 8%, issue 42).
  bench/mde-table.py DIR"""
import json, os, statistics as st, sys
d = sys.argv[1]
order = [l.split() for l in open(os.path.join(d, "order")) if l.strip()]
rows, table = [], []
for rep, layout in order:
    name = "%s-%s" % (rep, layout)
    rep_j = json.load(open(os.path.join(d, name + ".json")))
    base = rep_j["variants"][0]["label"]
    rounds = min(v["repeats"] for v in rep_j["variants"])
    mdes = {}
    for row in rep_j["rows"]:
        if not row["headline"] or row["metric"].startswith("latency:"):
            continue
        for c in row["cells"]:
            if c["variant"] != base:
                mdes[row["label"]] = c["mde_pct"]
                if row["label"] not in rows:
                    rows.append(row["label"])
    wall = int(open(os.path.join(d, name + ".time")).read())
    state = " ".join(open(os.path.join(d, name + ".state")).read().split("\n")).strip()
    whole = [w["phase"] + " from round %d" % (w["from_round"] + 1)
             for s in rep_j.get("side_by_side") or [] for w in s.get("whole") or []]
    table.append((rep, layout, rounds, wall, mdes, state, whole))

f = lambda v: "-" if v is None else "%.1f%%" % v
print("%-4s %-7s %6s %7s %s %10s  %s" % ("rep", "layout", "rounds", "wall s",
      " ".join("%18s" % (r + " mde") for r in rows), "median mde", "host"))
med, worst = {}, {}
for rep, layout, rounds, wall, mdes, state, whole in table:
    vals = [mdes.get(r) for r in rows]
    known = [v for v in vals if v is not None]
    med[(rep, layout)] = st.median(known) if known else None
    worst[(rep, layout)] = max(known) if known else None
    print("%-4s %-7s %6d %7d %s %10s  %s" % (rep, layout, rounds, wall,
          " ".join("%18s" % f(v) for v in vals), f(med[(rep, layout)]), state))
    if whole:
        print("     %-7s turned phases run whole after a leak: %s" % (layout, ", ".join(whole)))
print()
layouts = [l for l in dict.fromkeys(l for _, l in order) if l != "rounds"]
for layout in layouts:
    ratios = []
    for rep in sorted({r for r, _ in order}, key=int):
        s, r = med.get((rep, layout)), med.get((rep, "rounds"))
        if s is None or r is None or not r:
            print("rep %s: %s/rounds median mde: -" % (rep, layout))
            continue
        ratios.append(s / r)
        print("rep %s: %s/rounds median mde %.1f%% / %.1f%% = %.2f" % (rep, layout, s, r, s / r))
    if ratios:
        print("target %s <= 0.5 x rounds (every repetition): %s (worst ratio %.2f)" %
              (layout, "met" if max(ratios) <= 0.5 else "NOT met", max(ratios)))
if any(l == "turns" for _, l in order):
    m = [med[k] for k in med if k[1] == "turns" and med[k] is not None]
    w = [worst[k] for k in worst if k[1] == "turns" and worst[k] is not None]
    if m and w:
        print("target turns: median headline mde <= 3%% (%.1f%%: %s), worst <= 8%% (%.1f%%: %s)" %
              (max(m), "met" if max(m) <= 3 else "NOT met", max(w), "met" if max(w) <= 8 else "NOT met"))
