#!/bin/bash
# Variants side by side under --loop: every variant's stack built at once,
# each phase run on every stack in turn (ABBA for two), the variants crossed
# over the stacks from round to round, every turn in result.json; the plan
# says so, --rounds keeps the old layout; the host's round floor recorded
# (a bad one refused); the space of all stacks is checked
# before anything is made; each stack's images allocated in full and kept
# from round to round; kill -9 in a turn or between rounds leaves nothing
# after teardown.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
need_prog python3
cd "$SB_TOP"

cat >"$SB_TMP/two.conf" <<'CONF'
[devices]
any = 1
[fs]
type = ext4
[workloads]
run = rand:4k,direct=1
time-limit = 2m
[matrix]
mount.options = noatime | noatime,barrier=0
CONF

expect_exit 0 "$STACKBENCH" plan "$SB_TMP/two.conf" --loop --quick
assert_contains "$OUT" "side by side: 2 stacks built at once" "plan: side by side"
assert_contains "$OUT" "ABBA order" "plan: the order"
expect_exit 0 "$STACKBENCH" plan "$SB_TMP/two.conf" --loop --quick --seed 7
PLAN7=$OUT
expect_exit 0 "$STACKBENCH" plan "$SB_TMP/two.conf" --loop --quick --rounds
assert_contains "$OUT" "rounds: one variant's stack at a time (--rounds)" "plan --rounds"
case "$OUT" in *"side by side:"*) fail "plan --rounds still says side by side" ;; esac

# The host's round floor, kept in the state directory (bench/aa-calibration.py
# --save): one that is not valid is refused before anything is made; a
# valid one is recorded with the schedule and floors the report's rows.
mkdir -p "$STACKBENCH_STATE_DIR" && chmod 700 "$STACKBENCH_STATE_DIR"
FLOOR=$STACKBENCH_STATE_DIR/round-floor.json
printf '{"version": 1, "rows": {"Random Read": -1}}\n' >"$FLOOR"
expect_exit 2 "$STACKBENCH" run "$SB_TMP/two.conf" --loop --quick --results "$SB_TMP/rf" -q
assert_contains "$OUT" "$FLOOR: round_floor.rows.Random Read: -1 out of range" "a bad round floor refused"
[ ! -e "$SB_TMP/rf" ] || fail "the refused run made its results: $(ls -A "$SB_TMP/rf")"
nothing_left "after the bad round floor"
printf '{"version": 1, "rows": {"Random Read": 2.5, "Random Write": 1.5}, "trials": 10}\n' >"$FLOOR"
expect_exit 0 "$STACKBENCH" plan "$SB_TMP/two.conf" --loop --quick
assert_contains "$OUT" "round floor (the host's A/A calibration, recorded with the schedule): Random Read 2.5%, Random Write 1.5% ($FLOOR)" "plan shows the floor"
expect_exit 0 "$STACKBENCH" run "$SB_TMP/two.conf" --loop --quick --repeat 2 --seed 7 \
	--results "$SB_TMP/r" </dev/null
rm "$FLOOR"
nothing_left "after the side-by-side run"
# Progress as in rounds: a start line per variant and round, and each
# phase's line naming its variant and round (from that stack's process).
for v in 1 2; do
	for r in 1 2; do
		assert_eq "$(grep -c "variant $v of 2, repeat $r of 2: mount.options=" <<<"$OUT")" 1 \
			"start line of variant $v, round $r"
		grep -q "^stackbench: \[variant $v of 2, repeat $r of 2\] rand: random read: " <<<"$OUT" ||
			fail "no phase line of variant $v, round $r"
	done
done
printf '%s\n' "$PLAN7" >"$SB_TMP/plan7"
python3 - "$SB_TMP/r/result.json" "$SB_TMP/plan7" <<'PY' || fail "side-by-side records: see above"
import json, sys
d = json.load(open(sys.argv[1]))
sbs = d["profile"]["schedule"]["side_by_side"]
turns, assign = sbs["turns"], sbs["assignments"]
bad = []
if sbs["stacks"] != 2 or sbs["order"] != "abba": bad.append("design %r" % sbs)
# crossover: each variant on each stack once over the cycle of 2 rounds
seen = {(a["variant"], a["stack"]) for r in assign for a in r}
if len(assign) != 2 or seen != {(0, 0), (0, 1), (1, 0), (1, 1)}: bad.append("assignments %r" % assign)
if sbs.get("round_floor") != {"version": 1, "rows": {"Random Read": 2.5, "Random Write": 1.5}, "trials": 10}:
    bad.append("round_floor %r" % sbs.get("round_floor"))
steps = {}
for t in turns:
    steps.setdefault((t["round"], t["step"]), []).append(t)
    stack_of = {a["variant"]: a["stack"] for a in assign[t["round"]]}
    if stack_of[t["variant"]] != t["stack"]: bad.append("turn on the wrong stack %r" % t)
    if not (t["secs"] >= 0 and "steal_pct" in t): bad.append("turn record %r" % t)
