#!/bin/bash
# tools/lint-size (make lint) passes on the tree and can fail: on a copy of
# src/, a file of 801 lines and a function of 101 lines are each reported
# (the file; the file:line and the function's name) with exit 1, and the
# closing line names the longest file and function. Reads text only: no
# root, no build.
source "$SB_TOP/tests/lib.sh"
need_prog python3
W=$SB_TMP/tree
mkdir -p "$W/tools"
cp -a "$SB_TOP/src" "$W/"
cp -a "$SB_TOP/tools/lint-size" "$W/tools/"
LINT=$W/tools/lint-size

# 1. The tree as it is: within the limits, and the closing line says so.
expect_exit 0 "$LINT"
assert_contains "$OUT" "0 over" "the tree's closing line"
assert_contains "$OUT" "longest file src/" "the longest file named"
assert_contains "$OUT" "longest function " "the longest function named"
pass_msg "tree as it is: $(tail -n1 <<<"$OUT")"

# 2. A file of 801 lines (comments only, so that it holds no function).
f=$W/src/util/zz_long.c
for _ in $(seq 801); do echo "/* line */"; done >"$f"
expect_exit 1 "$LINT"
assert_contains "$OUT" "src/util/zz_long.c: 801 lines, over 800" "the long file"
assert_contains "$OUT" "longest file src/util/zz_long.c (801 lines" "the longest file"
rm "$f"
pass_msg "a file of 801 lines caught"

# 3. A function of 101 lines from its signature to its closing brace, in
# the tree's brace style; 100 lines passes.
f=$W/src/util/zz_func.c
mkfunc() { # LINES: a function of that many lines
	{
		echo "/* made by the test */"
		echo "int zz_func(int a)"
		echo "{"
		for _ in $(seq $(($1 - 4))); do echo "	a++;"; done
		echo "	return a;"
		echo "}"
	} >"$f"
}
mkfunc 100
expect_exit 0 "$LINT"
mkfunc 101
expect_exit 1 "$LINT"
assert_contains "$OUT" "src/util/zz_func.c:2: zz_func() is 101 lines, over 100" "the long function"
assert_contains "$OUT" "longest function zz_func() at src/util/zz_func.c:2 (101 lines" "the longest function"
rm "$f"
pass_msg "a function of 101 lines caught at its signature; 100 passes"

expect_exit 2 "$LINT" --max-file
pass_msg "a bad argument: exit 2"
