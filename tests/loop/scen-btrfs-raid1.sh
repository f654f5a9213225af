#!/bin/bash
# btrfs RAID1 (two partitions of one loop device) degraded and rebuilding:
# scenario.degrade mounts it -o degraded without the second partition,
# scenario.rebuild puts it back with btrfs replace while the workload runs;
# result.json records the rebuild and the integrity after the run (scrub,
# scenario.fill read back); damage to a member after the rebuild is counted
# by the scrub and is the report's first line. kill -9 at each scenario
# step, then teardown --all, leaves nothing; a stack without redundancy is
# refused before anything is made.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.btrfs
need_prog btrfs
cd "$SB_TOP"

P=btrfs-raid1-partitions
COMMON=(--loop --quick -o mount.options=ssd -o scenario.fill=32M)
RAND="workloads.run=rand:16k,size=16M,direct=1,time=1s"

# jq-free: one field of the first repeat of the first variant
field() {
	python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))["variants"][0]["repeats"][0]
for k in sys.argv[2].split("."):
    r = r.get(k) if isinstance(r, dict) else None
print(json.dumps(r))' "$1/result.json" "$2"
}

# 1. degraded: the workload sees a degraded mount with a device missing
cat >"$SB_TMP/seen.sh" <<'EOS'
#!/bin/sh
findmnt -n -o OPTIONS --target . >"$LOG"
btrfs filesystem show . >>"$LOG" 2>&1
EOS
chmod +x "$SB_TMP/seen.sh"
export LOG="$SB_TMP/seen.log"
expect_exit 0 "$STACKBENCH" run "$P" "${COMMON[@]}" -o scenario.degrade=ssd.p2 \
	-o "workloads.run=command:$SB_TMP/seen.sh" --results "$SB_TMP/deg"
grep -q degraded "$LOG" || fail "not mounted degraded: $(cat "$LOG")"
grep -qi missing "$LOG" || fail "no device missing: $(cat "$LOG")"
assert_eq "$(field "$SB_TMP/deg" integrity.errors)" 0 "degraded: integrity errors"
assert_eq "$(field "$SB_TMP/deg" integrity.data.fill_checked_bytes)" $((32 << 20)) "fill read back"
assert_eq "$(field "$SB_TMP/deg" scenario)" null "degrade only: no rebuild record"
nothing_left "degrade"
pass_msg "degrade: mounted degraded without ssd.p2, scrub and fill clean"

# 2. rebuild under the workload: replace finished, its figures recorded
expect_exit 0 "$STACKBENCH" run "$P" "${COMMON[@]}" -o scenario.rebuild=ssd.p2 -o "$RAND" \
	--results "$SB_TMP/reb"
assert_eq "$(field "$SB_TMP/reb" scenario.kind)" '"btrfs"' "rebuild kind"
assert_eq "$(field "$SB_TMP/reb" scenario.finished)" true "rebuild finished"
python3 -c 'import sys; s = float(sys.argv[1]); sys.exit(0 if 0 < s < 600 else 1)' \
	"$(field "$SB_TMP/reb" scenario.seconds)" || fail "rebuild seconds: $(field "$SB_TMP/reb" scenario)"
assert_eq "$(field "$SB_TMP/reb" integrity.btrfs.errors)" 0 "rebuild: scrub errors"
[ "$(field "$SB_TMP/reb" integrity.btrfs.bytes)" -gt $((32 << 20)) ] ||
	fail "scrub read less than the fill: $(field "$SB_TMP/reb" integrity.btrfs)"
grep -q '^\$ btrfs replace start -f 2 /dev/loop' "$SB_TMP/reb/run.log" || fail "no replace in run.log"
expect_exit 0 "$STACKBENCH" report "$SB_TMP/reb"
assert_contains "$OUT" "integrity: default: clean in 1 repeat(s)" "report: clean integrity"
assert_contains "$OUT" "rebuild: default: " "report: rebuild line"
assert_not_contains "$OUT" "INTEGRITY ERRORS" "report of a clean run"
nothing_left "rebuild"
pass_msg "rebuild: btrfs replace under rand:16k, finished, scrub clean, in the report"