for (r, s), ts in steps.items():
    if sorted(t["variant"] for t in ts) != [0, 1]: bad.append("step %d.%d: %r" % (r, s, ts))
    if len({t["phase"] for t in ts}) != 1: bad.append("step %d.%d phases differ" % (r, s))
# ABBA: the order reverses from one step to the next
for (r, s), ts in steps.items():
    nxt = steps.get((r, s + 1))
    if nxt:
        a = [t["variant"] for t in sorted(ts, key=lambda t: t["position"])]
        b = [t["variant"] for t in sorted(nxt, key=lambda t: t["position"])]
        if a != b[::-1]: bad.append("not ABBA at %d.%d: %r then %r" % (r, s, a, b))
# plan --seed 7 showed the same stacks and turns as run --seed 7 ran
plan = open(sys.argv[2]).read()
for r in (0, 1):
    line = [l for l in plan.splitlines() if l.startswith("  round %d:" % (r + 1))]
    want = " | ".join(" ".join(str(t["stack"]) for t in sorted(steps[(r, s)], key=lambda t: t["position"]))
                      for s in (0, 1))
    if not line or ("turns " + want + " ...") not in line[0]: bad.append("plan round %d: %r, ran %r" % (r + 1, line, want))
    for a in assign[r]:
        name = d["variants"][a["variant"]]["name"]
        if "stack %d <- %s" % (a["stack"], name) not in line[0]: bad.append("plan round %d: stack %d" % (r + 1, a["stack"]))
phases = {t["phase"] for t in turns}
if not {"random read", "random write"} <= phases: bad.append("phases %r" % phases)
for v in d["variants"]:
    if len(v["repeats"]) != 2: bad.append("%s: %d repeats" % (v["name"], len(v["repeats"])))
if bad:
    print("\n".join(bad)); sys.exit(1)
PY
expect_exit 0 "$STACKBENCH" report "$SB_TMP/r" --width 10000
assert_contains "$OUT" "repeats: mount.options=noatime 2" "the report reads the set"
assert_contains "$OUT" "  round floor Random Read 2.5%, Random Write 1.5% (the SD of one round's effect: the host's A/A calibration, 10 trials, recorded by run" "the recorded floor applied"

# Each stack's image is allocated in full in the first round and kept for
# the next (mkfs without discard, which on a loop device punches holes), so
# that its placement on the disk stays; the run removes them at its end.
assert_contains "$PLAN7" "allocated in full and kept from round to round (mkfs without discard" "plan: the images kept"
assert_contains "$PLAN7" "lazy_journal_init=0,nodiscard" "plan: mkfs without discard"
made=$(sed -n 's|^.*/\([^/]*-s[0-9]\)/any.img: allocated in full, kept from round to round (inode \([0-9]*\))$|\1 \2|p' "$SB_TMP/r/run.log" | sort)
kept=$(sed -n 's|^.*/\([^/]*-s[0-9]\)/any.img: the image kept from the round before (inode \([0-9]*\))$|\1 \2|p' "$SB_TMP/r/run.log" | sort)
assert_eq "$(wc -l <<<"$made")" 2 "round 1 allocates both stacks' images: $made"
assert_eq "$kept" "$made" "round 2 attaches the images round 1 made, each on its stack"
grep -q "^journal: 2 images kept for the next round$" "$SB_TMP/r/run.log" || fail "run.log: no round kept the images"
# mkfs words asking for discard would undo that: refused side by side
# (exit 2, before anything is made), accepted with --rounds.
expect_exit 2 "$STACKBENCH" run "$SB_TMP/two.conf" --loop --quick -o "fs.mkfs=-E discard" --results "$SB_TMP/rd" -q
assert_contains "$OUT" "discards the device again on the images side by side keeps from round to round" "mkfs discard refused side by side"
[ ! -e "$SB_TMP/rd" ] || fail "the refused run made its results"
expect_exit 0 "$STACKBENCH" plan "$SB_TMP/two.conf" --loop --quick --rounds -o "fs.mkfs=-E discard"
assert_contains "$OUT" "mkfs.ext4 -F -q -E discard,lazy_itable_init=0,lazy_journal_init=0 " "--rounds: mkfs as the profile asks"
[ -z "$(ls -A "$STACKBENCH_LOOP_DIR")" ] || fail "images left after the run: $(ls -AR "$STACKBENCH_LOOP_DIR")"

expect_exit 2 "$STACKBENCH" run "$SB_TMP/two.conf" --loop --budget 10x
assert_contains "$OUT" "--budget: expected a duration" "a bad --budget"

# --budget: whole crossover cycles (2 rounds) while the next one fits.
expect_exit 0 "$STACKBENCH" run "$SB_TMP/two.conf" --loop --quick --budget 12s --repeat auto:50 \
	--results "$SB_TMP/rb"
