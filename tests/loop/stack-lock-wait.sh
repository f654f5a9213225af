#!/bin/bash
# The device lock: a program that holds it for a moment, as udevd does while
# it probes a disk after a teardown (a shared flock), is waited for and the
# run goes through; one that keeps holding it gets a refusal (exit 3) naming
# the device, without anything written to it; a lock held by another
# stackbench run is refused at once, as that run will not let go soon.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog flock
cd "$SB_TOP"
WL=(-o fs.type=ext4 -o workloads.run=command:true)

dev=$(new_loop one 320M)
SB_LOOPS+=("$dev")

# Our own loop device stays; nothing of a run may.
run_left() {
	! findmnt -rn -o SOURCE | grep -qx "$dev" || fail "$1: $dev still mounted"
	[ -z "$(ls -A "$STACKBENCH_STATE_DIR" 2>/dev/null)" ] || fail "$1: state left: $(ls -A "$STACKBENCH_STATE_DIR")"
}

# hold_lock SECONDS: a shared flock on the device, like udevd's blkid probe;
# returns once the lock is taken.
hold_lock() {
	rm -f "$SB_TMP/held"
	# The sleep itself holds the lock (fd 9): killing it releases the lock.
	(
		exec 9<"$dev"
		flock -s 9
		touch "$SB_TMP/held"
		exec sleep "$1"
	) &
	holder=$!
	SB_CLEANUPS+=("kill $holder")
	for _ in $(seq 100); do
		[ -e "$SB_TMP/held" ] && return 0
		sleep 0.05
	done
	fail "flock never took the lock of $dev"
}

hold_lock 1
expect_exit 0 "$STACKBENCH" run single-disk --devices "$dev" --yes "${WL[@]}" --results "$SB_TMP/res-a"
wait "$holder"
run_left "after the run that waited"

hold_lock 60
sum=$(dd if="$dev" bs=1M count=4 status=none | md5sum)
expect_exit 3 "$STACKBENCH" run single-disk --devices "$dev" --yes "${WL[@]}" --results "$SB_TMP/res-b"
assert_contains "$OUT" "$dev: refusing: another program" "refusal while the lock stays taken"
assert_eq "$(dd if="$dev" bs=1M count=4 status=none | md5sum)" "$sum" "the refused run wrote to $dev"
kill "$holder"
wait "$holder" 2>/dev/null || true
run_left "after the refused run"
# A run holds the device lock and, in the same process, its run's lock in
# the state directory: that is another run, refused without waiting. (perl:
# one process must take both, as a run does; flock(1) forks for each.)
mkdir -p "$STACKBENCH_STATE_DIR/20260101-000000-2"
rm -f "$SB_TMP/held"
perl -e 'use Fcntl ":flock"; my ($l, $d);
	open($l, ">", $ARGV[0]) && flock($l, LOCK_EX) or die "lock: $!";
	open($d, "<", $ARGV[1]) && flock($d, LOCK_EX) or die "device: $!";
	open(my $t, ">", $ARGV[2]) or die; close($t); sleep(60)' \
	"$STACKBENCH_STATE_DIR/20260101-000000-2/lock" "$dev" "$SB_TMP/held" &
holder=$!
SB_CLEANUPS+=("kill $holder")
for _ in $(seq 100); do
	[ -e "$SB_TMP/held" ] && break
	sleep 0.05
done
[ -e "$SB_TMP/held" ] || fail "perl never took both locks"
expect_exit 3 "$STACKBENCH" run single-disk --devices "$dev" --yes "${WL[@]}" --results "$SB_TMP/res-c"
assert_contains "$OUT" "$dev: refusing: another stackbench run uses it" "refusal while a run holds it"
kill "$holder"
wait "$holder" 2>/dev/null || true
rm -r "$STACKBENCH_STATE_DIR/20260101-000000-2"
run_left "after the run refused for another run"
pass_msg "a lock held for a moment is waited for; one held on is refused; another run's at once"
