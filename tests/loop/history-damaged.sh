#!/bin/bash
# A history database that is damaged or not ours is refused with a message
# naming the file and what is wrong, by every command that would open it
# (history list and import, bench, report --history and --fleet), and is left exactly
# as it was (sha256sum before and after). Cases: pages overwritten in the
# middle of a real history, a truncated one, a text file, an empty file,
# another program's SQLite database, one from a newer schema.
. "$SB_TOP/tests/lib.sh"
need_prog sqlite3
cd "$SB_TMP"
python3 "$SB_TOP/tests/loop/history-synth.py" syn 3
"$STACKBENCH" history --db good.db import syn/run01 syn/run02 >/dev/null || fail "good db"
# A checkpointed single file (no -wal beside it) to damage.
sqlite3 good.db 'PRAGMA wal_checkpoint(TRUNCATE);' >/dev/null
size=$(stat -c %s good.db)
[ "$size" -ge 8192 ] || fail "good.db only $size bytes"

cp good.db pages.db
# Zeroes over the second page and more: the header is intact, the b-trees are not.
dd if=/dev/urandom of=pages.db bs=1024 seek=4 count=4 conv=notrunc status=none
head -c 6000 good.db >truncated.db
python3 -c "print('not a database ' * 300)" >text.db
: >empty.db
sqlite3 foreign.db 'CREATE TABLE t (x); INSERT INTO t VALUES (1);'
cp good.db newer.db
sqlite3 newer.db 'PRAGMA user_version = 99;'
sqlite3 newer.db 'PRAGMA wal_checkpoint(TRUNCATE);' >/dev/null

declare -A why=(
	[pages]="damaged" [truncated]="damaged|cannot be opened" [text]="no SQLite header"
	[empty]="too short" [foreign]="another program" [newer]="newer stackbench"
)
for c in pages truncated text empty foreign newer; do
	f=$SB_TMP/$c.db
	sum=$(sha256sum "$f")
	expect_exit 3 "$STACKBENCH" history --db "$f"
	echo "$OUT" | grep -qE "$f: refusing: .*(${why[$c]})" || fail "$c: message: $OUT"
	expect_exit 3 "$STACKBENCH" history --db "$f" import syn/run03
	expect_exit 1 "$STACKBENCH" bench "$SB_TMP" --quick --workload "command:true" --db "$f"
	assert_contains "$OUT" "refusing" "$c: bench names the refusal"
	expect_exit 3 "$STACKBENCH" report --history 2 --db "$f" syn/run03
	expect_exit 3 "$STACKBENCH" report --fleet --db "$f"
	echo "$OUT" | grep -qE "$f: refusing: .*(${why[$c]})" || fail "$c: report --fleet: $OUT"
	[ "$(sha256sum "$f")" = "$sum" ] || fail "$c: $f was changed"
	echo "ok: $c refused and unchanged: $(echo "$OUT" | head -1)"
done
# The good one still works, and a missing one is made (by a writer only).
"$STACKBENCH" history --db good.db >/dev/null || fail "good.db readable"
expect_exit 1 "$STACKBENCH" history --db missing.db
[ ! -e missing.db ] || fail "a reader created missing.db"
pass_msg "damaged, truncated, text, empty, foreign and newer databases refused, unchanged"
