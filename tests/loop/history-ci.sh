#!/bin/bash
# contrib/ci/run-profile with the history database as the CI keeps it
# (--db FILE --history N): the first job finds no database, records its run
# and says the gate is skipped; the next ones are gated with `report
# --check --history N` against the runs before them and write history.html
# (the trend, this run its last point) and report.junit.xml; a run made
# slower on purpose fails the job (exit 1) naming the row.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
need_prog sqlite3
cd "$SB_TMP"
db=$SB_TMP/cache/history.db # its directory made by run-profile
cat >wl.sh <<'EOS'
#!/bin/sh
if [ -n "$SLOW" ]; then sleep 0.4; else sleep 0.1; fi
EOS
chmod +x wl.sh
cat >ci.conf <<EOS
# one ext4 on one loop device, one 0.1 s command (the CI history test)
[devices]
any = 1
loop.any = 512M
[fs]
type = ext4
[workloads]
run = command:$SB_TMP/wl.sh
EOS
# --threshold 50: the jobs run seconds apart, unpaired against the history,
# and a 0.1 s sleep's wall time moves with the host's load between them (CI,
# 4 December: job 3 against jobs 1-2 was +10.7% [+2.8, +19.2], marked at the
# default 5%); the slow job is +300%.
job() { # N [SLOW]
	SLOW=${2:-} STACKBENCH=$STACKBENCH expect_exit "${3:-0}" "$SB_TOP/contrib/ci/run-profile" \
		--repeat 4 --allow-unresolved --threshold 50 --db "$db" --history 3 "$SB_TMP/ci.conf" \
		"$SB_TMP/out$1"
	nothing_left "job $1"
}
job 1
assert_contains "$OUT" "is new: no history to gate against yet" "first job: gate skipped"
[ "$(sqlite3 "$db" 'SELECT count(*) FROM runs')" = 1 ] || fail "job 1 recorded"
[ ! -e out1/history.html ] || fail "history.html without a history"

job 2
assert_contains "$OUT" "check: no headline figure significantly worse" "job 2 gated"
[ "$(sqlite3 "$db" 'SELECT count(*) FROM runs')" = 2 ] || fail "job 2 recorded"
grep -q '<h2 id="history">' out2/history.html || fail "job 2: no trend in history.html"
[ "$(sed -n '/<h2 id="history">/,/<details>/p' out2/history.html | grep -c '<circle')" = 2 ] ||
	fail "job 2: the trend has 2 runs"
grep -q 'history(1 run)' out2/report.junit.xml || fail "job 2: JUnit against the history"

job 3
job 4 1 1
assert_contains "$OUT" "check: worse: command:$SB_TMP/wl.sh: Wall time" "slow job fails naming the row"
assert_contains "$OUT" "history(3 runs)" "against the last 3 runs"
pass_msg "run-profile --db --history: first job skips the gate, later ones gate on the history, a slow one fails"
