#!/bin/bash
# mixed's data set is checked against the free space before a byte is
# written (as seq's is, by the same check): on a 64 MiB ext4 a data set of
# hundreds of MiB is refused at once with the sizes and mixed's own keys,
# the file system left as it was; one that fits runs.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4

dev=$(new_loop mixed 64M)
mkfs.ext4 -q -F "$dev"
mnt=$SB_TMP/mnt
mkdir -p "$mnt"
mount "$dev" "$mnt"
SB_MOUNTS+=("$mnt")
used0=$(df --output=used -B1 "$mnt" | tail -1)
start=$(date +%s)
expect_exit 1 "$STACKBENCH" bench "$mnt" --quick --workload 'mixed:2r1w,files=4000,maxfile=4M' \
	--results "$SB_TMP/res"
[ $(($(date +%s) - start)) -le 5 ] || fail "the refusal took $(($(date +%s) - start)) s"
assert_contains "$OUT" "does not fit in $mnt" "the refusal"
assert_contains "$OUT" "fewer files=, a smaller maxfile=" "mixed's own keys in the advice"
assert_not_contains "$OUT" "smaller size=" "seq's key in mixed's advice"
assert_eq "$(ls -A "$mnt")" "lost+found" "what is left in the file system"
used1=$(df --output=used -B1 "$mnt" | tail -1)
assert_eq "$used1" "$used0" "bytes used"
# One that fits is not refused.
expect_exit 0 "$STACKBENCH" bench "$mnt" --quick --workload 'mixed:1r1w,files=50,maxfile=64k,time=1s' \
	--results "$SB_TMP/res2"
umount "$mnt"
pass_msg "mixed's data set refused before writing when it does not fit"
