#!/bin/bash
# Programs' answers kept for the boot (src/stack/answers.h): an accepted
# mkfs dry run and each program's version line are asked once, then read
# back; a changed program (its file touched) is asked again; a refusal is
# never kept; a directory that is not private is not trusted. Under the VM
# tier's emulation each answer kept is a process start (1-5 s) saved.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.xfs
need_prog jq

A=$STACKBENCH_ANSWERS_DIR
prof=$SB_TMP/kept.conf
cat >"$prof" <<'CONF'
[devices]
ssd = 1
[fs]
type = xfs
[workloads]
run = command:true
CONF
# A mkfs.xfs of our own in front of the real one, logging each call.
mkdir "$SB_TMP/bin"
real=$(command -v mkfs.xfs)
printf '#!/bin/sh\necho "$*" >>%s/calls\nexec %s "$@"\n' "$SB_TMP" "$real" >"$SB_TMP/bin/mkfs.xfs"
chmod +x "$SB_TMP/bin/mkfs.xfs"
calls() { grep -c -- ' -N \| -N$\|^-N ' "$SB_TMP/calls" 2>/dev/null || echo 0; }
plan() { PATH="$SB_TMP/bin:$PATH" "$STACKBENCH" plan "$prof" --loop --quick "$@"; }

expect_exit 0 plan
assert_contains "$OUT" "variant 1: mkfs words checked by mkfs.xfs's dry run (-N)" "first plan's note"
assert_eq "$(calls)" 1 "the first plan ran the dry run"
[ "$(stat -c %a "$A")" = 700 ] || fail "answers directory mode $(stat -c %a "$A")"
n=$(find "$A" -type f | wc -l)
[ "$n" -ge 1 ] || fail "no answer kept"
[ -z "$(find "$A" -type f ! -perm 600)" ] || fail "an answer file not 0600: $(ls -l "$A")"

expect_exit 0 plan
assert_contains "$OUT" "variant 1: mkfs words checked by mkfs.xfs's dry run (-N)" "the same note"
assert_eq "$(calls)" 1 "the second plan did not run mkfs again"
pass_msg "an accepted dry run asked once, then kept"

# The program changed: asked again.
touch -d '+1 minute' "$SB_TMP/bin/mkfs.xfs"
expect_exit 0 plan
assert_eq "$(calls)" 2 "a touched mkfs.xfs is asked again"

# A refusal is not kept: asked each time.
expect_exit 2 plan -o "fs.mkfs=-b size=3000"
expect_exit 2 plan -o "fs.mkfs=-b size=3000"
assert_eq "$(calls)" 4 "a refused dry run is asked every time"

# A directory others may write is not trusted.
chmod 755 "$A"
expect_exit 0 plan
assert_eq "$(calls)" 5 "not trusted: asked again"
chmod 700 "$A"
pass_msg "a changed program, a refusal and a shared directory all ask again"

# Versions: the second run's result.json names the same tools, from the kept answers.
for i in 1 2; do
	expect_exit 0 "$STACKBENCH" run "$prof" --loop --quick --yes --no-db --results "$SB_TMP/r$i"
done
t1=$(jq -cS .tools "$SB_TMP/r1/result.json") t2=$(jq -cS .tools "$SB_TMP/r2/result.json")
assert_eq "$t2" "$t1" "the kept versions"
jq -e '.tools["mkfs.xfs"] | test("mkfs.xfs version")' "$SB_TMP/r2/result.json" >/dev/null ||
	fail "mkfs.xfs's version not in the second run's tools: $t2"
nothing_left "after the runs"
pass_msg "versions kept: the same tools in both runs"
