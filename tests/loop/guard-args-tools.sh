#!/bin/bash
# Every argument that reaches a tool is checked (util/freetext.c):
#  1. mkfs words that name host files (mke2fs -z UNDOFILE and -d DIR, xfs
#     -p protofile, btrfs -r DIR), in their joined and = spellings: exit 2
#     with file:line (or the -o argument), no file created, nothing built;
#  2. a hostile fio job file against a loop device the test made and the
#     run did not get: filename=/dev/loopX and an include naming it are
#     exit 2; directory=/tmp/.., a symlink in the mount to a directory
#     outside and one to the device are exit 3 when fio would start; the
#     device's checksum and the outside directory are unchanged; a fair
#     job still runs (from the checked copy);
#  3. bonnie++ -d outside the mount (also joined, and through a symlink):
#     exit 3, nothing written there;
#  4. the same refusal from `run --loop` (exit 3), which tears down.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
need_prog mkfs.xfs
need_prog mkfs.btrfs
cd "$SB_TOP"
sum() { sha256sum <"$1" | cut -d' ' -f1; }
mkdir -p "$STACKBENCH_LOOP_DIR"

# ---- 1. mkfs words naming host files ----
profile() { # FSTYPE MKFS-WORDS
	printf '[devices]\nssd = 1\n[fs]\ntype = %s\nmkfs = %s\n[workloads]\nrun = command:true\n' \
		"$1" "$2" >"$SB_TMP/p.conf"
}
mkdir "$SB_TMP/hostdir"
echo secret >"$SB_TMP/hostdir/file"
for c in "ext4|-z $SB_TMP/undo|writes an undo file" "ext4|-z$SB_TMP/undo|writes an undo file" \
	"ext4|-qz $SB_TMP/undo|writes an undo file" "ext4|-d $SB_TMP/hostdir|a path as an option's value is refused" \
	"ext4|-d hostdir|copies a host directory" "xfs|-p /etc/passwd|reads a prototype file" \
	"xfs|-pfile=/etc/passwd|reads a prototype file" "btrfs|--rootdir=$SB_TMP/hostdir|copies a host directory" \
	"btrfs|-r hostdir|copies a host directory" "xfs|-c options=$SB_TMP/undo|a path as an option's value is refused" "xfs|-c options=undo|reads a configuration file"; do
	IFS='|' read -r t words why <<<"$c"
	profile "$t" "$words"
	expect_exit 2 "$STACKBENCH" plan "$SB_TMP/p.conf" --loop
	assert_contains "$OUT" "$SB_TMP/p.conf" "$t '$words': the profile named"
	assert_contains "$OUT" "$why" "$t '$words': the reason"
	(cd "$SB_TMP" && expect_exit 2 "$STACKBENCH" run single-disk --loop --quick --yes -o "fs.type=$t" \
		-o "fs.mkfs=$words" -o workloads.run=command:true)
	[ ! -e "$SB_TMP/undo" ] || fail "$t '$words': $SB_TMP/undo was created"
done
assert_contains "$OUT" "fs.mkfs" "the key named"
[ -z "$(ls -A "$STACKBENCH_LOOP_DIR")" ] || fail "images made for a refused run"
nothing_left "after the refused mkfs words"
profile ext4 "-z $SB_TMP/undo"
expect_exit 2 "$STACKBENCH" plan "$SB_TMP/p.conf" --loop
assert_contains "$OUT" "$SB_TMP/p.conf:5: " "file:line"
pass_msg "mkfs words naming host files: exit 2 with file:line, no file made"

