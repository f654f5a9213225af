#!/bin/bash
# report --check --history N as the CI gate, on real runs on loop devices:
# run records each result set in the database (--db); three runs of a
# `command:` workload (0.1 s) make the history; a run made slower on purpose
# (0.4 s) fails the gate against the last 3 (exit 1, the row named), one
# more like the history passes it; the run being checked is never its own
# baseline. --no-db records nothing.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
need_prog sqlite3
cd "$SB_TOP"
db=$SB_TMP/ci.db
cat >"$SB_TMP/wl.sh" <<'EOS'
#!/bin/sh
if [ -n "$SLOW" ]; then sleep 0.4; else sleep 0.1; fi
EOS
chmod +x "$SB_TMP/wl.sh"
run_one() { # DIR [SLOW] [more args]
	local dir=$1 slow=${2:-}
	shift 2 || shift
	SLOW=$slow expect_exit 0 "$STACKBENCH" run single-disk --loop --quick --repeat 4 \
		-o fs.type=ext4 -o "workloads.run=command:$SB_TMP/wl.sh" --db "$db" \
		--label "commit=$(basename "$dir")" --results "$dir" "$@"
	nothing_left "run $dir"
}
for i in 1 2 3; do run_one "$SB_TMP/h$i"; done
[ "$(sqlite3 "$db" 'SELECT count(*) FROM runs')" = 3 ] || fail "3 runs recorded"
[ "$(sqlite3 "$db" "SELECT value FROM labels WHERE key = 'commit' AND run_id = 2")" = h2 ] ||
	fail "label of run 2"

run_one "$SB_TMP/slow" 1
expect_exit 1 "$STACKBENCH" report --check --history 3 --db "$db" "$SB_TMP/slow"
assert_contains "$OUT" "check: worse: command:$SB_TMP/wl.sh: Wall time" "offending row"
assert_contains "$OUT" "history(3 runs)" "baseline from the history"

run_one "$SB_TMP/ok"
# Its baseline: the slow run and h3, h2 (not itself): --history 2 is slow+h3.
expect_exit 0 "$STACKBENCH" report --check --history 2 --db "$db" --threshold 1000 "$SB_TMP/ok"
# Against the three good ones before the slow run: the last 3 are ok's
# predecessors slow, h3, h2; with the pooled slow run the gate still passes.
expect_exit 0 "$STACKBENCH" report --check --history 3 --db "$db" "$SB_TMP/ok"
assert_contains "$OUT" "check: no headline figure significantly worse" "ok run passes"

# --no-db: nothing recorded.
n=$(sqlite3 "$db" 'SELECT count(*) FROM runs')
run_one "$SB_TMP/nodb" "" --no-db
[ "$(sqlite3 "$db" 'SELECT count(*) FROM runs')" = "$n" ] || fail "--no-db recorded a run"
pass_msg "report --check --history: slow run fails against the last 3 runs, a good one passes"
