#!/bin/bash
# tools/lint-keys (make lint) passes on the tree and can fail: on a copy of
# src/, a lookup of md.level by name outside md's file is one finding more,
# reported with file:line and the key's owner; the same lookup in md.c
# (its owner) is none; a key no table declares is a finding; a bad
# argument is exit 2. Reads text only: no root, no build.
source "$SB_TOP/tests/lib.sh"
need_prog python3
W=$SB_TMP/tree
mkdir -p "$W/tools"
cp -a "$SB_TOP/src" "$W/"
cp -a "$SB_TOP/tools/lint-keys" "$W/tools/"
LINT=$W/tools/lint-keys

# count_of OUTPUT: M of the closing "N lookups of keys by name, M outside
# their owner (at most B allowed)"
count_of() {
	local m
	m=$(tail -n1 <<<"$1" | sed -n 's/^lint-keys: [0-9]* lookups of keys by name, \([0-9]*\) outside their owner (at most [0-9]* allowed)$/\1/p')
	[ -n "$m" ] || fail "no count line in: $1"
	echo "$m"
}
lint_rc() {
	RC=0
	OUT=$("$LINT" "$@" 2>&1) || RC=$?
}

# 1. The tree as it is: within what it allows.
lint_rc
[ "$RC" -eq 0 ] || fail "the tree's key lookups (exit $RC): $OUT"
base=$(count_of "$OUT")
pass_msg "tree as it is: exit $RC, $(tail -n1 <<<"$OUT")"

# 2. md.level looked up by name in dm.c: one finding more, and over the
# count the tree had, a failure.
f=$W/src/stack/dm.c
cp "$f" "$SB_TMP/dm.c"
echo 'static int lk(void) { return sb_key_find("md.level"); }' >>"$f"
line=$(wc -l <"$f")
expect_exit 1 "$LINT" --max "$base"
assert_contains "$OUT" "src/stack/dm.c:$line: sb_key_find(\"md.level\"): owned by src/stack/md.c" \
	"the added lookup's file:line and owner"
assert_eq "$(count_of "$OUT")" "$((base + 1))" "findings with the lookup in dm.c"
cp "$SB_TMP/dm.c" "$f"
pass_msg "md.level looked up in dm.c caught at src/stack/dm.c:$line"

# 3. The same lookup in md.c, the key's owner: no finding.
f=$W/src/stack/md.c
cp "$f" "$SB_TMP/md.c"
echo 'static int lk(void) { return sb_key_find("md.level"); }' >>"$f"
lint_rc --max "$base"
assert_eq "$RC" 0 "exit with the lookup in md.c"
assert_eq "$(count_of "$OUT")" "$base" "findings with the lookup in md.c"
# 4. A key no table declares, even in the section's own file.
echo 'static int lk2(void) { return lkey("md.no-such-key"); }' >>"$f"
line=$(wc -l <"$f")
expect_exit 1 "$LINT" --max "$base"
assert_contains "$OUT" "src/stack/md.c:$line: lkey(\"md.no-such-key\"): a key no table declares" \
	"the unknown key"
cp "$SB_TMP/md.c" "$f"
pass_msg "the owner's own lookup allowed, an unknown key caught at src/stack/md.c:$line"

expect_exit 2 "$LINT" --bogus
expect_exit 2 "$LINT" --root "$SB_TMP/nowhere"
pass_msg "a bad argument or a root without src/: exit 2"
