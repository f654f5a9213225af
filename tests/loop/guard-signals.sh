#!/bin/bash
# SIGPIPE, SIGHUP and SIGQUIT lead to a teardown like SIGINT (exit 130,
# nothing left); Ctrl-C during a step's external program stops it (its
# process group) instead of waiting for it.
. "$SB_TOP/tests/lib.sh"
need_loop
cd "$SB_TOP"
mounted() { findmnt -rn -o TARGET | grep -qF "$STACKBENCH_STATE_DIR"; }

for sig in HUP QUIT; do
	"$STACKBENCH" run single-disk --loop --quick -o fs.type=ext4 -o "workloads.run=command:sleep 60" \
		--results "$SB_TMP/res-$sig" >"$SB_TMP/out-$sig" 2>&1 &
	pid=$!
	for _ in $(seq 100); do mounted && break; sleep 0.1; done
	mounted || fail "$sig: run never mounted"
	kill -$sig $pid
	rc=0
	wait $pid || rc=$?
	[ $rc -eq 130 ] || fail "SIG$sig: exit $rc, want 130: $(cat "$SB_TMP/out-$sig")"
	nothing_left "SIG$sig"
	[ -z "$(ls -A "$STACKBENCH_STATE_DIR")" ] || fail "SIG$sig: state left"
	assert_contains "$(cat "$SB_TMP/out-$sig")" "interrupted: torn down" "SIG$sig: said so"
done
pass_msg "SIGHUP and SIGQUIT: torn down, exit 130"

# SIGPIPE: the reader of the run's output goes away mid-run, while the
# first workload runs in the mounted file system; the run's next line (the
# second workload's) meets the closed pipe.
reader() {
	head -1 >/dev/null
	for _ in $(seq 100); do mounted && break; sleep 0.1; done
	mounted || echo "never mounted" >"$SB_TMP/reader.fail"
}
set +o pipefail
start=$(date +%s)
"$STACKBENCH" run single-disk --loop --quick -o fs.type=ext4 \
	-o "workloads.run=command:sleep 2" -o "workloads.run=command:sleep 60" \
	--results "$SB_TMP/res-pipe" 2>&1 | reader
rc=${PIPESTATUS[0]}
set -o pipefail
[ ! -e "$SB_TMP/reader.fail" ] || fail "SIGPIPE: the run never mounted"
[ "$rc" -eq 130 ] || fail "SIGPIPE: exit $rc, want 130; run.log: $(cat "$SB_TMP/res-pipe/run.log")"
nothing_left "SIGPIPE"
[ -z "$(ls -A "$STACKBENCH_STATE_DIR")" ] || fail "SIGPIPE: state left: $(ls -A "$STACKBENCH_STATE_DIR")"
grep -q "== teardown" "$SB_TMP/res-pipe/run.log" || fail "SIGPIPE: no teardown in run.log"
[ $(($(date +%s) - start)) -lt 30 ] || fail "SIGPIPE: the second workload ran its 60 s"
pass_msg "SIGPIPE mid-run (run ... | head -1): torn down, exit 130"

# A step's program is stopped by Ctrl-C, not waited for: mkfs replaced by
# a slow one (first in PATH) that SIGINT must end within seconds (its dry
# run before the first variant, mke2fs -n, passes at once).
mkdir "$SB_TMP/bin"
printf '#!/bin/sh\nfor a; do [ "$a" = -n ] && exit 0; done\nsleep 120\n' >"$SB_TMP/bin/mkfs.ext4"
chmod +x "$SB_TMP/bin/mkfs.ext4"
PATH="$SB_TMP/bin:$PATH" "$STACKBENCH" run single-disk --loop --quick -o fs.type=ext4 \
	-o "workloads.run=command:true" --results "$SB_TMP/res-slow" >"$SB_TMP/out-slow" 2>&1 &
pid=$!
for _ in $(seq 100); do pgrep -f "$SB_TMP/bin/mkfs.ext4" >/dev/null && break; sleep 0.1; done
pgrep -f "$SB_TMP/bin/mkfs.ext4" >/dev/null || fail "the slow mkfs never started: $(cat "$SB_TMP/out-slow")"
start=$(date +%s)
kill -INT $pid
rc=0
wait $pid || rc=$?
took=$(($(date +%s) - start))
[ $rc -eq 130 ] || fail "slow step, SIGINT: exit $rc, want 130: $(cat "$SB_TMP/out-slow")"
[ $took -le 10 ] || fail "slow step, SIGINT: took ${took}s"
! pgrep -f "$SB_TMP/bin/mkfs.ext4" >/dev/null || fail "the slow mkfs is still running"
nothing_left "slow step"
pass_msg "SIGINT during a step's program stops it (${took}s) and tears down"
