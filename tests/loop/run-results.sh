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
expect_exit 0 "$STACKBENCH" run single-disk --loop --quick --repeat 2 -o 'matrix.fs.type=ext4|xfs' \
	-o "workloads.run=command:$SB_TMP/mark.sh" --results "$SB_TMP/res"
assert_eq "$(tr '\n' ' ' <"$LOG")" "ext4 xfs ext4 xfs " "interleaved repeats"
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
EOP
nothing_left "results run"
pass_msg "result.json, run.log, plan.txt; repeats interleaved"
