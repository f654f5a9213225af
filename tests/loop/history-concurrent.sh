#!/bin/bash
# Two writers at once: two processes importing 20 result sets each into one
# new database (each run its own transaction, both racing to create the
# file) lose nothing and fail nothing; the database passes integrity_check.
# Then two bench commands recording their runs at the same time.
. "$SB_TOP/tests/lib.sh"
need_prog sqlite3
cd "$SB_TMP"
python3 "$SB_TOP/tests/loop/history-synth.py" a 20 --seed 1 --host a
python3 "$SB_TOP/tests/loop/history-synth.py" b 20 --seed 2 --host b
db=$SB_TMP/h.db
for round in 1 2 3; do
	rm -f "$db" "$db"-wal "$db"-shm
	"$STACKBENCH" history --db "$db" import a/* >a.log 2>&1 &
	pa=$!
	"$STACKBENCH" history --db "$db" import b/* >b.log 2>&1 &
	pb=$!
	wait $pa || fail "round $round: writer a failed: $(cat a.log)"
	wait $pb || fail "round $round: writer b failed: $(cat b.log)"
	[ "$(sqlite3 "$db" 'SELECT count(*) FROM runs')" = 40 ] ||
		fail "round $round: $(sqlite3 "$db" 'SELECT count(*) FROM runs') runs, want 40"
	[ "$(sqlite3 "$db" 'SELECT count(*) FROM metrics')" = 120 ] || fail "round $round: metrics rows"
	[ "$(sqlite3 "$db" 'PRAGMA integrity_check')" = ok ] || fail "round $round: integrity"
	[ "$(sqlite3 "$db" 'PRAGMA journal_mode')" = wal ] || fail "round $round: not WAL"
done
ls "$db".new-* 2>/dev/null && fail "temporary database left"

# Two bench commands recording at the same moment, 5 times each.
db2=$SB_TMP/bench.db
mkdir -p w1 w2
for w in w1 w2; do
	(for _ in 1 2 3 4 5; do
		"$STACKBENCH" bench "$SB_TMP/$w" --quick --workload command:true --json --db "$db2" \
			--label "writer=$w" >/dev/null 2>>"$w.log" || echo "exit $?" >>"$w.log"
	done) &
done
wait
! grep -q exit w1.log w2.log || fail "bench writers: $(cat w1.log w2.log)"
[ "$(sqlite3 "$db2" "SELECT count(*) FROM labels WHERE key = 'writer'")" = 10 ] ||
	fail "bench writers: $(sqlite3 "$db2" 'SELECT count(*) FROM runs') runs, want 10"
pass_msg "two concurrent writers, 3 rounds of 2 x 20 imports and 2 x 5 bench runs: all recorded, integrity ok"
