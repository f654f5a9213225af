#!/bin/bash
# The command table's flags are enforced by main.c before a command runs,
# in one order: root, then for a destructive command the test hooks, then
# the state directory's trust. --help is answered whatever the hooks say;
# a refusal comes before the command reads anything (a profile that does
# not exist is never looked for); teardown with no state directory creates
# none (bad input changes nothing on disk).
. "$SB_TOP/tests/lib.sh"
need_root
cd "$SB_TMP"

# --help: not refused by a hook that refuses the command itself.
expect_exit 0 env STACKBENCH_PROBE_ROOT="$SB_TMP/fake" "$STACKBENCH" run --help
assert_contains "$OUT" "Usage: stackbench run" "run --help with a hook set"
expect_exit 0 env STACKBENCH_FAIL_STEP=1 STACKBENCH_STATE_DIR= "$STACKBENCH" teardown --help
assert_contains "$OUT" "Usage: stackbench teardown" "teardown --help with a hook set"
expect_exit 2 env STACKBENCH_PROBE_ROOT="$SB_TMP/fake" "$STACKBENCH" teardown --all
assert_contains "$OUT" "teardown: refusing: STACKBENCH_PROBE_ROOT is set" "teardown refused by the hook"
pass_msg "--help answered with a hook set; the command itself refused"

# The hooks before the state directory, the state directory before the
# command: neither a profile nor its options are read.
mkdir -m 0777 "$SB_TMP/ww"
expect_exit 2 env STACKBENCH_STATE_DIR="$SB_TMP/ww" STACKBENCH_PROBE_ROOT="$SB_TMP/fake" \
	"$STACKBENCH" run no-such-profile --loop
assert_contains "$OUT" "STACKBENCH_PROBE_ROOT is set" "the hook first"
expect_exit 3 env STACKBENCH_STATE_DIR="$SB_TMP/ww" "$STACKBENCH" run no-such-profile --loop
assert_contains "$OUT" "$SB_TMP/ww: is writable by group or others" "then the state directory"
case $OUT in *no-such-profile*) fail "the profile was looked for: $OUT" ;; esac
expect_exit 3 env STACKBENCH_STATE_DIR="$SB_TMP/ww" "$STACKBENCH" teardown --all
[ -z "$(ls -A "$SB_TMP/ww")" ] || fail "something created in the refused state directory"
pass_msg "hooks, then the state directory, then the command"

# No state directory: nothing to tear down, and none made.
expect_exit 0 env STACKBENCH_STATE_DIR="$SB_TMP/none/state" "$STACKBENCH" teardown --all
assert_contains "$OUT" "nothing to tear down" "teardown without a state directory"
[ ! -e "$SB_TMP/none" ] || fail "teardown created the state directory"
expect_exit 2 env STACKBENCH_STATE_DIR="$SB_TMP/none/state" "$STACKBENCH" run
[ ! -e "$SB_TMP/none" ] || fail "a run with bad usage created the state directory"
pass_msg "teardown and a bad run make no state directory"
nothing_left "flags"
