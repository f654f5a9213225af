#!/bin/bash
# history import/export: result sets imported (one directory, and a fleet's
# results/HOST/ under each host's name) come back out by `history export`
# as the same JSON (jq -S); a second import records nothing new; labels are
# kept; the schema carries its version table and application_id.
. "$SB_TOP/tests/lib.sh"
need_prog jq
need_prog sqlite3
cd "$SB_TMP"
db=$SB_TMP/h.db
in=$SB_TOP/tests/golden/report/inputs
mkdir -p fleet/results/h1 fleet/results/h2
cp "$in/run1/result.json" fleet/results/h1/
cp "$in/run2/result.json" fleet/results/h2/
python3 "$SB_TOP/tests/loop/history-synth.py" syn 1

out=$("$STACKBENCH" history --db "$db" import --label commit=abc123 syn/run01 fleet/results) ||
	fail "import: $out"
echo "$out"
[ "$(echo "$out" | grep -c 'recorded as run')" = 3 ] || fail "3 runs recorded: $out"
out=$("$STACKBENCH" history --db "$db" import syn/run01 fleet/results)
[ "$(echo "$out" | grep -c 'already recorded as run')" = 3 ] || fail "re-import deduplicated: $out"

# Each run exported equals what was imported.
for pair in 1:syn/run01 2:fleet/results/h1 3:fleet/results/h2; do
	id=${pair%%:*} src=${pair#*:}
	"$STACKBENCH" history --db "$db" export "$id" "exp$id" >/dev/null || fail "export $id"
	cmp <(jq -S . "$src/result.json") <(jq -S . "exp$id/result.json") ||
		fail "run $id: exported JSON differs from $src/result.json"
done

# The fleet's hosts are their directories' names; the label is kept.
[ "$(sqlite3 "$db" 'SELECT group_concat(host, " ") FROM (SELECT host FROM runs ORDER BY id)')" = "synth h1 h2" ] ||
	fail "host identities: $(sqlite3 "$db" 'SELECT id, host FROM runs')"
"$STACKBENCH" history --db "$db" --format json | jq -e '.series[0].runs[0].labels.commit == "abc123"' >/dev/null ||
	fail "label in history --format json"
[ "$(sqlite3 "$db" 'PRAGMA application_id; PRAGMA user_version; SELECT count(*) FROM schema_version')" = "$(printf '1396852785\n2\n2')" ] ||
	fail "schema version and application_id"
# Every repeat's metrics are rows: run1 has 3+3+2 repeats of its variants.
[ "$(sqlite3 "$db" 'SELECT count(DISTINCT variant || rep) FROM metrics WHERE run_id = 2')" = 8 ] ||
	fail "repeats of run 2 in metrics"
expect_exit 2 "$STACKBENCH" history --db "$db" export 99 none
expect_exit 2 "$STACKBENCH" history --db "$db" import "$SB_TMP/nothing-here"
pass_msg "history import/export round trip (3 runs, fleet hosts by name), dedup, labels, schema"
