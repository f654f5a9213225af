#!/bin/bash
# run --repeat auto: each variant is repeated until the relative standard
# error of its headline metrics is below 2.5% (at least 3 times, at most 10).
# One run, two variants: a steady command (sleep 0.3 s) stops early, a noisy
# one (0.05 s and 0.4 s in turns, told apart by the mount options it finds)
# goes on to the cap, interleaved with nothing once the steady one is done.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
need_prog python3
cd "$SB_TOP"

cat >"$SB_TMP/wl.sh" <<'EOS'
#!/bin/sh
if findmnt -n -o OPTIONS --target . | grep -qw sync; then
	n=$(cat "$COUNT" 2>/dev/null || echo 0)
	echo $((n + 1)) >"$COUNT"
	if [ $((n % 2)) -eq 0 ]; then sleep 0.05; else sleep 0.4; fi
else
	sleep 0.3
fi
EOS
chmod +x "$SB_TMP/wl.sh"
export COUNT=$SB_TMP/count

expect_exit 0 "$STACKBENCH" run single-disk --loop --quick --repeat auto -o fs.type=ext4 \
	-o "workloads.run=command:$SB_TMP/wl.sh" -o "matrix.mount.options=noatime|noatime,sync" \
	--results "$SB_TMP/res"
nothing_left "repeat auto run"
counts=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(" ".join(str(len(v["repeats"])) for v in r["variants"]))
' "$SB_TMP/res/result.json")
read -r steady noisy <<<"$counts"
echo "repeats: steady $steady, noisy $noisy"
[ "$steady" -ge 3 ] && [ "$steady" -lt 10 ] || fail "steady variant: $steady repeats, want 3 to 9"
assert_eq "$noisy" 10 "noisy variant repeats (the cap)"
assert_contains "$OUT" "repeats: mount.options=noatime $steady, mount.options=noatime,sync 10" \
	"closing report"
pass_msg "--repeat auto: steady variant $steady repeats, noisy variant 10 (cap)"
