#!/bin/bash
# vm-seconds: 200 (usual guest time in make check, 2 cores, one guest CPU: contrib/vm/tier deals the scenarios to its guests by it)
# lvm-hwraid6 and btrfs-raid1-partitions for real, in one VM boot with the
# guest's udevd running (the udev path; vm-md.sh covers the udev-less one):
# LVM + btrfs + scheduler variants on one large disk playing the hardware
# RAID6 volume, failure at every step, a PV of an active VG refused, and
# btrfs raid1 across two partitions of one SSD, with device= for each
# member, every LVM command restricted to our PV (--devices), and a
# partition made over an old md member not assembled (its head zeroed).
# Afterwards: no LV/VG/PV, no dm, no partition, no signature. (The --loop
# form, md RAID6 over four loop devices, runs in vm-md.sh.)

LVM_PROFILE=profiles/lvm-hwraid6.conf
BTRFS_PROFILE=profiles/btrfs-raid1-partitions.conf

# --inspect FACTS: the workload, in the mounted file system: one line of facts.
if [ "${1:-}" = --inspect ]; then
	set -euo pipefail
	# The kernel name (dm-0) even where /dev/mapper holds nodes, not links.
	src=$(findmnt -no SOURCE --target . | head -1)
	dm=$(basename "$(realpath "/sys/dev/block/$(printf '%d:%d' "0x$(stat -Lc %t "$src")" "0x$(stat -Lc %T "$src")")")")
	line="fs=$(findmnt -no FSTYPE --target . | head -1) opts=$(findmnt -no OPTIONS --target . | head -1)"
	if [ -e "/sys/block/$dm/dm/name" ]; then
		line+=" lv=$(dmsetup splitname --noheadings --separator / -o vg_name,lv_name "$(cat "/sys/block/$dm/dm/name")")"
	fi
	# The scheduler of every disk at the bottom of the stack.
	leaves() {
		local s found=0
		for s in /sys/class/block/"$1"/slaves/*; do
			[ -e "$s" ] || continue
			found=1
			leaves "${s##*/}"
		done
		[ $found = 1 ] || echo "$1"
	}
	sched=
	for d in $(leaves "$dm" | sort -u); do
		p=$d
		[ -e "/sys/class/block/$d/partition" ] && p=$(basename "$(dirname "$(realpath "/sys/class/block/$d")")")
		sched+="$d:$(sed -n 's/.*\[\(.*\)\].*/\1/p' "/sys/block/$p/queue/scheduler"),"
	done
	line+=" sched=${sched%,}"
	if [ "$(findmnt -no FSTYPE --target . | head -1)" = btrfs ]; then
		line+=" btrfs_devs=$(btrfs filesystem show . | grep -c 'devid')"
		line+=" btrfs_on=$(btrfs filesystem show . | awk '/devid/ { sub(".*/", "", $NF); print $NF }' | sort | paste -sd,)"
		line+=" $(btrfs filesystem df . | awk -F'[,:]' '/^(Data|Metadata)/ { gsub(/ /, "", $2); printf "%s=%s ", $1, $2 }')"
	fi
	echo "$line" >>"$2"
	exit 0
fi

