#!/bin/bash
# kbuild: a kernel build on an ext4 loop device. Spec errors are exit 2; a
# missing tarball and a failing make are clear errors that leave nothing in
# the file system; a stand-in tree with its own Makefile proves the stages
# (untar, config, build, remove) are timed; then the real thing from Debian's
# linux-source with --quick (tinyconfig) and target=init/, skipped with a
# reason when the package is absent (CI: tools/install-deps --with-kbuild).
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
need_prog jq
need_prog make

dev=$(new_loop kbuild 3G)
mkfs.ext4 -q -F "$dev"
mnt="$SB_TMP/mnt"
mkdir -p "$mnt"
mount "$dev" "$mnt"
SB_MOUNTS+=("$mnt")
before=$(ls -A "$mnt")
q() { jq -r ".variants[0].repeats[0].workloads[0] | $2" "$1/result.json"; }
metric() { q "$1" ".metrics[] | select(.name == \"$2\") | .value"; }

# Spec errors: caught before anything runs.
expect_exit 2 "$STACKBENCH" bench "$mnt" -w kbuild:nonsense
assert_contains "$OUT" 'ending in "config"' "bad CONFIG"
expect_exit 2 "$STACKBENCH" bench "$mnt" -w kbuild:defconfig,jobs=0
expect_exit 2 "$STACKBENCH" bench "$mnt" -w 'kbuild:-fconfig'

# No tarball: a failure naming it.
expect_exit 1 "$STACKBENCH" bench "$mnt" --quick -w kbuild,source="$SB_TMP/none.tar.xz" \
	--results "$SB_TMP/r0"
assert_contains "$OUT" "none.tar.xz" "missing source named"
assert_eq "$(ls -A "$mnt")" "$before" "files left after a missing source"

# A stand-in source tree: a Makefile whose targets take a known time.
mk="$SB_TMP/fake/linux-fake"
mkdir -p "$mk"
printf 'tinyconfig:\n\t@echo CONFIG_X=y > .config\nvmlinux:\n\t@sleep 1; head -c 1048576 /dev/urandom > vmlinux\n' >"$mk/Makefile"
tar -C "$SB_TMP/fake" -cJf "$SB_TMP/fake.tar.xz" linux-fake
expect_exit 0 "$STACKBENCH" bench "$mnt" --quick -w kbuild,source="$SB_TMP/fake.tar.xz",jobs=2 \
	--results "$SB_TMP/r1"
for m in untar_wall config_wall build_wall build_user build_sys remove_wall total_wall; do
	[ -n "$(metric "$SB_TMP/r1" $m)" ] || fail "stand-in: metric $m missing"
done
awk -v b="$(metric "$SB_TMP/r1" build_wall)" 'BEGIN { exit !(b >= 1 && b < 30) }' ||
	fail "stand-in: build_wall $(metric "$SB_TMP/r1" build_wall) is not the Makefile's 1 s"
assert_eq "$(q "$SB_TMP/r1" .extra.config)" tinyconfig "quick config"
assert_eq "$(q "$SB_TMP/r1" .extra.jobs)" 2 "jobs recorded"
assert_eq "$(ls -A "$mnt")" "$before" "files left after the stand-in build"

# A make that fails: its last stderr line reaches the user.
printf 'tinyconfig:\n\t@echo "no rule for this tree" >&2; false\n' >"$mk/Makefile"
tar -C "$SB_TMP/fake" -cJf "$SB_TMP/bad.tar.xz" linux-fake
expect_exit 1 "$STACKBENCH" bench "$mnt" --quick -w kbuild,source="$SB_TMP/bad.tar.xz" \
	--results "$SB_TMP/r2"
assert_contains "$OUT" "no rule for this tree" "make's own error shown"
assert_eq "$(ls -A "$mnt")" "$before" "files left after a failed build"

# The real kernel tree, tinyconfig, and of it the target init/: the whole
# tree unpacked, configured and removed, and kbuild's prepare stage (host
# tools, generated headers, asm-offsets) and init/ compiled by the tree's
# own make. vmlinux (the default target) would compile the rest of the
# kernel for nothing more: 8-10 of this test's 11 minutes on 2 busy cores.
src=$(ls /usr/src/linux-source-*.tar.* 2>/dev/null | tail -1 || true)
[ -n "$src" ] || skip "linux-source not installed (tools/install-deps --with-kbuild); stand-in tree passed"
expect_exit 0 "$STACKBENCH" bench "$mnt" --quick -w kbuild,target=init/ --results "$SB_TMP/r3"
for m in untar_wall config_wall build_wall build_user remove_wall total_wall; do
	echo "real tree: $m $(metric "$SB_TMP/r3" $m)"
done
tb=$(q "$SB_TMP/r3" .extra.tree_bytes)
ob=$(q "$SB_TMP/r3" .extra.build_output_bytes)
assert_eq "$(q "$SB_TMP/r3" .extra.target)" init/ "target recorded"
[ "$tb" -gt 500000000 ] || fail "kernel tree only $tb bytes"
[ "$ob" -gt 1000000 ] || fail "tinyconfig init/ build wrote only $ob bytes"
# build_user is the user time of make and all its children (the compilers):
# make alone spends well under 0.1 s; the compile of kbuild's prepare stage
# and init/ spends seconds (4.7 s on CI's 2 busy cores, 9 s on a quiet one).
# Above 1 s says the children were counted; more would be a speed target.
awk -v u="$(metric "$SB_TMP/r3" build_user)" 'BEGIN { exit !(u > 1) }' ||
	fail "build_user $(metric "$SB_TMP/r3" build_user) s: the compilers' time was not counted"
assert_eq "$(ls -A "$mnt")" "$before" "files left after the kernel build"
pass_msg "kbuild: stand-in and real-tree (tinyconfig, init/) builds timed, errors clear, tree removed"
