#!/bin/bash
# report --fleet from the history database: a fleet's results/HOST/ imported
# under each host's name (their hostname inside is the same for all), then
# `report --fleet --db FILE` with no RESULTS builds the same fleet table as
# `report --fleet results/HOST...` from the directories: the latest run of
# each host (an older one imported first is not used), of the newest run's
# profile (another profile's host left out; --profile picks it); a missing,
# refused or empty choice exits 2 or 3.
. "$SB_TOP/tests/lib.sh"
need_prog jq
need_prog sqlite3
cd "$SB_TMP"
syn=$SB_TOP/tests/loop/history-synth.py
python3 "$syn" ha 2 --second 20 --seed 1
python3 "$syn" hb 2 --second -10 --seed 2 --minute 10
python3 "$syn" hc 1 --seed 3
mkdir -p old/hosta old/hostb results/hosta results/hostb other/hostc
mv ha/run01/result.json old/hosta/ && mv ha/run02/result.json results/hosta/
mv hb/run01/result.json old/hostb/ && mv hb/run02/result.json results/hostb/
jq '.profile.name = "other"' hc/run01/result.json >other/hostc/result.json
"$STACKBENCH" history --db f.db import old other results >/dev/null || fail "import"
[ "$(sqlite3 f.db "SELECT group_concat(host || ':' || profile, ' ') FROM (SELECT * FROM runs ORDER BY id)")" = \
	"hosta:synthetic hostb:synthetic hostc:other hosta:synthetic hostb:synthetic" ] ||
	fail "host identities: $(sqlite3 f.db 'SELECT id, host, profile FROM runs')"

for fmt in text json; do
	expect_exit 0 "$STACKBENCH" report --fleet --db f.db --format $fmt
	from_db=$("$STACKBENCH" report --fleet --db f.db --format $fmt 2>/dev/null)
	from_dirs=$("$STACKBENCH" report --fleet --format $fmt results/hosta results/hostb)
	[ $fmt = text ] || { # the sets' paths: the host, or the file read
		from_db=$(echo "$from_db" | jq -S 'del(.sets[].path)')
		from_dirs=$(echo "$from_dirs" | jq -S 'del(.sets[].path)')
	}
	[ "$from_db" = "$from_dirs" ] || fail "$fmt: the fleet from the database differs: $(diff <(echo "$from_db") <(echo "$from_dirs"))"
done
assert_contains "$OUT" "fleet: hosta: run 4 of 2026-11-01T00:02:00Z" "hosta's latest run"
assert_contains "$OUT" "fleet: hostb: run 5 of" "hostb's latest run"
assert_contains "$OUT" "the latest run of profile 'synthetic' of each of 2 hosts" "profile and hosts"
"$STACKBENCH" report --fleet --db f.db | grep -q 'xfs: hosta +21.[0-9]%\*, hostb -9.[0-9]%!' ||
	fail "fleet summary: $("$STACKBENCH" report --fleet --db f.db 2>&1)"

expect_exit 0 "$STACKBENCH" report --fleet --db f.db --profile other
assert_contains "$OUT" "fleet: hostc: run 3" "--profile other"
expect_exit 2 "$STACKBENCH" report --fleet --db f.db --profile nosuch
assert_contains "$OUT" "holds no run of profile 'nosuch'" "unknown profile"
expect_exit 2 "$STACKBENCH" report --fleet --db missing.db
[ ! -e missing.db ] || fail "a missing database was created"
echo "not a database" >bad.db
expect_exit 3 "$STACKBENCH" report --fleet --db bad.db
[ "$(cat bad.db)" = "not a database" ] || fail "bad.db changed"
expect_exit 2 "$STACKBENCH" report --db f.db
pass_msg "report --fleet --db: each host's latest run, the same table as from results/HOST/"
