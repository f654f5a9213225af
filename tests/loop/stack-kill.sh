#!/bin/bash
# kill -9 of a run in the middle of its workload, then `teardown --all`:
# nothing left; a second teardown is a no-op. A run that is alive is not
# touched by teardown.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.btrfs
cd "$SB_TOP"

"$STACKBENCH" run btrfs-raid1-partitions --loop --quick -o mount.options=ssd \
	-o "workloads.run=command:sleep 60" --results "$SB_TMP/res" -q >/dev/null 2>&1 &
pid=$!
# Wait until the workload runs (the file system is mounted).
for _ in $(seq 100); do
	findmnt -rn -o TARGET | grep -qF "$STACKBENCH_STATE_DIR" && break
	sleep 0.1
done
findmnt -rn -o TARGET | grep -qF "$STACKBENCH_STATE_DIR" || fail "run never mounted"

# Alive: teardown leaves it alone.
expect_exit 0 "$STACKBENCH" teardown --all
assert_contains "$OUT" "in progress" "live run skipped"
findmnt -rn -o TARGET | grep -qF "$STACKBENCH_STATE_DIR" || fail "teardown touched a live run"

kill -9 $pid
wait $pid 2>/dev/null || true
journal=$(ls "$STACKBENCH_STATE_DIR"/*/journal)
[ -f "$journal" ] || fail "no journal after kill -9"
# As if the crash had cut a record in half: teardown must still undo all.
printf '{"rec":"done","step":9,"res' >>"$journal"
expect_exit 0 "$STACKBENCH" teardown --all
assert_contains "$OUT" "torn down" "teardown"
nothing_left "after teardown"
[ -z "$(ls -A "$STACKBENCH_STATE_DIR")" ] || fail "state left: $(ls -A "$STACKBENCH_STATE_DIR")"
pgrep -f "sleep 60" >/dev/null && [ -n "$(pgrep -f 'sleep 60' | xargs -r -I{} readlink /proc/{}/cwd | grep -F "$SB_TMP")" ] &&
	fail "workload left running"
expect_exit 0 "$STACKBENCH" teardown --all
assert_contains "$OUT" "nothing to tear down" "second teardown"
pass_msg "kill -9 mid-workload, teardown --all, teardown again is a no-op"
