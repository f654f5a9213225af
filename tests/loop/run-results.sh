#!/bin/bash
# The result set of a run: result.json (profile path and sha256, resolved
# values, devices as probed, each variant with params and every repeat),
# run.log with every command, plan.txt; --repeat interleaves the variants.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog python3
cd "$SB_TOP"

cat >"$SB_TMP/mark.sh" <<'EOS'
#!/bin/sh
findmnt -n -o FSTYPE --target . >>"$LOG"
EOS
chmod +x "$SB_TMP/mark.sh"
export LOG="$SB_TMP/order.log"
: >"$LOG"
# (--rounds: the order of whole variants; side by side, the turns have
# their own records, tests/loop/side-by-side.sh)
expect_exit 0 "$STACKBENCH" run single-disk --loop --quick --repeat 2 --rounds -o 'matrix.fs.type=ext4|xfs' \
	-o "workloads.run=command:$SB_TMP/mark.sh" --results "$SB_TMP/res"
# Interleaved, each round in its own shuffled order, the one result.json
# records (profile.schedule), from the seed it records.
want=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
s = r["profile"]["schedule"]
assert s["shuffled"] is True and isinstance(s["seed"], int), s
assert len(s["rounds"]) == 2 and all(sorted(x) == [0, 1] for x in s["rounds"]), s
print(" ".join(r["variants"][i]["name"].split("=")[1] for x in s["rounds"] for i in x) + " ")
' "$SB_TMP/res/result.json") || fail "result.json: no schedule"
assert_eq "$(tr '\n' ' ' <"$LOG")" "$want" "interleaved repeats in the recorded order"
assert_contains "$OUT" "$SB_TMP/res" "results directory printed"
for f in result.json run.log plan.txt; do [ -s "$SB_TMP/res/$f" ] || fail "$f missing"; done
grep -q '^\$ mkfs.xfs -f /dev/loop' "$SB_TMP/res/run.log" || fail "run.log lacks commands"
grep -q 'variant 2/2: fs.type=xfs' "$SB_TMP/res/plan.txt" || fail "plan.txt lacks the plan"

python3 - "$SB_TMP/res/result.json" "$(sha256sum profiles/single-disk.conf | cut -d' ' -f1)" <<'EOP'
import json, sys
r = json.load(open(sys.argv[1]))
p = r["profile"]
assert p["path"] == "profiles/single-disk.conf", p["path"]
assert p["sha256"] == sys.argv[2], (p["sha256"], sys.argv[2])
assert p["values"]["mount.options"] == "noatime", p["values"]
names = [v["name"] for v in r["variants"]]
assert names == ["fs.type=ext4", "fs.type=xfs"], names
for v in r["variants"]:
    assert v["params"]["fs.type"] == v["name"].split("=")[1], v["params"]
    assert len(v["repeats"]) == 2, v["repeats"]
    for rep in v["repeats"]:
        wl = rep["workloads"][0]
        assert wl["workload"] == "command", wl
        assert any(m["name"] == "wall" and isinstance(m["value"], (int, float)) for m in wl["metrics"]), wl
devs = r["devices"]
assert devs and devs[0]["path"].startswith("/dev/loop"), devs
assert devs[0]["rotational"] is False
assert "mkfs.xfs" in r["tools"] and "mkfs.ext4" in r["tools"], r["tools"]
# each binary asked once, its answer under every name it has
assert all(isinstance(v, str) and v for v in r["tools"].values()), r["tools"]
EOP
nothing_left "results run"
pass_msg "result.json, run.log, plan.txt; repeats interleaved"

# The same seed gives the same schedule; over seeds both orders occur.
orders=""
for seed in 1 2 3 4 5 6; do
	: >"$LOG"
	expect_exit 0 "$STACKBENCH" run single-disk --loop --quick --repeat 2 --seed $seed \
		-o 'matrix.fs.type=ext4|xfs' -o "workloads.run=command:$SB_TMP/mark.sh" --results "$SB_TMP/res-s$seed"
	got=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["profile"]["schedule"]; print(s["seed"], s["rounds"])' "$SB_TMP/res-s$seed/result.json")
	assert_contains "$got" "$seed [" "seed $seed recorded"
	orders+="$(tr '\n' ' ' <"$LOG")|"
done
assert_contains "$orders" "xfs ext4" "some round starts with the second variant"
assert_contains "$orders" "ext4 xfs" "some round starts with the first variant"
nothing_left "seeded runs"
pass_msg "repeats shuffled per round from a recorded seed"
