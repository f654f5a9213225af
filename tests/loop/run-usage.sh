#!/bin/bash
# Usage and profile errors: exit 2, a message naming file and line, and
# nothing created. `list profiles` shows the shipped ones.
. "$SB_TOP/tests/lib.sh"
cd "$SB_TOP"

printf '[devices]\nany = 1\n[fs]\ntype = ext4\n[mount]\noptoins = noatime\n' >"$SB_TMP/bad.conf"
expect_exit 2 "$STACKBENCH" plan "$SB_TMP/bad.conf"
assert_contains "$OUT" "$SB_TMP/bad.conf:6: unknown key 'optoins' in [mount] (did you mean 'options'?)" "bad key"
if [ "$(id -u)" -eq 0 ]; then
	expect_exit 2 "$STACKBENCH" run "$SB_TMP/bad.conf" --loop
	[ ! -e "$STACKBENCH_STATE_DIR" ] || fail "a bad profile created state"
	expect_exit 2 "$STACKBENCH" run single-disk -o workloads.run=command:true
	assert_contains "$OUT" "give --devices A,B,C or --loop" "no devices"
	expect_exit 2 "$STACKBENCH" run single-disk --loop --devices /dev/null
	expect_exit 2 "$STACKBENCH" run single-disk --loop --repeat 0
	expect_exit 2 "$STACKBENCH" run single-disk --devices /dev/nosuchdisk -o workloads.run=command:true
	assert_contains "$OUT" "/dev/nosuchdisk: no such block device" "missing device"
	if [ ! -e /proc/mdstat ]; then
		# A kernel without md: said before anything is built.
		expect_exit 1 "$STACKBENCH" run md-raid1-ssd-2hdd --loop --quick -o workloads.run=command:true
		assert_contains "$OUT" "this kernel has no md driver" "no md"
		[ -z "$(ls -A "$STACKBENCH_STATE_DIR" 2>/dev/null)" ] || fail "no md: state created"
	fi
	expect_exit 2 "$STACKBENCH" teardown
	expect_exit 2 "$STACKBENCH" teardown --all some-id
	expect_exit 2 "$STACKBENCH" teardown no-such-run
fi
expect_exit 2 "$STACKBENCH" plan nosuch-profile
assert_contains "$OUT" "nosuch-profile: no such profile" "unknown profile"
expect_exit 2 "$STACKBENCH" plan single-disk -o mount.optoins=x
assert_contains "$OUT" "did you mean 'options'" "override suggestion"
expect_exit 2 "$STACKBENCH" plan single-disk --devcies /dev/x
assert_contains "$OUT" "did you mean '--devices'" "option suggestion"

expect_exit 0 "$STACKBENCH" list profiles
for p in md-raid1-ssd-2hdd btrfs-raid1-partitions lvm-hwraid6 single-disk mount-options-xfs; do
	assert_contains "$OUT" "$p" "list profiles"
done
# A bare name and a path name the same profile.
expect_exit 0 "$STACKBENCH" plan single-disk --loop -o workloads.run=command:true
a=$OUT
expect_exit 0 "$STACKBENCH" plan profiles/single-disk.conf --loop -o workloads.run=command:true
assert_eq "$OUT" "$a" "bare name and path"
pass_msg "usage errors exit 2 and touch nothing; list profiles"
