#!/bin/bash
# Millisecond turns (--turn MS): a random O_DIRECT phase (psync, and
# io_uring draining its queue at each turn's end) runs on both
# side-by-side stacks at once, in alternating turns of about MS ms; each
# side's phase clock stops while it waits. Checked from outside the
# workload: each stack's loop device did the phase's reads in its own
# turns (its I/O counted at every switch), none in the other's;
# both sides took about as many turns; the phases that cannot (buffered)
# run whole, and so from the next round on does one whose cost leaked
# out of its turns (btrfs's commits); kill -9 in a turn leaves nothing.
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
run = rand:4k,direct=1,time=2s,size=16M
run = rand:4k,time=1s,size=16M,verify=0
run = rand:4k,direct=1,time=2s,size=16M,engine=io_uring,qd=8
time-limit = 2m
[matrix]
# ext4 reads its block bitmaps ahead in a thread of its own after the
# mount, whenever it gets to them: off, so that a stack's read phase has
# no I/O but its own
mount.options = noatime,no_prefetch_block_bitmaps | noatime,no_prefetch_block_bitmaps,barrier=0
CONF

expect_exit 2 "$STACKBENCH" run "$SB_TMP/two.conf" --loop --turn 1001
assert_contains "$OUT" "--turn: expected a turn's length in milliseconds" "--turn 1001 refused"
expect_exit 2 "$STACKBENCH" run "$SB_TMP/two.conf" --loop --turn 20 --rounds
assert_contains "$OUT" "--turn: millisecond turns need the variants side by side" "--turn --rounds"
# side by side, turns of 20 ms unless --turn says otherwise (0: whole)
expect_exit 0 "$STACKBENCH" plan "$SB_TMP/two.conf" --loop --quick
assert_contains "$OUT" "millisecond turns: a phase every stack can run so" "plan: the turns"
assert_contains "$OUT" "turns of about 20 ms" "plan: 20 ms by default"
expect_exit 0 "$STACKBENCH" plan "$SB_TMP/two.conf" --loop --quick --turn 0
assert_not_contains "$OUT" "millisecond turns" "plan --turn 0: every phase whole"
expect_exit 0 "$STACKBENCH" plan "$SB_TMP/two.conf" --loop --quick --rounds
assert_not_contains "$OUT" "millisecond turns" "plan --rounds: no turns"

expect_exit 0 "$STACKBENCH" run "$SB_TMP/two.conf" --loop --quick --repeat 2 --seed 3 --turn 20 \
	--results "$SB_TMP/r" </dev/null
nothing_left "after the run in turns"
python3 - "$SB_TMP/r/result.json" <<'PY' || fail "turn records: see above"
import json, sys
d = json.load(open(sys.argv[1]))
sbs = d["profile"]["schedule"]["side_by_side"]
bad = []
if sbs.get("turn_ms") != 20: bad.append("turn_ms %r" % sbs.get("turn_ms"))
turned = [t for t in sbs["turns"] if "turned" in t]
whole = [t for t in sbs["turns"] if "turned" not in t]
if not any(t["phase"] == "random read" for t in whole): bad.append("the buffered reads did not run whole")
steps = {}
for t in turned:
    steps.setdefault((t["round"], t["step"]), []).append(t)
# round 1: the O_DIRECT read and write phases of the first and last
# workloads (psync, io_uring) in turns, in the order they ran
first = sorted(s for r, s in steps if r == 0)
if len(first) != 4: bad.append("round 1: steps in turns %r" % first)
kind = dict(zip(first, ("psync read", "psync write", "uring read", "uring write")))
wl = {"psync": 0, "uring": 2}
# round 2: each in turns again, or sent whole by the rule, saying why (a
# loaded host may stretch a phase over a journal's commit, or slow the
# io_uring drain past 1% of a turn). The psync reads too: none of their
# reads can run outside their turns, but the file system's journal can
# commit in a stack's read phase (two CI runs under load: 10 and 50
# cache flushes outside the turns), and the rule must then send it whole.
sent = {w["step"]: w for w in sbs["whole"]}
for s in first:
    if (1, s) in steps:
        if s in sent: bad.append("step %d both in turns and whole in round 2" % s)
    elif s not in sent or sent[s]["from_round"] != 1 or "outside its turns" not in sent[s]["why"] \
            and "draining" not in sent[s]["why"]:
        bad.append("%s: not in turns in round 2, and not sent whole: %r" % (kind.get(s), sent.get(s)))
