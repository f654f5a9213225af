#!/bin/bash
# The text report fits a terminal: every line of it within 120 columns by
# default, --width N, or COLUMNS when no --width is given (a character is a
# column: ± counts one). Variant columns come in blocks that fit, long
# lines fold at spaces, and no variant's figures are lost on the way. A bad
# --width is a usage error. No root, no stacks: the recorded sets of tests.
source "$SB_TOP/tests/lib.sh"
G=$SB_TOP/tests/golden/report
R1=$G/inputs/run1
R2=$G/inputs/run2
need_prog python3
unset COLUMNS

# widest LOCALE WIDTH ARGS...: the report's widest line (in characters) is
# at most WIDTH; the report is in $OUT
widest() {
	local loc=$1 max=$2 w
	shift 2
	expect_exit 0 env LC_ALL="$loc" "$STACKBENCH" report "$@"
	w=$(python3 -c 'import sys
print(max(len(l) for l in sys.stdin.buffer.read().decode("utf-8").split("\n")))' <<<"$OUT")
	[ "$w" -le "$max" ] || fail "report $* ($loc): a line of $w columns, over $max:
$OUT"
}

# every recorded set (a new one is covered by being there), two side by
# side, and the imported results
sets=("$R1 $R2")
for d in "$G"/inputs/*/; do sets+=("${d%/}"); done
for f in "$G"/import/*.csv "$G"/import/*.json; do sets+=("$f"); done
for s in "${sets[@]}"; do
	read -r -a args <<<"$s"
	for loc in C.UTF-8 C; do
		widest "$loc" 120 "${args[@]}"
		widest "$loc" 80 --width 80 "${args[@]}"
		COLUMNS=100 widest "$loc" 100 "${args[@]}"
		COLUMNS=200 widest "$loc" 80 --width 80 "${args[@]}"
	done
done
pass_msg "${#sets[@]} sets: 120 columns by default, --width 80, COLUMNS=100, --width over COLUMNS"

# The demo's labels (up to 80 characters) fold inside METRIC: a
# continuation two further in, under the tree's line while a sibling
# follows, every word of the label kept (one too wide parts at its "_")
D=$G/inputs/demo
widest C.UTF-8 120 "$D"
assert_contains "$(grep -A1 '^├─4 readers + 1 writer: read rate (incl. readdir + ' <<<"$OUT")" \
	$'\n│   open + first byte)  ' "a folded label"
assert_contains "$OUT" '├─Random Read: device bytes read per byte  ' "a label that fits, whole"
assert_contains "$(grep -A1 '^└─Random Write: member hdd2 bytes written per byte ' <<<"$OUT")" \
	$'\n    (sdc, hdd)  ' "the last metric's continuation: no tree line under it"
[ "$(grep -c '^METRIC .* UNIT  *BETTER  *write-mostly=' <<<"$OUT")" = 3 ] ||
	fail "BETTER beside each variant in 120 columns: $(grep '^METRIC' <<<"$OUT")"
widest C 80 --width 80 "$D"
assert_contains "$OUT" $'|   (unavailable:' "a continuation under the ASCII tree's line"
assert_contains "$(grep -A1 '^|   perf_event_ ' <<<"$OUT")" $'\n|   paranoid=3) ' "a word wider than METRIC, parted at _"
# no word lost: each folded label's words in order, continuations joined
labels=$(awk '/^METRIC/{t=1;next} /^$/{t=0} t' <<<"$OUT" | sed -E 's/^(\|-|`-|\|   |    |  )//; s/ {2,}.*//' | tr '\n' ' ')
for l in "Random Read: instructions per op (unavailable: perf_event_ paranoid=3)" \
	"4 readers + 1 writer: read rate (incl. readdir + open + first byte)"; do
	assert_contains "$labels" "$l" "the label $l whole"
done
pass_msg "long METRIC labels fold in their column: demo in 120 and 80 columns, no word lost"

# The two-set report was 665 columns wide: in 80, blocks of columns, and
# every variant's column header in one of them, each value kept.
widest C.UTF-8 80 --width 80 "$R1" "$R2"
hdr=$(grep '^METRIC ' <<<"$OUT")
[ "$(wc -l <<<"$hdr")" -ge 2 ] || fail "one block in 80 columns: $hdr"
for v in run1:ext4 xfs xfs-sync run2:ext4; do
	grep -qE " $v\$" <<<"$hdr" || fail "variant $v in no block header: $hdr"
done
assert_contains "$OUT" "111000 ±2484 (+9.9% [+7, +13])*" "xfs's cell whole"
assert_contains "$OUT" "50500 ±6353 (-50.0% [-53, -47] mde 9.8%)?" "xfs-sync's cell whole"
assert_contains "$OUT" "101000 ±2484 (+0.0% [-2, +2] mde 3.2%)" "run2:ext4's cell whole"
assert_not_contains "$hdr" " TEST " "the TEST column without --all"
# a folded line: its continuation two spaces further in, no word cut
assert_contains "$OUT" $'    note: unpaired: the sets ran at different times, so a change of the host\n      between them' "a folded verdict line"
expect_exit 0 env LC_ALL=C.UTF-8 "$STACKBENCH" report --all --width 200 "$R1" "$R2"
assert_contains "$(grep '^METRIC ' <<<"$OUT")" " TEST " "the TEST column with --all"
pass_msg "blocks in 80 columns: every variant, cells whole, TEST only with --all"

for bad in 10 59 x 80x ""; do
	expect_exit 2 "$STACKBENCH" report --width "$bad" "$R1"
	assert_contains "$OUT" "--width '$bad': expected a number of columns" "the error of --width '$bad'"
done
# a COLUMNS that is no width is ignored: the default 120
COLUMNS=x widest C.UTF-8 120 "$R1" "$R2"
COLUMNS=20 widest C.UTF-8 120 "$R1" "$R2"
pass_msg "--width 10, 59, x, 80x and empty: exit 2; a bad COLUMNS: 120"
