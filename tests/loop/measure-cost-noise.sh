#!/bin/bash
# Noise control before each phase, recorded per phase in extra.quiesce:
# the file system synced, the wait for writeback (and md resync) with its
# time and what was still dirty, the cold cache a phase asked for (drop=),
# and --cpus: the workload's threads (and the programs it starts) pinned,
# the list recorded. A bad or unusable list is a usage error (exit 2).
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
need_prog jq
[ "$(nproc)" -ge 2 ] || skip "needs two CPUs to tell a pinned run"

dio_ext4 noise 128M
cat >"$SB_TMP/aff.sh" <<EOS
#!/bin/sh
grep Cpus_allowed_list /proc/self/status >"$SB_TMP/aff"
EOS
chmod +x "$SB_TMP/aff.sh"
res="$SB_TMP/res"
expect_exit 0 "$STACKBENCH" bench "$DIO_MNT" --quick --cpus 1 --results "$res" \
	-w rand:16k,size=4M -w "command:$SB_TMP/aff.sh"
w='.variants[0].repeats[0].workloads[0]'
j="$res/result.json"
assert_eq "$(jq -r "$w.extra.cpus" "$j")" 1 "cpus recorded"
for ph in layout "random read" "random write"; do
	q=$(jq -c --arg p "$ph" "$w.extra.quiesce[\$p]" "$j")
	assert_eq "$(jq -r .synced <<<"$q")" true "$ph: synced"
	assert_eq "$(jq -r .cpus <<<"$q")" 1 "$ph: cpus"
	[ "$(jq -r '.wait_ms | type' <<<"$q")" = number ] || fail "$ph: no wait recorded: $q"
	[ "$(jq -r '.dirty_kb | type' <<<"$q")" = number ] || fail "$ph: no dirty figure: $q"
done
assert_eq "$(jq -r "$w.extra.quiesce[\"random read\"].cold_cache" "$j")" true "read test: cold cache"
assert_eq "$(jq -r "$w.extra.quiesce.layout.cold_cache" "$j")" false "layout: not asked"
assert_eq "$(awk '{print $2}' "$SB_TMP/aff")" 1 "the workload's child ran on CPU 1 only"
pass_msg "per-phase quiesce records; --cpus 1 pinned"

# Without --cpus nothing is pinned or recorded.
expect_exit 0 "$STACKBENCH" bench "$DIO_MNT" --quick --results "$SB_TMP/res2" -w "command:$SB_TMP/aff.sh"
assert_eq "$(jq -r '.variants[0].repeats[0].workloads[0].extra.cpus // "none"' "$SB_TMP/res2/result.json")" none "no cpus"
[ "$(awk '{print $2}' "$SB_TMP/aff")" != 1 ] || fail "pinned without --cpus"

expect_exit 2 "$STACKBENCH" bench "$DIO_MNT" --cpus 3-1 -w seq
assert_contains "$OUT" "range backwards" "bad list named"
expect_exit 2 "$STACKBENCH" bench "$DIO_MNT" --cpus 1023 -w seq
assert_contains "$OUT" "not online or not allowed" "unusable CPU named"
expect_exit 2 "$STACKBENCH" run single-disk --loop --cpus x
assert_contains "$OUT" "--cpus 'x'" "run checks it too"
pass_msg "bad lists refused with exit 2"
