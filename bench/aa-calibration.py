#!/usr/bin/python3
"""The A/A calibration of the crossover fit (bench/side-by-side, bench/turns):
DIR holds one report per trial (N.json, `report --format json`) and the
host's state beside it (N.state). Per trial and headline row the fitted
effect of the second variant against the first, which is 0 by design;
pooled over rows and trials, the SD of est_log/se_log (target 0.8 to 1.25)
and the share of 95% intervals that hold 0 (target 90% or more).
With --save [FILE], it also keeps each row's round floor (below) as the
host's (result/floor.h; default $STACKBENCH_STATE_DIR/round-floor.json, or
/var/lib/stackbench/round-floor.json): every run side by side records it
and its report floors those rows with it.
  bench/aa-calibration.py DIR [--save [FILE]]"""
import datetime, json, math, os, statistics as st, sys
from statistics import NormalDist
args = sys.argv[1:]
save = None
if "--save" in args:
    i = args.index("--save")
    save = args[i + 1] if i + 1 < len(args) else os.path.join(
        os.environ.get("STACKBENCH_STATE_DIR") or "/var/lib/stackbench", "round-floor.json")
    del args[i:i + 2]
if len(args) != 1:
    sys.exit(__doc__)
d = args[0]
trials = sorted((int(n[:-5]) for n in os.listdir(d) if n.endswith(".json")))

def t_cdf(t, df):
    # Simpson's rule on Student's density: no scipy here
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    pdf = lambda x: c * (1 + x * x / df) ** (-(df + 1) / 2)
    n, a = 2000, abs(t)
    h = a / n
    area = (pdf(0) + pdf(a) + sum((4 if i % 2 else 2) * pdf(i * h) for i in range(1, n))) * h / 3
    return 0.5 + math.copysign(area, t)

ratios, zs, held, dfs = [], [], [], []
per_round = {}  # row label: [est_log * sqrt(R)] over trials, one round's effect each
print("%-5s %-13s %9s %9s %5s %24s %28s  %s" % ("trial", "row", "est_log", "se_log", "df",
      "effect [95%]", "stack effect [95%]", "host"))
for i in trials:
    rep = json.load(open(os.path.join(d, "%d.json" % i)))
    state = " ".join(open(os.path.join(d, "%d.state" % i)).read().split("\n")).strip()
    sbs = rep.get("side_by_side") or []
    if not sbs:
        print("%-5d no side_by_side member" % i)
        continue
    for row in sbs[0]["rows"]:
        if not row.get("fitted"):
            print("%-5d %-13s not fitted" % (i, row["label"][:13]))
            continue
        stk = row["stack_effects"][0] if row.get("stack_effects") else None
        for e in row["effects"]:
            if not e.get("fitted") or not e.get("se_log"):
                print("%-5d %-13s effect not fitted" % (i, row["label"][:13]))
                continue
            t = e["est_log"] / e["se_log"]
            ratios.append(t)
            dfs.append(e["df"])
            # the same tail area on the normal scale: SD 1 whatever the df
            zs.append(NormalDist().inv_cdf(min(max(t_cdf(t, e["df"]), 1e-12), 1 - 1e-12)))
            held.append(e["lo_pct"] <= 0 <= e["hi_pct"])
            per_round.setdefault(row["label"], []).append(e["est_log"] * math.sqrt(e.get("rounds") or 1))
            print("%-5d %-13s %9.4f %9.4f %5.0f %24s %28s  %s" % (
                i, row["label"][:13], e["est_log"], e["se_log"], e["df"],
                "%+.1f%% [%+.1f, %+.1f]" % (e["est_pct"], e["lo_pct"], e["hi_pct"]),
                "%+.1f%% [%+.1f, %+.1f]" % (stk["est_pct"], stk["lo_pct"], stk["hi_pct"]) if stk else "-",
                state if row is sbs[0]["rows"][0] else ""))
print()
if len(ratios) < 2:
    print("too few fitted rows to pool")
    sys.exit(0)
sd = st.stdev(ratios)
share = 100 * sum(held) / len(held)
print("pooled over %d rows x trials (df %s):" % (len(ratios), "/".join(sorted({"%g" % x for x in dfs}))))
print("  SD of est_log/se_log: %.2f (target 0.8 to 1.25): %s" % (sd, "met" if 0.8 <= sd <= 1.25 else "NOT met"))
print("  95%% intervals holding 0: %d of %d = %.0f%% (target at least 90%%): %s" %
      (sum(held), len(held), share, "met" if share >= 90 else "NOT met"))
print("  the same ratios as normal scores (through Student's t at their df): SD %.2f, |z| > 1.96 in %d of %d"
      % (st.stdev(zs), sum(abs(z) > 1.96 for z in zs), len(zs)))
if min(dfs) <= 2:
    print("  note: at df 2, est/se of an exact SE follows Student's t with 2 df, whose SD is infinite: the raw SD "
          "is not expected near 1, and the normal scores' SD is the calibration figure that can be")
# The round floor: an A/A effect is 0 by design, so est_log * sqrt(R) over
# the trials is one round's effect as the host makes it; its SD (about 0
# mean) is what `report --round-floor` takes, here per row and the largest.
fl = {k: 100 * math.expm1(math.sqrt(sum(x * x for x in v) / len(v))) for k, v in per_round.items() if len(v) >= 2}
if fl:
    print("  one round's effect, SD over the trials (report --round-floor PCT): " +
          ", ".join("%s %.2f%%" % (k, v) for k, v in sorted(fl.items())) +
          "; the largest: --round-floor %.2g" % max(fl.values()))
if save:
    if not fl:
        sys.exit("aa-calibration: no row has two trials: nothing to save in %s" % save)
    rows = {k: round(v, 3) for k, v in sorted(fl.items()) if 0 < v <= 100 and 0 < len(k) <= 200}
    n = min(len(per_round[k]) for k in rows)
    doc = {"version": 1, "rows": rows, "trials": max(2, min(n, 1000000)),
           "measured": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "how": "bench/aa-calibration.py %s" % os.path.abspath(d)[:150]}
    tmp = "%s.%d" % (save, os.getpid())
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, save)
    print("  saved as the host's round floor: %s" % save)
