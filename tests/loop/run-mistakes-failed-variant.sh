#!/bin/bash
# One failed variant no longer stops the run: with xfs on a partition
# below xfs's 300 MB minimum (a real cause, which the dry run on the
# whole device cannot see), the ext4 variant still runs; result.json
# records the xfs one as failed (step, exit, and mkfs's own reason, not
# only its last line), `report` shows it as FAILED, run exits 1, and
# nothing is left. --fail-fast stops at the first failure as before.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.xfs
need_prog mkfs.ext4
need_prog jq

prof=$SB_TMP/ff.conf
cat >"$prof" <<'CONF'
[devices]
ssd = 1
loop.quick = 400M
[partition]
count = 2
[matrix]
fs.type = xfs | ext4
[workloads]
run = command:true
CONF

expect_exit 1 "$STACKBENCH" run "$prof" --loop --quick --yes --results "$SB_TMP/res"
assert_contains "$OUT" "variant 2 of 2, repeat 1 of 1: fs.type=ext4" "the second variant ran"
assert_contains "$OUT" "1 variant run failed" "the closing line"
assert_contains "$OUT" "FAILED: fs.type=xfs: repeat 1, step 3 mkfs" "run's report"
j=$SB_TMP/res/result.json
assert_eq "$(jq -r '.variants[0].repeats[0].failed.step' "$j")" "3 mkfs" "failed step"
assert_eq "$(jq -r '.variants[0].repeats[0].failed.exit' "$j")" "1" "failed exit"
msg=$(jq -r '.variants[0].repeats[0].failed.message' "$j")
assert_contains "$msg" "exited with status 1" "failed message"
assert_contains "$msg" "Filesystem must be larger than 300MB" "mkfs.xfs's reason in result.json"
assert_eq "$(jq -r '.variants[1].repeats[0].failed' "$j")" "null" "the ext4 variant did not fail"
assert_eq "$(jq -r '.variants[1].repeats[0].workloads | length' "$j")" "1" "the ext4 variant's results"
grep -q "Filesystem must be larger than 300MB" "$SB_TMP/res/run.log" || fail "run.log lacks mkfs's reason"
rep=$("$STACKBENCH" report --width 10000 "$SB_TMP/res")
assert_contains "$rep" "FAILED: fs.type=xfs: repeat 1, step 3 mkfs" "report"
assert_contains "$rep" "Filesystem must be larger than 300MB" "report's reason"
nothing_left "without --fail-fast"

expect_exit 1 "$STACKBENCH" run "$prof" --loop --quick --yes --fail-fast --results "$SB_TMP/res2"
assert_not_contains "$OUT" "variant 2 of 2" "--fail-fast: the second variant ran"
assert_contains "$OUT" "Filesystem must be larger than 300MB" "--fail-fast: mkfs.xfs's reason"
assert_eq "$(jq -r '.variants[1].repeats | length' "$SB_TMP/res2/result.json")" "0" "--fail-fast: ext4 repeats"
nothing_left "with --fail-fast"

# --repeat: a variant that failed is not run again; the others repeat.
expect_exit 1 "$STACKBENCH" run "$prof" --loop --quick --yes --repeat 2 --seed 1 --results "$SB_TMP/res3"
j=$SB_TMP/res3/result.json
assert_eq "$(jq -r '.variants[0].repeats | length' "$j")" "1" "--repeat 2: the failed variant's repeats"
assert_eq "$(jq -r '.variants[1].repeats | length' "$j")" "2" "--repeat 2: the other's repeats"
nothing_left "with --repeat 2"
pass_msg "a failed variant is recorded and the others run; --fail-fast stops"
