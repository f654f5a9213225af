#!/bin/bash
# Missing programs: with mdadm and mkfs.xfs taken out of PATH, `run` names
# every missing program at once with the Debian package that provides it,
# and touches nothing (no loop device, no state, no backing file).
source "$SB_TOP/tests/lib.sh"
need_loop
for c in run plan; do
	"$STACKBENCH" $c --help >/dev/null 2>&1 || skip "'stackbench $c' not implemented in this build"
done

# A PATH with every program of the usual directories but the ones we hide.
bin=$SB_TMP/bin
mkdir -p "$bin"
for d in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
	[ -d "$d" ] || continue
	for f in "$d"/*; do
		n=${f##*/}
		case $n in mdadm|mkfs.xfs) continue ;; esac
		[ -x "$f" ] && [ ! -e "$bin/$n" ] && ln -s "$f" "$bin/$n"
	done
done
state=$STACKBENCH_STATE_DIR
cd "$SB_TOP"

check_untouched() {
	nothing_left "$1"
	if [ -d "$state" ]; then
		left=$(find "$state" -mindepth 1 | head -5)
		[ -z "$left" ] || fail "$1: state left behind: $left"
	fi
}

# md RAID1 of an SSD and two HDDs with xfs: needs both hidden programs.
rc=0
out=$(PATH=$bin "$STACKBENCH" run md-raid1-ssd-2hdd --loop --quick --yes -o workloads.run=command:true \
	--results "$SB_TMP/res-md" 2>&1) || rc=$?
[ $rc -ne 0 ] || fail "run without mdadm/mkfs.xfs succeeded: $out"
[ $rc -ne 3 ] || fail "missing programs reported as a safety refusal (exit 3): $out"
assert_contains "$out" "mdadm: not found" "md profile without mdadm"
assert_contains "$out" "Debian package mdadm" "md profile: package of mdadm"
assert_contains "$out" "mkfs.xfs: not found" "md profile without mkfs.xfs (reported together)"
assert_contains "$out" "Debian package xfsprogs" "md profile: package of mkfs.xfs"
[ ! -e "$SB_TMP/res-md/result.json" ] || fail "md profile: a result set was written"
check_untouched "md profile"

# A single xfs disk (this kernel can build it): only mkfs.xfs is missing.
rc=0
out=$(PATH=$bin "$STACKBENCH" run single-disk --loop --quick --yes -o "matrix.fs.type=xfs" \
	-o workloads.run=command:true --results "$SB_TMP/res-xfs" 2>&1) || rc=$?
[ $rc -ne 0 ] || fail "run without mkfs.xfs succeeded: $out"
assert_contains "$out" "mkfs.xfs: not found (install the Debian package xfsprogs)" "xfs without mkfs.xfs"
assert_not_contains "$out" "mdadm" "xfs on one disk needs no mdadm"
check_untouched "xfs profile"

after=$(losetup -a | sort)
# Other tests may come and go meanwhile; ours would carry SB_TMP in the path.
! grep -qF "$SB_TMP" <<<"$after" || fail "loop devices of ours appeared"
pass_msg "missing programs named with their packages, exit $rc, nothing touched"
