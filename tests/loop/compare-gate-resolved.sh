#!/bin/bash
# The exit codes of `report --check --require-resolved` (issue 20 item 6) on
# result sets written here: every headline row resolved (equal within +-5%,
# or marked better) exits 0; a headline row not resolved and nothing worse
# exits 4, naming the row and the repeats it needs; a worse row exits 1
# whatever else; plain --check passes the unresolved set (exit 0). A cost
# row ("cost": true) is judged like a headline row: worse fails the gate.
. "$SB_TOP/tests/lib.sh"
need_prog python3
cd "$SB_TOP"
export LC_ALL=C

mkset() { # NAME FACTORS-OF-B... (one per round, on B's wall time; cost row x2 when COST2)
	mkdir -p "$SB_TMP/$1"
	python3 - "$SB_TMP/$1/result.json" "${COST2:-}" "${@:2}" <<'EOP'
import json, sys
out, cost2, f = sys.argv[1], sys.argv[2], [float(x) for x in sys.argv[3:]]
base = [10.0, 12.0, 9.0]            # the rounds drift; pairing cancels it
def rep(i, wall, wa):
    return {"index": i, "started": "2026-12-01T00:00:00Z", "workloads": [{
        "workload": "command", "spec": "command:make", "flags": [],
        "metrics": [
            {"name": "wall", "unit": "s", "better": "lower", "value": wall,
             "label": "Wall time", "headline": True},
            {"name": "write_amp", "unit": "x", "better": "lower", "value": wa,
             "label": "Device bytes written per byte", "headline": False, "cost": True},
            {"name": "user", "unit": "s", "better": "lower", "value": wall / 3,
             "label": "User time", "headline": False}],
        "latency": []}]}
def var(name, k, wa):
    return {"name": name, "params": {"p": name},
            "repeats": [rep(i, base[i] * k[i], wa * (1 + 0.001 * i)) for i in range(3)]}
r = {"format": "stackbench-result", "version": 2, "tool_version": "test",
     "created": "2026-12-01T00:00:00Z", "command": "run", "host": {"hostname": "a"},
     "profile": None, "target": None, "devices": [], "tools": {},
     "variants": [var("A", [1, 1, 1], 1.0), var("B", f, 2.0 if cost2 else 1.0)]}
json.dump(r, open(out, "w"))
EOP
}
mkset equal 1.001 0.999 1.0005
mkset better 0.7 0.71 0.69
mkset unresolved 1.2 0.8 1.05
mkset worse 1.5 1.52 1.49
COST2=1 mkset costworse 1.001 0.999 1.0005

for c in "equal|0" "better|0" "unresolved|4" "worse|1" "costworse|1"; do
	name=${c%%|*}
	expect_exit "${c#*|}" "$STACKBENCH" report --check --require-resolved "$SB_TMP/$name"
done
expect_exit 4 "$STACKBENCH" report --check --require-resolved "$SB_TMP/unresolved"
assert_contains "$OUT" "check: not resolved: command:make: Wall time: B (" "row named"
assert_contains "$OUT" "paired-t-log): about " "its test and repeats"
assert_contains "$OUT" "repeats would resolve +-5%" "what they resolve"
assert_contains "$OUT" "1 headline figure not resolved (--require-resolved)" "summary"
expect_exit 0 "$STACKBENCH" report --check "$SB_TMP/unresolved"
expect_exit 1 "$STACKBENCH" report --check --require-resolved "$SB_TMP/costworse"
assert_contains "$OUT" "check: worse: command:make: Device bytes written per byte: B" "cost row"
# --equal widens what counts as equal: +-80% takes the unresolved row in ([-40, +68])
expect_exit 0 "$STACKBENCH" report --check --require-resolved --equal 80 "$SB_TMP/unresolved"
pass_msg "--require-resolved: resolved 0, unresolved 4 (rows and repeats named), worse 1, \
cost row judged with the headline"
