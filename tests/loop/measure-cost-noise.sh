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
	# the host's speed before it: a fixed loop's time, in ms
	jq -e '.host_probe_ms | type == "number" and . > 0.1 and . < 10000' <<<"$q" >/dev/null ||
		fail "$ph: no plausible host probe: $q"
done
assert_eq "$(jq -r "$w.extra.quiesce[\"random read\"].cold_cache" "$j")" true "read test: cold cache"
assert_eq "$(jq -r "$w.extra.quiesce.layout.cold_cache" "$j")" false "layout: not asked"
assert_eq "$(awk '{print $2}' "$SB_TMP/aff")" 1 "the workload's child ran on CPU 1 only"
# The report's noise floor counts those probes (its text, HTML and JSON).
"$STACKBENCH" report "$res" --format json >"$SB_TMP/rep.json" || fail "report --format json failed"
assert_eq "$(jq -r .noise.host_probes "$SB_TMP/rep.json")" \
	"$(jq "[$w.extra.quiesce[]] | length" "$j")" "report counts one probe per phase"
jq -e '.noise.host_cv_pct | type == "number"' "$SB_TMP/rep.json" >/dev/null || fail "no host CV in the JSON noise"
"$STACKBENCH" report "$res" >"$SB_TMP/rep.txt" || fail "report failed"
grep -E "^  noise: the host's CPU speed by [0-9.]+% \(CV of a fixed loop timed before each of 3 phases" \
	"$SB_TMP/rep.txt" >/dev/null || fail "no noise line in the verdict: $(head -3 "$SB_TMP/rep.txt")"
"$STACKBENCH" report "$res" --format html >"$SB_TMP/rep.html" || fail "report --format html failed"
grep -F '<p class="noise">noise: the host' "$SB_TMP/rep.html" >/dev/null || fail "no noise line in the HTML verdict"
pass_msg "per-phase quiesce records and host probes; --cpus 1 pinned; the report's noise line"

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
