#!/bin/bash
# A loop device over another block device inherits every refusal of the
# device beneath it: a lower loop device carrying a mounted ext4 (the upper
# attached with and without --offset, and through a symlink), one whose
# partition is mounted, one held O_EXCL by another program, one read-only.
# Probe shows them refused and `run --devices UPPER --wipe --yes` exits 3
# with the lower's reason; the lower devices' bytes do not change. The
# re-check before each variant sees a lower device taken since. A loop
# over a plain file (on a mounted file system, as every --loop run's is)
# stays usable.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
cd "$SB_TOP"
WL=(-o workloads.run=command:true -o fs.type=ext4)
sum() { md5sum <"$1" | cut -d' ' -f1; }

# upper LOWER [losetup options]: a loop device over the block device LOWER;
# detached at exit while it still reads LOWER (before the lower ones).
upper() {
	local lower=$1 dev
	shift
	dev=$(losetup --find --show "$@" "$lower")
	echo "$dev"
}
UPPERS=()
drop_uppers() {
	local u
	for u in "${UPPERS[@]}"; do
		case "$(losetup -n -O BACK-FILE "${u%%=*}" 2>/dev/null)" in
		"${u#*=}") losetup -d "${u%%=*}" ;;
		esac
	done
}
SB_CLEANUPS+=(drop_uppers)

low=$(new_loop low 64M)
SB_LOOPS+=("$low")
mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 "$low"
mkdir "$SB_TMP/mnt"
# read-only, so that the kernel itself does not change the bytes compared
mount -o ro "$low" "$SB_TMP/mnt"
SB_CLEANUPS+=("umount $SB_TMP/mnt")
ln -s "$low" "$SB_TMP/link"
up0=$(upper "$low")
UPPERS+=("$up0=$low")
up1=$(upper "$low" --offset 1M)
UPPERS+=("$up1=$low")
up2=$(upper "$SB_TMP/link")
UPPERS+=("$up2=$low")
[ -z "$(blkid -p -o value -s TYPE "$up1" 2>/dev/null)" ] || fail "the offset loop shows a signature itself"
before=$(sum "$low")

