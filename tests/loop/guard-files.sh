#!/bin/bash
# Files written as root are safe: a state directory that is world-writable,
# another user's, or a symlink is refused by run and teardown; a results
# directory that is a symlink, another user's or group/world-writable is
# refused and its target unchanged; a plan.txt symlink planted in the
# results directory is replaced, never followed; a bare profile name in a
# directory of someone else's is not taken from there, and run refuses a
# profile that others can write.
. "$SB_TOP/tests/lib.sh"
need_loop
id nobody >/dev/null 2>&1 || skip "no user 'nobody'"
cd "$SB_TOP"
WL=(-o workloads.run=command:true)
tree_sum() { (cd "$1" && find . -printf '%p %s %m %u\n' | sort && find . -type f -exec md5sum {} + | sort) | md5sum; }

# --- the state directory
for kind in world other symlink; do
	sd="$SB_TMP/state-$kind"
	case $kind in
	world) mkdir -m 0777 "$sd" ;;
	other) mkdir -m 0700 "$sd" && chown nobody "$sd" ;;
	symlink) mkdir -m 0700 "$SB_TMP/real-state" && ln -s "$SB_TMP/real-state" "$sd" ;;
	esac
	expect_exit 3 env STACKBENCH_STATE_DIR="$sd" "$STACKBENCH" run single-disk --loop --quick "${WL[@]}" \
		--results "$SB_TMP/res-$kind"
	assert_contains "$OUT" "$sd: is " "$kind state directory refused"
	expect_exit 3 env STACKBENCH_STATE_DIR="$sd" "$STACKBENCH" teardown --all
	[ -z "$(ls -A "$sd/")" ] || fail "$kind state directory: something created: $(ls -A "$sd/")"
done
[ -z "$(ls -A "$SB_TMP/real-state")" ] || fail "symlinked state directory: target written"
expect_exit 3 env STACKBENCH_STATE_DIR="$SB_TMP/state-world" "$STACKBENCH" run single-disk --loop --quick "${WL[@]}"
assert_contains "$OUT" "is writable by group or others" "world-writable: the reason"
pass_msg "world-writable, foreign and symlinked state directories are refused"

# --- the results directory
mkdir "$SB_TMP/target"
echo precious >"$SB_TMP/target/plan.txt"
before=$(tree_sum "$SB_TMP/target")
ln -s "$SB_TMP/target" "$SB_TMP/res-link"
expect_exit 3 "$STACKBENCH" run single-disk --loop --quick "${WL[@]}" --results "$SB_TMP/res-link"
assert_contains "$OUT" "is a symbolic link" "symlinked results directory"
mkdir -m 0777 "$SB_TMP/res-world"
expect_exit 3 "$STACKBENCH" run single-disk --loop --quick "${WL[@]}" --results "$SB_TMP/res-world"
assert_contains "$OUT" "is writable by group or others" "world-writable results directory"
mkdir "$SB_TMP/res-other" && chown nobody "$SB_TMP/res-other"
ln -s "$SB_TMP/target/plan.txt" "$SB_TMP/res-other/plan.txt"
expect_exit 3 "$STACKBENCH" run single-disk --loop --quick "${WL[@]}" --results "$SB_TMP/res-other"
assert_contains "$OUT" "is owned by another user" "another user's results directory"
assert_eq "$(tree_sum "$SB_TMP/target")" "$before" "link targets unchanged"
[ -z "$(ls -A "$STACKBENCH_STATE_DIR" 2>/dev/null)" ] || fail "refused runs left state"
pass_msg "symlinked, world-writable and foreign results directories are refused, targets unchanged"

# A plan.txt symlink in our own results directory: replaced, not followed.
mkdir "$SB_TMP/res-own"
ln -s "$SB_TMP/target/plan.txt" "$SB_TMP/res-own/plan.txt"
ln -s "$SB_TMP/target/plan.txt" "$SB_TMP/res-own/result.json"
expect_exit 0 "$STACKBENCH" run single-disk --loop --quick "${WL[@]}" --results "$SB_TMP/res-own"
assert_eq "$(tree_sum "$SB_TMP/target")" "$before" "plan.txt link target unchanged"
[ -f "$SB_TMP/res-own/plan.txt" ] && [ ! -L "$SB_TMP/res-own/plan.txt" ] || fail "plan.txt not a file of its own"
grep -q "^profile single-disk" "$SB_TMP/res-own/plan.txt" || fail "plan.txt has no plan"
[ -f "$SB_TMP/res-own/result.json" ] && [ ! -L "$SB_TMP/res-own/result.json" ] || fail "result.json not a file of its own"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$SB_TMP/res-own/result.json" || fail "result.json unreadable"
nothing_left "own results"
pass_msg "plan.txt and result.json symlinks are replaced, their target unchanged"

# --- profiles
mkdir -m 0755 "$SB_TMP/cwd"
cp profiles/single-disk.conf "$SB_TMP/cwd/guardprof"
chown nobody "$SB_TMP/cwd/guardprof"
(cd "$SB_TMP/cwd" && expect_exit 2 "$STACKBENCH" plan guardprof --loop &&
	assert_contains "$OUT" "guardprof: no such profile" "someone else's file in . is not taken") || exit 1
chown root "$SB_TMP/cwd/guardprof"
(cd "$SB_TMP/cwd" && expect_exit 0 "$STACKBENCH" plan guardprof --loop) || exit 1
cp profiles/single-disk.conf "$SB_TMP/ww.conf"
chmod 0666 "$SB_TMP/ww.conf"
expect_exit 2 "$STACKBENCH" run "$SB_TMP/ww.conf" --loop --quick "${WL[@]}" --results "$SB_TMP/res-ww"
assert_contains "$OUT" "ww.conf: refusing: writable by group or others" "world-writable profile refused for run"
expect_exit 0 "$STACKBENCH" plan "$SB_TMP/ww.conf" --loop
# bench writes result.json the same way: a symlinked results directory is
# refused and the file a planted result.json link points at is untouched.
bd="$SB_TMP/bench-dir"
mkdir -p "$bd" "$SB_TMP/bench-real"
ln -s "$SB_TMP/bench-real" "$SB_TMP/bench-link"
expect_exit 1 "$STACKBENCH" bench "$bd" -w command:true --results "$SB_TMP/bench-link"
assert_contains "$OUT" "refusing to write result.json" "bench: symlinked results directory"
mkdir -m 0755 "$SB_TMP/bench-res"
echo precious >"$SB_TMP/precious"
ln -s "$SB_TMP/precious" "$SB_TMP/bench-res/result.json"
ln -s "$SB_TMP/precious" "$SB_TMP/bench-res/.result.json.tmp"
expect_exit 0 "$STACKBENCH" bench "$bd" -w command:true --results "$SB_TMP/bench-res"
assert_eq "$(cat "$SB_TMP/precious")" precious "bench: planted result.json link followed"
[ ! -L "$SB_TMP/bench-res/result.json" ] || fail "bench: result.json still a link"
pass_msg "profiles: a bare name in . only when ours, a world-writable one refused for run; bench results safe"
