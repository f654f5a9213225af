#!/bin/bash
# vm-seconds: 80 (usual guest time in make check, 2 cores, one guest CPU: contrib/vm/tier deals the scenarios to its guests by it)
# Measuring the device in the md demo (issue 11), on an SSD and two
# throttled HDDs: 1. with write-mostly = hdd, the SSD serves at least 90% of
# the read bytes of rand:16k,direct=1 (per-member counters in
# extra.devstat), and `report` says so; 2. a run whose array is still in
# its initial resync (assume-clean off) starts its phase after waiting for
# it, or records and reports that the phase overlapped the resync.

PROFILE=profiles/md-raid1-ssd-2hdd.conf
ONE=(-o 'matrix.md.write-mostly;md.write-behind=hdd;0')
W='.variants[0].repeats[0].workloads[0]'

if [ "${1:-}" = --guest ]; then
	set -euo pipefail
	. contrib/vm/guest-lib.sh
	SB=./stackbench
	export STACKBENCH_STATE_DIR=/run/stackbench-test
	vm_want_disks 1 2 # DEVS: hdd, ssd, hdd
	ssd=${VM_SSDS[0]#/dev/}
	t0=$SECONDS

	# 1. Who serves the reads. (No md check after it: a read of all three
	# 1G members at the throttled pace, half this run's time, which
	# proves nothing here; run 2 has its check, vm-scen-md.sh asserts it.)
	rc=0
	$SB run "$PROFILE" --devices "$DEVS" --yes --quick -o md.assume-clean=yes -o scenario.integrity=no "${ONE[@]}" \
		-o 'workloads.run=rand:16k,direct=1,size=32M,ops=3000,write=0' --results /run/r1 >/run/out 2>&1 || rc=$?
	[ $rc = 0 ] || { cat /run/out; vm_fail "read-share run exited $rc"; }
	ph=$(jq -c "$W.extra.devstat[\"random read\"]" /run/r1/result.json)
	[ "$ph" != null ] || vm_fail "no devstat for the random read phase: $(jq -c "$W.extra.devstat | keys" /run/r1/result.json)"
	all=$(jq '[.devices[] | select(.parent != null) | .read_bytes] | add' <<<"$ph")
	mine=$(jq --arg d "$ssd" '[.devices[] | select(.name == $d) | .read_bytes] | add' <<<"$ph")
	share=$(awk -v a="$mine" -v b="$all" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
	awk -v s="$share" 'BEGIN { exit !(s >= 0.90) }' ||
		vm_fail "the SSD $ssd served $share of the members' read bytes ($mine of $all), want >= 0.90"
	rep=$($SB report --width 10000 /run/r1)
	line=$(grep -E "^ +$ssd under md[0-9]+: reads [0-9]+% of bytes" <<<"$rep" || true)
	[ -n "$line" ] || { echo "$rep"; vm_fail "report does not show the SSD's share of the reads"; }
	pct=$(sed -E 's/.*reads ([0-9]+)% of bytes.*/\1/' <<<"$line" | head -1)
	[ "$pct" -ge 90 ] || vm_fail "report: $line"
	vm_nothing_left "after the read-share run" "${VM_SSDS[@]}" "${VM_HDDS[@]}"
	echo "ok: write-mostly HDDs: the SSD served $share of the read bytes; report: $(sed 's/^ *//' <<<"$line")"

	# 2. A phase started during the initial resync: the 1G members resync
	# at the throttled HDDs' pace for longer than --quick's 2 s wait.
	rc=0
	$SB run "$PROFILE" --devices "$DEVS" --yes --quick -o md.assume-clean=no "${ONE[@]}" \
		-o 'workloads.run=rand:16k,direct=1,size=16M,ops=500,write=0' --results /run/r2 >/run/out 2>&1 || rc=$?
	[ $rc = 0 ] || { cat /run/out; vm_fail "resync run exited $rc"; }
	q=$(jq -c "$W.extra.quiesce" /run/r2/result.json)
	first=$(jq -c 'to_entries[0].value' <<<"$q")
	busy=$(jq -r .busy <<<"$first") waited=$(jq -r .wait_ms <<<"$first")
	if [ "$busy" = true ]; then
		grep -E "md.*(resync|recover)" <<<"$(jq -r .reason <<<"$first")" >/dev/null ||
			vm_fail "busy, but not for the resync: $first"
		rep=$($SB report --width 10000 /run/r2)
		grep -F "started busy (" <<<"$rep" | grep -E "resync|recover" >/dev/null ||
			{ echo "$rep"; vm_fail "report does not flag the phase begun during the resync"; }
		echo "ok: the phase begun during the resync is flagged ($first) and reported"
	else
		[ "$waited" -ge 100 ] || vm_fail "the array was resyncing, yet the first phase neither waited nor was flagged: $q"
		echo "ok: the first phase waited ${waited} ms for the resync"
	fi
	vm_nothing_left "after the resync run" "${VM_SSDS[@]}" "${VM_HDDS[@]}"
	echo "ok: measuring the md demo ($((SECONDS - t0))s)"
	exit 0
fi

. "$SB_TOP/tests/lib.sh"
RUN="$SB_TOP/contrib/vm/run"
why=$("$RUN" --check 2>/dev/null) || skip "${why:-VM runner cannot run here}"
need_prog jq
cd "$SB_TOP"
# HDDs at 30 MB/s: the initial resync of 1G outlasts mkfs, mount and the
# bounded wait (2 s with --quick).
vm_guest -v -t 1500 --hdd-bps $((30 * 1024 * 1024)) ssd:1G hdd:1G hdd:1G -- bash tests/vm/vm-measure.sh --guest
pass_msg "md demo: the SSD serves the reads; a phase during the resync waits or is flagged"
