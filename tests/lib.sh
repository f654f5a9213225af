# shellcheck shell=bash
# Shared helpers for shell tests (sourced). Each test creates and removes its
# own loop devices and files under a private directory; it never touches a
# device it did not create.
set -euo pipefail

: "${STACKBENCH:=$SB_TOP/build/stackbench}"
SB_TMP=$(mktemp -d "/tmp/${SB_RUN_TAG:-sbtest-manual}-XXXXXX")
export STACKBENCH_STATE_DIR="$SB_TMP/state"
# --loop images under the test's directory too, so that the runner's
# leftover check sees them (a disk file system here, never tmpfs).
export STACKBENCH_LOOP_DIR="$SB_TMP/loops"
# run and bench record into a history database: the test's own, never the
# machine's /var/lib/stackbench/history.db.
export STACKBENCH_DB="$SB_TMP/history.db"
# programs' kept answers (versions, accepted mkfs dry runs: src/stack/answers.h):
# the test's own, so that no test meets another's (a guest keeps its /run's)
export STACKBENCH_ANSWERS_DIR="$SB_TMP/answers"
# the text report fits COLUMNS when exported (report --width): tests read
# the default 120 columns, whatever terminal ran them
unset COLUMNS
SB_LOOPS=()
SB_MOUNTS=()
SB_CLEANUPS=()

