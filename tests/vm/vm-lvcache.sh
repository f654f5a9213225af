#!/bin/bash
# vm-seconds: 425 (usual guest time in make check, 2 cores, one guest CPU: contrib/vm/tier deals the scenarios to its guests by it)
# lvmcache for real on the VM's disks (issue 22): dm-cache (writethrough)
# and dm-writecache under an LV on one HDD, the cache on the SSD as a
# cachevol. Each type: the kernel runs the target asked for (dmsetup table
# and status), the mounted LV is the cached one, a re-read hot set gives
# cache hits in the per-phase counters (extra.cost.PHASE.layers), the
# capture names type and mode, and teardown leaves nothing (no dm, no PV,
# no signature on either disk). Then dm-cache writeback failed and killed
# -9 after every step from the cache's own on: nothing is left after the
# run, or after `teardown --all` from the journal alone.

PROFILE=profiles/lvmcache-ssd-hdd.conf

# --inspect FACTS: run as a workload in the mounted file system: the
# target of the device under it, one line.
if [ "${1:-}" = --inspect ]; then
	set -euo pipefail
	src=$(findmnt -no SOURCE --target . | head -1)
	name=$(dmsetup info -c --noheadings -o name "$src")
	echo "name=$name table=$(dmsetup table "$name" | awk '{ print $3 }') status=$(dmsetup status "$name" | tr ' ' _)" >>"$2"
	exit 0
fi

