#!/bin/bash
# Issue 24 item 6: `report` reads only regular files, and at most 64 MiB + 1
# bytes of one. /dev/zero (a device whose size says 0), a FIFO, and a
# result set directory whose result.json is a symlink to a FIFO are refused
# at once (exit 2, naming the file), never read without bound or waited on;
# a file over the limit is refused by size, whatever st_size claims. No root
# needed, no loop devices.
. "$SB_TOP/tests/lib.sh"
cd "$SB_TOP"
export LC_ALL=C
R1=tests/golden/report/inputs/run1
T=$SB_TMP

mkfifo "$T/fifo"
mkdir "$T/set"
ln -s "$T/fifo" "$T/set/result.json"
ln -s "$T/fifo" "$T/link.json"
# sparse: 65 MiB of nothing, so the bound is what stops the read
truncate -s 65M "$T/big.json"
cases=(
	"/dev/zero|/dev/zero: a character device, not a result file (refused)"
	"/dev/null|/dev/null: a character device, not a result file (refused)"
	"$T/fifo|$T/fifo: a FIFO, not a result file (refused)"
	"$T/link.json|$T/link.json: a FIFO, not a result file (refused)"
	"$T/set|$T/set/result.json: a FIFO, not a result file (refused)"
	"$T/big.json|$T/big.json: too large to be a result (over 64 MiB)"
)
for c in "${cases[@]}"; do
	path=${c%%|*}
	start=$(date +%s%N)
	# timeout: a reader that waits on the FIFO or reads /dev/zero on would hang
	expect_exit 2 timeout 20 "$STACKBENCH" report $R1 "$path"
	assert_contains "$OUT" "stackbench: ${c#*|}" "error for $path"
	ms=$((($(date +%s%N) - start) / 1000000))
	[ "$ms" -lt 5000 ] || fail "$path: refused only after $ms ms"
	stdout=$(timeout 20 "$STACKBENCH" report $R1 "$path" 2>/dev/null) || true
	assert_eq "$stdout" "" "stdout for $path"
done

# A regular file through a symlink still reads; a file just at the limit is
# read (and refused as JSON, not for its size).
ln -s "$SB_TOP/$R1/result.json" "$T/ok.json"
expect_exit 0 "$STACKBENCH" report "$T/ok.json"
truncate -s 64M "$T/limit.json"
expect_exit 2 timeout 20 "$STACKBENCH" report "$T/limit.json"
assert_not_contains "$OUT" "too large" "a file of exactly 64 MiB"
echo "ok: FIFOs, devices and oversized files refused at once"
