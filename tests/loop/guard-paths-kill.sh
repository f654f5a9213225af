#!/bin/bash
# teardown stops only the processes the run started. A run killed with -9
# leaves its workload running in the mount point, and another program (not
# started by the run) has its cwd there too: teardown --all stops the
# workload, never signals the other program, says who holds the mount (pid
# and comm), exits 1 and keeps the journal. Once that program is gone, a
# second teardown --all clears everything.
. "$SB_TOP/tests/lib.sh"
need_loop
cd "$SB_TOP"

"$STACKBENCH" run single-disk --loop --quick -o "workloads.run=command:sleep 120" -o fs.type=ext4 \
	--results "$SB_TMP/r" >"$SB_TMP/run.out" 2>&1 &
run=$!
for _ in $(seq 150); do
	mnt=$(findmnt -rn -o TARGET | grep -F "$STACKBENCH_STATE_DIR" | head -1) || true
	[ -n "$mnt" ] && pgrep -x sleep >/dev/null && break
	sleep 0.1
done
[ -n "$mnt" ] || fail "run never mounted: $(cat "$SB_TMP/run.out")"
SB_MOUNTS+=("$mnt")
ours=""
for _ in $(seq 50); do
	for p in $(pgrep -x sleep); do
		case "$(readlink "/proc/$p/cwd")" in "$mnt"*) ours=$p ;; esac
	done
	[ -n "$ours" ] && break
	sleep 0.1
done
[ -n "$ours" ] || fail "the run's workload is not in $mnt"
# another program in the mount point, not the run's (started from here:
# its environment has no run id)
(cd "$mnt" && exec sleep 300) &
other=$!
SB_CLEANUPS+=("kill -9 $other")
kill -9 "$run"
wait "$run" 2>/dev/null || true

expect_exit 1 "$STACKBENCH" teardown --all
assert_contains "$OUT" "used by pid $other (sleep), which this run did not start" "the other holder named"
assert_contains "$OUT" "(journal kept)" "journal kept"
assert_not_contains "$OUT" "pid $ours " "the run's own workload is not reported as another's"
kill -0 "$other" 2>/dev/null || fail "teardown signalled a process the run did not start"
for _ in $(seq 50); do kill -0 "$ours" 2>/dev/null || break; sleep 0.1; done
! kill -0 "$ours" 2>/dev/null || fail "the run's own workload (pid $ours) still runs"
[ -n "$(find "$STACKBENCH_STATE_DIR" -name journal)" ] || fail "journal removed"
findmnt -rn -o TARGET | grep -qxF "$mnt" || fail "unmounted under the other program"
pass_msg "teardown stops the run's workload, leaves another program alone and names it"

kill -9 "$other"
wait "$other" 2>/dev/null || true
expect_exit 0 "$STACKBENCH" teardown --all
assert_contains "$OUT" "torn down" "second teardown"
nothing_left "after the other program left"
pass_msg "then teardown clears everything"