# ---- 2. fio job files ----
if command -v fio >/dev/null; then
	by=$(new_loop bystander 16M)
	SB_LOOPS+=("$by")
	dd if=/dev/urandom of="$by" bs=1M count=16 status=none
	before=$(sum "$by")
	dio_ext4 fiomnt 256M
	mkdir "$SB_TMP/outside"
	ln -s "$SB_TMP/outside" "$DIO_MNT/link"
	ln -s "$by" "$DIO_MNT/devlink"
	job() { printf '[global]\nioengine=psync\nsize=1m\nbs=64k\nrw=write\n[hostile]\n%s\n' "$@" >"$SB_TMP/job.fio"; }

	job "filename=$by"
	expect_exit 2 "$STACKBENCH" bench "$DIO_MNT" -w "fio:$SB_TMP/job.fio"
	assert_contains "$OUT" "$SB_TMP/job.fio:7: filename=$by names a device" "fio device: file:line"
	printf 'filename=%s\n' "$by" >"$SB_TMP/evil.fio"
	job "include evil.fio"
	expect_exit 2 "$STACKBENCH" bench "$DIO_MNT" -w "fio:$SB_TMP/job.fio"
	assert_contains "$OUT" "$SB_TMP/evil.fio:1: filename=$by names a device" "fio include followed"
	job "filename=\${BYSTANDER}"
	BYSTANDER=$by expect_exit 2 "$STACKBENCH" bench "$DIO_MNT" -w "fio:$SB_TMP/job.fio"
	assert_contains "$OUT" "fio would expand the environment variable" "fio environment variable"
	job "exec_prerun=touch $SB_TMP/outside/ran"
	expect_exit 2 "$STACKBENCH" bench "$DIO_MNT" -w "fio:$SB_TMP/job.fio"
	assert_contains "$OUT" "runs a command" "fio exec_prerun"

	job "directory=/tmp/.." "filename=sbtest-canary-$$"
	expect_exit 3 "$STACKBENCH" bench "$DIO_MNT" -w "fio:$SB_TMP/job.fio"
	assert_contains "$OUT" "leads to /, outside the file system under test" "fio directory=/tmp/.."
	[ ! -e "/sbtest-canary-$$" ] || { rm -f "/sbtest-canary-$$"; fail "fio wrote /sbtest-canary-$$"; }
	job "directory=$DIO_MNT/link"
	expect_exit 3 "$STACKBENCH" bench "$DIO_MNT" -w "fio:$SB_TMP/job.fio"
	assert_contains "$OUT" "leads to $SB_TMP/outside" "fio symlink to a directory outside"
	job "filename=../link/f"
	expect_exit 3 "$STACKBENCH" bench "$DIO_MNT" -w "fio:$SB_TMP/job.fio"
	assert_contains "$OUT" "leads to $SB_TMP/outside/f" "fio relative name through the symlink"
	# a symlink to the device: seen when the spec is checked (exit 2), or
	# (relative, so not resolvable then) when fio would start (exit 3)
	job "filename=$DIO_MNT/devlink"
	expect_exit 2 "$STACKBENCH" bench "$DIO_MNT" -w "fio:$SB_TMP/job.fio"
	assert_contains "$OUT" "filename=$DIO_MNT/devlink names a device" "fio symlink to the device"
	job "filename=../devlink"
	expect_exit 3 "$STACKBENCH" bench "$DIO_MNT" -w "fio:$SB_TMP/job.fio"
	assert_contains "$OUT" "'../devlink' leads to $by" "fio relative symlink to the device"
	# another file system mounted inside the directory: not the one under test
	mkdir "$DIO_MNT/other"
	mount -t tmpfs -o size=4m sbtest "$DIO_MNT/other"
	SB_MOUNTS+=("$DIO_MNT/other")
	job "directory=$DIO_MNT/other"
	expect_exit 3 "$STACKBENCH" bench "$DIO_MNT" -w "fio:$SB_TMP/job.fio"
	assert_contains "$OUT" "on another file system mounted inside" "fio into a mount inside"
	[ -z "$(ls -A "$DIO_MNT/other")" ] || fail "fio wrote into the inner mount"
	umount "$DIO_MNT/other"
	[ -z "$(ls -A "$SB_TMP/outside")" ] || fail "fio wrote outside: $(ls -A "$SB_TMP/outside")"
	assert_eq "$(sum "$by")" "$before" "the bystander device is unchanged"

	job "filename=data" "write_bw_log=bw"
	expect_exit 0 "$STACKBENCH" bench "$DIO_MNT" --results "$SB_TMP/fair" -w "fio:$SB_TMP/job.fio"
	assert_eq "$(sum "$by")" "$before" "the bystander device is unchanged"
	pass_msg "fio: device and include exit 2, directory=/tmp/.. and symlinks out exit 3, bystander unchanged"
else
	echo "fio not installed: its part left out"
fi

# ---- 3. bonnie++ ----
if command -v bonnie++ >/dev/null; then
	[ -n "${DIO_MNT:-}" ] || { dio_ext4 bonmnt 256M; mkdir -p "$SB_TMP/outside"; ln -s "$SB_TMP/outside" "$DIO_MNT/link"; }
	for a in "-d $SB_TMP/outside" "-d$SB_TMP/outside" "-d $DIO_MNT/link" "-d ../../.."; do
		expect_exit 3 "$STACKBENCH" bench "$DIO_MNT" -w "bonnie++:$a -s 16 -r 8 -n 0 -f -b"
		assert_contains "$OUT" "bonnie++: refused:" "bonnie++ '$a'"
		assert_contains "$OUT" "outside the file system under test" "bonnie++ '$a': why"
	done
	[ -z "$(ls -A "$SB_TMP/outside")" ] || fail "bonnie++ wrote outside: $(ls -A "$SB_TMP/outside")"
	expect_exit 2 "$STACKBENCH" bench "$DIO_MNT" -w "bonnie++:-d /dev/sda"
	assert_contains "$OUT" "names a block device" "bonnie++ device"
	pass_msg "bonnie++ -d outside the mount: exit 3 in every spelling, nothing written"
else
	echo "bonnie++ not installed: its part left out"
fi

# (the test's own mount and device are not the run's)
[ -z "${DIO_MNT:-}" ] || umount "$DIO_MNT"
[ -z "${by:-}" ] || losetup -d "$by"

# ---- 4. run --loop: refused when the workload starts, torn down ----
if command -v fio >/dev/null; then
	printf '[a]\nioengine=psync\nsize=1m\nrw=write\ndirectory=/tmp/..\n' >"$SB_TMP/job.fio"
	expect_exit 3 "$STACKBENCH" run single-disk --loop --quick --yes -o fs.type=ext4 \
		-o "workloads.run=fio:$SB_TMP/job.fio" --results "$SB_TMP/res4"
	assert_contains "$OUT" "leads to /, outside the file system under test" "run: the reason"
	nothing_left "after the refused run"
	pass_msg "run --loop with a job file pointing out: exit 3, nothing left"
fi
