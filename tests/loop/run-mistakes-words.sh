#!/bin/bash
# Mistakes in the free text are found before the first variant is built:
# a matrix whose third variant mistypes a mount option (relatme) fails in
# seconds with exit 2, naming the profile line, the variant and the
# kernel's words, with no loop device ever attached, no journal, no
# results; the same for mkfs words (mke2fs -n) and for a device too small
# for xfs (mkfs.xfs -N), whose whole reason is shown, not its last line.
# plan says what it checked, and what it could not (not root).
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.xfs
need_prog mkfs.ext4

prof=$SB_TMP/words.conf
cat >"$prof" <<'CONF'
[devices]
ssd = 1
[fs]
type = xfs
[matrix]
mount.options = noatime | logbufs=8,noatime | relatme
[workloads]
run = command:true
CONF
chmod 644 "$prof"
start=$(date +%s)
expect_exit 2 "$STACKBENCH" run "$prof" --loop --quick --yes --results "$SB_TMP/res"
took=$(($(date +%s) - start))
[ "$took" -le 10 ] || fail "the check took $took s"
assert_contains "$OUT" "$prof:6: variant 3 (mount.options=relatme): mount option 'relatme' rejected by the kernel (xfs: Unknown parameter 'relatme')" "run's error"
assert_not_contains "$OUT" "variant 1/3" "a variant started"
[ ! -e "$SB_TMP/res" ] || fail "results written: $(ls -A "$SB_TMP/res")"
[ ! -d "$STACKBENCH_LOOP_DIR" ] || [ -z "$(ls -A "$STACKBENCH_LOOP_DIR")" ] ||
	fail "loop images made: $(ls -A "$STACKBENCH_LOOP_DIR")"
! losetup -a | grep -F "$SB_TMP" >/dev/null || fail "a loop device was attached"
[ -z "$(find "$STACKBENCH_STATE_DIR" -mindepth 1 2>/dev/null)" ] ||
	fail "state written: $(find "$STACKBENCH_STATE_DIR" -mindepth 1)"
nothing_left "relatme"

# plan: the same verdict, and what the two good variants were checked by.
expect_exit 2 "$STACKBENCH" plan "$prof" --loop --quick
assert_contains "$OUT" "mount option 'relatme' rejected by the kernel" "plan's error"
assert_contains "$OUT" "variant 2: mount options 'logbufs=8,noatime' accepted (xfs's own by the kernel" "plan's note"
assert_contains "$OUT" "variant 1: mkfs words checked by mkfs.xfs's dry run (-N)" "plan's mkfs note"
# Not root: said, not claimed.
sed -i 's/| relatme//' "$prof"
if command -v setpriv >/dev/null; then
	cp "$prof" /var/tmp/"${SB_RUN_TAG:-sbtest-manual}"-words.conf
	pub=/var/tmp/${SB_RUN_TAG:-sbtest-manual}-words.conf
	SB_CLEANUPS+=("rm -f $pub")
	chmod 644 "$pub"
	out=$(cd / && setpriv --reuid=65534 --regid=65534 --clear-groups "$STACKBENCH" plan "$pub" --loop --quick 2>&1) ||
		fail "plan as nobody: $out"
	assert_contains "$out" "NOT checked: the kernel judges them only for root" "plan as nobody"
fi
expect_exit 0 "$STACKBENCH" plan "$prof" --loop --quick

# mkfs words: mke2fs's dry run names the bad feature.
expect_exit 2 "$STACKBENCH" run single-disk --loop --quick --yes --results "$SB_TMP/res" \
	-o fs.type=ext4 -o 'fs.mkfs=-O bogusfeat' -o workloads.run=command:true
assert_contains "$OUT" "mkfs.ext4 refuses the words '-O bogusfeat" "ext4 words"
assert_contains "$OUT" "Invalid filesystem option set: bogusfeat" "mke2fs's reason"
# xfs below 300 MB: its reason, which is not its last line.
expect_exit 2 "$STACKBENCH" run single-disk --loop --quick --yes --results "$SB_TMP/res" \
	-o fs.type=xfs -o devices.loop.quick=200M -o workloads.run=command:true
assert_contains "$OUT" "Filesystem must be larger than 300MB" "mkfs.xfs's reason"
[ ! -e "$SB_TMP/res" ] || fail "results written"
nothing_left "mkfs words"
# Ctrl-C during the check (a slow mkfs in PATH): exit 130 within seconds,
# nothing made.
mkdir "$SB_TMP/bin"
printf '#!/bin/sh\nsleep 120\n' >"$SB_TMP/bin/mkfs.ext4"
chmod +x "$SB_TMP/bin/mkfs.ext4"
PATH="$SB_TMP/bin:$PATH" "$STACKBENCH" run single-disk --loop --quick --yes -o fs.type=ext4 \
	-o workloads.run=command:true --results "$SB_TMP/res-int" >"$SB_TMP/out-int" 2>&1 &
pid=$!
for _ in $(seq 100); do pgrep -f "$SB_TMP/bin/mkfs.ext4" >/dev/null && break; sleep 0.1; done
pgrep -f "$SB_TMP/bin/mkfs.ext4" >/dev/null || fail "the slow dry run never started: $(cat "$SB_TMP/out-int")"
start=$(date +%s)
kill -INT $pid
rc=0
wait $pid || rc=$?
[ $rc -eq 130 ] || fail "SIGINT in the check: exit $rc, want 130: $(cat "$SB_TMP/out-int")"
[ $(($(date +%s) - start)) -le 10 ] || fail "SIGINT in the check: took $(($(date +%s) - start)) s"
! pgrep -f "$SB_TMP/bin/mkfs.ext4" >/dev/null || fail "the slow dry run is still running"
[ ! -e "$SB_TMP/res-int" ] || fail "SIGINT in the check: results written"
nothing_left "SIGINT in the check"
pass_msg "mount options and mkfs words refused in ${took}s, before anything was built"
