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

# vm_nothing_left WHAT DISK...: no md array, no dm device, no LVM, no mount of
# the disks, no stackbench journal, and no signature (md superblock, LVM label,
# file system, partition table) on any of the disks.
vm_nothing_left() {
	local what=$1 d sig
	shift
	grep -q '^md' /proc/mdstat && vm_fail "$what: md arrays left: $(grep '^md' /proc/mdstat | tr '\n' ' ')"
	d=$(dmsetup ls 2>/dev/null | grep -v 'No devices found' || true)
	[ -z "$d" ] || vm_fail "$what: dm devices left: $d"
	d=$(pvs --noheadings -o pv_name 2>/dev/null)
	[ -z "$d" ] || vm_fail "$what: LVM PVs left: $d"
	for d in "$@"; do
		findmnt -rn -S "$d" >/dev/null && vm_fail "$what: $d still mounted"
		compgen -G "/sys/block/${d#/dev/}/holders/*" >/dev/null && vm_fail "$what: $d still has holders"
		sig=$(wipefs -n "$d" 2>/dev/null | tail -n +2)
		[ -z "$sig" ] || vm_fail "$what: signatures left on $d: $sig"
		mdadm --examine "$d" >/dev/null 2>&1 && vm_fail "$what: md superblock left on $d"
		compgen -G "/sys/block/${d#/dev/}/${d#/dev/}[0-9]*" >/dev/null && vm_fail "$what: partitions left on $d"
	done
	no_journal_left "$what" "${STACKBENCH_STATE_DIR:-/var/lib/stackbench}"
	no_mount_left "$what" stackbench TARGET
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
