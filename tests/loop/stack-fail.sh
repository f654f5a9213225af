#!/bin/bash
# A failure at every step (STACKBENCH_FAIL_STEP=1..N, N from the plan) must
# end with exit 1 and nothing left: no loops, mounts, journal, files.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.btrfs
cd "$SB_TOP"

for prof in single-disk btrfs-raid1-partitions; do
	ov=(-o workloads.run=command:true)
	# One variant each: the steps are numbered per variant.
	[ $prof = single-disk ] && ov+=(-o fs.type=xfs)
	[ $prof = btrfs-raid1-partitions ] && ov+=(-o mount.options=ssd)
	n=$("$STACKBENCH" plan $prof --loop --quick "${ov[@]}" | grep -cE '^ +[0-9]+  ')
	[ "$n" -ge 3 ] || fail "$prof: plan has $n steps"
	for i in $(seq 1 "$n"); do
		STACKBENCH_FAIL_STEP=$i expect_exit 1 "$STACKBENCH" run $prof --loop --quick "${ov[@]}" \
			--results "$SB_TMP/res-$prof-$i"
		assert_contains "$OUT" "STACKBENCH_FAIL_STEP=$i" "$prof step $i: reason"
		nothing_left "$prof step $i"
		[ -z "$(ls -A "$STACKBENCH_STATE_DIR")" ] || fail "$prof step $i: state left: $(ls -A "$STACKBENCH_STATE_DIR"/*)"
	done
	pass_msg "$prof: failure at each of $n steps leaves nothing"
done
