#!/bin/bash
# kill -9 of a run right after each step of every host-buildable shipped
# profile (STACKBENCH_KILL_STEP=N: the step has acted, its "done" record is
# not on disk, as after a power cut), then `teardown --all` from the journal
# alone: exit 0 and nothing left, no loops, mounts, journal, loop images. A
# second teardown is a no-op. The hook is refused with the default state
# directory, like STACKBENCH_FAIL_STEP.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.btrfs
need_prog mkfs.xfs
cd "$SB_TOP"

STACKBENCH_STATE_DIR='' STACKBENCH_KILL_STEP=1 expect_exit 2 "$STACKBENCH" run single-disk --loop --quick --yes
assert_contains "$OUT" "STACKBENCH_KILL_STEP is a test hook" "hook refused for a real run"

total=0
for c in "${SB_HOST_PROFILE_CASES[@]}"; do
	profile_case "$c"
	for i in $(seq 1 "$CASE_STEPS"); do
		rc=0
		STACKBENCH_KILL_STEP=$i "$STACKBENCH" run "$CASE_PROF" --loop --quick "${CASE_OV[@]}" \
			--results "$SB_TMP/res-$CASE_PROF-$i" >"$SB_TMP/out" 2>&1 || rc=$?
		[ $rc = 137 ] || fail "$c: STACKBENCH_KILL_STEP=$i: exit $rc, want 137 (SIGKILL): $(tail -5 "$SB_TMP/out")"
		[ -n "$(ls -A "$STACKBENCH_STATE_DIR")" ] || fail "$c: step $i: the killed run left no journal"
		expect_exit 0 "$STACKBENCH" teardown --all
		nothing_left "$c: kill -9 after step $i, teardown --all"
		[ -z "$(ls -A "$STACKBENCH_STATE_DIR")" ] || fail "$c: step $i: state left: $(ls -A "$STACKBENCH_STATE_DIR"/*)"
		[ -z "$(ls -A "$STACKBENCH_LOOP_DIR" 2>/dev/null)" ] || fail "$c: step $i: loop images left: $(ls -A "$STACKBENCH_LOOP_DIR")"
		expect_exit 0 "$STACKBENCH" teardown --all
		total=$((total + 1))
	done
done
pass_msg "kill -9 after each of $total steps of ${#SB_HOST_PROFILE_CASES[@]} profile variants: teardown --all leaves nothing"
