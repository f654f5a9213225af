#!/bin/bash
# Issue 24 item 6: 4000 bonnie++ lines of one machine name import as 4000
# variants named NAME, NAME#2 ... NAME#4000 (a cubic name search took 137 s;
# a hash of the names makes it linear). A correctness-under-size test, not
# a speed assertion: `timeout 20` only catches a return of the cubic cost.
# Also lines whose names collide with the numbering ("vm#3" given before
# the third "vm") still get unique names. No root needed.
. "$SB_TOP/tests/lib.sh"
cd "$SB_TOP"
export LC_ALL=C
line=$(grep -v '^#' tests/golden/report/import/host1-1.96.csv | head -1)
T=$SB_TMP
awk -v l="$line" 'BEGIN { for (i = 0; i < 4000; i++) print l }' >"$T/4000.csv"

# (text: the json format of 4000 columns is a gigabyte of cells, another matter)
timeout 20 "$STACKBENCH" report "$T/4000.csv" >"$T/out" 2>"$T/err" ||
	fail "report of 4000 lines: exit $? $(cat "$T/err")"
# the repeats line names every column (folded at spaces: its continuation
# lines, two spaces in, join it again with one space)
names() {
	awk '/^repeats: / {on = 1; s = substr($0, 10); next}
		on && /^  / {s = s " " substr($0, 3); next}
		{on = 0} END {print s}' "$1" | tr ',' '\n' | sed 's/^ //; s/ [0-9]*$//'
}
assert_eq "$(names "$T/out" | wc -l)" 4000 "columns"
assert_eq "$(names "$T/out" | sort -u | wc -l)" 4000 "unique columns"
assert_eq "$(names "$T/out" | sed -n '1p;2p;4000p' | tr '\n' ' ')" "host1 host1#2 host1#4000 " "names"

# names that are already numbered: every variant still unique
{
	echo "$line"
	sed 's/host1/host1#2/' <<<"$line"
	echo "$line"
	echo "$line"
	sed 's/host1/host1#3/' <<<"$line"
} >"$T/mixed.csv"
"$STACKBENCH" report "$T/mixed.csv" >"$T/out"
assert_eq "$(names "$T/out" | tr '\n' ' ')" "host1 host1#2 host1#3 host1#4 host1#3#2 " "numbered names"
echo "ok: 4000 same-name lines, unique names"
