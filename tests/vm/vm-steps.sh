#!/bin/bash
# vm-seconds: 170 (usual guest time in make check, 2 cores, one guest CPU: contrib/vm/tier deals the scenarios to its guests by it)
# kill -9 right after every distinct step, and a failure at each, of the md
# and LVM variants of the shipped replication profiles, which the host
# kernel cannot build (issue 10): on loop devices in the guest. After a
# failure the run itself leaves nothing; after a kill, `teardown --all`
# from the journal alone leaves nothing (no md array or superblock, no dm
# device, no PV, no mount, no loop device or image, no journal). The
# host-buildable profiles get the same in tests/loop/stack-fail.sh and
# stack-kill-steps.sh.

# MODES|PROFILE|OVERRIDE...: one variant each, the one with the most steps;
# at each step that begins or ends a run of steps of one kind
# (vm_distinct_steps: loops 1 and 4 of four, not 2 and 3).
# fsopbench's LVM-on-RAID6 variant has the steps of lvm-hwraid6, which
# vm-md.sh already fails at every step: here it is killed at every step.
CASES=(
	"kill,fail|md-raid1-ssd-2hdd-partitions|matrix.md.level;md.write-mostly;md.write-behind=1;hdd.p2;16383"
	"kill|fsopbench-disk-vs-lvm-raid6|matrix.lvm.enable=yes|matrix.queue.scheduler=bfq"
)

if [ "${1:-}" = --guest ]; then
	set -euo pipefail
	. contrib/vm/guest-lib.sh
	SB=./stackbench
	# the guest has no disk file system: a tmpfs, named on purpose
	export STACKBENCH_STATE_DIR=/run/stackbench-test STACKBENCH_LOOP_DIR=/run/sb-steps
	mkdir -p "$STACKBENCH_LOOP_DIR"
	# nothing of a run left: arrays, dm, PVs, mounts, our loops and images, journals
	left() {
		local what=$1 l
		vm_nothing_left "$what"
		l=$(losetup -n -O NAME,BACK-FILE | grep -F "$STACKBENCH_LOOP_DIR" || true)
		[ -z "$l" ] || vm_fail "$what: loop devices left: $l"
		[ -z "$(ls -A "$STACKBENCH_LOOP_DIR")" ] || vm_fail "$what: images left: $(ls -A "$STACKBENCH_LOOP_DIR")"
		[ -z "$(ls -A "$STACKBENCH_STATE_DIR" 2>/dev/null)" ] || vm_fail "$what: state left: $(ls -A "$STACKBENCH_STATE_DIR")"
	}
	# kill_at N / fail_at N: the run of case $c killed right after step N,
	# then teardown --all; or failing at step N.
	kill_at() {
		local rc=0
		STACKBENCH_KILL_STEP=$1 $SB run "$prof" --loop --loop-dir "$STACKBENCH_LOOP_DIR" --quick "${ov[@]}" \
			--results "/run/k$1" >/run/out 2>&1 || rc=$?
		[ $rc = 137 ] || { cat /run/out; vm_fail "$c: STACKBENCH_KILL_STEP=$1: exit $rc, want 137"; }
		rc=0
		$SB teardown --all >/run/out 2>&1 || rc=$?
		[ $rc = 0 ] || { cat /run/out; vm_fail "$c: teardown --all after a kill after step $1: exit $rc"; }
		left "$c: kill -9 after step $1, teardown --all"
		kills=$((kills + 1))
	}
	fail_at() {
		local rc=0
		STACKBENCH_FAIL_STEP=$1 $SB run "$prof" --loop --loop-dir "$STACKBENCH_LOOP_DIR" --quick "${ov[@]}" \
			--results "/run/f$1" >/run/out 2>&1 || rc=$?
		[ $rc = 1 ] || { cat /run/out; vm_fail "$c: STACKBENCH_FAIL_STEP=$1: exit $rc, want 1"; }
		left "$c: failure at step $1"
		fails=$((fails + 1))
	}
	t0=$SECONDS kills=0 fails=0
	for c in "${CASES[@]}"; do
		IFS='|' read -r -a parts <<<"$c"
		modes=${parts[0]} prof=profiles/${parts[1]}.conf
		ov=(-o workloads.run=command:true)
		for o in "${parts[@]:2}"; do ov+=(-o "$o"); done
		plan=$($SB plan "$prof" --loop --quick "${ov[@]}")
		[ "$(grep -c '^variant ' <<<"$plan")" = 1 ] || vm_fail "$c: the overrides do not leave one variant"
		steps=$(grep -cE '^ +[0-9]+  ' <<<"$plan")
		grep -E '^ +[0-9]+  (mdadm-create|pvcreate)' <<<"$plan" >/dev/null || vm_fail "$c: no md or LVM step in: $plan"
		# The first and last of each run of steps of one kind (the loops,
		# the partitions, the queues): a step inside one leaves what
		# the run's last one leaves, one step of that kind fewer.
		picks=$(vm_distinct_steps <<<"$plan" | tr '\n' ' ')
		[ "$(wc -w <<<"$picks")" -ge 7 ] || vm_fail "$c: want at least 7 distinct steps, got '$picks' of: $plan"
		for i in $picks; do
			[[ $modes == *kill* ]] && kill_at "$i"
			[[ $modes == *fail* ]] && fail_at "$i"
		done
		echo "ok: ${parts[1]}: $modes at steps ${picks% } of $steps leave nothing"
	done
	echo "ok: $kills kills, $fails failures ($((SECONDS - t0))s)"
	exit 0
fi

. "$SB_TOP/tests/lib.sh"
RUN="$SB_TOP/contrib/vm/run"
why=$("$RUN" --check 2>/dev/null) || skip "${why:-VM runner cannot run here}"
cd "$SB_TOP"
vm_guest -v -t 1500 -- bash tests/vm/vm-steps.sh --guest
pass_msg "kill -9 and failure at every step of the md and LVM replication variants"
