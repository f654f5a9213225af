#!/bin/bash
# New partitions get their head and tail zeroed before the table is written
# (an old md superblock or LVM label there would otherwise be assembled),
# and libfdisk writes through our O_EXCL fd: a disk full of old data, a run
# that fails right after partitioning (STACKBENCH_FAIL_STEP=1): the first
# and last MiBs of each partition are zero, the bytes between them and
# outside the partitions are still the old ones. A disk another program
# holds O_EXCL is refused before libfdisk touches it.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog python3
cd "$SB_TOP"

img=$SB_TMP/disk.img
# Old data everywhere (no signature: a pattern libblkid does not know).
# Each 4 KiB block holds one byte value, from its index. 280 MiB: two
# partitions above btrfs's 125 MiB minimum, or the run's dry run of
# mkfs.btrfs refuses the profile before step 1.
python3 -c 'import sys
with open(sys.argv[1], "wb") as f:
    for i in range(280 * 256):
        f.write(bytes([i % 251 + 1]) * 4096)' "$img"
dev=$(losetup --find --show "$img")
SB_LOOPS+=("$dev")
echo 0 >"/sys/block/${dev#/dev/}/queue/rotational" # plays the SSD
rc=0
# (--fail-fast: only the first variant; the others would go on and
# partition the disk again)
STACKBENCH_FAIL_STEP=1 "$STACKBENCH" run btrfs-raid1-partitions --devices "$dev" --yes --fail-fast \
	-o workloads.run=command:true --results "$SB_TMP/res" >"$SB_TMP/out" 2>&1 || rc=$?
[ $rc = 1 ] || fail "run exited $rc, want 1: $(cat "$SB_TMP/out")"
grep -q "failing on purpose" "$SB_TMP/out" || fail "step 1 did not fail on purpose: $(cat "$SB_TMP/out")"
log=$SB_TMP/res/run.log
n=$(grep -c "first and last .* zeroed" "$log" || true)
[ "$n" = 2 ] || fail "want 2 partitions zeroed at their ends, run.log says $n: $(grep partition "$log")"
losetup -d "$dev"
# Each partition: zero at both ends, the old pattern just inside them.
check=$(python3 - "$img" "$log" <<'PY'
import re, sys
data = open(sys.argv[1], "rb").read()
def old(off, n):
    return off % 4096 == 0 and data[off:off + n] == bytes([off // 4096 % 251 + 1]) * n
bad = []
for m in re.finditer(r"partition (\d+): (\d+) bytes at (\d+), first and last (\d+) zeroed", open(sys.argv[2]).read()):
    p, ln, st, w = (int(x) for x in m.groups())
    if data[st:st + w].count(0) != w: bad.append("p%d head not zero" % p)
    if data[st + ln - w:st + ln].count(0) != w: bad.append("p%d tail not zero" % p)
    if not old(st + w, 4096): bad.append("p%d: old data after the head was touched" % p)
    if not old(st + ln - w - 4096, 4096): bad.append("p%d: old data before the tail was touched" % p)
print(" ".join(bad) or "ok")
PY
)
[ "$check" = ok ] || fail "partition ends: $check"
pass_msg "new partitions: first and last MiBs zeroed, the rest untouched"

# A disk held O_EXCL by another program: refused before any write.
dev=$(losetup --find --show "$img")
SB_LOOPS+=("$dev")
echo 0 >"/sys/block/${dev#/dev/}/queue/rotational"
before=$(sha256sum <"$img")
hold_excl "$dev"
holder=$HOLDER
expect_exit 3 "$STACKBENCH" run btrfs-raid1-partitions --devices "$dev" --yes \
	-o workloads.run=command:true --results "$SB_TMP/res2"
assert_contains "$OUT" "held open exclusively by" "held disk refused"
assert_contains "$OUT" "pid $holder" "holder named"
kill $holder
wait $holder 2>/dev/null || true
losetup -d "$dev"
[ "$(sha256sum <"$img")" = "$before" ] || fail "a disk held by another program was partitioned"
nothing_left "after the refusal"
pass_msg "disk held O_EXCL: refused before partitioning"
