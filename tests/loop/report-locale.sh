#!/bin/bash
# The text report's own units are readable in any locale: a CPU-per-op row
# ("µs/op", as the cost rows write it) prints as "us/op" in the C locale,
# never as escaped bytes, and as "µs/op" in a UTF-8 one; the interval sign
# follows suit ("+-" and "±"). No root, no build of stacks: a recorded set
# with one such row added, and every recorded set in tests with --all.
source "$SB_TOP/tests/lib.sh"
need_prog python3
set_in=$SB_TOP/tests/golden/report/inputs/run1/result.json
mkdir -p "$SB_TMP/set"
python3 - "$set_in" "$SB_TMP/set/result.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for v in d["variants"]:
    for i, r in enumerate(v["repeats"]):
        w = r["workloads"][0]
        w["metrics"].append({"name": "cpu_us_per_op", "unit": "\u00b5s/op",
                             "better": "lower", "value": 12.5 + i})
json.dump(d, open(sys.argv[2], "w"))
PY

expect_exit 0 env LC_ALL=C "$STACKBENCH" report --all "$SB_TMP/set"
assert_contains "$OUT" "us/op" "the unit in the C locale"
assert_not_contains "$OUT" '\x' "an escape in the C locale"
assert_eq "$(LC_ALL=C grep -c $'[\x80-\xff]' <<<"$OUT" || true)" 0 "bytes above ASCII in the C locale"
pass_msg "C locale: us/op, nothing escaped"

expect_exit 0 env LC_ALL=C.UTF-8 "$STACKBENCH" report --all "$SB_TMP/set"
assert_contains "$OUT" "µs/op" "the unit in a UTF-8 locale"
assert_not_contains "$OUT" '\x' "an escape in a UTF-8 locale"
pass_msg "UTF-8 locale: µs/op"

# Every recorded set in tests, with every row, in the C locale: nothing
# escaped, nothing above ASCII (units, labels, the tree, the verdict).
for s in "$SB_TOP"/tests/golden/report/inputs/*/; do
	expect_exit 0 env LC_ALL=C "$STACKBENCH" report --all "$s"
	assert_not_contains "$OUT" '\x' "an escape in the C locale ($s)"
	assert_eq "$(LC_ALL=C grep -c $'[\x80-\xff]' <<<"$OUT" || true)" 0 "bytes above ASCII in the C locale ($s)"
done
pass_msg "C locale: every recorded set readable, nothing escaped"
