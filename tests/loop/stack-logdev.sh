#!/bin/bash
# fs.log = ROLE: the shipped xfs-hdd-log-ssd profile with its log on a second
# loop device, xfs and ext4, end to end. While the stack exists the
# workload checks that the file system really uses the external log
# (mountinfo's logdev= and xfs_info for xfs; the journal UUID and device in
# the ext4 superblock); afterwards both devices carry no signature (wipefs
# -n empty), also after a failure at each step, and a device not given to
# stackbench keeps its checksum. A log device another program holds open
# O_EXCL is refused and unchanged; a log role that the data stack would
# also use, btrfs with a log, and a log named through mkfs words are
# profile errors (exit 2, file:line). After a kill -9, a log device
# replaced by another image under the same name is left alone by
# `teardown --all` (its identity is in the journal).
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.xfs
need_prog mkfs.ext4
need_prog xfs_info
need_prog dumpe2fs
cd "$SB_TOP"
sum() { md5sum <"$1" | cut -d' ' -f1; }
sigs() { wipefs -n "$1" 2>/dev/null | tail -n +2; }

hdd=$(new_loop hdd 512M)
SB_LOOPS+=("$hdd")
ssd=$(new_loop ssd 320M)
SB_LOOPS+=("$ssd")
echo 1 >"/sys/block/${hdd#/dev/}/queue/rotational"
echo 0 >"/sys/block/${ssd#/dev/}/queue/rotational"
# A bystander with a file system and data: never given to stackbench.
by=$(new_loop bystander 64M)
SB_LOOPS+=("$by")
mkfs.ext4 -q -F "$by"
by_sum=$(sum "$by")

# The workload: which log the mounted file system uses.
cat >"$SB_TMP/check.sh" <<'EOS'
#!/bin/sh
set -e
src=$(findmnt -n -o SOURCE --target .)
fstype=$(findmnt -n -o FSTYPE --target .)
opts=$(findmnt -n -o OPTIONS --target .)
case $fstype in
xfs)
	log=$(xfs_info . | sed -n 's/^log *=\([^ ]*\).*/\1/p')
	echo "xfs $src opts-logdev=$(echo "$opts" | tr ',' '\n' | sed -n 's/^logdev=//p') info-log=$log" >>"$LOG"
	;;
ext4)
	juuid=$(dumpe2fs -h "$src" 2>/dev/null | sed -n 's/^Journal UUID:[[:space:]]*//p')
	jdev=$(dumpe2fs -h "$src" 2>/dev/null | sed -n 's/^Journal device:[[:space:]]*//p')
	echo "ext4 $src journal-uuid=$juuid journal-dev=$jdev" >>"$LOG"
	;;
esac
EOS
chmod +x "$SB_TMP/check.sh"
export LOG="$SB_TMP/seen.log"
WL=(-o "workloads.run=command:$SB_TMP/check.sh")

state_empty() {
	# (nothing_left would count this test's own devices: look at what runs make)
	! findmnt -rn -o TARGET | grep -F "$STACKBENCH_STATE_DIR" >/dev/null || fail "$1: mount left"
	! losetup -a | grep -F "$STACKBENCH_LOOP_DIR" >/dev/null || fail "$1: loop device left: $(losetup -a | grep -F "$STACKBENCH_LOOP_DIR")"
	[ -z "$(ls -A "$STACKBENCH_STATE_DIR" 2>/dev/null)" ] || fail "$1: state left: $(ls -A "$STACKBENCH_STATE_DIR")"
	[ -z "$(sigs "$hdd")" ] || fail "$1: signature left on the data device: $(sigs "$hdd")"
	[ -z "$(sigs "$ssd")" ] || fail "$1: signature left on the log device: $(sigs "$ssd")"
	assert_eq "$(sum "$by")" "$by_sum" "$1: bystander checksum"
}

