#!/bin/bash
# Profiles are found by bare name from any directory: next to the executable
# (a build tree, or an install under any prefix), $STACKBENCH_PROFILES, and
# ./profiles; an unknown name says where it looked. No root needed.
source "$SB_TOP/tests/lib.sh"

cd "$SB_TMP"

# From a build tree, run elsewhere: build/stackbench -> profiles/
out=$("$STACKBENCH" list profiles)
assert_contains "$out" "$SB_TOP/profiles/md-raid1-ssd-2hdd.conf" "build tree profiles"
"$STACKBENCH" plan single-disk --loop >/dev/null || fail "plan by bare name outside the tree"

# Installed under another prefix than the compiled-in one.
san=()
[[ "$SB_BUILD" == */asan ]] && san=(SANITIZE=1)
make -C "$SB_TOP" -s install DESTDIR="$SB_TMP/inst" PREFIX=/opt/sb "${san[@]}" >/dev/null
[ -f "$SB_TMP/inst/opt/sb/share/bash-completion/completions/stackbench" ] || fail "completion not installed"
[ -f "$SB_TMP/inst/opt/sb/share/man/man8/stackbench.8" ] || fail "man page not installed"
out=$("$SB_TMP/inst/opt/sb/sbin/stackbench" list profiles)
assert_contains "$out" "$SB_TMP/inst/opt/sb/share/stackbench/profiles/single-disk.conf" "installed profiles"

# $STACKBENCH_PROFILES
mkdir "$SB_TMP/mine"
cat >"$SB_TMP/mine/tiny.conf" <<'CONF'
# A tiny profile of the user's own.
[devices]
any = 1
[fs]
type = ext4
[workloads]
run = command:true
CONF
out=$(STACKBENCH_PROFILES="$SB_TMP/mine" "$STACKBENCH" list profiles)
assert_contains "$out" "tiny" "STACKBENCH_PROFILES listed"
STACKBENCH_PROFILES="$SB_TMP/mine" "$STACKBENCH" plan tiny --loop >/dev/null || fail "plan tiny"

# Unknown: exit 2, naming the directories searched
expect_exit 2 "$STACKBENCH" plan no-such-profile --loop
assert_contains "$OUT" "no-such-profile: no such profile (looked in profiles, $SB_TOP/profiles" "unknown profile message"
pass_msg "profile lookup"
