#!/bin/bash
# vm-seconds: 385 (usual guest time in make check, 2 cores, one guest CPU: contrib/vm/tier deals the scenarios to its guests by it)
# md-raid1-ssd-2hdd for real, in the VM runner on an SSD and two throttled
# HDDs (one boot): every variant runs on one array switched through md's
# sysfs to the HDDs write-mostly and write-behind as the variant says (and,
# with --rounds, on an array mdadm built so), xfs mounted with the profile's options,
# the SSD serves the reads whatever the --devices order; failure at every
# step, kill -9 then teardown --all, and a member of an active array refused:
# each time nothing is left (no array, no md superblock, no mount). Also
# lvm-hwraid6 --loop (md RAID6 over four loops under LVM). No udevd here;
# vm-md-udev.sh runs the same with udevd.

PROFILE=profiles/md-raid1-ssd-2hdd.conf

# --inspect FACTS: the workload of the run, in the mounted file system: one
# line of facts about the stack under it.
if [ "${1:-}" = --inspect ]; then
	set -euo pipefail
	src=$(findmnt -no SOURCE --target .)
	md=$(basename "$(realpath "/sys/dev/block/$(printf '%d:%d' "0x$(stat -Lc %t "$src")" "0x$(stat -Lc %T "$src")")")")
	line="fs=$(findmnt -no FSTYPE --target .) opts=$(findmnt -no OPTIONS --target .)"
	line+=" backlog=$(cat "/sys/block/$md/md/bitmap/backlog" 2>/dev/null || echo none)"
	ssd_wm=0 hdd_wm=0 ssd_r=0 hdd_r=0
	declare -A r0
	for m in /sys/block/"$md"/md/dev-*; do
		d=${m##*/dev-}
		r0[$d]=$(awk '{ print $1 }' "/sys/block/$d/stat")
	done
	# Direct reads of the array: which members serve them.
	dd if="/dev/$md" of=/dev/null bs=64k count=200 iflag=direct status=none
	for m in /sys/block/"$md"/md/dev-*; do
		d=${m##*/dev-}
		n=$(($(awk '{ print $1 }' "/sys/block/$d/stat") - r0[$d]))
		if [ "$(cat "/sys/block/$d/queue/rotational")" = 0 ]; then
			ssd_r=$((ssd_r + n))
			grep -qw write_mostly "$m/state" && ssd_wm=$((ssd_wm + 1))
		else
			hdd_r=$((hdd_r + n))
			grep -qw write_mostly "$m/state" && hdd_wm=$((hdd_wm + 1))
		fi
	done
	echo "$line ssd_wm=$ssd_wm hdd_wm=$hdd_wm ssd_reads=$ssd_r hdd_reads=$hdd_r" >>"$2"
	exit 0
fi

# --where FACTS: the workload of the replication runs: the device the file
# system is on and, for an array, its members.
if [ "${1:-}" = --where ]; then
	set -euo pipefail
	dev=$(basename "$(realpath "$(findmnt -no SOURCE --target .)")")
	mem=$(ls -d /sys/block/"$dev"/md/dev-* 2>/dev/null | sed 's|.*/dev-||' | sort | tr '\n' , || true)
	echo "src=$dev members=$mem" >>"$2"
	exit 0
fi

if [ "${1:-}" = --guest ]; then
	set -euo pipefail
	. contrib/vm/guest-lib.sh
	SB=./stackbench
	export STACKBENCH_STATE_DIR=/run/stackbench-test
	vm_want_disks 1 2 # DEVS: hdd, ssd, hdd
	FAST=(-o md.assume-clean=yes)
	t0=$SECONDS

	# 1. Every variant, with the inspector as the workload.
	facts=/run/facts
	: >"$facts"
	rc=0
	# (md's integrity check runs once after the round's turns, on the one
	# switched array)
	$SB run "$PROFILE" --devices "$DEVS" --yes --quick "${FAST[@]}" --results /run/res1 \
		-o "workloads.run=command:bash $PWD/tests/vm/vm-md.sh --inspect $facts" >/run/out 2>&1 || rc=$?
	[ $rc = 0 ] || { cat /run/out; vm_fail "run exited $rc"; }
	cat "$facts"
	# variant: write-mostly none/hdd, write-behind 0/16383 (without
	# write-mostly it is left out by the profile).
	want=("ssd_wm=0 hdd_wm=0 backlog=0" "ssd_wm=0 hdd_wm=2 backlog=0" "ssd_wm=0 hdd_wm=2 backlog=16383")
	[ "$(wc -l <"$facts")" = ${#want[@]} ] || vm_fail "want ${#want[@]} variants, the workload ran $(wc -l <"$facts") times"
	# They differ only in md's flags and backlog: one array, switched
	# through sysfs between the turns, whose order result.json records.
	[ "$(jq -r .profile.schedule.side_by_side.stacks /run/res1/result.json)" = 1 ] ||
		vm_fail "the variants did not share one switched array"
	read -ra turn_var <<<"$(jq -r '[.profile.schedule.side_by_side.turns[].variant] | map(tostring) | join(" ")' /run/res1/result.json)"
	i=0
	while read -r l; do
		v=${turn_var[$i]}
		for w in ${want[$v]} fs=xfs; do
			[[ " $l " == *" $w "* ]] || vm_fail "turn $((i + 1)), variant $((v + 1)): want $w, got: $l"
		done
		for o in noatime logbufs=8 logbsize=256k; do
			[[ "$l" =~ opts=[^\ ]*$o ]] || vm_fail "variant $((i + 1)): mount option $o missing: $l"
		done
		# The SSD is the read-preferred member; with write-mostly HDDs, the only one.
		[[ "$l" =~ ssd_reads=([0-9]+)\ hdd_reads=([0-9]+) ]] || vm_fail "no read counts: $l"
		[ "${BASH_REMATCH[1]}" -ge 200 ] || vm_fail "variant $((i + 1)): the SSD served ${BASH_REMATCH[1]} of 200 reads"
		if [ "$v" -gt 0 ]; then
			[ "${BASH_REMATCH[2]}" = 0 ] || vm_fail "variant $((v + 1)): write-mostly HDDs served ${BASH_REMATCH[2]} reads"
		fi
		i=$((i + 1))
	done <"$facts"
	# One md check of the shared array after the turns, held by every
	# variant's repeat, naming the three; clean.
	integ=$(jq -c '[.variants[].repeats[0].integrity | [(.shared_by | length), .md.mismatch_cnt, .errors]]' /run/res1/result.json)
	[ "$integ" = "[[3,0,0],[3,0,0],[3,0,0]]" ] || vm_fail "the shared integrity check: $integ"
	grep -q "integrity: .*clean in 1 repeat" <<<"$($SB report --width 10000 /run/res1)" || vm_fail "the report does not say the check was clean"
	vm_nothing_left "after run" "${ALL[@]}"
	# Figures from the VM runner say so in result.json and in the report.
	[ "$(jq -r .host.emulated /run/res1/result.json)" = true ] || vm_fail "result.json not labelled emulated"
	$SB report --width 10000 /run/res1 | grep "emulated: measured in the VM runner" >/dev/null || vm_fail "the report does not say emulated"
	echo "ok: every variant (${i}), devices given as $DEVS, labelled emulated ($((SECONDS - t0))s)"
	# The same flags made by mdadm at the array's creation (--rounds: the
	# variant's own build).
	: >"$facts"
	$SB run "$PROFILE" --devices "$DEVS" --yes --quick --rounds "${FAST[@]}" --results /run/res1r \
		-o matrix.md.write-mostly=hdd -o matrix.md.write-behind=16383 \
		-o "workloads.run=command:bash $PWD/tests/vm/vm-md.sh --inspect $facts" >/run/out 2>&1 ||
		{ cat /run/out; vm_fail "--rounds run failed"; }
	for w in ssd_wm=0 hdd_wm=2 backlog=16383; do
		[[ " $(cat "$facts") " == *" $w "* ]] || vm_fail "built by mdadm: want $w, got: $(cat "$facts")"
	done
	vm_nothing_left "after the --rounds run" "${ALL[@]}"

	# 2. Failure at every step of one variant: exit 1, nothing left.
	t0=$SECONDS
	ONE=(-o matrix.md.write-mostly=hdd -o matrix.md.write-behind=16383 -o workloads.run=command:true)
	n=$($SB plan "$PROFILE" --devices "$DEVS" "${FAST[@]}" "${ONE[@]}" | grep -cE '^ +[0-9]+  ')
	[ "$n" -ge 3 ] || vm_fail "plan has $n steps, want at least mdadm-create, mkfs, mount"
	for s in $(seq 1 "$n"); do
		rc=0
		STACKBENCH_FAIL_STEP=$s $SB run "$PROFILE" --devices "$DEVS" --yes --quick "${FAST[@]}" "${ONE[@]}" \
			--results "/run/res-fail$s" >/run/out 2>&1 || rc=$?
		[ $rc = 1 ] || { cat /run/out; vm_fail "STACKBENCH_FAIL_STEP=$s: exit $rc, want 1"; }
		vm_nothing_left "failure at step $s/$n" "${ALL[@]}"
	done
	echo "ok: failure at each of $n steps leaves nothing ($((SECONDS - t0))s)"

	# 3. kill -9 while the workload runs, then teardown --all (twice).
	t0=$SECONDS
	KILL=(-o matrix.md.write-mostly=hdd -o matrix.md.write-behind=16383 -o "workloads.run=command:sleep 600")
	$SB run "$PROFILE" --devices "$DEVS" --yes --quick "${FAST[@]}" "${KILL[@]}" --results /run/res-kill \
		>/run/out 2>&1 &
	pid=$!
	for _ in $(seq 1 600); do
		pgrep -P "$pid" -x sleep >/dev/null && break
		sleep 0.2
	done
	pgrep -P "$pid" -x sleep >/dev/null || { cat /run/out; vm_fail "the workload never started"; }
	grep -q '^md' /proc/mdstat || vm_fail "no array while the workload runs"
	kill -9 "$pid"
	wait "$pid" 2>/dev/null || true
	rc=0
	$SB teardown --all >/run/out 2>&1 || rc=$?
	[ $rc = 0 ] || { cat /run/out; vm_fail "teardown --all exited $rc"; }
	vm_nothing_left "after kill -9 and teardown --all" "${ALL[@]}"
	rc=0
	$SB teardown --all >/run/out 2>&1 || rc=$?
	[ $rc = 0 ] || { cat /run/out; vm_fail "second teardown --all exited $rc"; }
	echo "ok: kill -9, teardown --all, twice ($((SECONDS - t0))s)"

	# 4. A member of an active array is refused (exit 3) and nothing is written.
	mdadm --create /dev/md/sbsafety --run --level=1 --raid-devices=2 --assume-clean --metadata=1.2 \
		"${VM_SSDS[0]}" "${VM_HDDS[0]}" >/dev/null 2>&1 || vm_fail "cannot build the array for the safety check"
	sum=$(dd if="${VM_HDDS[1]}" bs=1M count=4 status=none | md5sum)
	rc=0
	$SB run "$PROFILE" --devices "$DEVS" --yes --quick "${ONE[@]}" >/run/out 2>&1 || rc=$?
	[ $rc = 3 ] || { cat /run/out; vm_fail "member of an active array: exit $rc, want 3"; }
	grep -q "${VM_SSDS[0]}" /run/out || vm_fail "the refusal does not name ${VM_SSDS[0]}: $(cat /run/out)"
	[ "$(dd if="${VM_HDDS[1]}" bs=1M count=4 status=none | md5sum)" = "$sum" ] || vm_fail "refused run wrote to ${VM_HDDS[1]}"
	[ "$(grep -c '^md' /proc/mdstat)" = 1 ] || vm_fail "the refused run changed the arrays: $(cat /proc/mdstat)"
	mdadm --stop /dev/md/sbsafety >/dev/null 2>&1
	mdadm --zero-superblock "${VM_SSDS[0]}" "${VM_HDDS[0]}"
	vm_nothing_left "after the safety check" "${ALL[@]}"
	echo "ok: member of an active md array refused with exit 3"

	# 5. lvm-hwraid6 --loop: its RAID6 volume emulated by md RAID6 over four
	# loop devices, LVM and btrfs on top; then failure at each first and last step of a kind.
	t0=$SECONDS
	LVM_PROFILE=profiles/lvm-hwraid6.conf
	: >"$facts"
	rc=0
	# The guest's /run is tmpfs (no disk file system to spare): named on
	# purpose, so accepted; the loop devices are emulation here anyway.
	LOOPDIR=(--loop-dir /run/sb-loops)
	$SB run "$LVM_PROFILE" --loop "${LOOPDIR[@]}" --quick --results /run/res-lvm-loop -o matrix.queue.scheduler=bfq \
		-o "workloads.run=command:bash $PWD/tests/vm/vm-lvm-btrfs.sh --inspect $facts" >/run/out 2>&1 || rc=$?
	[ $rc = 0 ] || { cat /run/out; vm_fail "lvm-hwraid6 --loop run exited $rc"; }
	cat "$facts"
	grep -Eq '^fs=btrfs opts=[^ ]*noatime.* lv=sbvg_[-0-9]+/bench ' "$facts" || vm_fail "no btrfs on the LV: $(cat "$facts")"
	[ "$(grep -o 'loop[0-9]*:bfq' "$facts" | wc -l)" = 4 ] || vm_fail "want bfq on four loop members: $(cat "$facts")"
	vm_nothing_left "after lvm-hwraid6 --loop" "${ALL[@]}"
	[ -z "$(losetup -a)" ] || vm_fail "loop devices left: $(losetup -a)"
	ONE=(-o matrix.queue.scheduler=mq-deadline -o workloads.run=command:true)
	plan=$($SB plan "$LVM_PROFILE" --loop --quick "${ONE[@]}")
	n=$(grep -cE '^ +[0-9]+  ' <<<"$plan")
	[ "$n" -ge 9 ] || vm_fail "lvm-hwraid6 --loop: plan has $n steps, want loops, mdadm-create, LVM, mkfs, mount"
	# The first and last of the four loops and of the four queues (as
	# vm-steps.sh): a failure at loop 2 or 3 leaves what loop 4's does.
	picks=$(vm_distinct_steps <<<"$plan" | tr '\n' ' ')
	for s in $picks; do
		rc=0
		STACKBENCH_FAIL_STEP=$s $SB run "$LVM_PROFILE" --loop "${LOOPDIR[@]}" --quick "${ONE[@]}" \
			--results /run/res-fail >/run/out 2>&1 || rc=$?
		[ $rc = 1 ] || { cat /run/out; vm_fail "lvm-hwraid6 --loop STACKBENCH_FAIL_STEP=$s: exit $rc, want 1"; }
		vm_nothing_left "lvm-hwraid6 --loop: failure at step $s/$n" "${ALL[@]}"
		[ -z "$(losetup -a)" ] || vm_fail "lvm-hwraid6 --loop: failure at step $s/$n: loops left: $(losetup -a)"
	done
	echo "ok: lvm-hwraid6 --loop (md RAID6 over 4 loops), then failure at steps ${picks% } of $n ($((SECONDS - t0))s)"

	# 6. md names. An array of someone else's at md127 (the number a run
	# used to pick) stays running through our run and its teardown; after a
	# kill -9, our array stopped and another created at its number, teardown
	# leaves that one alone, says why and exits 1.
	t0=$SECONDS
	uuid_of() { mdadm --detail --export "$1" 2>/dev/null | sed -n 's/^MD_UUID=//p'; }
	truncate -s 64M /run/f1.img /run/f2.img /run/g1.img /run/g2.img
	F1=$(losetup -f --show /run/f1.img) F2=$(losetup -f --show /run/f2.img)
	mdadm --create /dev/md127 --run --level=1 --raid-devices=2 --assume-clean --metadata=1.2 \
		--name=foreign "$F1" "$F2" >/dev/null 2>&1 || vm_fail "cannot build the foreign array"
	fuuid=$(uuid_of /dev/md127)
	[ -n "$fuuid" ] || vm_fail "the foreign array has no UUID"
	ONE=(-o matrix.md.write-mostly=hdd -o matrix.md.write-behind=0 -o workloads.run=command:true)
	rc=0
	$SB run "$PROFILE" --devices "$DEVS" --yes --quick "${FAST[@]}" "${ONE[@]}" --results /run/res-name \
		>/run/out 2>&1 || rc=$?
	[ $rc = 0 ] || { cat /run/out; vm_fail "run beside a foreign md127: exit $rc"; }
	grep -q -- '--create /dev/md/sb-[-0-9]* --name=sb-' /run/res-name/run.log || vm_fail "our array had no name of its own"
	[ "$(uuid_of /dev/md127)" = "$fuuid" ] || vm_fail "the foreign md127 was stopped or changed: $(cat /proc/mdstat)"
	! compgen -G '/dev/md/sb-*' >/dev/null || vm_fail "name links left: $(ls -l /dev/md/)"
	echo "ok: a foreign md127 stays running through a run and its teardown"
	KILL=(-o matrix.md.write-mostly=hdd -o matrix.md.write-behind=0 -o "workloads.run=command:sleep 600")
	$SB run "$PROFILE" --devices "$DEVS" --yes --quick "${FAST[@]}" "${KILL[@]}" --results /run/res-kill2 \
		>/run/out 2>&1 &
	pid=$!
	for _ in $(seq 1 600); do
		pgrep -P "$pid" -x sleep >/dev/null && break
		sleep 0.2
	done
	wl=$(pgrep -P "$pid" -x sleep) || { cat /run/out; vm_fail "the workload never started"; }
	ours=
	for l in /dev/md/sb-*; do
		t=$(realpath "$l") || continue
		findmnt -rn -S "$t" >/dev/null && ours=$t
	done
	[ -n "$ours" ] || vm_fail "no mounted /dev/md/sb-* for our array: $(ls -l /dev/md/)"
	ouuid=$(uuid_of "$ours")
	kill -9 "$pid"
	wait "$pid" 2>/dev/null || true
	kill -9 "$wl" 2>/dev/null || true
	mnt=$(findmnt -rn -o TARGET -S "$ours" || true)
	for _ in $(seq 50); do umount "$mnt" 2>/dev/null && break; sleep 0.1; done
	mdadm --stop "$ours" >/dev/null 2>&1 || vm_fail "cannot stop our array $ours"
	vm_stop_udev_arrays "${ALL[@]}"
	G1=$(losetup -f --show /run/g1.img) G2=$(losetup -f --show /run/g2.img)
	mdadm --create "$ours" --run --level=1 --raid-devices=2 --assume-clean --metadata=1.2 \
		--name=other "$G1" "$G2" >/dev/null 2>&1 || vm_fail "cannot build another array at $ours"
	guuid=$(uuid_of "$ours")
	[ -n "$guuid" ] && [ "$guuid" != "$ouuid" ] || vm_fail "the other array at $ours has no UUID of its own"
	rc=0
	$SB teardown --all >/run/out 2>&1 || rc=$?
	[ $rc = 1 ] || { cat /run/out; vm_fail "teardown with another array at $ours: exit $rc, want 1"; }
	grep -q "$ours: not ours: md UUID" /run/out || vm_fail "teardown does not say what differs: $(cat /run/out)"
	[ "$(uuid_of "$ours")" = "$guuid" ] || vm_fail "the other array at $ours was stopped: $(cat /proc/mdstat)"
	[ "$(uuid_of /dev/md127)" = "$fuuid" ] || vm_fail "the foreign md127 was stopped: $(cat /proc/mdstat)"
	# Our members were still ours: their superblocks are gone.
	for d in "${ALL[@]}"; do
		mdadm --examine "$d" >/dev/null 2>&1 && vm_fail "md superblock left on our member $d"
	done
	mdadm --stop "$ours" /dev/md127 >/dev/null 2>&1
	# With udevd, an array it assembles again would keep a member from
	# being zeroed, and its probes keep a loop device bound for a while
	# after losetup -d (CI, 4 December: loop devices left after this).
	vm_stop_udev_arrays "$F1" "$F2" "$G1" "$G2"
	mdadm --zero-superblock "$F1" "$F2" "$G1" "$G2"
	vm_detach_loops "$F1" "$F2" "$G1" "$G2"
	rm -f /run/f1.img /run/f2.img /run/g1.img /run/g2.img
	rm -rf "${STACKBENCH_STATE_DIR:?}"/*
	vm_nothing_left "after the md name checks" "${ALL[@]}"
	echo "ok: another array at our number after kill -9: left alone, exit 1 ($((SECONDS - t0))s)"

	# 7. The md report replicated (md-raid1-ssd-2hdd-partitions, --quick):
	# partition 2 of each disk as members, and the SSD-alone baseline on the
	# SSD's partition 2 without md, the HDDs untouched in that variant. Once
	# per tier: the boot without udevd runs it (the udev boot tests udev's
	# part, which scenarios 1 to 6 cover).
	if [ -S /run/udev/control ]; then
		echo "ok: replication scenario left to the boot without udevd"
		exit 0
	fi
	t0=$SECONDS
	REP=profiles/md-raid1-ssd-2hdd-partitions.conf
	ssd=${VM_SSDS[0]#/dev/}
	: >"$facts"
	rc=0
	$SB run "$REP" --devices "$DEVS" --yes --quick --results /run/res-rep \
		-o "workloads.run=command:bash $PWD/tests/vm/vm-md.sh --where $facts" >/run/out 2>&1 || rc=$?
	[ $rc = 0 ] || { cat /run/out; vm_fail "replication run exited $rc"; }
	cat "$facts"
	[ "$(wc -l <"$facts")" = 4 ] || vm_fail "want 4 variants, the workload ran $(wc -l <"$facts") times"
	[ "$(sed -n 1p "$facts")" = "src=${ssd}2 members=" ] || vm_fail "SSD alone: want xfs on ${ssd}2 without md: $(sed -n 1p "$facts")"
	for v in 2 3 4; do
		l=$(sed -n "${v}p" "$facts")
		[[ "$l" =~ members=([a-z]+2,){3}$ ]] || vm_fail "variant $v: want partition 2 of each disk as members: $l"
	done
	grep -q -- "--write-behind=16383" /run/res-rep/run.log || vm_fail "no write-behind variant in the log"
	vm_nothing_left "after the replication run" "${ALL[@]}"
	# The baseline alone: the HDDs are not written (not even partitioned).
	sums() { for d in "${VM_HDDS[@]}"; do dd if="$d" bs=1M count=16 status=none | md5sum; done; }
	before=$(sums)
	rc=0
	$SB run "$REP" --devices "$DEVS" --yes --quick --results /run/res-rep1 \
		-o 'matrix.md.level;md.write-mostly;md.write-behind=none;none;0' \
		-o "workloads.run=command:true" >/run/out 2>&1 || rc=$?
	[ $rc = 0 ] || { cat /run/out; vm_fail "SSD-alone run exited $rc"; }
	[ "$(sums)" = "$before" ] || vm_fail "the SSD-alone variant wrote to an HDD"
	vm_nothing_left "after the SSD-alone run" "${ALL[@]}"
	echo "ok: md report replicated: SSD alone on ${ssd}2, RAID1 of the p2 partitions, HDDs untouched by the baseline ($((SECONDS - t0))s)"
	exit 0
fi

. "$SB_TOP/tests/lib.sh"
RUN="$SB_TOP/contrib/vm/run"
why=$("$RUN" --check 2>/dev/null) || skip "${why:-VM runner cannot run here}"
[ -f "$SB_TOP/$PROFILE" ] || skip "$PROFILE missing: needs the stack engine (issue 3)"
"$STACKBENCH" plan "$SB_TOP/$PROFILE" --loop -o workloads.run=command:true >/dev/null 2>&1 ||
	skip "stackbench plan cannot read $PROFILE: needs the stack engine (issue 3)"
cd "$SB_TOP"
# 512M disks: every run with an array ends in md's check of all of it
# (scenario.integrity auto), read at the throttled HDDs' pace, about 26 s a
# variant at 1G under emulation; xfs needs 300M, partition 2 of the
# replication profile gets 460M. No check here is about the size.
vm_guest -v -t 1500 --throttle ${SB_VM_UDEV:+--udev} ssd:512M hdd:512M hdd:512M -- bash tests/vm/vm-md.sh --guest
pass_msg "md-raid1-ssd-2hdd in the VM"