# The plan names the log device in mkfs and mount.
expect_exit 0 "$STACKBENCH" plan xfs-hdd-log-ssd --devices "$hdd,$ssd" -o matrix.fs.log=ssd "${WL[@]}"
assert_contains "$OUT" "mkfs.xfs -f -l logdev=$ssd $hdd" "xfs plan"
assert_contains "$OUT" "mount -t xfs -o logdev=$ssd,noatime $hdd" "xfs mount plan"
assert_contains "$OUT" "mkfs.ext4 -F -q -O journal_dev -b 4096 -U \${log_uuid} $ssd; mkfs.ext4 -F -q -J device=UUID=\${log_uuid}" "ext4 plan"
assert_contains "$OUT" "wipefs -a $hdd $ssd" "undo wipes both"

# xfs and ext4, each with the log on the SSD.
: >"$LOG"
expect_exit 0 "$STACKBENCH" run xfs-hdd-log-ssd --devices "$hdd,$ssd" --yes -o matrix.fs.log=ssd \
	"${WL[@]}" --results "$SB_TMP/res"
seen=$(cat "$LOG")
assert_contains "$seen" "xfs $hdd opts-logdev=$ssd info-log=$ssd" "xfs uses the external log"
jdev=$(printf '0x%04x' $(( $(stat -c '0x%t' "$ssd") * 256 + $(stat -c '0x%T' "$ssd") )))
grep -q "^ext4 $hdd journal-uuid=[0-9a-f-]\{36\} journal-dev=$jdev\$" <<<"$seen" ||
	fail "ext4 does not use the journal device $ssd ($jdev): $seen"
uuid=$(sed -n 's/.*journal-uuid=\([^ ]*\).*/\1/p' <<<"$seen")
grep -q "journal_dev -b 4096 -U $uuid $ssd" "$SB_TMP/res/run.log" || fail "run.log lacks the journal device's mkfs with $uuid"
state_empty "xfs and ext4 with fs.log"
pass_msg "xfs (logdev=) and ext4 (journal_dev, by UUID) with the log on a second device; both wiped after"

# A failure at each step of each variant leaves both devices clean.
for fs in xfs ext4; do
	n=$("$STACKBENCH" plan xfs-hdd-log-ssd --devices "$hdd,$ssd" -o fs.log=ssd -o "matrix.fs.type=$fs" \
		"${WL[@]}" | grep -cE '^ +[0-9]+  ')
	[ "$n" -ge 2 ] || fail "$fs: plan has $n steps"
	for i in $(seq 1 "$n"); do
		STACKBENCH_FAIL_STEP=$i expect_exit 1 "$STACKBENCH" run xfs-hdd-log-ssd --devices "$hdd,$ssd" --yes \
			-o fs.log=ssd -o "matrix.fs.type=$fs" "${WL[@]}" --results "$SB_TMP/res-$fs-$i"
		assert_contains "$OUT" "STACKBENCH_FAIL_STEP=$i" "$fs step $i: reason"
		state_empty "$fs step $i"
	done
done
pass_msg "a failure at every step leaves no signature on the data or the log device"

# --loop: the log is a loop device of its own, removed after.
: >"$LOG"
expect_exit 0 "$STACKBENCH" run xfs-hdd-log-ssd --loop --quick -o fs.log=ssd -o matrix.fs.type=xfs \
	"${WL[@]}" --results "$SB_TMP/res-loop"
grep -q '^xfs /dev/loop[0-9]* opts-logdev=/dev/loop[0-9]* info-log=/dev/loop' "$LOG" || fail "--loop: $(cat "$LOG")"
state_empty "--loop"
[ -z "$(ls -A "$STACKBENCH_LOOP_DIR" 2>/dev/null)" ] || fail "--loop: images left: $(ls -A "$STACKBENCH_LOOP_DIR")"
pass_msg "--loop builds the log device like the others and removes it"

# The log device held open O_EXCL by another program: refused, nothing written.
hdd_sum=$(sum "$hdd") ssd_sum=$(sum "$ssd")
hold_excl "$ssd"
holder=$HOLDER
expect_exit 3 "$STACKBENCH" run xfs-hdd-log-ssd --devices "$hdd,$ssd" --yes -o fs.log=ssd \
	-o matrix.fs.type=xfs "${WL[@]}" --results "$SB_TMP/res-held"
