# shellcheck shell=bash
# Helpers for test scripts running inside the VM runner's guest (sourced):
# disks by role, and the "nothing left" checks for md, dm, LVM and signatures.
# fail, assert_* and the journal and mount checks are tests/common.sh's, the
# host tests' own; vm_fail is fail.

# shellcheck source=tests/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../tests/common.sh"
vm_fail() { fail "$@"; }

# vm_serial DEV: the SCSI serial of /sys/block/DEV (VPD page 0x80)
vm_serial() { tail -c +5 "/sys/block/$1/device/vpd_pg80" 2>/dev/null | tr -d '\0 '; }

# vm_stop_udev_arrays DEV...: with udevd running, its md rules assemble an
# array again (often "inactive") from a member that still carries a
# superblock after the array was stopped: settle, and stop whatever holds
# these devices (whole disks, partitions or loop devices), until nothing
# does. Without udevd, nothing to do.
vm_stop_udev_arrays() {
	local held _ d h
	for _ in 1 2 3; do
		[ -S /run/udev/control ] || break
		udevadm settle --timeout=30 || true
		held=$(for d in "$@"; do ls "/sys/class/block/${d#/dev/}/holders"; done 2>/dev/null | sort -u)
		[ -n "$held" ] || break
		for h in $held; do mdadm --stop "/dev/$h" >/dev/null 2>&1 || true; done
	done
}

# vm_detach_loops DEV...: losetup -d, then wait until each is gone: with
# udevd running, its probes of a loop device just changed (a superblock
# zeroed) hold it open, and losetup -d only marks it to go at the last
# close (seen 4 December: the leftover check right after found two still
# bound). Up to 30 s.
vm_detach_loops() {
	local d _
	losetup -d "$@"
	[ -S /run/udev/control ] && { udevadm settle --timeout=30 || true; }
	for d in "$@"; do
		for _ in $(seq 300); do
			[ -e "/sys/block/${d#/dev/}/loop/backing_file" ] || break
			sleep 0.1
		done
	done
}

