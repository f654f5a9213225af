# Shared helpers for shell tests (sourced). Each test creates and removes its
# own loop devices and files under a private directory; it never touches a
# device it did not create.
set -euo pipefail

: "${STACKBENCH:=$SB_TOP/build/stackbench}"
SB_TMP=$(mktemp -d "/tmp/${SB_RUN_TAG:-sbtest-manual}-XXXXXX")
export STACKBENCH_STATE_DIR="$SB_TMP/state"
# --loop images under the test's directory too, so that the runner's
# leftover check sees them (a disk file system here, never tmpfs).
export STACKBENCH_LOOP_DIR="$SB_TMP/loops"
SB_LOOPS=()
SB_MOUNTS=()
SB_CLEANUPS=()

sb_cleanup() {
	local rc=$? m l c
	set +e
	for c in "${SB_CLEANUPS[@]}"; do eval "$c" >/dev/null 2>&1; done
	for m in "${SB_MOUNTS[@]}"; do umount -l "$m" 2>/dev/null; done
	for l in "${SB_LOOPS[@]}"; do losetup -d "$l" 2>/dev/null; done
	# new_loop usually runs in $(...), a subshell whose SB_LOOPS is lost: also
	# detach every loop device backed by a file of ours.
	for l in $(losetup -n -O NAME,BACK-FILE 2>/dev/null | awk -v t="$SB_TMP/" 'index($2, t) == 1 {print $1}'); do
		losetup -d "$l" 2>/dev/null
	done
	rm -rf "$SB_TMP"
	exit $rc
}
trap sb_cleanup EXIT

skip() { echo "skipped: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
pass_msg() { echo "ok: $*"; }

need_root() { [ "$(id -u)" -eq 0 ] || skip "needs root"; }
need_loop() {
	need_root
	[ -e /dev/loop-control ] || skip "no /dev/loop-control (loop devices unavailable)"
}
need_prog() { command -v "$1" >/dev/null || skip "$1 not installed"; }

# new_loop NAME SIZE: sparse file under SB_TMP attached as a loop device; prints it
new_loop() {
	local f="$SB_TMP/$1.img" dev
	truncate -s "$2" "$f"
	dev=$(losetup --find --show "$f")
	SB_LOOPS+=("$dev")
	echo "$dev"
}

# dio_ext4 NAME SIZE: ext4 on a loop device attached with direct I/O over a
# sparse file under /var/tmp (a disk file system: never tmpfs, and the host's
# page cache does not serve the device), mounted at $SB_TMP/NAME. Sets
# DIO_DEV and DIO_MNT; everything is undone at exit. Skips the test when
# the kernel gives the loop device no direct I/O.
dio_ext4() {
	local dir=/var/tmp/$SB_RUN_TAG-$1
	mkdir -p "$dir" "$SB_TMP/$1"
	truncate -s "$2" "$dir/disk.img"
	DIO_DEV=$(losetup --find --show --direct-io=on "$dir/disk.img")
	DIO_MNT=$SB_TMP/$1
	SB_CLEANUPS+=("umount -l $DIO_MNT" "losetup -d $DIO_DEV" "rm -rf $dir")
	[ "$(cat "/sys/block/${DIO_DEV#/dev/}/loop/dio")" = 1 ] || skip "loop direct I/O not available here"
	mkfs.ext4 -q -F "$DIO_DEV"
	mount "$DIO_DEV" "$DIO_MNT"
}

# assert_eq GOT WANT MSG
assert_eq() { [ "$1" = "$2" ] || fail "$3: got '$1', want '$2'"; }
assert_contains() { grep -qF -- "$2" <<<"$1" || fail "$3: '$2' not found in: $1"; }
assert_not_contains() { ! grep -qF -- "$2" <<<"$1" || fail "$3: '$2' unexpectedly found"; }

# expect_exit CODE CMD...: runs CMD, fails unless it exits CODE; output in $OUT
expect_exit() {
	local want=$1 rc=0
	shift
	OUT=$("$@" 2>&1) || rc=$?
	[ "$rc" -eq "$want" ] || fail "'$*' exited $rc, want $want; output: $OUT"
}

# nothing_left: no loop devices backed by our files, no mounts of ours, no journal
nothing_left() {
	local what=${1:-}
	! losetup -a | grep -q "$SB_TMP" || fail "$what: loop devices left: $(losetup -a | grep "$SB_TMP")"
	! findmnt -rn -o TARGET,SOURCE | grep -qF "$SB_TMP" || fail "$what: mounts left: $(findmnt -rn -o TARGET,SOURCE | grep -F "$SB_TMP")"
	if [ -d "$STACKBENCH_STATE_DIR" ]; then
		local j
		j=$(find "$STACKBENCH_STATE_DIR" -name 'journal*' 2>/dev/null | head -1)
		[ -z "$j" ] || fail "$what: journal left: $j"
	fi
}
