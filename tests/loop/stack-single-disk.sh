#!/bin/bash
# End to end on loop devices: single-disk.conf with each file system, one
# variant at a time and a two-variant matrix; also on a device named with
# --devices. The workload is a script that checks the stack while it exists;
# afterwards nothing may be left (loops, mounts, journal, backing files).
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.xfs
need_prog mkfs.btrfs
cd "$SB_TOP"

# The check runs in the mounted file system; it logs what it saw.
cat >"$SB_TMP/check.sh" <<'EOS'
#!/bin/sh
set -e
src=$(findmnt -n -o SOURCE --target .)
fstype=$(findmnt -n -o FSTYPE --target .)
opts=$(findmnt -n -o OPTIONS --target .)
case ",$opts," in *,noatime,*) ;; *) echo "noatime missing: $opts" >&2; exit 1 ;; esac
[ -b "$src" ] || { echo "source $src is not a block device" >&2; exit 1; }
echo data >probe.txt && [ "$(cat probe.txt)" = data ]
rm probe.txt
if [ "$fstype" = btrfs ]; then
	echo "$fstype $(btrfs inspect-internal dump-super "$src" | awk '/^nodesize/ {print $2}')" >>"$LOG"
else
	echo "$fstype $src" >>"$LOG"
fi
EOS
chmod +x "$SB_TMP/check.sh"
export LOG="$SB_TMP/seen.log"
WL="workloads.run=command:$SB_TMP/check.sh"

state_empty() {
	nothing_left "$1"
	[ -z "$(ls -A "$STACKBENCH_STATE_DIR" 2>/dev/null)" ] || fail "$1: state left: $(ls -A "$STACKBENCH_STATE_DIR")"
}

for fs in ext4 xfs btrfs; do
	: >"$LOG"
	expect_exit 0 "$STACKBENCH" run single-disk --loop --quick -o "fs.type=$fs" -o "$WL" \
		--results "$SB_TMP/res-$fs"
	if [ $fs = btrfs ]; then
		# Two variants are left for btrfs: its default and -n 4k.
		assert_eq "$(sort "$LOG" | tr '\n' ' ')" "btrfs 16384 btrfs 4096 " "btrfs node sizes"
	else
		assert_eq "$(cut -d' ' -f1 "$LOG")" "$fs" "file system seen by the workload"
		grep -q ' /dev/loop' "$LOG" || fail "$fs: not on a loop device: $(cat "$LOG")"
	fi
	[ -s "$SB_TMP/res-$fs/result.json" ] || fail "$fs: no result.json"
	grep -q "mkfs.$fs" "$SB_TMP/res-$fs/run.log" || fail "$fs: run.log lacks the mkfs command"
	state_empty "$fs"
done
pass_msg "ext4, xfs, btrfs (16k and 4k nodes) one at a time"

# Two variants in one run: each built, checked and torn down in turn
# (--rounds; side by side: tests/loop/side-by-side.sh).
: >"$LOG"
expect_exit 0 "$STACKBENCH" run single-disk --loop --quick --rounds -o 'matrix.fs.type=xfs|ext4' -o "$WL" \
	--results "$SB_TMP/res-matrix"
assert_eq "$(cut -d' ' -f1 "$LOG" | tr '\n' ' ')" "xfs ext4 " "variants in order"
state_empty "matrix"
pass_msg "two-variant matrix"

# A device named with --devices (one this test created), confirmed with --yes.
dev=$(new_loop disk 320M)
SB_LOOPS+=("$dev") # new_loop runs in a subshell here
: >"$LOG"
expect_exit 0 "$STACKBENCH" run single-disk --devices "$dev" --yes -o fs.type=ext4 -o "$WL" \
	--results "$SB_TMP/res-dev"
assert_eq "$(cat "$LOG")" "ext4 $dev" "built on the named device"
[ -z "$(blkid -p "$dev" 2>/dev/null)" ] || fail "signature left on $dev: $(blkid -p "$dev")"
# (The device itself is this test's and stays until the end.)
! findmnt -rn -o TARGET | grep -qF "$STACKBENCH_STATE_DIR" || fail "--devices: mount left"
[ -z "$(ls -A "$STACKBENCH_STATE_DIR")" ] || fail "--devices: state left: $(ls -A "$STACKBENCH_STATE_DIR")"
pass_msg "--devices with --yes, device wiped after"

# Queue settings on the named device during the run, restored afterwards.
q=/sys/block/${dev#/dev/}/queue
old_sched=$(sed 's/.*\[\(.*\)\].*/\1/' $q/scheduler) old_ra=$(cat $q/read_ahead_kb)
new_sched=mq-deadline
[ "$old_sched" = mq-deadline ] && new_sched=none
if ! grep -qw $new_sched $q/scheduler; then
	echo "note: scheduler $new_sched not offered by this kernel: queue check left out"
	exit 0
fi
cat >"$SB_TMP/queue.sh" <<EOS
#!/bin/sh
echo "\$(sed 's/.*\[\(.*\)\].*/\1/' $q/scheduler) \$(cat $q/read_ahead_kb)" >"$LOG"
EOS
chmod +x "$SB_TMP/queue.sh"
expect_exit 0 "$STACKBENCH" run single-disk --devices "$dev" --yes -o fs.type=ext4 \
	-o queue.scheduler=$new_sched -o queue.read-ahead-kb=1024 \
	-o "workloads.run=command:$SB_TMP/queue.sh" --results "$SB_TMP/res-queue"
assert_eq "$(cat "$LOG")" "$new_sched 1024" "queue settings during the run"
assert_eq "$(sed 's/.*\[\(.*\)\].*/\1/' $q/scheduler) $(cat $q/read_ahead_kb)" "$old_sched $old_ra" \
	"queue settings restored"
# A scheduler this kernel has not (nor a module for it): refused before
# anything is touched, with what the kernel offers as words ("[none] bfq" in
# sysfs; this device's list is the kernel's whole one).
expect_exit 1 "$STACKBENCH" run single-disk --devices "$dev" --yes -o fs.type=ext4 \
	-o queue.scheduler=nosuch -o workloads.run=command:true --results "$SB_TMP/res-queue2"
offers=$(sed 's/[][]//g' $q/scheduler | xargs | sed 's/ /, /g')
assert_contains "$OUT" "queue: the I/O scheduler 'nosuch' is not in this kernel ($(uname -r) offers $offers, and has no module for it)" "unknown scheduler"
assert_not_contains "$OUT" "step 1/" "unknown scheduler: a step ran"
[ -z "$(blkid -p "$dev" 2>/dev/null)" ] || fail "unknown scheduler: $dev written"
[ -z "$(ls -A "$STACKBENCH_STATE_DIR")" ] || fail "queue: state left"
pass_msg "scheduler and read-ahead set during the run and restored"
