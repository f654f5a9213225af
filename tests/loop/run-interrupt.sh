#!/bin/bash
# SIGINT and SIGTERM during a workload: the run tears down and exits 130.
. "$SB_TOP/tests/lib.sh"
need_loop
cd "$SB_TOP"

for sig in INT TERM; do
	"$STACKBENCH" run single-disk --loop --quick -o fs.type=ext4 -o "workloads.run=command:sleep 60" \
		--results "$SB_TMP/res-$sig" >"$SB_TMP/out-$sig" 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		findmnt -rn -o TARGET | grep -qF "$STACKBENCH_STATE_DIR" && break
		sleep 0.1
	done
	findmnt -rn -o TARGET | grep -qF "$STACKBENCH_STATE_DIR" || fail "$sig: run never mounted"
	kill -$sig $pid
	rc=0
	wait $pid || rc=$?
	[ $rc -eq 130 ] || fail "SIG$sig: exit $rc, want 130: $(cat "$SB_TMP/out-$sig")"
	nothing_left "SIG$sig"
	[ -z "$(ls -A "$STACKBENCH_STATE_DIR")" ] || fail "SIG$sig: state left"
	[ -s "$SB_TMP/res-$sig/result.json" ] || fail "SIG$sig: no result.json"
done
pass_msg "SIGINT and SIGTERM: torn down, exit 130"
