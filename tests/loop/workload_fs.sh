#!/bin/bash
# Each built-in workload on a private tmpfs and on an ext4 loop device: op
# counts as asked, content verified on read-back, rewrite changed the data
# (reads after it verify the new generation), everything created removed.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
need_prog jq

mnt_tmpfs="$SB_TMP/tmpfs"
mkdir -p "$mnt_tmpfs"
mount -t tmpfs -o size=256m sbtest "$mnt_tmpfs"
SB_MOUNTS+=("$mnt_tmpfs")

dev=$(new_loop ext4 384M)
mkfs.ext4 -q -F "$dev"
mnt_ext4="$SB_TMP/ext4"
mkdir -p "$mnt_ext4"
mount "$dev" "$mnt_ext4"
SB_MOUNTS+=("$mnt_ext4")
# An empty file system still holds lost+found; only our leftovers count.
before_ext4=$(ls -A "$mnt_ext4")

# jq over the one workload result of a result set
q() { jq -r ".variants[0].repeats[0].workloads[$2] | $3" "$1/result.json"; }
lat_count() { q "$1" "$2" ".latency[] | select(.op == \"$3\") | .count"; }
empty_dir() {
	local left
	left=$(ls -A "$1")
	assert_eq "$left" "$2" "$1: files left after the workloads"
}

