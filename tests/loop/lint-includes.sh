#!/bin/bash
# tools/lint-includes (make lint) passes on the tree and can fail: on a
# copy of src/ and ARCHITECTURE.md, one include the folder table does not
# allow (util reads nothing), one header outside a reads restriction
# ("stack (capture.h)"), a folder with no row and two folders that include
# each other (the table allowing both edges) are each reported with
# file:line and the edge, and counted; a table it cannot read stops it with
# exit 2. Reads text only: no root, no build.
source "$SB_TOP/tests/lib.sh"
need_prog python3
W=$SB_TMP/tree
mkdir -p "$W/tools"
cp -a "$SB_TOP/src" "$SB_TOP/ARCHITECTURE.md" "$W/"
cp -a "$SB_TOP/tools/lint-includes" "$W/tools/"
LINT=$W/tools/lint-includes

# count_of OUTPUT: M of the closing "N ... checked, M outside the table, C
# circles between folders"
count_of() {
	local m
	m=$(tail -n1 <<<"$1" | sed -n 's/^lint-includes: [0-9]* .*checked, \([0-9]*\) outside the table, [0-9]* circles between folders$/\1/p')
	[ -n "$m" ] || fail "no count line in: $1"
	echo "$m"
}
# lint_rc: runs the checker on the copy (its root found from its own place);
# output in OUT, exit code in RC
lint_rc() {
	RC=0
	OUT=$("$LINT" 2>&1) || RC=$?
}

# 1. The tree as it is: no finding.
lint_rc
[ "$RC" -eq 0 ] || fail "the tree's includes against its table (exit $RC): $OUT"
base=$(count_of "$OUT")
assert_eq "$base" 0 "findings in the tree as it is"
pass_msg "tree as it is: exit $RC, $(tail -n1 <<<"$OUT")"

# 2. util reads nothing: util/log.c including cmd.h is one finding more.
f=$W/src/util/log.c
cp "$f" "$SB_TMP/log.c"
echo '#include "cmd.h"' >>"$f"
line=$(wc -l <"$f")
expect_exit 1 "$LINT" --root "$W"
assert_contains "$OUT" "src/util/log.c:$line:" "the added include's file:line"
assert_contains "$OUT" "util -> cmd" "the added edge"
assert_eq "$(count_of "$OUT")" "$((base + 1))" "findings with util -> cmd added"
cp "$SB_TMP/log.c" "$f"
pass_msg "util -> cmd caught at src/util/log.c:$line"

