#!/bin/bash
# No unchecked device through free text: every fs.mkfs form that names a
# device, and mount options that do, are exit 2 from `plan` (and `run`)
# with file:line, before anything is touched; harmless words still pass.
. "$SB_TOP/tests/lib.sh"
need_loop
cd "$SB_TOP"
sum() { md5sum <"$1" | cut -d' ' -f1; }

victim=$(new_loop victim 64M)
SB_LOOPS+=("$victim")
before=$(sum "$victim")
ln -s "$victim" "$SB_TMP/innocent"
(cd /dev && ln -s "${victim#/dev/}" "$SB_TMP/rel") 2>/dev/null || true

# profile FSTYPE SECTION-LINE...: a profile file with the lines given
profile() {
	local fstype=$1
	shift
	{
		echo "[devices]"
		echo "ssd = 1"
		echo "[fs]"
		echo "type = $fstype"
		printf '%s\n' "$@"
		echo "[workloads]"
		echo "run = command:true"
	} >"$SB_TMP/p.conf"
}

refused() { # FSTYPE LINE WANT [LINENO]: plan exits 2 naming file:line
	profile "$1" "$2"
	expect_exit 2 "$STACKBENCH" plan "$SB_TMP/p.conf" --loop
	assert_contains "$OUT" "$SB_TMP/p.conf:${4:-5}: " "$2: file:line"
	assert_contains "$OUT" "$3" "$2: reason"
}
refused btrfs "mkfs = $victim" "'$victim' names a block device"
refused btrfs "mkfs = -f $victim" "names a block device"
refused btrfs "mkfs = -n 4k $SB_TMP/innocent" "'$SB_TMP/innocent' names a block device"
refused btrfs "mkfs = -n 4k $SB_TMP/some-file" "'$SB_TMP/some-file' is a positional argument"
refused xfs "mkfs = -l logdev=$victim,size=10m" "'logdev=' names another device"
refused xfs "mkfs = -r rtdev=$victim" "'rtdev=' names another device"
refused xfs "mkfs = -d name=$SB_TMP/innocent" "'name=' names another device"
refused ext4 "mkfs = -J device=$victim" "'device=' names another device"
refused ext4 "mkfs = -J device=UUID=1234" "'device=' names another device"
refused ext4 "mkfs = -O journal_dev" "'journal_dev' makes an external journal device"
refused ext4 "mkfs = -O ^has_journal,journal_dev" "'journal_dev'"
refused xfs "mkfs = -llogdev=$victim" "names another device"
refused xfs "$(printf 'mkfs = -f\n[mount]\noptions = noatime,logdev=%s' "$victim")" "'logdev=' names another device" 7
refused btrfs "$(printf '[mount]\noptions = device=%s' "$victim")" "'device=' names another device" 6
pass_msg "every fs.mkfs form naming a device is exit 2 from plan with file:line"

# The same through -o, from run too (refused before any check or write).
expect_exit 2 "$STACKBENCH" run single-disk --loop --yes -o fs.type=btrfs -o "fs.mkfs=$victim" -o workloads.run=command:true
assert_contains "$OUT" "fs.mkfs: '$victim' names a block device" "-o from run"
expect_exit 2 "$STACKBENCH" plan single-disk --loop -o fs.type=btrfs -o "matrix.fs.mkfs=-n 4k|-f $victim"
assert_contains "$OUT" "names a block device" "matrix value"
[ -z "$(ls -A "$STACKBENCH_STATE_DIR" 2>/dev/null)" ] || fail "a refused run created state"
pass_msg "-o and matrix values are checked the same way"

# Words that name no device still pass.
profile btrfs "mkfs = -n 4k -s 4096 -L bench --csum xxhash" "[mount]" "options = noatime,compress=zstd"
expect_exit 0 "$STACKBENCH" plan "$SB_TMP/p.conf" --loop
profile ext4 "mkfs = -i 8192 -m 0 -E lazy_itable_init=0 -O ^has_journal"
expect_exit 0 "$STACKBENCH" plan "$SB_TMP/p.conf" --loop
profile xfs "mkfs = -f -i size=512 -l size=64m,lazy-count=1 -d agcount=4"
expect_exit 0 "$STACKBENCH" plan "$SB_TMP/p.conf" --loop
assert_eq "$(sum "$victim")" "$before" "the named device is unchanged"
pass_msg "ordinary mkfs words and mount options pass"
