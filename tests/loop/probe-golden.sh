#!/bin/bash
# `stackbench probe` against captured or hand-written sysfs trees (with
# mountinfo, swaps and small file-system images) in tests/golden/probe/:
# table and JSON must match the expected files byte for byte. Layouts this
# host cannot show (SATA, NVMe, USB, virtio-scsi, md) get exercised here.
# SB_GOLDEN_UPDATE=1 rewrites the expected files (review the diff!).
. "$SB_TOP/tests/lib.sh"
need_prog python3
need_prog mkfs.ext4
G="$SB_TOP/tests/golden/probe"
n=0
for tree in "$G"/*.tree; do
	name=$(basename "$tree" .tree)
	root="$SB_TMP/$name"
	mkdir "$root"
	python3 "$G/mktree.py" "$tree" "$root" || fail "$name: cannot build the tree"
	for out in txt json; do
		args=()
		[ $out = json ] && args=(--json)
		got=$(STACKBENCH_PROBE_ROOT=$root "$STACKBENCH" probe "${args[@]}") ||
			fail "$name: probe ${args[*]} failed"
		# the images live under the private directory: name it neutrally
		got=${got//$root/ROOT}
		if [ "${SB_GOLDEN_UPDATE:-}" = 1 ]; then
			printf '%s\n' "$got" >"$G/$name.$out"
		fi
		diff -u "$G/$name.$out" <(printf '%s\n' "$got") >&2 || fail "$name.$out differs"
	done
	n=$((n + 1))
done
[ $n -gt 0 ] || fail "no trees in $G"
pass_msg "$n golden trees"