# 3. A restriction: a row reading "T (h1.h, ...)" allows h1.h and no other
# header of T. The table's own when it has one, else one written into the
# copy's table (the first plain entry of a folder with two headers or more).
# Prints "ROW T ALLOWED OTHER" (OTHER: a header of T outside the restriction).
read -r row tgt okh badh < <(python3 - "$W" <<'EOF'
import os, re, sys
w = sys.argv[1]
arch = os.path.join(w, "ARCHITECTURE.md")
lines = open(arch).read().split("\n")
def headers(t):
    d = os.path.join(w, "src", t)
    return sorted(h for h in os.listdir(d) if h.endswith(".h")) if os.path.isdir(d) else []
def entries(cell):
    out, cur, depth = [], "", 0
    for c in cell:
        depth += (c == "(") - (c == ")")
        if c == "," and depth == 0:
            out.append(cur.strip()); cur = ""
        else:
            cur += c
    return [e for e in out + [cur.strip()] if e]
rows = []  # (index, folder, reads cell) of the src/FOLDER/ rows
for i, l in enumerate(lines):
    m = re.match(r"^\|\s*`src/([a-z_]+)/`\s*\|", l)
    if m:
        rows.append((i, m.group(1), l.split("|")[3].strip()))
for i, row, cell in rows:  # the table's own restrictions
    for e in entries(cell):
        m = re.fullmatch(r"([a-z_]+)\s*\((.*)\)", e)
        if not m:
            continue
        allowed = [h.strip() for h in m.group(2).split(",")]
        other = [h for h in headers(m.group(1)) if h not in allowed]
        if other and os.path.isfile(os.path.join(w, "src", m.group(1), allowed[0])):
            print(row, m.group(1), allowed[0], other[0])
            sys.exit(0)
for i, row, cell in rows:  # none: write one
    for e in entries(cell):
        if row != e and re.fullmatch(r"[a-z_]+", e) and len(headers(e)) >= 2:
            h = headers(e)
            cells = lines[i].split("|")
            cells[3] = " " + ", ".join(f"{e} ({h[0]})" if x == e else x for x in entries(cell)) + " "
            lines[i] = "|".join(cells)
            open(arch, "w").write("\n".join(lines))
            print(row, e, h[0], h[1])
            sys.exit(0)
sys.exit(1)
EOF
) || fail "no row of the table to try a restriction on"
[ -n "$badh" ] || fail "no restriction found or written"
grep -F "\`src/$row/\`" "$W/ARCHITECTURE.md" | grep -qF "$tgt (" || fail "src/$row/'s row has no restriction on $tgt"
f=$(find "$W/src/$row" -maxdepth 1 -name '*.c' | sort | head -n1)
[ -n "$f" ] || fail "no .c file in src/$row/"
rel=${f#"$W/"}
lint_rc # a restriction written here may turn includes of the tree into findings
base=$(count_of "$OUT")
cp "$f" "$SB_TMP/restr.c"
echo "#include \"$tgt/$okh\"" >>"$f"
lint_rc
assert_eq "$(count_of "$OUT")" "$base" "findings with $row -> $tgt/$okh (inside the restriction) added"
echo "#include \"$tgt/$badh\"" >>"$f"
line=$(wc -l <"$f")
expect_exit 1 "$LINT"
assert_contains "$OUT" "$rel:$line: $row -> $tgt ($tgt/$badh)" "the header outside the restriction"
assert_eq "$(count_of "$OUT")" "$((base + 1))" "findings with $row -> $tgt/$badh added"
cp "$SB_TMP/restr.c" "$f"
cp "$SB_TOP/ARCHITECTURE.md" "$W/ARCHITECTURE.md"
pass_msg "restriction $row reads $tgt ($okh): $tgt/$okh allowed, $tgt/$badh caught at $rel:$line"

# 4. A circle: stack reading workload as well as workload reading stack is
# a finding even where the table allows both edges.
cp "$SB_TOP/ARCHITECTURE.md" "$W/ARCHITECTURE.md"
sed -i 's/^\(| *`src\/stack\/` *|[^|]*| *\)\([^|]*|\)/\1workload, \2/' "$W/ARCHITECTURE.md"
grep -E '^\| *`src/stack/`' "$W/ARCHITECTURE.md" | grep -qF '| workload, ' ||
	fail "could not let stack read workload in the copy's table"
f=$W/src/stack/dm.c
cp "$f" "$SB_TMP/dm.c"
echo '#include "workload/workload.h"' >>"$f"
line=$(wc -l <"$f")
expect_exit 1 "$LINT"
assert_contains "$OUT" "include circle between folders stack, workload" "the circle"
assert_contains "$OUT" "stack -> workload (src/stack/dm.c:$line)" "the circle's new edge"
cp "$SB_TMP/dm.c" "$f"
cp "$SB_TOP/ARCHITECTURE.md" "$W/ARCHITECTURE.md"
pass_msg "circle stack <-> workload caught at src/stack/dm.c:$line"

# 5. A folder with no row is named (and the check fails); a table that
# cannot be read stops it with exit 2, saying why.
sed -i '/^| *`src\/engine\/`/d' "$W/ARCHITECTURE.md"
! grep -qF '`src/engine/`' "$W/ARCHITECTURE.md" || fail "could not remove the src/engine/ row"
expect_exit 1 "$LINT"
assert_contains "$OUT" "no row for src/engine/" "src/engine/ with no row"
count_of "$OUT" >/dev/null
cp "$SB_TOP/ARCHITECTURE.md" "$W/ARCHITECTURE.md"
sed -i 's/^\(| *`src\/util\/` *|[^|]*|\)[^|]*|/\1 nosuchfolder |/' "$W/ARCHITECTURE.md"
grep -qF 'nosuchfolder' "$W/ARCHITECTURE.md" || fail "could not edit the src/util/ row"
expect_exit 2 "$LINT"
assert_contains "$OUT" "src/util/ reads 'nosuchfolder'" "a reads entry naming no folder"
sed -i 's/^## The folders/## Folders/' "$W/ARCHITECTURE.md"
expect_exit 2 "$LINT"
assert_contains "$OUT" "no '## The folders' section" "no table"
expect_exit 2 "$LINT" --bogus
pass_msg "src/engine/ with no row named; an unusable table or a bad argument: exit 2"
