#!/bin/bash
# Exclusive from check to write: a loop device another program holds open
# O_EXCL is refused (exit 3, the holder named) and its bytes do not change;
# a partition whose disk has another partition in use is refused; the same
# backing file attached as two loop devices is refused, given as two
# --devices ("named twice") or as one (its twin named). Devices not handed to stackbench keep their
# checksums.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
cd "$SB_TOP"
WL=(-o workloads.run=command:true -o fs.type=ext4)
sum() { md5sum <"$1" | cut -d' ' -f1; }

held=$(new_loop held 64M)
SB_LOOPS+=("$held")
other=$(new_loop other 64M)
SB_LOOPS+=("$other")
before_h=$(sum "$held") before_o=$(sum "$other")

hold_excl "$held"
holder=$HOLDER

expect_exit 3 "$STACKBENCH" run single-disk --devices "$held" --yes "${WL[@]}" --results "$SB_TMP/r1"
assert_contains "$OUT" "$held: refusing: it is held open exclusively by pid $holder (python3)" "holder named"
# plan says the same, as a warning.
expect_exit 0 "$STACKBENCH" plan single-disk --devices "$held" "${WL[@]}"
assert_contains "$OUT" "run would refuse it: it is held open exclusively by pid $holder" "plan warns"
kill "$holder"; wait "$holder" 2>/dev/null || true
assert_eq "$(sum "$held")" "$before_h" "held device unchanged"
[ -z "$(ls -A "$STACKBENCH_STATE_DIR" 2>/dev/null)" ] || fail "a refused run created state"
pass_msg "a device held open O_EXCL by another program is refused, unchanged"

# The same file behind two loop devices: one disk under two names.
twin=$(losetup --find --show "$SB_TMP/other.img")
SB_LOOPS+=("$twin")
expect_exit 3 "$STACKBENCH" run single-disk --devices "$other,$twin" --yes "${WL[@]}"
assert_contains "$OUT" "$twin: refusing: named twice in --devices ($other is the same backing file)" "twin refused"
expect_exit 3 "$STACKBENCH" run single-disk --devices "$other,$other" --yes "${WL[@]}"
assert_contains "$OUT" "named twice" "same path twice"
# ... and given once, under either name: an exclusive open of one loop
# device does not hold the other, so a mount through the twin would go
# unnoticed.
for d in "$other" "$twin"; do
	[ "$d" = "$other" ] && t=$twin || t=$other
	expect_exit 3 "$STACKBENCH" run single-disk --devices "$d" --yes "${WL[@]}" --results "$SB_TMP/rt${d#/dev/loop}"
	assert_contains "$OUT" "$d: refusing: the same disk is also ${t#/dev/}" "twin named"
done
expect_exit 0 "$STACKBENCH" probe
assert_contains "$OUT" "the same disk is also ${twin#/dev/}" "probe shows the twin"
assert_eq "$(sum "$other")" "$before_o" "twin device unchanged"
pass_msg "one backing file behind two loop devices is refused, named twice or once"

# A partition of a disk whose other partition is mounted: refused.
disk=$(new_loop disk 128M)
SB_LOOPS+=("$disk")
sfdisk -q "$disk" <<<$'label: gpt\n,48M\n,48M\n' >/dev/null
partx -a "$disk" 2>/dev/null || partx -u "$disk"
# Dropped before the detach, or the kernel keeps their nodes in /dev.
SB_CLEANUPS+=("partx -d $disk")
for n in 1 2; do
	p="${disk}p$n"
	for _ in $(seq 20); do [ -b "$p" ] && break; sleep 0.1; done
	if [ ! -b "$p" ]; then
		mm=$(cat "/sys/class/block/${disk#/dev/}p$n/dev" 2>/dev/null) || skip "no partitions of $disk appear"
		mknod "$p" b "${mm%%:*}" "${mm##*:}"
		SB_CLEANUPS+=("rm -f $p")
	fi
done
mkfs.ext4 -q "${disk}p1"
mkdir "$SB_TMP/mnt"
mount -o ro "${disk}p1" "$SB_TMP/mnt"
SB_CLEANUPS+=("umount $SB_TMP/mnt")
before_d=$(sum "$disk")
expect_exit 3 "$STACKBENCH" run single-disk --devices "${disk}p2" --yes "${WL[@]}"
assert_contains "$OUT" "${disk}p2: refusing: its disk ${disk#/dev/} has partitions in use: ${disk#/dev/}p1" "partition inherits"
umount "$SB_TMP/mnt"
assert_eq "$(sum "$disk")" "$before_d" "partitioned disk unchanged"
pass_msg "a partition inherits the refusal of its disk"
