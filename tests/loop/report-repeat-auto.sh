#!/bin/bash
# run --repeat auto with one variant (nothing to pair it with: several
# variants run whole rounds until the paired comparison resolves, see
# compare-gate-auto.sh): it is repeated until the 95% interval of a
# difference against a variant as noisy as itself is narrow enough:
# t(0.975, 2n-2) * sd * sqrt(2/n) / mean < 5% for each headline metric (at
# least 3 times, at most 10), not merely until a lucky low RSE.
# Two runs of one variant each: a steady command (sleep 0.3 s), which on a
# quiet machine stops after 3 repeats, and a noisy one (0.05 s and 0.4 s in
# turns, told apart by the mount options it finds), which runs to the cap.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
need_prog python3
cd "$SB_TOP"

cat >"$SB_TMP/wl.sh" <<'EOS'
#!/bin/sh
if findmnt -n -o OPTIONS --target . | grep -qw sync; then
	n=$(cat "$COUNT" 2>/dev/null || echo 0)
	echo $((n + 1)) >"$COUNT"
	if [ $((n % 2)) -eq 0 ]; then sleep 0.05; else sleep 0.4; fi
else
	sleep 0.3
fi
EOS
chmod +x "$SB_TMP/wl.sh"
export COUNT=$SB_TMP/count

auto_run() { # DIR MOUNT-OPTIONS
	expect_exit 0 "$STACKBENCH" run single-disk --loop --quick --repeat auto -o fs.type=ext4 \
		-o "workloads.run=command:$SB_TMP/wl.sh" -o "mount.options=$2" --results "$1"
}
auto_run "$SB_TMP/steady" noatime
STEADY_OUT=$OUT
auto_run "$SB_TMP/noisy" noatime,sync
NOISY_OUT=$OUT
nothing_left "repeat auto run"
# Whether a variant stops early depends on the machine's noise (a loaded
# machine can delay even a sleep); the rule itself must hold either way: a
# variant with k repeats had a half-width >= 5% after each of repeats
# 3..k-1, and below it after k unless k is the cap. The noisy variant can
# never get there, so it runs to the cap.
counts=$(python3 -c '
import json, math, statistics, sys
r = {"variants": [v for f in sys.argv[1:] for v in json.load(open(f))["variants"]]}
# t(0.975, df) for df = 2n - 2, n = 3..10 (R: qt(0.975, df))
T = {4: 2.776445, 6: 2.446912, 8: 2.306004, 10: 2.228139, 12: 2.178813,
     14: 2.144787, 16: 2.119905, 18: 2.100922}
def rse(x):
    n = len(x)
    return T[2 * n - 2] * statistics.stdev(x) * math.sqrt(2 / n) / abs(statistics.mean(x))
out = []
for v in r["variants"]:
    walls = [next(m["value"] for m in rep["workloads"][0]["metrics"] if m["name"] == "wall")
             for rep in v["repeats"]]
    k = len(walls)
    assert 3 <= k <= 10, (v["name"], k)
    for j in range(3, k):
        assert rse(walls[:j]) >= 0.05 * 0.9999, (v["name"], "stopped late", j, walls)
    if k < 10:
        assert rse(walls) < 0.05 * 1.0001, (v["name"], "stopped early", walls)
    print(v["name"], k, ["%.3f" % w for w in walls], "half-width %.4f" % rse(walls),
          file=sys.stderr)
    out.append(str(k))
print(" ".join(out))
' "$SB_TMP/steady/result.json" "$SB_TMP/noisy/result.json") ||
	fail "repeats do not follow the --repeat auto rule"
read -r steady noisy <<<"$counts"
assert_eq "$noisy" 10 "noisy variant repeats (the cap)"
assert_contains "$STEADY_OUT" "repeats: " "closing report (steady)"
assert_contains "$NOISY_OUT" "repeats: " "closing report (noisy)"
pass_msg "--repeat auto: steady variant $steady repeats, noisy variant 10 (cap), each by the half-width rule"