for u in "$up0" "$up1" "$up2"; do
	expect_exit 0 "$STACKBENCH" probe "$u"
	assert_contains "$OUT" "its backing device ${low#/dev/}: mounted on $SB_TMP/mnt" "probe $u"
	v=$("$STACKBENCH" probe --json "$u" | jq -r '.devices[0] | "\(.verdict) \(.backing_device.major):\(.backing_device.minor)"')
	assert_eq "$v" "refused $(cat "/sys/block/${low#/dev/}/dev")" "probe --json $u"
	expect_exit 3 "$STACKBENCH" run single-disk --devices "$u" --wipe --yes "${WL[@]}" --results "$SB_TMP/r"
	assert_contains "$OUT" "$u: refusing: its backing device ${low#/dev/}: mounted on $SB_TMP/mnt" "run $u"
	# --wipe lifts the signature reason only, the inherited one too
	assert_not_contains "$OUT" "carries signatures" "run $u --wipe"
done
# Without --wipe, the offset loop carries the lower's signature (at the
# lower's offset 0, which the loop does not show).
expect_exit 3 "$STACKBENCH" run single-disk --devices "$up1" --yes "${WL[@]}" --results "$SB_TMP/r"
assert_contains "$OUT" "$up1: refusing: its backing device ${low#/dev/}: carries signatures: ext4" "offset loop: the lower's signature"
# Both names at once: one disk.
expect_exit 3 "$STACKBENCH" run single-disk --devices "$up0,$low" --wipe --yes "${WL[@]}"
assert_contains "$OUT" "$low: refusing: named twice in --devices ($up0 is a loop device over the other)" "upper and lower named together"
assert_eq "$(sum "$low")" "$before" "lower device with the mounted ext4 unchanged"
pass_msg "a loop over a loop with a mounted ext4 (offset 0, offset 1M, via a symlink) is refused, --wipe or not"

# A partition of the lower device mounted.
disk=$(new_loop disk 64M)
SB_LOOPS+=("$disk")
sfdisk -q "$disk" <<<$'label: gpt\n,24M\n,24M\n' >/dev/null
partx -a "$disk" 2>/dev/null || partx -u "$disk"
# dropped before the detach, or the kernel keeps their nodes in /dev
SB_CLEANUPS+=("partx -d $disk")
p="${disk}p1"
for _ in $(seq 20); do [ -b "$p" ] && break; sleep 0.1; done
if [ ! -b "$p" ]; then
	mm=$(cat "/sys/class/block/${disk#/dev/}p1/dev" 2>/dev/null) || skip "no partitions of $disk appear"
	mknod "$p" b "${mm%%:*}" "${mm##*:}"
	SB_CLEANUPS+=("rm -f $p")
fi
mkfs.ext4 -q "$p"
mkdir "$SB_TMP/pmnt"
mount -o ro "$p" "$SB_TMP/pmnt"
SB_CLEANUPS+=("umount $SB_TMP/pmnt")
upd=$(upper "$disk")
UPPERS+=("$upd=$disk")
before=$(sum "$disk")
expect_exit 3 "$STACKBENCH" run single-disk --devices "$upd" --wipe --yes "${WL[@]}" --results "$SB_TMP/r"
assert_contains "$OUT" "$upd: refusing: its backing device ${disk#/dev/}: partitions in use: ${disk#/dev/}p1" "a partition beneath mounted"
umount "$SB_TMP/pmnt"
assert_eq "$(sum "$disk")" "$before" "lower device with the mounted partition unchanged"
pass_msg "a loop over a disk whose partition is mounted is refused"

# Held O_EXCL by another program: the claim does not show through the loop.
held=$(new_loop held 32M)
SB_LOOPS+=("$held")
up3=$(upper "$held")
UPPERS+=("$up3=$held")
before=$(sum "$held")
hold_excl "$held"
expect_exit 3 "$STACKBENCH" run single-disk --devices "$up3" --wipe --yes "${WL[@]}" --results "$SB_TMP/r"
assert_contains "$OUT" "$up3: refusing: its backing device $held: it is held open exclusively by pid $HOLDER (python3)" "O_EXCL beneath"
expect_exit 0 "$STACKBENCH" plan single-disk --devices "$up3" "${WL[@]}"
assert_contains "$OUT" "run would refuse it: its backing device $held: it is held open exclusively" "plan warns"
kill "$HOLDER"
wait "$HOLDER" 2>/dev/null || true
assert_eq "$(sum "$held")" "$before" "O_EXCL-held lower device unchanged"
pass_msg "a loop over a device held O_EXCL by another program is refused"

# Read-only beneath (set after the attach: the upper itself is writable).
ro=$(new_loop ro 32M)
SB_LOOPS+=("$ro")
up4=$(upper "$ro")
UPPERS+=("$up4=$ro")
blockdev --setro "$ro"
SB_CLEANUPS+=("blockdev --setrw $ro")
assert_eq "$(cat "/sys/block/${up4#/dev/}/ro")" 0 "the upper is writable itself"
before=$(sum "$ro")
expect_exit 0 "$STACKBENCH" probe "$up4"
assert_contains "$OUT" "refused: its backing device ${ro#/dev/}: read-only" "probe read-only beneath"
expect_exit 3 "$STACKBENCH" run single-disk --devices "$up4" --wipe --yes "${WL[@]}" --results "$SB_TMP/r"
assert_contains "$OUT" "$up4: refusing: its backing device ${ro#/dev/}: read-only" "run read-only beneath"
assert_eq "$(sum "$ro")" "$before" "read-only lower device unchanged"
pass_msg "a loop over a read-only device is refused"

# A loop over a plain file inherits nothing of the file system holding it.
plain=$(new_loop plain 32M)
SB_LOOPS+=("$plain")
expect_exit 0 "$STACKBENCH" probe "$plain"
assert_contains "$OUT" "usable" "a loop over a file"
[ -z "$(ls -A "$STACKBENCH_STATE_DIR" 2>/dev/null)" ] || fail "refused runs created state"
[ ! -e "$SB_TMP/r/result.json" ] || fail "a refused run wrote results"
pass_msg "a loop over a file stays usable"

# The re-check before each variant sees beneath too: variant 1's workload
# has another program take the lower device O_EXCL; variant 2 is refused
# before it writes anything.
low2=$(new_loop low2 64M)
SB_LOOPS+=("$low2")
up5=$(upper "$low2")
UPPERS+=("$up5=$low2")
cat >"$SB_TMP/hold.sh" <<EOS
#!/bin/sh
[ -e "$SB_TMP/holding" ] && exit 0
cd /
/usr/bin/python3 -c 'import os, time; os.open("$low2", os.O_RDONLY | os.O_EXCL); open("$SB_TMP/holding", "w").write(str(os.getpid())); time.sleep(120)' >/dev/null 2>&1 &
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do [ -s "$SB_TMP/holding" ] && exit 0; sleep 0.1; done
exit 1
EOS
chmod +x "$SB_TMP/hold.sh"
SB_CLEANUPS+=('[ -s "$SB_TMP/holding" ] && kill "$(cat "$SB_TMP/holding")"')
expect_exit 3 "$STACKBENCH" run single-disk --devices "$up5" --yes -o fs.type=ext4 \
	--rounds -o 'matrix.mount.options=noatime|relatime' -o "workloads.run=command:$SB_TMP/hold.sh" \
	--results "$SB_TMP/rr"
[ -s "$SB_TMP/holding" ] || fail "variant 1's workload did not take the lower device: $OUT"
assert_contains "$OUT" "$up5: refusing: its backing device $low2: it is held open exclusively by pid $(cat "$SB_TMP/holding") (python3)" "re-check beneath"
assert_eq "$(grep -c '^\$ mkfs.ext4' "$SB_TMP/rr/run.log")" 1 "mkfs ran for variant 1 only"
kill "$(cat "$SB_TMP/holding")"
[ -z "$(ls -A "$STACKBENCH_STATE_DIR")" ] || fail "state left: $(ls -A "$STACKBENCH_STATE_DIR")"
pass_msg "the re-check before a variant sees a lower device taken since"