# sb_detach DEV: detach a loop device of ours, by name only while its backing
# file is still one of ours: a device this test detached itself may carry
# another test's (or user's) file under the same name by now.
sb_detach() {
	local f
	f=$(losetup -n -O BACK-FILE "$1" 2>/dev/null) || return 0
	case $f in
	"$SB_TMP"/* | /var/tmp/"${SB_RUN_TAG:-sbtest-manual}"-*) losetup -d "$1" 2>/dev/null ;;
	esac
	return 0
}

sb_cleanup() {
	local rc=$? m l c
	set +e
	for c in "${SB_CLEANUPS[@]}"; do eval "$c" >/dev/null 2>&1; done
	for m in "${SB_MOUNTS[@]}"; do umount -l "$m" 2>/dev/null; done
	for l in "${SB_LOOPS[@]}"; do sb_detach "$l"; done
	# new_loop usually runs in $(...), a subshell whose SB_LOOPS is lost: also
	# detach every loop device backed by a file of ours.
	for l in $(losetup -n -O NAME,BACK-FILE 2>/dev/null | awk -v t="$SB_TMP/" 'index($2, t) == 1 {print $1}'); do
		losetup -d "$l" 2>/dev/null
	done
	rm -rf "$SB_TMP"
	exit $rc
}
trap sb_cleanup EXIT

# fail, pass_msg, assert_*, expect_exit: shared with the VM guest's helpers
# shellcheck source=tests/common.sh
. "$SB_TOP/tests/common.sh"
skip() { echo "skipped: $*"; exit 77; }

need_root() { [ "$(id -u)" -eq 0 ] || skip "needs root"; }
need_loop() {
	need_root
	[ -e /dev/loop-control ] || skip "no /dev/loop-control (loop devices unavailable)"
}
need_prog() { command -v "$1" >/dev/null || skip "$1 not installed"; }

# new_loop NAME SIZE: sparse file under SB_TMP attached as a loop device; prints it
new_loop() {
	local f="$SB_TMP/$1.img" dev
	truncate -s "$2" "$f"
	dev=$(losetup --find --show "$f")
	SB_LOOPS+=("$dev")
	echo "$dev"
}

# dio_ext4 NAME SIZE: ext4 on a loop device attached with direct I/O over a
# sparse file under /var/tmp (a disk file system: never tmpfs, and the host's
# page cache does not serve the device), mounted at $SB_TMP/NAME. Sets
# DIO_DEV and DIO_MNT; everything is undone at exit. Skips the test when
# the kernel gives the loop device no direct I/O.
dio_ext4() {
	local dir=/var/tmp/$SB_RUN_TAG-$1
	mkdir -p "$dir" "$SB_TMP/$1"
	truncate -s "$2" "$dir/disk.img"
	DIO_DEV=$(losetup --find --show --direct-io=on "$dir/disk.img")
	DIO_MNT=$SB_TMP/$1
	SB_CLEANUPS+=("umount -l $DIO_MNT" "sb_detach $DIO_DEV" "rm -rf $dir")
	[ "$(cat "/sys/block/${DIO_DEV#/dev/}/loop/dio")" = 1 ] || skip "loop direct I/O not available here"
	mkfs.ext4 -q -F "$DIO_DEV"
	mount "$DIO_DEV" "$DIO_MNT"
}

# Every shipped profile the host kernel can build (md and dm ones: the VM
# tier), each in one variant, chosen to have the most steps (the steps are
# numbered per variant): "PROFILE|OVERRIDE|OVERRIDE...", each OVERRIDE an -o.
# The scheduler step sets mq-deadline, not the profile's bfq: some host
# kernels are built without BFQ (CONFIG_IOSCHED_BFQ unset, no modules to
# load), and a loop device starts at none, so the step still changes it.
# shellcheck disable=SC2034 # used by the tests that source this file
SB_HOST_PROFILE_CASES=(
	"single-disk|fs.type=xfs"
	"btrfs-raid1-partitions|mount.options=ssd"
	"mount-options-xfs|matrix.mount.options=noatime,logbufs=8,logbsize=256k"
	"btrfs-raid1-partitions-vs-xfs|matrix.fs.type;fs.on;fs.data;fs.metadata;mount.options=btrfs;all;raid1;raid1;compress=zstd"
	"btrfs-raid1-partitions-vs-xfs|matrix.fs.type;fs.on;fs.data;fs.metadata;mount.options=xfs;ssd.p1;;;noatime"
	"btrfs-vs-ext3-single-disk|matrix.fs.type;fs.mkfs=btrfs;-n 4k"
	"md-raid1-ssd-2hdd-partitions|matrix.md.level;md.write-mostly;md.write-behind=none;none;0"
	"fsopbench-disk-vs-lvm-raid6|matrix.lvm.enable=no|matrix.queue.scheduler=mq-deadline"
	"xfs-hdd-log-ssd|fs.log=ssd|matrix.fs.type=ext4"
	# the precondition step (trim before partitions; steady, briefly)
	"btrfs-raid1-partitions|mount.options=ssd|devices.precondition=trim"
	"single-disk|fs.type=ext4|devices.precondition=steady|devices.precondition-limit=2s|devices.loop.quick=64M"
)
# profile_case CASE: sets CASE_PROF and CASE_OV (the -o arguments) and
# CASE_STEPS (how many steps its one variant has).
profile_case() {
	local parts o plan
	IFS='|' read -r -a parts <<<"$1"
	CASE_PROF=${parts[0]}
	CASE_OV=(-o workloads.run=command:true)
	for o in "${parts[@]:1}"; do CASE_OV+=(-o "$o"); done
	plan=$("$STACKBENCH" plan "$CASE_PROF" --loop --quick "${CASE_OV[@]}")
	[ "$(grep -c '^variant ' <<<"$plan")" = 1 ] || fail "$1: the overrides do not leave one variant"
	CASE_STEPS=$(grep -cE '^ +[0-9]+  ' <<<"$plan")
	[ "$CASE_STEPS" -ge 3 ] || fail "$1: plan has $CASE_STEPS steps"
}

# hold_excl DEV: another program (python3) holds DEV open O_EXCL, as mkfs or
# a database would, until the test ends; its pid in HOLDER.
hold_excl() {
	local ready=$SB_TMP/held.$$.$RANDOM
	/usr/bin/python3 -c '
import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL)
open(sys.argv[2], "w").close()
time.sleep(120)' "$1" "$ready" &
	HOLDER=$!
	SB_CLEANUPS+=("kill $HOLDER")
	for _ in $(seq 50); do [ -e "$ready" ] && break; sleep 0.1; done
	[ -e "$ready" ] || fail "the O_EXCL holder of $1 did not start"
}

# kill_mid_run PID: waits until the run PID (whose workload is `sleep`) has
# mounted its file system, kills it with -9, then does what a reboot would
# to the processes and the mount it left (its workload, in its own process
# group, and the mount), so that only the journal and the devices remain.
# The mount point in KILLED_MNT.
kill_mid_run() {
	local pid=$1 p
	for _ in $(seq 150); do
		findmnt -rn -o TARGET | grep -F "$STACKBENCH_STATE_DIR" >/dev/null && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	# (|| true: under pipefail, a grep that finds nothing ended the test
	# here without a word, when a loop device left read-only by a killed
	# test made the run's mkfs fail)
	KILLED_MNT=$(findmnt -rn -o TARGET | grep -F "$STACKBENCH_STATE_DIR" | head -1 || true)
	[ -n "$KILLED_MNT" ] || fail "run never mounted (pid $pid $(kill -0 "$pid" 2>/dev/null && echo still running || echo exited))"
	kill -9 "$pid"
	wait "$pid" 2>/dev/null || true
	for p in $(pgrep -x sleep); do
		case "$(readlink /proc/$p/cwd)" in "$KILLED_MNT"*) kill -9 "$p" ;; esac
	done
	for _ in $(seq 50); do umount "$KILLED_MNT" 2>/dev/null && break; sleep 0.1; done
	! findmnt -rn -o TARGET | grep -F "$KILLED_MNT" >/dev/null || fail "could not unmount $KILLED_MNT"
}

# nothing_left: no loop devices backed by our files, no mounts of ours, no journal
nothing_left() {
	local what=${1:-}
	# (grep without -q: an early exit would SIGPIPE the writer, and under
	# pipefail the negated pipeline would then pass whatever was found)
	! losetup -a | grep -F "$SB_TMP" >/dev/null || fail "$what: loop devices left: $(losetup -a | grep "$SB_TMP")"
	no_mount_left "$what" "$SB_TMP"
	no_journal_left "$what" "$STACKBENCH_STATE_DIR"
}

# vm_guest RUNNER-ARG... -- COMMAND...: runs COMMAND in a guest of the VM
# runner (contrib/vm/run with the RUNNER-ARGs: disks, throttling, --udev,
# -t) from the current directory; fails unless it exits 0 and the runner
# removed its files. The runner's stderr is also kept in $SB_TMP/vm.err.
# Under the vm tier of tools/run-tests (SB_VM_SHARE set), records the guest
# part instead and ends the test: contrib/vm/tier runs the recorded guest
# parts of all scenarios in one boot.
vm_guest() {
	local rc=0
	if [ -n "${SB_VM_SHARE:-}" ]; then
		# the scenario's SB_* and STACKBENCH* variables, less its private
		# directories (the guest gives it its own)
		local n vm_envs=() vm_args=("$@") vm_cwd=$PWD
		for n in $(compgen -e | grep -E '^(SB_|STACKBENCH)' |
			grep -vxE 'SB_TMP|SB_VM_SHARE|SB_VM_TEST|SB_RUN_TAG|STACKBENCH_STATE_DIR|STACKBENCH_LOOP_DIR|STACKBENCH_ANSWERS_DIR'); do
			vm_envs+=("$n=${!n}")
		done
		declare -p vm_cwd vm_envs vm_args >"$SB_VM_SHARE/${SB_VM_TEST//\//_}.req"
		exit 0
	fi
	TMPDIR=$SB_TMP "$SB_TOP/contrib/vm/run" "$@" 2>"$SB_TMP/vm.err" || rc=$?
	cat "$SB_TMP/vm.err" >&2
	[ $rc -eq 0 ] || fail "guest exited $rc"
	[ -z "$(find "$SB_TMP" -maxdepth 1 -name 'sbvm-*')" ] || fail "runner left its files: $(ls "$SB_TMP")"
}
