#!/bin/bash
# The replications that the host kernel can build (no md, no dm): a mount
# with the md report's 2011 xfs options fails naming the option the kernel
# rejected, and why; btrfs RAID-1 across two partitions against btrfs and xfs
# on one partition, in one run, reported beside the published bonnie++
# figures, whose values are the report's own.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.btrfs
need_prog mkfs.xfs
need_prog jq

# 1. delaylog: the kernel's reason, not only libmount's.
cat >"$SB_TMP/delaylog.conf" <<'CONF'
# xfs with the 2011 report's mount options
[devices]
any = 1
loop.any = 400M
[fs]
type = xfs
[mount]
options = noatime,logbsize=256k,logbufs=8,delaylog
[workloads]
run = command:true
CONF
# (judged before anything is built: a profile error, exit 2)
expect_exit 2 "$STACKBENCH" run "$SB_TMP/delaylog.conf" --loop --yes --results "$SB_TMP/r0"
assert_contains "$OUT" "Unknown parameter 'delaylog'" "the kernel's message"
assert_contains "$OUT" "delaylog: removed from xfs in Linux 4.0" "the removed option named"
[ -z "$(ls -A "$STACKBENCH_STATE_DIR" 2>/dev/null)" ] || fail "state left after the failed mount"

# 2. btrfs raid1 on two partitions vs one partition vs xfs, in one run.
wl=(-o 'workloads.run=seq,size=32M,chunk=64k,seeks=200' -o 'workloads.run=meta,files=1,size=0')
expect_exit 0 "$STACKBENCH" run btrfs-raid1-partitions-vs-xfs --loop --quick --yes \
	--results "$SB_TMP/r1" "${wl[@]}"
n=$(jq '.variants | length' "$SB_TMP/r1/result.json")
assert_eq "$n" 5 "variants of the btrfs replication"
jq -r '.variants[].name' "$SB_TMP/r1/result.json" | grep -q 'fs.type=xfs,fs.on=ssd.p1' ||
	fail "no xfs-on-one-partition variant"
# The RAID-1 variants really span both partitions: the devstat of the top
# devices shows two members written.
members=$(jq '[.variants[0].repeats[0].workloads[0].extra.devstat["block write"].devices[]? | select(.type == "part" and .write_bytes > 0)] | length' "$SB_TMP/r1/result.json")
[ "$members" -ge 2 ] || fail "btrfs raid1 variant: $members partitions in its device stack, want 2"

# 3. Published beside measured.
pub="$SB_TOP/profiles/published/btrfs-raid1-partitions-vs-xfs.bonnie.csv"
rep=$("$STACKBENCH" report "$pub" "$SB_TMP/r1")
assert_contains "$rep" "2009-btrfs-raid1-2parts" "published column"
assert_contains "$rep" "2009-xfs-1part" "published baseline column"
assert_contains "$rep" "ssd.p1" "measured one-partition column"
js=$("$STACKBENCH" report --format json "$pub")
got=$(jq -r '[.rows[] | select(.metric == "block_write") | .cells[].mean] | map(tostring) | join(" ")' <<<"$js")
assert_contains "$got" "28299" "published block write (btrfs raid1) as in the report"
assert_contains "$got" "62075" "published block write (xfs) as in the report"
for f in "$SB_TOP"/profiles/published/*.result.json "$SB_TOP"/profiles/published/*.csv; do
	"$STACKBENCH" report "$f" >/dev/null || fail "$f: report cannot read it"
done
# 4. FsOpBench's own layout, from the transcription and from a real run.
fob=$("$STACKBENCH" report --format fsopbench "$SB_TOP/profiles/published/fsopbench-disk-vs-lvm-raid6.result.json")
assert_contains "$fob" "D rd 1st byte cnt 15558 min 0.020 ms max 2528.137 ms mean 1.312 ms stdev 21.358" \
	"the report's line D, as published"
assert_contains "$fob" "J write rate 0.200 MB/s (data) 0.199 MB/s (open + 1st byte + data)" "line J"
mkdir -p "$SB_TMP/fob"
expect_exit 0 "$STACKBENCH" bench "$SB_TMP/fob" --quick --results "$SB_TMP/r4" \
	-w mixed:2r1w,files=200,time=1s,maxfile=16k
fob=$("$STACKBENCH" report --format fsopbench "$SB_TMP/r4")
cnt=$(jq -r '.variants[0].repeats[0].workloads[0].latency[] | select(.op == "2 readers + 1 writer: read dir") | .count' "$SB_TMP/r4/result.json")
assert_contains "$fob" "2 readers, 1 writers" "phase header"
grep -q "^A read dir cnt $cnt min" <<<"$(sed -n '/readers, 1 writers/,$p' <<<"$fob")" ||
	fail "line A of the mixed phase does not carry the run's count $cnt: $fob"
for l in A B C D E F G H I J; do grep -q "^$l " <<<"$fob" || fail "no line $l: $fob"; done
pass_msg "delaylog named by the kernel; btrfs raid1 vs one partition vs xfs in one run beside 2009's figures"