leaked = set()  # steps the rule sent whole for what leaked out of their turns
for st_, w in sent.items():
    if "outside its turns" in w["why"]: leaked.add(st_)
if first and first[0] in sent:
    print("the psync reads sent whole from round 2: %r" % sent[first[0]])
ops = {}
for vi, v in enumerate(d["variants"]):
    for r, rep in enumerate(v["repeats"]):
        for name, wi in wl.items():
            w = rep["workloads"][wi]
            ops[(vi, r, wi)] = w["extra"]["read_ops"]
            tu = w["extra"].get("turned", {})
            want = {ph for s, k in kind.items() if k.startswith(name) and (r, s) in steps
                    for ph in ("random read" if k.endswith("read") else "random write",)}
            if set(tu) != want: bad.append("%s round %d %s: extra.turned %r, want %r" % (v["name"], r, name, tu, want))
            # io_uring drains its queue at each turn's end, in its own time
            for ph, x in tu.items():
                if name == "uring" and not 0 < x.get("drain_pct", -1) < 100: bad.append("io_uring %s: drain %r" % (ph, x))
        if "turned" in rep["workloads"][1]["extra"]: bad.append("buffered reads in turns")
for (r, s), ts in steps.items():
    k = kind.get(s, "?")
    if len(ts) != 2: bad.append("step %d.%d: %d stacks" % (r, s, len(ts))); continue
    n = [t["turned"]["turns"] for t in ts]
    # 2 s of phase time in turns of 10-30 ms: dozens each, alternating
    if min(n) < 40 or abs(n[0] - n[1]) > 2: bad.append("step %d.%d turns %r" % (r, s, n))
    for t in ts:
        tu = t["turned"]
        if k.endswith("read"):
            # every read of the phase on its loop device in its own turns,
            # but for one or two at a turn's edge: the kernel completes a
            # read's bio (and wakes the reader, which then ends its turn)
            # before it counts the request in diskstats, so the count at
            # the switch can miss the last read and charge it to the next
            # turn (1 of 39563 once in CI, under ASan)
            n = ops[(t["variant"], r, wl[k.split()[0]])]
            edge = 2 if k == "psync read" else 0
            if tu["ios"] + min(tu["ios_outside"], edge) < n:
                bad.append("%s: reads in own turns %d < the phase's %d" % (k, tu["ios"], n))
            # and none in the other's turns (io_uring: a handful of the
            # file system's own, under 0.05%)
            # (more only where the rule saw it and sent the phase whole)
            if tu["ios_outside"] > (edge if k == "psync read" else tu["ios"] / 2000) and \
                    not (r == 0 and s in leaked):
                bad.append("%s: %d I/Os outside its turns" % (k, tu["ios_outside"]))
        if not (t["secs"] > 1.5): bad.append("secs %r" % t["secs"])
if bad:
    print("\n".join(bad)); sys.exit(1)
PY
expect_exit 0 "$STACKBENCH" report "$SB_TMP/r" --width 10000
if python3 -c 'import json, sys
w = json.load(open(sys.argv[1]))["profile"]["schedule"]["side_by_side"]["whole"]
sys.exit(0 if any(x["phase"] == "random read" and "outside its turns" in x["why"] for x in w) else 1)' "$SB_TMP/r/result.json"; then
	assert_contains "$OUT" "in turns of about 20 ms, the stacks' I/O outside their own turns: random read " \
		"the report: the phases in turns"
	assert_contains "$OUT" "random read whole from round 2 (stack " "the report: the psync reads sent whole, and why"
else
	assert_contains "$OUT" "in turns of about 20 ms, the stacks' I/O outside their own turns: random read 0.00%" \
		"the report: the phases in turns, none of the reads outside them"
fi

