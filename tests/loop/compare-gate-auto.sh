#!/bin/bash
# run --repeat auto[:MAX] on the paired intervals (issue 20 item 7): whole
# rounds (every variant in each, so that they pair), stopping once every
# headline row is resolved against the baseline, or at MAX, and saying which,
# row by row. A sync mount against noatime under 4096 writes of 4 KiB
# resolves in the 3 rounds at least; an A/A pair of a 60 ms workload cannot
# be shown equal within +-5% and stops at the limit, with the repeats it
# would need. (1024 writes were too few on a 6.18 kernel: sync cost 0.08-0.19 s
# against 0.03-0.10 s, inside a loaded host's jitter, and CI stopped at 6
# rounds unresolved; 4096 take 0.23-0.32 s against 0.05-0.09 s.)
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
need_prog python3
cd "$SB_TOP"

SHM=$(mktemp -d "/dev/shm/${SB_RUN_TAG:-sbtest-manual}-XXXXXX")
SB_CLEANUPS+=("rm -rf '$SHM'")
cat >"$SB_TMP/wl.sh" <<'EOS'
#!/bin/sh
dd if=/dev/zero of=f bs=4k count=4096 status=none && rm -f f
EOS
chmod +x "$SB_TMP/wl.sh"
run_auto() { # DIR MAX MATRIX
	expect_exit 0 "$STACKBENCH" run single-disk --loop --loop-dir "$SHM" --quick \
		--repeat "auto:$2" --yes -o fs.type=ext4 \
		-o "fs.mkfs=-E lazy_itable_init=0,lazy_journal_init=0" \
		-o "workloads.run=command:$SB_TMP/wl.sh" -o "$3" --results "$1"
	nothing_left "run $1"
}
repeats() {
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(" ".join(str(len(v["repeats"])) for v in r["variants"]))' "$1/result.json"
}
run_auto "$SB_TMP/ab" 6 "matrix.mount.options=noatime|noatime,sync"
# 3 rounds on a quiet machine; a loaded one may need a round or two more
grep -qE "repeat auto: stopped after [3-6] rounds: every headline row resolved" <<<"$OUT" ||
	fail "A/B: not stopped once resolved: $OUT"
assert_contains "$OUT" "mount.options=noatime,sync: command:$SB_TMP/wl.sh: Wall time: resolved, worse" \
	"A/B row"
read -r ra rb <<<"$(repeats "$SB_TMP/ab")"
assert_eq "$ra" "$rb" "A/B: whole rounds"
grep -qF "stopped after $ra rounds" <<<"$OUT" || fail "A/B: $ra repeats, not the rounds it said"
# the looks it could take are recorded, and the report's verdict is at the
# alpha its last look may spend (Pocock-type: 0.05 ln(1 + (e-1) k/6) less
# what look k-1 spent; the first look all it reached)
python3 -c 'import json, math, sys
f = lambda k: 0.05 * math.log(1 + (math.e - 1) * k / 6)
s = json.load(open(sys.argv[1] + "/result.json"))["profile"]["schedule"]
assert s["auto"]["first"] == 3 and s["auto"]["max"] == 6, s["auto"]
k = len(s["rounds"])
assert k == int(sys.argv[2]), (k, sys.argv[2])
r = json.load(sys.stdin)
want = f(3) if k == 3 else f(k) - f(k - 1)
assert abs(r["alpha"] - want) < 1e-12, (r["alpha"], want)
assert r["sequential"]["look"] == k and r["sequential"]["alpha"] == 0.05, r["sequential"]
' "$SB_TMP/ab" "$ra" < <("$STACKBENCH" report --format json "$SB_TMP/ab") ||
	fail "A/B: the report's alpha is not the one its last look may spend"
expect_exit 0 "$STACKBENCH" report "$SB_TMP/ab"
assert_contains "$OUT" "sequential: --repeat auto looked after each round from 3 to at most 6 and stopped after round $ra" \
	"A/B legend"

run_auto "$SB_TMP/aa" 4 "matrix.workloads.time-limit=20m|21m"
if grep -qF "stopped at the limit of 4 rounds" <<<"$OUT"; then
	assert_contains "$OUT" "Wall time: not resolved" "A/A row"
	assert_contains "$OUT" "repeats would resolve" "A/A repeats needed"
	assert_eq "$(repeats "$SB_TMP/aa")" "4 4" "A/A repeats"
else
	assert_contains "$OUT" "every headline row resolved" "A/A: one or the other"
fi
expect_exit 2 "$STACKBENCH" run single-disk --loop --repeat auto:2
assert_contains "$OUT" "expected 'auto', 'auto:MAX' (MAX 3 to 1000)" "bad MAX"
pass_msg "repeat auto: resolved A/B stops at 3 rounds, A/A at its limit, row by row"
