#!/bin/bash
# The data the workloads write and the space they need: a data set larger
# than the file system is refused before anything is written; a write error
# (ENOSPC) ends the run promptly with a clear error instead of spinning;
# on btrfs with compress=zstd the default data (compress=0) reaches the
# device uncompressed (top device writes >= 0.95x what the workload wrote,
# from extra.devstat), while compress=80 visibly shrinks it (btrfs compress,
# unlike compress-force, skips data its entropy heuristic judges hard to
# compress: 50 % zeros + 50 % random is borderline for it).
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
need_prog mkfs.btrfs
need_prog jq

w='.variants[0].repeats[0].workloads[0]'

# 1. Too big: refused before any write, sizes and ways out named.
dev=$(new_loop small 96M)
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$dev"
mnt="$SB_TMP/small"
mkdir -p "$mnt"
mount "$dev" "$mnt"
SB_MOUNTS+=("$mnt")
sync
used0=$(df --output=used -B1 "$mnt" | tail -1)
w0=$(awk '{print $7}' "/sys/class/block/$(basename "$dev")/stat")
for spec in seq,size=256M rand:4k,size=256M meta,files=1,size=256M,minsize=256M; do
	expect_exit 1 "$STACKBENCH" bench "$mnt" --results "$SB_TMP/res-big" -w "$spec"
	assert_contains "$OUT" "does not fit" "$spec: refusal"
	assert_contains "$OUT" "size=" "$spec: way out size="
	assert_contains "$OUT" "--ram" "$spec: way out --ram"
	assert_contains "$OUT" "bigger device" "$spec: way out device"
done
sync
used1=$(df --output=used -B1 "$mnt" | tail -1)
w1=$(awk '{print $7}' "/sys/class/block/$(basename "$dev")/stat")
assert_eq "$used1" "$used0" "space used after the refusals"
# sync may write a little metadata (the work directory came and went): far
# less than a data set would have.
[ $((w1 - w0)) -lt 2048 ] || fail "sectors written during the refusals: $((w1 - w0))"
pass_msg "a data set larger than the file system is refused before any write"

# 2. ENOSPC in the middle: a filler takes the space after the check passed.
t="$SB_TMP/tmpfs"
mkdir -p "$t"
mount -t tmpfs -o size=200m sbtest "$t"
SB_MOUNTS+=("$t")
start=$(date +%s)
"$STACKBENCH" bench "$t" --results "$SB_TMP/res-nospc" -w seq,size=150M,perchar=1,verify=0 \
	>"$SB_TMP/nospc.out" 2>&1 &
pid=$!
for _ in $(seq 100); do
	[ -n "$(find "$t" -name seq.dat 2>/dev/null)" ] && break
	sleep 0.02
done
# Whatever is left, however far the workload got.
dd if=/dev/zero of="$t/filler" bs=1M status=none 2>/dev/null || true
rc=0
wait $pid || rc=$?
end=$(date +%s)
assert_eq "$rc" 1 "exit code after ENOSPC"
assert_contains "$(cat "$SB_TMP/nospc.out")" "No space left on device" "ENOSPC message"
[ $((end - start)) -le 20 ] || fail "ENOSPC took $((end - start)) s to end the run"
assert_contains "$(jq -r "$w.flags | join(\",\")" "$SB_TMP/res-nospc/result.json")" failed "ENOSPC flag"
rm -f "$t/filler"
[ -z "$(ls -A "$t")" ] || fail "files left after ENOSPC: $(ls -A "$t")"
pass_msg "ENOSPC ends the run in $((end - start)) s: $(jq -r "$w.error" "$SB_TMP/res-nospc/result.json")"

# 3. btrfs compress=zstd: what reaches the device.
bdev=$(new_loop btrfs 1G)
mkfs.btrfs -q -f "$bdev" >/dev/null
bm="$SB_TMP/btrfs"
mkdir -p "$bm"
mount -o compress=zstd "$bdev" "$bm"
SB_MOUNTS+=("$bm")
share() { # result phase -> top device write bytes / workload write bytes
	jq -r "$w.extra.devstat[\"$2\"] | ([.devices[] | select(.kind == \"top\") | .write_bytes] | add) / .workload_write_bytes" "$1/result.json"
}
for pct in 0 80; do
	res="$SB_TMP/res-btrfs-$pct"
	expect_exit 0 "$STACKBENCH" bench "$bm" --quick --results "$res" \
		-w "seq,size=128M,chunk=128k,perchar=0,seeks=100,compress=$pct"
	s=$(share "$res" "block write")
	echo "compress=$pct: top device wrote $s x the workload's bytes in block write"
	assert_eq "$(jq -r "$w.extra.compress_pct" "$res/result.json")" "$pct" "compress_pct recorded"
	if [ $pct = 0 ]; then
		awk -v s="$s" 'BEGIN { exit !(s >= 0.95) }' || fail "compress=0: the device wrote only $s x"
	else
		awk -v s="$s" 'BEGIN { exit !(s < 0.5) }' || fail "compress=80: the device wrote $s x"
	fi
done
pass_msg "btrfs compress=zstd: default data reaches the device uncompressed"
