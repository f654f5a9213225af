#!/bin/bash
# Real devices, variants that differ only in mount options: one stack per
# round, each workload run for every variant in turn (A B, then B A), the
# file system mounted again with the turn's options between turns; the
# kernel's mount options recorded per turn prove each switch took; variants
# that differ in more keep rounds, and the plan says why; kill -9 right
# after a switch's mount, then teardown --all, leaves nothing.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
need_prog python3
cd "$SB_TOP"

dev=$(new_loop switch 600M)
# Nothing left but the test's own device.
left() {
	no_mount_left "$1" "$STACKBENCH_STATE_DIR"
	no_mount_left "$1" "$SB_TMP"
	no_journal_left "$1" "$STACKBENCH_STATE_DIR"
	[ "$(losetup -a | grep -cF "$SB_TMP")" = 1 ] || fail "$1: loop devices: $(losetup -a | grep -F "$SB_TMP")"
}
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
sed 's/^mount.options = .*/fs.type = ext4 | ext3/' "$SB_TMP/two.conf" >"$SB_TMP/fs.conf"

expect_exit 0 "$STACKBENCH" plan "$SB_TMP/two.conf" --devices "$dev"
assert_contains "$OUT" "one stack, switched: the variants differ only in what a built stack can change" "plan: switched"
expect_exit 0 "$STACKBENCH" plan "$SB_TMP/fs.conf" --devices "$dev"
assert_contains "$OUT" "rounds: one variant's stack at a time (the variants share the real devices and differ in more than mount options and md's write-mostly and write-behind" "plan: rounds, and why"

expect_exit 0 "$STACKBENCH" run "$SB_TMP/two.conf" --devices "$dev" --yes --quick --repeat 2 \
	--seed 3 --results "$SB_TMP/r"
left "after the switched run"
# each turn's phase lines name the turn's variant
for v in 1 2; do
	for r in 1 2; do
		assert_contains "$OUT" "[variant $v of 2, repeat $r of 2] rand: random read" "variant $v's turn in round $r"
	done
done
python3 - "$SB_TMP/r/result.json" <<'PY' || fail "switched records: see above"
import json, sys
d = json.load(open(sys.argv[1]))
sbs = d["profile"]["schedule"]["side_by_side"]
names = [v["name"] for v in d["variants"]]
bad = []
if sbs["stacks"] != 1 or sbs.get("switched") != "mount.options": bad.append("design %r" % sbs)
turns = sbs["turns"]
by_round = {}
for t in turns:
    by_round.setdefault(t["round"], []).append(t)
    barrier0 = "barrier=0" in names[t["variant"]]
    # ext4 shows barrier=0 as nobarrier in /proc/mounts
    if barrier0 != ("nobarrier" in t.get("mounted", "")): bad.append("switch not in effect: %r" % t)
orders = []
for r, ts in sorted(by_round.items()):
    o = [t["variant"] for t in sorted(ts, key=lambda t: t["position"])]
    if sorted(o) != [0, 1]: bad.append("round %d: %r" % (r, o))
    orders.append(o)
if len(orders) != 2 or orders[0] != orders[1][::-1]: bad.append("not A B, B A: %r" % orders)
for v in d["variants"]:
    if len(v["repeats"]) != 2: bad.append("%s: %d repeats" % (v["name"], len(v["repeats"])))
if bad:
    print("\n".join(bad)); sys.exit(1)
PY
expect_exit 0 "$STACKBENCH" report "$SB_TMP/r" --width 10000
assert_contains "$OUT" "the variants switched on it between turns" "the report's model"

# kill -9 right after the first switch's mount (the journal's step 3:
# mkfs, mount, then the switch), then teardown --all.
STACKBENCH_KILL_STEP=3 "$STACKBENCH" run "$SB_TMP/two.conf" --devices "$dev" --yes --quick \
	--seed 3 --results "$SB_TMP/rk" >"$SB_TMP/rk.out" 2>&1 && fail "the run was not killed"
grep -q "barrier=0" "$STACKBENCH_STATE_DIR"/*/journal || fail "killed before the switch: $(cat "$SB_TMP/rk.out")"
expect_exit 0 "$STACKBENCH" teardown --all
assert_contains "$OUT" "torn down" "teardown after kill -9 in a switch"
left "after kill -9 in a switch and teardown"
[ -z "$(ls -A "$STACKBENCH_STATE_DIR")" ] || fail "state left: $(ls -A "$STACKBENCH_STATE_DIR")"
blkid -p "$dev" >/dev/null 2>&1 && fail "a signature left on $dev: $(blkid -p "$dev")"
pass_msg "one stack switched by mount options: plan, A B / B A turns, options in effect, kill -9"