if [ "${1:-}" = --guest ]; then
	set -euo pipefail
	. contrib/vm/guest-lib.sh
	# No udevadm settle between runs: udevd probes a disk after each
	# teardown under a shared lock, and stackbench must wait for that itself.
	SB=./stackbench
	export STACKBENCH_STATE_DIR=/run/stackbench-test
	vm_want_disks 1 1
	SSD=${VM_SSDS[0]} VOL=${VM_HDDS[0]}
	SCHED0=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "/sys/block/${VOL#/dev/}/queue/scheduler")
	[ -S /run/udev/control ] || vm_fail "udevd is not running"
	facts=/run/facts
	check_facts() { # WHAT WANT...: one line per variant, each with its words
		local what=$1 i=0 l w
		shift
		[ "$(wc -l <"$facts")" = $# ] || { cat "$facts"; vm_fail "$what: want $# variants, the workload ran $(wc -l <"$facts") times"; }
		while read -r l; do
			i=$((i + 1))
			for w in $1; do
				# WANT words are regexes, bounded like words or options.
				[[ " $l " =~ [\ ,=]${w}[\ ,:] ]] || vm_fail "$what variant $i: want '$w' in: $l"
			done
			shift
		done <"$facts"
	}
	no_loops() {
		[ -z "$(losetup -a)" ] || vm_fail "$1: loop devices left: $(losetup -a)"
	}
	INSPECT="workloads.run=command:bash $PWD/tests/vm/vm-lvm-btrfs.sh --inspect $facts"

	# 1. lvm-hwraid6 on one large disk: every scheduler variant.
	t0=$SECONDS
	: >"$facts"
	rc=0
	$SB run "$LVM_PROFILE" --devices "$VOL" --yes --quick --results /run/res-lvm -o "$INSPECT" >/run/out 2>&1 || rc=$?
	[ $rc = 0 ] || { cat /run/out; vm_fail "lvm-hwraid6 run exited $rc"; }
	cat "$facts"
	v=${VOL#/dev/}
	lv='lv=sbvg_[-0-9]+/bench'
	check_facts lvm-hwraid6 "fs=btrfs noatime $lv sched=$v:mq-deadline" "fs=btrfs noatime $lv sched=$v:bfq" \
		"fs=btrfs noatime $lv sched=$v:kyber" "fs=btrfs noatime $lv sched=$v:none"
	vm_nothing_left "after lvm-hwraid6" "${ALL[@]}"
	[ "$(sed -n 's/.*\[\(.*\)\].*/\1/p' "/sys/block/$v/queue/scheduler")" = "$SCHED0" ] ||
		vm_fail "scheduler of $VOL not restored (want $SCHED0)"
	# Every LVM command saw only our PV: --devices on each one.
	lvmcmds=$(grep -E '^\$ (pv|vg|lv)(create|remove|s) ' /run/res-lvm/run.log || true)
	[ -n "$lvmcmds" ] || vm_fail "no LVM command in run.log"
	bad=$(grep -v -- "--devices $VOL " <<<"$lvmcmds" || true)
	[ -z "$bad" ] || vm_fail "LVM commands without --devices $VOL: $bad"
	# The effective configuration has the PV's pe_start (pvs, in bytes).
	pe=$(jq -r ".variants[0].repeats[0].workloads[0].extra.config.lvm.pe_start[\"$v\"] // \"none\"" /run/res-lvm/result.json)
	[[ "$pe" =~ ^[0-9]+$ ]] && [ "$pe" -gt 0 ] || vm_fail "extra.config.lvm.pe_start of $v: $pe"
	echo "ok: lvm-hwraid6 on $VOL, 4 scheduler variants, every LVM command with --devices, pe_start $pe ($((SECONDS - t0))s)"

	# 2. Failure at every step (the --loop form, md RAID6 underneath, is in
	# vm-md.sh, and with udevd in vm-md-udev.sh).
	t0=$SECONDS
	ONE=(-o matrix.queue.scheduler=mq-deadline -o workloads.run=command:true)
	# shellcheck disable=SC2066 # one form today, a list for more
	for form in "--devices $VOL"; do
		# shellcheck disable=SC2086
		n=$($SB plan "$LVM_PROFILE" $form --quick "${ONE[@]}" | grep -cE '^ +[0-9]+  ')
		[ "$n" -ge 5 ] || vm_fail "lvm-hwraid6 $form: plan has $n steps, want pvcreate..mount"
		for s in $(seq 1 "$n"); do
			rc=0
			# shellcheck disable=SC2086
			STACKBENCH_FAIL_STEP=$s $SB run "$LVM_PROFILE" $form --yes --quick "${ONE[@]}" \
				--results "/run/res-fail" >/run/out 2>&1 || rc=$?
			[ $rc = 1 ] || { cat /run/out; vm_fail "$form STACKBENCH_FAIL_STEP=$s: exit $rc, want 1"; }
			vm_nothing_left "lvm-hwraid6 $form: failure at step $s/$n" "${ALL[@]}"
			no_loops "lvm-hwraid6 $form: failure at step $s/$n"
		done
		echo "ok: lvm-hwraid6 $form: failure at each of $n steps leaves nothing"
	done
	echo "   ($((SECONDS - t0))s)"

	# 3. A PV of an active VG is refused (exit 3), nothing written.
	pvcreate -qq "$VOL" && vgcreate -qq sbsafety "$VOL" && lvcreate -qq -y -n lv -L 32M sbsafety ||
		vm_fail "cannot build the VG for the safety check"
	lvs sbsafety/lv >/dev/null || vm_fail "the LV is not there"
	sum=$(dd if="$VOL" bs=1M count=4 status=none | md5sum)
	rc=0
	$SB run "$LVM_PROFILE" --devices "$VOL" --yes --quick "${ONE[@]}" >/run/out 2>&1 || rc=$?
	[ $rc = 3 ] || { cat /run/out; vm_fail "PV of an active VG: exit $rc, want 3"; }
	grep -q "$VOL" /run/out || vm_fail "the refusal does not name $VOL: $(cat /run/out)"
	[ "$(dd if="$VOL" bs=1M count=4 status=none | md5sum)" = "$sum" ] || vm_fail "refused run wrote to $VOL"
	vgremove -qq -f sbsafety && pvremove -qq "$VOL" || vm_fail "cannot remove the safety VG"
	vm_nothing_left "after the PV safety check" "${ALL[@]}"
	echo "ok: PV of an active VG refused with exit 3"

	# 4. btrfs raid1 across two partitions of the SSD: every mount variant.
	t0=$SECONDS
	: >"$facts"
	rc=0
	# (--rounds: each variant's own build, in the order the facts are
	# checked; the variants switched on one stack: tests/loop/switch-one-stack.sh)
	$SB run "$BTRFS_PROFILE" --devices "$SSD" --yes --quick --rounds --results /run/res-btrfs -o "$INSPECT" >/run/out 2>&1 || rc=$?
	[ $rc = 0 ] || { cat /run/out; vm_fail "btrfs-raid1-partitions run exited $rc"; }
	cat "$facts"
	s=${SSD#/dev/}
	check_facts btrfs-raid1-partitions \
		"fs=btrfs ssd btrfs_devs=2 Data=RAID1 Metadata=RAID1 ${s}1 ${s}2" \
		"fs=btrfs nossd btrfs_devs=2 Data=RAID1 Metadata=RAID1" \
		"fs=btrfs compress=zstd btrfs_devs=2 Data=RAID1 Metadata=RAID1"
	# Mounted from our members only (the kernel does not show device=).
	[ "$(grep -c "(btrfs, device=/dev/${s}1,device=/dev/${s}2," /run/res-btrfs/run.log)" = 3 ] ||
		vm_fail "btrfs not mounted with device= for each member: $(grep mounted /run/res-btrfs/run.log)"
	vm_nothing_left "after btrfs-raid1-partitions" "${ALL[@]}"
	echo "ok: btrfs-raid1-partitions on $SSD, 3 mount variants ($((SECONDS - t0))s)"

	# 5. A partition made over an old md member is not assembled: an md 1.2
	# superblock left 4 KiB into where the new first partition starts
	# (1 MiB), the old table gone; udevd's md rules would assemble it the
	# moment the partition appears, unless its head was zeroed first.
	t0=$SECONDS
	printf 'label: gpt\nstart=2048, size=204800\n' | sfdisk -q "$SSD" || vm_fail "cannot partition $SSD"
	udevadm settle --timeout=30 || true
	truncate -s 100M /run/partner.img
	P=$(losetup -f --show /run/partner.img)
	mdadm --create /dev/md/old --run --level=1 --raid-devices=2 --metadata=1.2 --assume-clean \
		"${SSD}1" "$P" >/dev/null 2>&1 || vm_fail "cannot build the old array"
	mdadm --stop /dev/md/old >/dev/null 2>&1 || vm_fail "cannot stop the old array"
	# udevd assembles it again from its members, as "inactive": stop that too.
	vm_stop_udev_arrays "${SSD}1" "$P"
	mdadm --zero-superblock "$P"
	vm_detach_loops "$P"
	rm -f /run/partner.img
	wipefs -q -a "$SSD" # the table only: the member's superblock stays at 1 MiB + 4 KiB
	udevadm settle --timeout=30 || true
	magic=$(dd if="$SSD" bs=4096 skip=257 count=1 status=none | od -An -tx4 -N4 | tr -d ' ')
	[ "$magic" = a92b4efc ] || vm_fail "the old md superblock is not where the new partition starts ($magic)"
	grep -q '^md' /proc/mdstat && vm_fail "an array before the run: $(cat /proc/mdstat)"
	# Failing right after partitioning: mkfs (which zeroes the first MiBs
	# itself) never runs, and teardown wipes only the table; the old
	# superblock is gone only if the new partition's head was zeroed.
	rc=0
	STACKBENCH_FAIL_STEP=1 $SB run "$BTRFS_PROFILE" --devices "$SSD" --yes --quick -o matrix.mount.options=ssd \
		-o workloads.run=command:true --results /run/res-oldmd >/run/out 2>&1 || rc=$?
	[ $rc = 1 ] || { cat /run/out; vm_fail "run over an old md member, failing at step 1: exit $rc, want 1"; }
	udevadm settle --timeout=30 || true
	grep -q '^md' /proc/mdstat && vm_fail "udev assembled the old member: $(cat /proc/mdstat)"
	magic=$(dd if="$SSD" bs=4096 skip=257 count=1 status=none | od -An -tx4 -N4 | tr -d ' ')
	[ "$magic" = 00000000 ] || vm_fail "the old md superblock survived in the new partition's head ($magic)"
	vm_nothing_left "after the run over an old md member" "${ALL[@]}"
	echo "ok: a partition made over an old md member is not assembled ($((SECONDS - t0))s)"
	exit 0
fi

. "$SB_TOP/tests/lib.sh"
RUN="$SB_TOP/contrib/vm/run"
why=$("$RUN" --check 2>/dev/null) || skip "${why:-VM runner cannot run here}"
for p in "$LVM_PROFILE" "$BTRFS_PROFILE"; do
	"$STACKBENCH" plan "$SB_TOP/$p" --loop -o workloads.run=command:true >/dev/null 2>&1 ||
		skip "stackbench plan cannot read $p: needs the stack engine (issue 3)"
done
[ -x /lib/systemd/systemd-udevd ] || skip "/lib/systemd/systemd-udevd missing (Debian package udev)"
cd "$SB_TOP"
# A 512M SSD: btrfs-raid1-partitions scrubs its two partitions after each
# of its three variants (scenario.integrity auto), in time with their size;
# 256M each is still no mixed block groups (Data and Metadata RAID1 apart).
vm_guest -v -t 900 --udev ssd:512M hdd:2G -- bash tests/vm/vm-lvm-btrfs.sh --guest
pass_msg "lvm-hwraid6 and btrfs-raid1-partitions in the VM"