assert_contains "$OUT" "stackbench: budget:" "the budget's note"
python3 - "$SB_TMP/rb/result.json" "$OUT" <<'PY' || fail "--budget: see above"
import json, sys
s = json.load(open(sys.argv[1]))["profile"]["schedule"]
b, rounds = s["budget"], len(s["rounds"])
per = b["spent"] / b["rounds"]
bad = []
if rounds % 2 or b["rounds"] != rounds: bad.append("not whole cycles: %d rounds, %r" % (rounds, b))
if b["spent"] > b["seconds"] + 1.5 * per and rounds > 2: bad.append("overspent: %r" % b)
if b["spent"] + 2 * per <= b["seconds"] and "every headline row resolved" not in sys.argv[2]:
    bad.append("stopped with a cycle's time left: %r" % b)
if bad:
    print("\n".join(bad)); sys.exit(1)
PY
nothing_left "after --budget"

# The stacks must queue alike: one that reads ahead otherwise is refused,
# and torn down.
STACKBENCH_SKEW_QUEUE=4096 expect_exit 3 "$STACKBENCH" run "$SB_TMP/two.conf" --loop --quick \
	--results "$SB_TMP/rq" -q
assert_contains "$OUT" "queue differently: read_ahead_kb is" "unequal read-ahead refused"
nothing_left "after the queue refusal"

# Room for all the stacks at once, checked before anything is made: each
# stack's image fits the directory alone, both do not.
SMALL="$SB_TMP/small"
mkdir -p "$SMALL"
mount -t tmpfs -o size=100m sb-side-small "$SMALL"
trap 'umount "$SMALL" 2>/dev/null' EXIT
sed 's/^any = 1$/any = 1\nloop.any = 64M/' "$SB_TMP/two.conf" >"$SB_TMP/big.conf"
expect_exit 3 "$STACKBENCH" run "$SB_TMP/big.conf" --loop --loop-dir "$SMALL" --results "$SB_TMP/r2" -q
assert_contains "$OUT" "all 2 variants side by side" "space for both stacks refused"
assert_contains "$OUT" "--rounds" "the refusal names --rounds"
[ -z "$(ls -A "$SMALL")" ] || fail "the refused run made something: $(ls -A "$SMALL")"
expect_exit 0 "$STACKBENCH" plan "$SB_TMP/big.conf" --loop --loop-dir "$SMALL" --rounds
case "$OUT" in *"would refuse"*) fail "--rounds: one stack's images fit" ;; esac
umount "$SMALL"
trap - EXIT
nothing_left "after the refusal"

# kill -9 while a stack has its turn: teardown --all leaves nothing.
"$STACKBENCH" run "$SB_TMP/two.conf" --loop --quick -o "workloads.run=command:sleep 60" \
	--results "$SB_TMP/r3" -q >/dev/null 2>&1 &
pid=$!
for _ in $(seq 150); do
	[ "$(findmnt -rn -o TARGET | grep -cF "$STACKBENCH_STATE_DIR")" -ge 2 ] &&
		grep -q "== turn" "$SB_TMP/r3/run.log" 2>/dev/null && break
	sleep 0.1
done
[ "$(findmnt -rn -o TARGET | grep -cF "$STACKBENCH_STATE_DIR")" -ge 2 ] || fail "never two stacks mounted"
kill -9 $pid
wait $pid 2>/dev/null || true
expect_exit 0 "$STACKBENCH" teardown --all
assert_contains "$OUT" "torn down" "teardown after kill -9 in a turn"
nothing_left "after kill -9 in a turn and teardown"
[ -z "$(ls -A "$STACKBENCH_STATE_DIR")" ] || fail "state left: $(ls -A "$STACKBENCH_STATE_DIR")"

# kill -9 between rounds, the images kept and nothing else built on them:
# teardown --all removes them.
"$STACKBENCH" run "$SB_TMP/two.conf" --loop --quick --repeat 6 -o "workloads.run=command:true" \
	--results "$SB_TMP/r4" -q >/dev/null 2>&1 &
pid=$!
for _ in $(seq 600); do
	grep -q "^journal: 2 images kept for the next round$" "$SB_TMP/r4/run.log" 2>/dev/null && break
	sleep 0.02
done
kill -9 $pid
wait $pid 2>/dev/null || true
grep -q "^journal: 2 images kept for the next round$" "$SB_TMP/r4/run.log" || fail "the killed run kept no images"
[ -n "$(ls -A "$STACKBENCH_LOOP_DIR")" ] || fail "the killed run left no images to remove"
expect_exit 0 "$STACKBENCH" teardown --all
assert_contains "$OUT" "torn down" "teardown after kill -9 between rounds"
nothing_left "after kill -9 between rounds and teardown"
[ -z "$(ls -A "$STACKBENCH_LOOP_DIR")" ] || fail "images left after teardown: $(ls -AR "$STACKBENCH_LOOP_DIR")"
[ -z "$(ls -A "$STACKBENCH_STATE_DIR")" ] || fail "state left: $(ls -A "$STACKBENCH_STATE_DIR")"
pass_msg "side by side: plan, turns in ABBA order, crossover, records, space check, kill -9"
