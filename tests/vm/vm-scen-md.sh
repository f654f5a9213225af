#!/bin/bash
# vm-seconds: 155 (usual guest time in make check, 2 cores, one guest CPU: contrib/vm/tier deals the scenarios to its guests by it)
# md RAID1 degraded and rebuilding, in the VM runner on an SSD and two
# throttled HDDs: profiles/degraded-md.conf's three variants (healthy, one
# HDD failed and removed, that HDD zeroed and added back while the workloads
# run), each seen from its workload (members, degraded, sync_action), the
# rebuild's time and rate under the workloads in result.json, md check's
# mismatch_cnt 0 after each; a member written behind md's back on a
# write-behind array makes mismatch_cnt non-zero, the report's first line;
# kill -9 right after each scenario step, then teardown --all: nothing left
# (/proc/mdstat, dmsetup ls, losetup -a, findmnt, signatures).

PROFILE=profiles/degraded-md.conf

# --inspect FACTS: the array under the workload, one line; bash's builtins
# only, sync_action first: under emulation each program start costs
# seconds, and the rebuild must still be running when it is read.
if [ "${1:-}" = --inspect ]; then
	set -euo pipefail
	mds=(/sys/block/md*/md)
	[ ${#mds[@]} = 1 ] || { echo "arrays=${#mds[@]}" >>"$2"; exit 0; }
	s=${mds[0]}
	read -r action <"$s/sync_action"
	read -r degraded <"$s/degraded"
	devs=("$s"/dev-*)
	echo "members=${#devs[@]} degraded=$degraded action=$action" >>"$2"
	exit 0
fi

# --damage: 4M of an HDD member overwritten behind md's back, past the
# member's data offset (its superblock and bitmap stay).
if [ "${1:-}" = --damage ]; then
	set -euo pipefail
	md=$(basename "$(realpath "$(findmnt -no SOURCE --target .)")")
	for m in /sys/block/"$md"/md/dev-*; do
		d=${m##*/dev-}
		[ "$(cat "/sys/block/$d/queue/rotational")" = 1 ] && break
	done
	off=$(cat "$m/offset")
	dd if=/dev/urandom of="/dev/$d" bs=1M count=4 seek=$((off / 2048 + 64)) oflag=direct \
		conv=notrunc status=none
	exit 0
fi

if [ "${1:-}" = --guest ]; then
	set -euo pipefail
	. contrib/vm/guest-lib.sh
	SB=./stackbench
	export STACKBENCH_STATE_DIR=/run/stackbench-scen
	vm_want_disks 1 2
	RAND=workloads.run=rand:16k,size=32M,direct=1,time=2s
	left() {
		vm_nothing_left "$1" "${ALL[@]}"
		[ -z "$(losetup -a)" ] || vm_fail "$1: loop devices left: $(losetup -a)"
		[ -z "$(dmsetup ls 2>/dev/null | grep -v 'No devices found' || true)" ] ||
			vm_fail "$1: dm devices left"
	}
	# one field of result.json: VARIANT-SUBSTRING DOTTED.KEY
	field() {
		python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
v = [v for v in d["variants"] if sys.argv[2] in v["name"]][0]
r = v["repeats"][0]
for k in sys.argv[3].split("."):
    r = r.get(k) if isinstance(r, dict) else None
print(json.dumps(r))' "$1/result.json" "$2" "$3"
	}

	# 1. The three variants, each seen by its first workload. md recovers a
	# 512M member in 4-7 s at the throttled HDDs' pace, and once (CI, 4
	# December) it was done before the rebuild variant's first workload
	# looked: held to 30 MB/s for this run (about 17 s), and md's own limit
	# put back after it, or on any exit (the guest's next scenario gets it).
	t0=$SECONDS
	lim=/proc/sys/dev/raid/speed_limit_max
	read -r old_lim <$lim
	trap 'echo "$old_lim" >'"$lim" EXIT
	echo 30000 >$lim
	facts=/run/scen-facts
	: >"$facts"
	rc=0
	$SB run "$PROFILE" --devices "$DEVS" --yes --quick --results /run/scen-res \
		-o "workloads.run=command:bash $PWD/tests/vm/vm-scen-md.sh --inspect $facts" \
		-o "$RAND" >/run/out 2>&1 || rc=$?
	[ $rc = 0 ] || { cat /run/out; vm_fail "run exited $rc"; }
	echo "$old_lim" >$lim
	cat "$facts"
	[ "$(wc -l <"$facts")" = 3 ] || vm_fail "want 3 variants, the workload ran $(wc -l <"$facts") times"
	grep -qx "members=3 degraded=0 action=idle" "$facts" || vm_fail "no healthy variant: $(cat "$facts")"
	grep -qx "members=2 degraded=1 action=idle" "$facts" || vm_fail "no degraded variant: $(cat "$facts")"
	grep -qx "members=3 degraded=1 action=recover" "$facts" ||
		vm_fail "no variant recovering under its workload: $(cat "$facts")"
	R=scenario.rebuild=hdd
	[ "$(field /run/scen-res "$R" scenario.finished)" = true ] ||
		vm_fail "rebuild not finished: $(field /run/scen-res "$R" scenario)"
	python3 -c 'import json,sys; s = json.loads(sys.argv[1])
sys.exit(0 if s["seconds"] > 0 and s["rate_under_load_mbps"] > 0 and s["under_load_seconds"] > 0 else 1)' \
		"$(field /run/scen-res "$R" scenario)" || vm_fail "rebuild figures: $(field /run/scen-res "$R" scenario)"
	for v in scenario.degrade=none,scenario.rebuild=none scenario.degrade=hdd "$R"; do
		[ "$(field /run/scen-res "$v" integrity.md.mismatch_cnt)" = 0 ] ||
			vm_fail "$v: mismatch_cnt: $(field /run/scen-res "$v" integrity)"
		[ "$(field /run/scen-res "$v" integrity.errors)" = 0 ] ||
			vm_fail "$v: integrity errors: $(field /run/scen-res "$v" integrity)"
	done
	# --quick: md's check stopped at scenario.integrity-quick (128M) of the
	# walk (512M members), and the report says so.
	v=scenario.degrade=none,scenario.rebuild=none
	[ "$(field /run/scen-res "$v" integrity.md.span_bytes)" = $((128 << 20)) ] ||
		vm_fail "$v: the quick md check's span: $(field /run/scen-res "$v" integrity.md)"
	[ "$(field /run/scen-res "$v" integrity.md.walk_bytes)" -gt $((400 << 20)) ] ||
		vm_fail "$v: the md check's whole walk: $(field /run/scen-res "$v" integrity.md)"
	grep -q -- "--add /dev/" /run/scen-res/run.log || vm_fail "no --add in run.log"
	rc=0
	$SB report --width 10000 /run/scen-res >/run/rep 2>/run/rep.err || rc=$?
	[ $rc = 0 ] || { head -30 /run/rep; cat /run/rep.err; vm_fail "report exited $rc"; }
	grep -q "^rebuild: .*MB/s" /run/rep || vm_fail "report lacks the rebuild line: $(grep -i rebuild /run/rep)"
	grep -q "INTEGRITY ERRORS" /run/rep && vm_fail "a clean run reported integrity errors"
	grep -q "^integrity: .*md checked the first 128M of " /run/rep ||
		vm_fail "the report does not say the md check was partial: $(grep '^integrity' /run/rep)"
	left "after the three variants"
	echo "ok: healthy, degraded, recovering under the workload; $(grep '^rebuild:' /run/rep); mismatch_cnt 0 ($((SECONDS - t0))s)"

	# 2. Divergence behind md's back on a write-behind array: md check counts it.
	t0=$SECONDS
	rc=0
	$SB run profiles/md-raid1-ssd-2hdd.conf --devices "$DEVS" --yes --quick --results /run/scen-dmg \
		-o md.assume-clean=yes -o md.write-mostly=hdd -o md.write-behind=16383 \
		-o "workloads.run=command:bash $PWD/tests/vm/vm-scen-md.sh --damage" >/run/out 2>&1 || rc=$?
	[ $rc = 0 ] || { cat /run/out; vm_fail "damage run exited $rc"; }
	n=$(python3 -c 'import json; d = json.load(open("/run/scen-dmg/result.json"))
print(d["variants"][0]["repeats"][0]["integrity"]["md"]["mismatch_cnt"])')
	[ "$n" -gt 0 ] || vm_fail "mismatch_cnt $n after 4M written to one member"
	# ... by the quick check of the first 128M (the damage is at 64M): the
	# count survives the check's stop at sync_max.
	grep -q '"span_bytes"' /run/scen-dmg/result.json || vm_fail "the damage run's md check was not the quick one"
	$SB report --width 10000 /run/scen-dmg >/run/rep 2>&1 || true
	head -1 /run/rep | grep -q "^INTEGRITY ERRORS: .*md mismatch_cnt $n" || vm_fail "report's first line: $(head -1 /run/rep)"
	left "after the damage run"
	echo "ok: 4M written behind md's back: mismatch_cnt $n, the report's first line ($((SECONDS - t0))s)"

	# 3. kill -9 right after each scenario step of the rebuild variant.
	t0=$SECONDS
	ONE=(-o 'matrix.scenario.degrade;scenario.rebuild=none;hdd' -o workloads.run=command:true)
	plan=$($SB plan "$PROFILE" --devices "$DEVS" --quick "${ONE[@]}")
	steps=$(grep -E '^ +[0-9]+  scenario' <<<"$plan" | awk '{print $1}')
	[ "$(wc -w <<<"$steps")" = 2 ] || vm_fail "want 2 scenario steps: $plan"
	for i in $steps; do
		rc=0
		STACKBENCH_KILL_STEP=$i $SB run "$PROFILE" --devices "$DEVS" --yes --quick "${ONE[@]}" \
			--results "/run/scen-k$i" >/run/out 2>&1 || rc=$?
		[ $rc = 137 ] || { cat /run/out; vm_fail "STACKBENCH_KILL_STEP=$i: exit $rc, want 137"; }
		grep -q '^md' /proc/mdstat || vm_fail "step $i: the killed run left no array to tear down"
		rc=0
		$SB teardown --all >/run/out 2>&1 || rc=$?
		[ $rc = 0 ] || { cat /run/out; vm_fail "teardown --all after a kill after step $i: exit $rc"; }
		left "kill -9 after scenario step $i, teardown --all"
	done
	echo "ok: kill -9 after scenario steps $(echo $steps): teardown --all leaves nothing ($((SECONDS - t0))s)"
	exit 0
fi

. "$SB_TOP/tests/lib.sh"
RUN="$SB_TOP/contrib/vm/run"
why=$("$RUN" --check 2>/dev/null) || skip "${why:-VM runner cannot run here}"
cd "$SB_TOP"
"$STACKBENCH" plan "$PROFILE" --loop --quick >/dev/null || fail "$PROFILE does not plan"
vm_guest -v -t 1500 --throttle ${SB_VM_UDEV:+--udev} ssd:512M hdd:512M hdd:512M -- bash tests/vm/vm-scen-md.sh --guest
pass_msg "md RAID1 degraded, rebuilt under load, checked, killed at the scenario steps in the VM"