# The runner's scratch disks by probed role (SCSI names do not follow the
# runner's command line): sets VM_SSDS and VM_HDDS (arrays of /dev/sdX).
# In the vm tier's one guest (SBVM_DISK_SET set by contrib/vm/tier-guest),
# only the disks of this scenario's set: serial sbvm-SET-*.
vm_disks() {
	local b
	VM_SSDS=() VM_HDDS=()
	for b in /sys/block/sd*; do
		[ -e "$b" ] || continue
		if [ -n "${SBVM_DISK_SET:-}" ]; then
			[[ "$(vm_serial "${b##*/}")" == "sbvm-$SBVM_DISK_SET-"* ]] || continue
		fi
		if [ "$(cat "$b/queue/rotational")" = 0 ]; then
			VM_SSDS+=("/dev/${b##*/}")
		else
			VM_HDDS+=("/dev/${b##*/}")
		fi
	done
}

# vm_role_devices: the disks as a --devices list in role order, SSDs first
# ("/dev/sdc,/dev/sda,/dev/sdb"), for a profile whose roles are ssd, hdd...
vm_role_devices() {
	local -a in_order
	vm_disks
	in_order=("${VM_SSDS[@]}" "${VM_HDDS[@]}")
	(IFS=,; echo "${in_order[*]}")
}

# vm_want_disks NSSD NHDD: vm_disks, failing unless it found exactly NSSD
# SSDs and NHDD HDDs. Sets ALL (every one of them) and DEVS, a --devices list
# that is never in role order (an HDD first): roles must come from probing.
# shellcheck disable=SC2034 # ALL and DEVS are for the caller
vm_want_disks() {
	vm_disks
	[ ${#VM_SSDS[@]} = "$1" ] && [ ${#VM_HDDS[@]} = "$2" ] ||
		vm_fail "want $1 SSD(s) and $2 HDD(s), found ${VM_SSDS[*]:-none} / ${VM_HDDS[*]:-none}"
	ALL=("${VM_SSDS[@]}" "${VM_HDDS[@]}")
	local order=("${VM_HDDS[@]:0:1}" "${VM_SSDS[@]}" "${VM_HDDS[@]:1}")
	DEVS=$(IFS=,; echo "${order[*]}")
}

# vm_nothing_left WHAT DISK...: no md array, no dm device, no bound loop
# device, no mount of the disks or of stackbench's, no holder of the disks,
# no stackbench journal, and no signature (md superblock, LVM label, file
# system, partition table) and no partition on any of the disks.
# Read from /proc and /sys with bash's builtins, and three programs for all
# the disks at once: under emulation a program start costs 0.1-1 s, and the
# check used to start twenty (5-6 s a call, after every one of the kill and
# failure runs). An LVM PV needs a block device, and every one a PV could
# be on is covered: the disks (wipefs sees LVM2_member), their partitions
# (none allowed), md, dm and loop devices (none allowed).
vm_nothing_left() {
	local what=$1 d n line sig dev
	local -a lines found
	shift
	mapfile -t lines </proc/mdstat
	found=()
	for line in "${lines[@]}"; do [[ "$line" == md* ]] && found+=("${line%% *}"); done
	[ ${#found[@]} = 0 ] || vm_fail "$what: md arrays left: ${found[*]}"
	found=()
	for d in /sys/block/dm-*; do
		[ -e "$d" ] || continue
		n='?'
		[ -r "$d/dm/name" ] && read -r n <"$d/dm/name"
		found+=("${d##*/} ($n)")
	done
	[ ${#found[@]} = 0 ] || vm_fail "$what: dm devices left: ${found[*]}"
	found=()
	for d in /sys/block/loop*/loop/backing_file; do
		[ -e "$d" ] || continue
		read -r n <"$d"
		found+=("${d#/sys/block/}: $n")
	done
	[ ${#found[@]} = 0 ] || vm_fail "$what: loop devices left: ${found[*]%%/loop/backing_file*}"
	# Mounts: of a disk (by its device number, or by its name as the source:
	# btrfs gives its mounts an anonymous number), or under a stackbench path.
	mapfile -t lines </proc/self/mountinfo
	for d in "$@"; do
		read -r dev <"/sys/block/${d#/dev/}/dev" || vm_fail "$what: $d: no such disk"
		for line in "${lines[@]}"; do
			read -r _ _ n _ <<<"$line"
			read -r _ sig _ <<<"${line#* - }"
			if [ "$n" = "$dev" ] || [ "$sig" = "$d" ]; then
				vm_fail "$what: $d still mounted: $line"
			fi
		done
		compgen -G "/sys/block/${d#/dev/}/holders/*" >/dev/null && vm_fail "$what: $d still has holders"
		compgen -G "/sys/block/${d#/dev/}/${d#/dev/}[0-9]*" >/dev/null && vm_fail "$what: partitions left on $d"
	done
	for line in "${lines[@]}"; do
		read -r _ _ _ _ n _ <<<"$line"
		[[ "$n" == *stackbench* ]] && vm_fail "$what: mounts left: $n"
	done
	if [ $# -gt 0 ]; then
		sig=$(wipefs -n "$@" 2>&1) || vm_fail "$what: wipefs -n $*: $sig"
		[ -z "$sig" ] || vm_fail "$what: signatures left: $sig"
		sig=$(mdadm --examine --brief "$@" 2>/dev/null)
		[ -z "$sig" ] || vm_fail "$what: md superblock left: $sig"
	fi
	no_journal_left "$what" "${STACKBENCH_STATE_DIR:-/var/lib/stackbench}"
	return 0
}

# vm_shuffle ITEM...: the items in an order that differs from the given one.
vm_shuffle() {
	local out
	while :; do
		out=$(printf '%s\n' "$@" | shuf | tr '\n' ' ')
		[ $# -lt 2 ] || [ "$out" != "$* " ] && break
	done
	echo "${out% }"
}

# vm_distinct_steps: of `stackbench plan`'s output on stdin, the numbers of
# the steps that begin or end a run of steps of one kind (loop loop loop
# queue: 1 3 4). A failure or a kill at a step inside such a run leaves
# the journal as at the run's last step does, with one step of that kind
# fewer done: it proves nothing the last one does not.
vm_distinct_steps() {
	awk '$1 ~ /^[0-9]+$/ && NF >= 2 { n[++c] = $1; k[c] = $2 }
		END { for (i = 1; i <= c; i++) if (i == 1 || i == c || k[i - 1] != k[i] || k[i + 1] != k[i]) print n[i] }'
}
