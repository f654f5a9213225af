#!/bin/bash
# Two runs at once: on the same device the second is refused (exit 3, the
# device untouched by it); on different devices both go through.
. "$SB_TOP/tests/lib.sh"
need_loop
cd "$SB_TOP"
WL=(-o fs.type=ext4)

one=$(new_loop one 320M)
SB_LOOPS+=("$one") # new_loop runs in a subshell here
two=$(new_loop two 320M)
SB_LOOPS+=("$two")

"$STACKBENCH" run single-disk --devices "$one" --yes "${WL[@]}" -o "workloads.run=command:sleep 60" \
	--results "$SB_TMP/res-a" >"$SB_TMP/out-a" 2>&1 &
a=$!
SB_CLEANUPS+=("kill $a")
for _ in $(seq 100); do
	findmnt -rn -o SOURCE | grep -qx "$one" && break
	sleep 0.1
done
findmnt -rn -o SOURCE | grep -qx "$one" || fail "first run never mounted: $(cat "$SB_TMP/out-a")"

expect_exit 3 "$STACKBENCH" run single-disk --devices "$one" --yes --wipe "${WL[@]}" -o workloads.run=command:true
assert_contains "$OUT" "$one: refusing" "second run on the same device"
findmnt -rn -o SOURCE | grep -qx "$one" || fail "the refused run disturbed the first"

expect_exit 0 "$STACKBENCH" run single-disk --devices "$two" --yes "${WL[@]}" -o workloads.run=command:true \
	--results "$SB_TMP/res-c"

kill -TERM $a
rc=0
wait $a || rc=$?
[ $rc -eq 130 ] || fail "first run: exit $rc after SIGTERM: $(cat "$SB_TMP/out-a")"
! findmnt -rn -o TARGET | grep -qF "$STACKBENCH_STATE_DIR" || fail "mount left"
[ -z "$(ls -A "$STACKBENCH_STATE_DIR")" ] || fail "state left: $(ls -A "$STACKBENCH_STATE_DIR")"
pass_msg "same device: second run refused; different devices: both run"