run_on() {
	local fs=$1 dir=$2 want_left=$3 res="$SB_TMP/res-$1"
	rm -rf "$res"
	expect_exit 0 "$STACKBENCH" bench "$dir" --quick --results "$res" \
		-w seq,size=16M,chunk=64k,seeks=500,seekers=3 \
		-w meta,files=1,size=4k,minsize=1,dirs=3 \
		-w rand:4k,size=8M,ops=3000,threads=2 \
		-w mixed:2r1w,files=300,time=1s,maxfile=64k \
		-w command:true
	empty_dir "$dir" "$want_left"

	assert_eq "$(jq -r .target.fstype "$res/result.json")" "$fs" "$fs: target file system"
	# seq: 16M in 64k blocks = 256 blocks per pass; 500 seeks. Under
	# --quick each block test repeats whole passes until it has lasted
	# min-time (0.5 s), each pass every block; the rate is over that time
	local op passes secs
	declare -A np
	for op in block_write rewrite block_read; do
		passes=$(q "$res" 0 ".extra.${op}_passes")
		secs=$(q "$res" 0 ".extra.${op}_passes_s")
		[ "$passes" -ge 1 ] || fail "$fs: seq $op passes '$passes'"
		awk -v s="$secs" 'BEGIN { exit !(s >= 0.5) }' ||
			fail "$fs: seq $op lasted $secs s in $passes passes, under min-time 0.5 s"
		assert_eq "$(lat_count "$res" 0 "${op//_/ }")" $((256 * passes)) "$fs: seq $op count"
		np[$op]=$passes
	done
	assert_eq "$(lat_count "$res" 0 seek)" 500 "$fs: seq seeks"
	assert_eq "$(q "$res" 0 .extra.verify_errors)" 0 "$fs: seq verify errors"
	# putc (read back), each rewrite pass (gen 1, then 2), getc and each
	# block read pass (gen 2): 16M each
	assert_eq "$(q "$res" 0 .extra.verified_bytes)" \
		$(((2 + np[rewrite] + np[block_read]) * 16 << 20)) "$fs: seq verified bytes"
	assert_eq "$(q "$res" 0 .extra.rewritten_blocks)" 256 "$fs: seq rewritten blocks"
	for m in putc_write putc_write_cpu block_write block_write_cpu rewrite rewrite_cpu getc_read \
		getc_read_cpu block_read block_read_cpu seeks seeks_cpu; do
		[ -n "$(q "$res" 0 ".metrics[] | select(.name == \"$m\") | .value")" ] ||
			fail "$fs: seq metric $m missing"
	done
	assert_contains "$(q "$res" 0 '.flags | join(",")')" quick "$fs: seq flags"
	assert_contains "$(q "$res" 0 '.flags | join(",")')" cache-affected "$fs: seq flags"

	# meta: 1024 files per test, all checked and gone; the stat
	# passes repeat until the phase has lasted 0.25 s, each one every file
	for op in "seq create" "seq delete" "rand create" "rand delete"; do
		assert_eq "$(lat_count "$res" 1 "$op")" 1024 "$fs: meta $op count"
	done
	for op in seq rand; do
		passes=$(q "$res" 1 ".extra.${op}_stat_passes")
		[ "$passes" -ge 1 ] || fail "$fs: meta $op stat passes '$passes'"
		assert_eq "$(lat_count "$res" 1 "$op stat")" $((1024 * passes)) "$fs: meta $op stat count"
	done
	assert_eq "$(q "$res" 1 .extra.verify_errors)" 0 "$fs: meta verify errors"
	assert_eq "$(q "$res" 1 .extra.files_left)" 0 "$fs: meta files left"

	# rand: 3000 ops each way, reads verified, writes read back
	assert_eq "$(lat_count "$res" 2 "random read")" 3000 "$fs: rand reads"
	assert_eq "$(lat_count "$res" 2 "random write")" 3000 "$fs: rand writes"
	assert_eq "$(q "$res" 2 .extra.verify_errors)" 0 "$fs: rand verify errors"
	local wb
	wb=$(q "$res" 2 .extra.written_blocks)
	[ "$wb" -gt 1000 ] && [ "$wb" -le 2048 ] || fail "$fs: rand written blocks $wb"
	for m in read_mbs read_iops write_mbs write_iops; do
		[ -n "$(q "$res" 2 ".metrics[] | select(.name == \"$m\") | .value")" ] || fail "$fs: rand $m missing"
	done

	# mixed: three phases, all op types seen, content checked (how far the
	# readers get in time= depends on the machine: no count asserted)
	local opens
	opens=$(lat_count "$res" 3 "1 reader: open")
	[ "$opens" -gt 0 ] || fail "$fs: mixed 1 reader opened no file"
	for op in "read dir" lstat "read first byte" "read rest"; do
		[ -n "$(lat_count "$res" 3 "1 reader: $op")" ] || fail "$fs: mixed '1 reader: $op' missing"
	done
	assert_eq "$(q "$res" 3 .extra.files_per_tree)" 150 "$fs: mixed files per tree"
	[ "$(lat_count "$res" 3 "2 readers + 1 writer: create")" -gt 0 ] || fail "$fs: mixed writers created nothing"
	[ "$(lat_count "$res" 3 "2 readers: read dir")" -gt 0 ] || fail "$fs: mixed phase R missing"
	for p in p1 pR pRW; do
		assert_eq "$(q "$res" 3 ".extra.${p}_verify_errors")" 0 "$fs: mixed $p verify errors"
		[ -n "$(q "$res" 3 ".metrics[] | select(.name == \"${p}_read_rate_all_mbs\") | .value")" ] ||
			fail "$fs: mixed ${p}_read_rate_all_mbs missing"
	done
	[ -n "$(q "$res" 3 '.metrics[] | select(.name == "pRW_write_rate_data_mbs") | .value')" ] ||
		fail "$fs: mixed write rate missing"

	# command: wall, user, sys
	assert_eq "$(q "$res" 4 '[.metrics[].name] | join(",")')" wall,user,sys "$fs: command metrics"
}

run_on tmpfs "$mnt_tmpfs" ""
run_on ext4 "$mnt_ext4" "$before_ext4"

# O_DIRECT where the file system has it: no cache-affected flag
res="$SB_TMP/res-direct"
expect_exit 0 "$STACKBENCH" bench "$mnt_ext4" --results "$res" -w rand:4k,size=4M,ops=500,direct=1
assert_eq "$(lat_count "$res" 0 "random read")" 500 "direct reads"
assert_not_contains "$(q "$res" 0 '.flags | join(",")')" cache-affected "direct=1 flags"
empty_dir "$mnt_ext4" "$before_ext4"
# A plain umount (not the lazy one of the exit trap) so the loop device is
# free to go at once.
umount "$mnt_ext4" "$mnt_tmpfs"
SB_MOUNTS=()
losetup -d "$dev"
SB_LOOPS=()
pass_msg "seq, meta, rand, mixed, command on tmpfs and ext4"
