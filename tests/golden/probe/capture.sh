#!/bin/bash
# Captures what `stackbench probe` reads about the named block devices (and
# their disks) as a .tree file for the golden tests: the sysfs attributes,
# the /sys/class/block links, and the mountinfo/swaps lines that name them.
#   tests/golden/probe/capture.sh vda > tests/golden/probe/NAME.tree
# Tree lines: "d DIR", "f FILE VALUE", "l LINK TARGET", "a FILE LINE"
# (appends a line), "img FILE SIZE ext4 LABEL UUID" (a file system image
# standing for the device node). Paths are relative to the fake root.
set -euo pipefail
attrs="dev size ro removable partition start queue/rotational queue/logical_block_size
queue/physical_block_size queue/discard_max_bytes queue/scheduler queue/read_ahead_kb
device/model device/vendor device/serial serial wwid device/wwid loop/backing_file"

declare -A done_dirs=()
emit_dev() {
	local name=$1 real a
	real=$(readlink -f "/sys/class/block/$name")
	[ -z "${done_dirs[$real]:-}" ] || return 0
	done_dirs[$real]=1
	echo "l /sys/class/block/$name $(realpath --relative-to=/sys/class/block "$real")"
	echo "d $real"
	for a in $attrs; do
		[ -r "$real/$a" ] || continue
		v=$(cat "$real/$a" 2>/dev/null) || continue
		echo "f $real/$a $v"
	done
	if [ -d "$real/holders" ]; then
		echo "d $real/holders"
		for h in "$real"/holders/*; do [ -e "$h" ] && echo "f $real/holders/$(basename "$h")"; done
	fi
	# a partition's disk is the directory above it
	if [ -e "$real/partition" ]; then emit_dev "$(basename "$(dirname "$real")")"; fi
}

echo "# captured on $(uname -n) ($(uname -r)) $(date -u +%F)"
for n in "$@"; do emit_dev "$n"; done
echo "f /proc/swaps Filename	Type	Size	Used	Priority"
for n in "$@"; do
	mm=$(cat "/sys/class/block/$n/dev")
	grep -E "^[0-9]+ [0-9]+ $mm " /proc/self/mountinfo | sed 's|^|a /proc/self/mountinfo |' || true
done