# A known difference, measured in turns: the test hook makes variant 1's
# every read 30% slower (1/1.3: 23% fewer reads a second), an A/A pair
# otherwise. Refused outside a test's own state directory.
STACKBENCH_STATE_DIR='' STACKBENCH_DELAY=1:30 expect_exit 2 "$STACKBENCH" run "$SB_TMP/two.conf" --loop
assert_contains "$OUT" "STACKBENCH_DELAY is a test hook" "the delay hook refused outside a test"
STACKBENCH_DELAY=1:30 expect_exit 0 "$STACKBENCH" run "$SB_TMP/two.conf" --loop --quick --repeat 2 \
	--turn 20 -o "workloads.run=rand:4k,direct=1,time=2s,size=16M,write=0" \
	-o "matrix.mount.options=noatime,no_prefetch_block_bitmaps|noatime,no_prefetch_block_bitmaps,nodev" \
	--results "$SB_TMP/rd" </dev/null
python3 - "$SB_TMP/rd/result.json" <<'PY' || fail "the delay in turns: see above"
import json, sys
d = json.load(open(sys.argv[1]))
iops = [[{m["name"]: m["value"] for m in rep["workloads"][0]["metrics"]}["read_iops"]
         for rep in v["repeats"]] for v in d["variants"]]
ratios = [b / a for a, b in zip(*iops)]
# About 0.77 on a quiet host; a loaded one preempts the spin too, and
# the slower side slows more (0.37 with two CPU hogs on two CPUs): the
# test asks for the direction in each round, never equal or reversed,
# and bench/turns for the size.
if len(ratios) != 2 or not all(0.25 < r < 0.88 for r in ratios):
    print("variant 1 against 0 per round: %r (want about 0.77)" % ratios); sys.exit(1)
PY

# A phase whose cost leaks out of its turns runs whole from the next
# round: btrfs commits every second (commit=1), from its own thread, with
# cache flushes, whenever the turns are.
if command -v mkfs.btrfs >/dev/null; then
	cat >"$SB_TMP/btrfs.conf" <<'CONF'
[devices]
any = 1
[fs]
type = btrfs
[workloads]
run = rand:4k,direct=1,time=3s,size=64M,read=0
time-limit = 2m
[matrix]
mount.options = noatime,commit=1 | noatime,commit=1,nodev
CONF
	expect_exit 0 "$STACKBENCH" run "$SB_TMP/btrfs.conf" --loop --quick --repeat 2 --seed 5 \
		--turn 20 --results "$SB_TMP/rb" </dev/null
	nothing_left "after the btrfs run in turns"
	python3 - "$SB_TMP/rb/result.json" <<'PY' || fail "a leaking phase: see above"
import json, sys
sbs = json.load(open(sys.argv[1]))["profile"]["schedule"]["side_by_side"]
bad = []
whole = sbs["whole"]
if [(w["phase"], w["from_round"]) for w in whole] != [("random write", 1)]: bad.append("whole %r" % whole)
elif "outside its turns" not in whole[0]["why"]: bad.append("why %r" % whole[0]["why"])
writes = [t for t in sbs["turns"] if t["phase"] == "random write"]
if sorted((t["round"], "turned" in t) for t in writes) != [(0, True), (0, True), (1, False), (1, False)]:
    bad.append("random write turns %r" % [(t["round"], "turned" in t) for t in writes])
if bad:
    print("\n".join(bad)); sys.exit(1)
PY
	expect_exit 0 "$STACKBENCH" report "$SB_TMP/rb" --width 10000
	assert_contains "$OUT" "random write whole from round 2 (stack" "the report: whole from round 2, and why"
fi

# kill -9 in the middle of the turns: teardown --all leaves nothing.
"$STACKBENCH" run "$SB_TMP/two.conf" --loop --quick --turn 20 \
	-o "workloads.run=rand:4k,direct=1,time=30s,size=16M,write=0" \
	--results "$SB_TMP/r3" -q >/dev/null 2>&1 &
pid=$!
for _ in $(seq 300); do
	grep -q "== turns: round 1" "$SB_TMP/r3/run.log" 2>/dev/null && break
	sleep 0.1
done
grep -q "== turns: round 1" "$SB_TMP/r3/run.log" || fail "the turns never began"
sleep 1
kill -9 $pid
wait $pid 2>/dev/null || true
expect_exit 0 "$STACKBENCH" teardown --all
assert_contains "$OUT" "torn down" "teardown after kill -9 in the turns"
nothing_left "after kill -9 in the turns and teardown"
pass_msg "millisecond turns: both stacks in alternating turns, reads in their own, kill -9"
