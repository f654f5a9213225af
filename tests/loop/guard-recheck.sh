#!/bin/bash
# Right before the first write of every variant the devices are probed and
# checked again: a device that changed since it was checked and confirmed
# (here: grown by another program while variant 1 ran) is refused (exit 3)
# before variant 2 writes anything, and everything is torn down.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
cd "$SB_TOP"

dev=$(new_loop dev 64M)
SB_LOOPS+=("$dev")
cat >"$SB_TMP/grow.sh" <<EOS
#!/bin/sh
[ -e "$SB_TMP/grown" ] && exit 0
truncate -s 96M "$SB_TMP/dev.img" && losetup -c "$dev" && touch "$SB_TMP/grown"
EOS
chmod +x "$SB_TMP/grow.sh"
# --rounds: a stack for each variant (variants that differ only in mount
# options would share one stack, built and rechecked once a round).
expect_exit 3 "$STACKBENCH" run single-disk --devices "$dev" --yes --rounds -o fs.type=ext4 \
	-o 'matrix.mount.options=noatime|relatime' -o "workloads.run=command:$SB_TMP/grow.sh" \
	--results "$SB_TMP/res"
[ -e "$SB_TMP/grown" ] || fail "variant 1's workload did not run: $OUT"
assert_contains "$OUT" "$dev: refusing: not the device that was checked and confirmed" "changed device refused"
n=$(grep -c '^\$ mkfs.ext4' "$SB_TMP/res/run.log")
assert_eq "$n" 1 "mkfs ran for variant 1 only"
[ -z "$(blkid -p "$dev" 2>/dev/null)" ] || fail "variant 1 not torn down: $(blkid -p "$dev")"
losetup -d "$dev"
nothing_left "recheck"
[ -z "$(ls -A "$STACKBENCH_STATE_DIR")" ] || fail "state left: $(ls -A "$STACKBENCH_STATE_DIR")"
pass_msg "a device changed between check and write is refused before the next variant writes"