# 3. damage: after the replace, the workload overwrites 250M of the rebuilt
# member past its first superblock; the scrub must find it (the other copy
# repairs it) and the report say so
cat >"$SB_TMP/damage.sh" <<'EOS'
#!/bin/sh
set -e
for _ in $(seq 100); do btrfs replace status -1 . | grep -q finished && break; sleep 0.1; done
dev=$(btrfs filesystem show . | awk '/devid/ && $NF ~ /p2$/ {print $NF}')
[ -b "$dev" ] || { echo "no p2 device" >&2; exit 1; }
dd if=/dev/urandom of="$dev" bs=1M seek=1 count=250 oflag=direct conv=notrunc 2>/dev/null
EOS
chmod +x "$SB_TMP/damage.sh"
expect_exit 0 "$STACKBENCH" run "$P" "${COMMON[@]}" -o scenario.rebuild=ssd.p2 \
	-o "workloads.run=command:$SB_TMP/damage.sh" --results "$SB_TMP/dmg"
assert_contains "$OUT" "integrity:" "run says the integrity errors"
[ "$(field "$SB_TMP/dmg" integrity.errors)" -gt 0 ] ||
	fail "damage not counted: $(field "$SB_TMP/dmg" integrity)"
expect_exit 0 "$STACKBENCH" report "$SB_TMP/dmg"
assert_eq "$(head -1 <<<"$OUT" | cut -c1-17)" "INTEGRITY ERRORS:" "report's first line"
expect_exit 1 "$STACKBENCH" report --check "$SB_TMP/dmg"
assert_contains "$OUT" "check: integrity: default:" "the gate names the variant with integrity errors"
expect_exit 0 "$STACKBENCH" report --format json "$SB_TMP/dmg"
python3 -c 'import json,sys; v = json.loads(sys.argv[1])["variants"][0]["scenario"]["integrity"]
sys.exit(0 if v["errors"] > 0 and v["btrfs_scrub_errors"] > 0 else 1)' "$OUT" ||
	fail "JSON report lacks the errors"
nothing_left "damage"
pass_msg "damage after the rebuild: scrub errors counted, the report's first line, JSON"

# 4. kill -9 right after each scenario step (no done record), teardown --all
killed=""
plan=$("$STACKBENCH" plan "$P" "${COMMON[@]}" -o scenario.rebuild=ssd.p2 -o "$RAND")
for i in $(grep -E '^ +[0-9]+  scenario' <<<"$plan" | awk '{print $1}'); do
	rc=0
	STACKBENCH_KILL_STEP=$i "$STACKBENCH" run "$P" "${COMMON[@]}" -o scenario.rebuild=ssd.p2 \
		-o "$RAND" --results "$SB_TMP/kill-$i" >"$SB_TMP/out" 2>&1 || rc=$?
	[ $rc = 137 ] || fail "STACKBENCH_KILL_STEP=$i: exit $rc, want 137: $(tail -3 "$SB_TMP/out")"
	expect_exit 0 "$STACKBENCH" teardown --all
	nothing_left "kill -9 after step $i"
	[ -z "$(ls -A "$STACKBENCH_LOOP_DIR" 2>/dev/null)" ] || fail "step $i: loop images left"
	killed="$killed $i"
done
[ -n "${killed:-}" ] || fail "the plan has no scenario step: $plan"
pass_msg "kill -9 after scenario steps$killed: teardown --all leaves nothing"

# 5. refused before anything is made: exit 2, file:line and why
expect_exit 2 "$STACKBENCH" run single-disk --loop --quick -o fs.type=xfs -o scenario.degrade=ssd
assert_contains "$OUT" "single-disk.conf: -o scenario.degrade" "names the key"
assert_contains "$OUT" "only md arrays and btrfs RAID have members to take out" "says why"
expect_exit 2 "$STACKBENCH" run "$P" --loop --quick -o scenario.rebuild=ssd.p3
assert_contains "$OUT" "ssd.p3 is not in the array (its members: ssd.p1, ssd.p2)" "member not in the array"
nothing_left "refusals"
[ -z "$(ls -A "$STACKBENCH_LOOP_DIR" 2>/dev/null)" ] || fail "a refused run made loop images"
pass_msg "refused: a stack without redundancy, a member not in the array (exit 2, nothing made)"
