#!/bin/bash
# A failure at every step (STACKBENCH_FAIL_STEP=1..N, N from the plan) must
# end with exit 1 and nothing left: no loops, mounts, journal, files, loop
# images.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.btrfs
cd "$SB_TOP"

for c in "${SB_HOST_PROFILE_CASES[@]}"; do
	profile_case "$c"
	prof=$CASE_PROF ov=("${CASE_OV[@]}") n=$CASE_STEPS
	for i in $(seq 1 "$n"); do
		STACKBENCH_FAIL_STEP=$i expect_exit 1 "$STACKBENCH" run $prof --loop --quick "${ov[@]}" \
			--results "$SB_TMP/res-$prof-$i"
		assert_contains "$OUT" "STACKBENCH_FAIL_STEP=$i" "$prof step $i: reason"
		nothing_left "$prof step $i"
		[ -z "$(ls -A "$STACKBENCH_STATE_DIR")" ] || fail "$prof step $i: state left: $(ls -A "$STACKBENCH_STATE_DIR"/*)"
		[ -z "$(ls -A "$STACKBENCH_LOOP_DIR" 2>/dev/null)" ] || fail "$prof step $i: loop images left: $(ls -A "$STACKBENCH_LOOP_DIR")"
	done
	pass_msg "$c: failure at each of $n steps leaves nothing"
done
