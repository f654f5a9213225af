#!/bin/bash
# vm-seconds: 220 (usual guest time in make check, 2 cores, one guest CPU: contrib/vm/tier deals the scenarios to its guests by it)
# bcache for real on the VM's disks, with udevd running (so bcache-tools'
# udev rule races stackbench's own registration): the SSD as the cache set
# in front of one HDD in writethrough, and in front of an md RAID1 of two
# HDDs in writeback. Each run checks what bcache runs (cache_mode,
# sequential_cutoff, attached: /sys/block/bcacheN/bcache), that a re-read
# hot set is served by the cache (stats_total/cache_hits > 0) and that
# result.json's extra.config.bcache has the mode; and, for the one-HDD
# writeback variant, a failure at every bcache step and at mkfs, and kill -9
# after every bcache step followed by `teardown --all`. After each: no bcache device, no
# /sys/fs/bcache/<uuid>, no signature on any disk (vm_nothing_left, which
# also checks md, dm, holders and journals).

PROFILE=profiles/bcache-ssd-hdd.conf

# --inspect FACTS: the workload, in the mounted file system: a hot set
# written and read back three times (direct I/O, under the sequential
# cutoff), then one line of facts about the bcache device under it.
if [ "${1:-}" = --inspect ]; then
	set -euo pipefail
	src=$(findmnt -no SOURCE --target . | head -1)
	b=${src#/dev/}
	d=/sys/block/$b/bcache
	[ -d "$d" ] || { echo "not-bcache=$src" >>"$2"; exit 0; }
	dd if=/dev/urandom of=hot bs=64k count=16 oflag=direct status=none
	sync
	for _ in 1 2 3; do dd if=hot of=/dev/null bs=16k iflag=direct status=none; done
	# bcache moves its counters into stats_total 22 times in 5 minutes (stats.c accounting_delay, 13.6 s)
	sleep 15
	mode=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$d/cache_mode")
	line="dev=$b mode=$mode cutoff=$(cat "$d/sequential_cutoff") state=$(cat "$d/state")"
	line+=" hits=$(cat "$d/stats_total/cache_hits") misses=$(cat "$d/stats_total/cache_misses")"
	line+=" attached=$([ -e "$d/cache" ] && basename "$(realpath "$d/cache")" || echo none)"
	line+=" backing=$(ls "/sys/block/$b/slaves" | sort | paste -sd+)"
	echo "$line" >>"$2"
	exit 0
fi

if [ "${1:-}" = --guest ]; then
	set -euo pipefail
	. contrib/vm/guest-lib.sh
	SB=./stackbench
	export STACKBENCH_STATE_DIR=/run/stackbench-test
	vm_want_disks 1 2
	SSD=${VM_SSDS[0]} HDD=${VM_HDDS[0]} HDD2=${VM_HDDS[1]}
	[ -S /run/udev/control ] || vm_fail "udevd is not running"
	[ -e /sys/fs/bcache/register ] || vm_fail "no bcache in the guest kernel"
	facts=/run/bcache-facts
	INSPECT="workloads.run=command:bash $PWD/tests/vm/vm-bcache.sh --inspect $facts"
	# nothing of bcache left, and nothing else (vm_nothing_left)
	left() {
		local l
		vm_nothing_left "$1" "${ALL[@]}"
		l=$(compgen -G '/sys/block/bcache*' || true)
		[ -z "$l" ] || vm_fail "$1: bcache devices left: $l"
		l=$(find /sys/fs/bcache -mindepth 1 -maxdepth 1 -type d | tr '\n' ' ')
		[ -z "$l" ] || vm_fail "$1: cache sets left: $l"
		for d in "${ALL[@]}"; do
			[ -z "$(blkid -p -o value -s TYPE "$d" 2>/dev/null)" ] || vm_fail "$1: blkid -p finds $(blkid -p "$d") on $d"
		done
	}
	# why RESULTS: what a failed run's result.json and run.log say failed,
	# on one line (a CI log keeps the tail of the output, and stderr goes
	# to the top of /run/out, before the plan and the report)
	why() {
		local f
		f=$(jq -c '[.variants[].repeats[].failed // empty]' "$1/result.json" 2>/dev/null || true)
		echo "failed: ${f:-no result.json}; run.log: $(grep -h '^!!' "$1/run.log" 2>/dev/null | tail -3 | tr '\n' ' ')"
	}
	# want LINE WORD...: each word (a regex) in the line
	want() {
		local l=$1 w
		shift
		for w in "$@"; do
			[[ " $l " =~ \ ${w}\  ]] || vm_fail "want '$w' in: $l"
		done
	}

	# 1. Failure at every step and kill -9 after every step (writeback).
	t0=$SECONDS
	ONE=(-o matrix.bcache.mode=writeback -o workloads.run=command:true)
	n=$($SB plan "$PROFILE" --devices "$SSD,$HDD" --quick "${ONE[@]}" | grep -cE '^ +[0-9]+  ')
	[ "$n" -ge 5 ] || vm_fail "plan has $n steps, want the 3 bcache steps, mkfs and mount"
	# A failure up to mkfs (which undoes the attached device in the run
	# itself), a kill after each bcache step: the file system's steps fail
	# and die the same on any device (stack-fail, stack-kill-steps).
	last=$($SB plan "$PROFILE" --devices "$SSD,$HDD" --quick "${ONE[@]}" | awk '$2 == "bcache" { l = $1 } END { print l }')
	[ "$last" = 3 ] || vm_fail "the bcache steps end at step ${last:-none}, want 3"
	for s in $(seq 1 $((last + 1))); do
		rc=0
		STACKBENCH_FAIL_STEP=$s $SB run "$PROFILE" --devices "$SSD,$HDD" --yes --quick "${ONE[@]}" \
			--results /run/res-fail >/run/out 2>&1 || rc=$?
		[ $rc = 1 ] || { cat /run/out; vm_fail "STACKBENCH_FAIL_STEP=$s: exit $rc, want 1"; }
		left "failure at step $s/$n"
		[ "$s" -le "$last" ] || continue
		rc=0
		STACKBENCH_KILL_STEP=$s $SB run "$PROFILE" --devices "$SSD,$HDD" --yes --quick "${ONE[@]}" \
			--results /run/res-kill >/run/out 2>&1 || rc=$?
		[ $rc = 137 ] || { cat /run/out; vm_fail "STACKBENCH_KILL_STEP=$s: exit $rc, want 137"; }
		rc=0
		$SB teardown --all >/run/out 2>&1 || rc=$?
		[ $rc = 0 ] || { cat /run/out; vm_fail "teardown --all after a kill after step $s: exit $rc"; }
		left "kill -9 after step $s/$n, teardown --all"
	done
	echo "ok: failure at each of steps 1..$((last + 1)) and kill -9 after each of 1..$last leave nothing ($((SECONDS - t0))s)"
	# 2. One HDD behind the SSD, both modes (the profile's matrix).
	t0=$SECONDS
	: >"$facts"
	rc=0
	# (writethrough here; writeback over md below: one build each)
	$SB run "$PROFILE" --devices "$SSD,$HDD" --yes --quick --results /run/res-bc -o "$INSPECT" \
		-o bcache.mode=writethrough >/run/out 2>&1 || rc=$?
	[ $rc = 0 ] || { cat /run/out; vm_fail "bcache run exited $rc: $(why /run/res-bc)"; }
	cat "$facts"
	[ "$(wc -l <"$facts")" = 1 ] || vm_fail "want 1 variant, the workload ran $(wc -l <"$facts") times"
	h=${HDD#/dev/} s=${SSD#/dev/}
	i=0
	mode=writethrough
	{
		i=$((i + 1))
		l=$(sed -n "${i}p" "$facts")
		want "$l" "dev=bcache[0-9]+" "mode=$mode" "cutoff=4\.0M" "state=(clean|dirty)" \
			"attached=[0-9a-f-]{36}" "backing=($h\+$s|$s\+$h)"
		hits=$(sed -n 's/.* hits=\([0-9]*\) .*/\1/p' <<<"$l")
		[ "${hits:-0}" -gt 0 ] || vm_fail "$mode: the hot set was read three times, cache_hits is ${hits:-none}"
		cm=$(jq -r "[.variants[$((i - 1))].repeats[0].workloads[0].extra.config.bcache[]][0].cache_mode // \"none\"" /run/res-bc/result.json)
		[ "$cm" = "$mode" ] || vm_fail "$mode: extra.config.bcache cache_mode is $cm"
	}
	grep -q 'cache set [0-9a-f-]\{36\}' /run/res-bc/run.log || vm_fail "run.log names no cache set"
	# udevd defers the events of the disks the run holds flock'ed: the
	# registration does not wait for a queue that cannot drain
	grep -q "^$SSD: udevd defers its events while this run holds the disk" /run/res-bc/run.log ||
		vm_fail "run.log: the registration of $SSD waited for udevd: $(grep -n "$SSD" /run/res-bc/run.log)"
	left "after the bcache runs"
	echo "ok: bcache over $HDD with $SSD as cache, writethrough, hot set hit ($((SECONDS - t0))s)"

	# 3. An md RAID1 of the two HDDs behind the SSD, in writeback.
	t0=$SECONDS
	: >"$facts"
	MD=(-o devices.hdd=2 -o md.level=1 -o md.members=hdd -o md.assume-clean=yes -o matrix.bcache.mode=writeback)
	rc=0
	$SB run "$PROFILE" --devices "$SSD,$HDD,$HDD2" --yes --quick --results /run/res-bcmd "${MD[@]}" -o "$INSPECT" \
		-o workloads.run=rand:16k,size=16M,direct=1,ops=512 >/run/out 2>&1 || rc=$?
	[ $rc = 0 ] || { cat /run/out; vm_fail "bcache over md exited $rc: $(why /run/res-bcmd)"; }
	cat "$facts"
	want "$(cat "$facts")" "mode=writeback" "backing=(md[0-9]+\+$s|$s\+md[0-9]+)"
	# the shares look through bcache and md to the devices: the SSD and
	# both HDDs each have a row, and the HDDs' RAID1 wrote each byte twice
	# at most (writeback: the SSD took them, the HDDs what was written back)
	rows=$(jq -r '.variants[0].repeats[0].workloads[1].metrics[].name | select(test("^write_member_w_per_b:"))' /run/res-bcmd/result.json | sort | tr '\n' ' ')
	[ "$rows" = "write_member_w_per_b:hdd1 write_member_w_per_b:hdd2 write_member_w_per_b:ssd " ] ||
		vm_fail "bcache over md: member rows '$rows', want hdd1, hdd2 and ssd"
	ssdw=$(jq -r '[.variants[0].repeats[0].workloads[1].metrics[] | select(.name == "write_member_w_per_b:ssd")][0].value' /run/res-bcmd/result.json)
	# (0.75, not 0.9: bcache sends writes past the cache while the cache
	# device's latency is over its congested threshold, and under emulation
	# beside two other guests it was: 0.87 in CI on 4 December.)
	awk -v v="$ssdw" 'BEGIN { exit !(v >= 0.75) }' || vm_fail "bcache writeback: the SSD wrote $ssdw per byte, want about 1"
	left "after bcache over md"
	echo "ok: bcache over md RAID1 of $HDD and $HDD2 ($((SECONDS - t0))s)"

	exit 0
fi

. "$SB_TOP/tests/lib.sh"
RUN="$SB_TOP/contrib/vm/run"
why=$("$RUN" --check 2>/dev/null) || skip "${why:-VM runner cannot run here}"
[ -x /lib/systemd/systemd-udevd ] || skip "/lib/systemd/systemd-udevd missing (Debian package udev)"
command -v make-bcache >/dev/null || skip "make-bcache missing (Debian package bcache-tools)"
cd "$SB_TOP"
vm_guest -v -t 1800 --udev ssd:1G hdd:1G hdd:1G -- bash tests/vm/vm-bcache.sh --guest
pass_msg "bcache over an HDD and over md RAID1, failure and kill at every step, in the VM"