if [ "${1:-}" = --guest ]; then
	set -euo pipefail
	. contrib/vm/guest-lib.sh
	SB=./stackbench
	export STACKBENCH_STATE_DIR=/run/stackbench-test
	vm_want_disks 1 1
	facts=/run/lvc-facts
	INSPECT="workloads.run=command:bash $PWD/tests/vm/vm-lvcache.sh --inspect $facts"
	# sum NAME RESULT: a layer counter over every phase of every workload
	sum() {
		jq "[.. | objects | select(has(\"layers\")) | .layers[] | .[\"$1\"] // 0] | add // 0" "$2"
	}

	# 1. each type built for real, a hot set read again and again
	for t in cache writecache; do
		t0=$SECONDS
		: >"$facts"
		rc=0
		$SB run "$PROFILE" --devices "$DEVS" --yes --quick --results "/run/lvc-$t" \
			-o matrix.lvmcache.enable=yes -o matrix.lvmcache.type=$t -o "$INSPECT" \
			-o "workloads.run=rand:64k,size=8M,direct=1,ops=1500" \
			-o "workloads.run=rand:64k,size=8M,direct=1,ops=1500,write=0" >/run/out 2>&1 || rc=$?
		[ $rc = 0 ] || { cat /run/out; vm_fail "$t: run exited $rc"; }
		cat "$facts"
		res=/run/lvc-$t/result.json
		grep -q "table=$t " "$facts" || vm_fail "$t: the mounted LV is not a $t target: $(cat "$facts")"
		grep -q "name=sbvg_.*-sblv " "$facts" || vm_fail "$t: mounted from another device: $(cat "$facts")"
		mode=$(jq -r '[.. | objects | .lvmcache? // empty | .[] | .mode] | first // "none"' "$res")
		if [ $t = cache ]; then
			grep -q 'writethrough' "$facts" || vm_fail "cache: not writethrough: $(cat "$facts")"
			[ "$mode" = writethrough ] || vm_fail "cache: extra.config.lvmcache mode $mode"
			hits=$(sum dmcache_read_hits "$res") prom=$(sum dmcache_promotions "$res")
			miss=$(sum dmcache_read_misses "$res")
			echo "dm-cache: read hits $hits, misses $miss, promotions $prom"
			[ "$hits" -gt 0 ] || vm_fail "cache: no read hits on a re-read hot set"
			[ "$prom" -gt 0 ] || vm_fail "cache: no promotions"
		else
			[ "$mode" = writeback ] || vm_fail "writecache: extra.config.lvmcache mode $mode"
			w=$(sum dmwritecache_writes "$res") blocks=$(sum dmwritecache_blocks "$res")
			echo "dm-writecache: writes $w, blocks $blocks"
			[ "$blocks" -gt 0 ] || vm_fail "writecache: no blocks counted"
			[ "$w" -gt 0 ] || vm_fail "writecache: no writes counted"
		fi
		vm_nothing_left "after $t" "${ALL[@]}"
		echo "ok: $t built on ${VM_SSDS[0]} over ${VM_HDDS[0]}, counters and teardown ($((SECONDS - t0))s)"
	done

	# 2. dm-cache writeback: a failure and a kill -9 at every step
	t0=$SECONDS
	ONE=(-o matrix.lvmcache.enable=yes -o matrix.lvmcache.type=cache -o matrix.lvmcache.mode=writeback
		-o workloads.run=command:true)
	plan=$($SB plan "$PROFILE" --devices "$DEVS" --quick "${ONE[@]}")
	[ "$(grep -c '^variant ' <<<"$plan")" = 1 ] || vm_fail "the overrides do not leave one variant"
	grep -q 'lvconvert .*--cachemode writeback' <<<"$plan" || vm_fail "no writeback lvconvert in: $plan"
	n=$(grep -cE '^ +[0-9]+  ' <<<"$plan")
	# From the cache PV's pvcreate on: the [lvm] steps below it fail and
	# die the same with or without a cache (vm-lvm-btrfs.sh, vm-steps.sh),
	# and TCG makes each run here cost some 40 s.
	# To the step after lvconvert for a failure (mkfs failing undoes the
	# converted LV in the run itself), to lvconvert for a kill: the file
	# system's steps above fail and die the same on any device (stack-fail,
	# stack-kill-steps).
	first=$(awk -v d="${VM_SSDS[0]}" '$2 == "pvcreate" && $NF == d { print $1; exit }' <<<"$plan")
	[ -n "$first" ] || vm_fail "no pvcreate of ${VM_SSDS[0]} in: $plan"
	last=$(awk '$2 == "lvconvert" { print $1; exit }' <<<"$plan")
	[ -n "$last" ] && [ "$last" -lt "$n" ] || vm_fail "no lvconvert before the last step in: $plan"
	for s in $(seq "$first" $((last + 1))); do
		rc=0
		STACKBENCH_FAIL_STEP=$s $SB run "$PROFILE" --devices "$DEVS" --yes --quick "${ONE[@]}" \
			--results /run/lvc-fail >/run/out 2>&1 || rc=$?
		[ $rc = 1 ] || { cat /run/out; vm_fail "STACKBENCH_FAIL_STEP=$s: exit $rc, want 1"; }
		vm_nothing_left "failure at step $s/$n" "${ALL[@]}"
		[ "$s" -le "$last" ] || continue
		rc=0
		STACKBENCH_KILL_STEP=$s $SB run "$PROFILE" --devices "$DEVS" --yes --quick "${ONE[@]}" \
			--results /run/lvc-kill >/run/out 2>&1 || rc=$?
		[ $rc = 137 ] || { cat /run/out; vm_fail "STACKBENCH_KILL_STEP=$s: exit $rc, want 137"; }
		rc=0
		$SB teardown --all >/run/out 2>&1 || rc=$?
		[ $rc = 0 ] || { cat /run/out; vm_fail "teardown --all after a kill after step $s: exit $rc"; }
		vm_nothing_left "kill -9 after step $s/$n, teardown --all" "${ALL[@]}"
	done
	echo "ok: dm-cache writeback: failure at each of steps $first..$((last + 1)) and kill -9 after each of $first..$last leave nothing ($((SECONDS - t0))s)"
	exit 0
fi

. "$SB_TOP/tests/lib.sh"
RUN="$SB_TOP/contrib/vm/run"
why=$("$RUN" --check 2>/dev/null) || skip "${why:-VM runner cannot run here}"
cd "$SB_TOP"
vm_guest -v -t 1500 ssd:1G hdd:1G -- bash tests/vm/vm-lvcache.sh --guest
pass_msg "lvmcache (dm-cache, dm-writecache) built, counted and undone at every step in the VM"