assert_contains "$OUT" "$ssd: refusing: it is held open exclusively by pid $holder" "holder named"
kill "$holder"; wait "$holder" 2>/dev/null || true
assert_eq "$(sum "$ssd")" "$ssd_sum" "held log device unchanged"
assert_eq "$(sum "$hdd")" "$hdd_sum" "data device unchanged"
state_empty "held log device"
pass_msg "a log device held open O_EXCL by another program is refused, nothing written"

# Profile errors: exit 2 from plan, naming the file and line.
cat >"$SB_TMP/shared.conf" <<'EOF'
[devices]
hdd = 1
ssd = 1
[fs]
type = xfs
log = ssd
[workloads]
run = command:true
EOF
expect_exit 2 "$STACKBENCH" plan "$SB_TMP/shared.conf" --loop
assert_contains "$OUT" "$SB_TMP/shared.conf:6: fs.log: the ssd device would also be in the data stack (fs.on = all)" "log role in the data stack"
expect_exit 2 "$STACKBENCH" plan "$SB_TMP/shared.conf" --loop -o fs.on=hdd -o fs.type=btrfs
assert_contains "$OUT" "fs.log: btrfs has no external log" "btrfs"
expect_exit 2 "$STACKBENCH" plan "$SB_TMP/shared.conf" --loop -o fs.on=hdd -o fs.type=ext2
assert_contains "$OUT" "fs.log: ext2 has no journal" "ext2"
# The free-text ban stays: a log device through mkfs words is refused.
expect_exit 2 "$STACKBENCH" plan xfs-hdd-log-ssd --devices "$hdd,$ssd" -o "fs.mkfs=-l logdev=$ssd"
assert_contains "$OUT" "'logdev=' names another device" "mkfs words"
assert_contains "$OUT" "fs.log = ROLE" "the message points at fs.log"
pass_msg "log role shared with the data stack, btrfs, ext2 and mkfs words naming a log are exit 2"

# The log device's identity is journaled and checked by undo: a run killed
# with -9, its log device replaced by another image under the same name,
# then `teardown --all` leaves that image alone (and the data device with
# it: the step is undone whole or not at all), keeps the journal, exit 1.
"$STACKBENCH" run xfs-hdd-log-ssd --devices "$hdd,$ssd" --yes -o fs.log=ssd -o matrix.fs.type=xfs \
	-o "workloads.run=command:sleep 60" --results "$SB_TMP/res-kill" -q >/dev/null 2>&1 &
kill_mid_run $!
# (the other image made first: the number is free only while losetup
# attaches it again, engine-identity.sh)
truncate -s 320M "$SB_TMP/other.img"
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$SB_TMP/other.img"
losetup -d "$ssd"
for _ in $(seq 20); do losetup "$ssd" "$SB_TMP/other.img" 2>/dev/null && break; sleep 0.1; done
[ "$(losetup -n -O BACK-FILE "$ssd")" = "$SB_TMP/other.img" ] || fail "could not attach the other image at $ssd"
other_sum=$(sum "$ssd")
expect_exit 1 "$STACKBENCH" teardown --all
assert_contains "$OUT" "$ssd: not ours: backing file inode" "teardown says the log device differs"
assert_contains "$OUT" "left alone" "teardown leaves it alone"
ls "$STACKBENCH_STATE_DIR"/*/journal >/dev/null 2>&1 || fail "journal removed after a mismatch"
assert_eq "$(sum "$ssd")" "$other_sum" "replaced log device unchanged"
losetup -d "$ssd"
rm -rf "${STACKBENCH_STATE_DIR:?}"/*
pass_msg "a replaced log device is left alone by teardown, journal kept, exit 1"
assert_eq "$(sum "$by")" "$by_sum" "bystander checksum at the end"
