#!/bin/bash
# Progress without a terminal (CI logs, the VM): stderr has "variant k of
# N, repeat r of R" for every run, the time left once a run was timed, and
# one line per finished phase naming where the run is; stdout has the
# results only (the report and the results path).
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
cd "$SB_TOP"

cat >"$SB_TMP/p.conf" <<'EOP'
[devices]
any = 1
loop.any = 256M

[fs]
type = ext4

[workloads]
run = seq,size=8M,perchar=0,seeks=100

[matrix]
mount.options = noatime | relatime
EOP
rc=0
"$STACKBENCH" run "$SB_TMP/p.conf" --loop --quick --repeat 2 --rounds --results "$SB_TMP/res" \
	>"$SB_TMP/out" 2>"$SB_TMP/err" </dev/null || rc=$?
[ "$rc" = 0 ] || fail "run exited $rc: $(tail -5 "$SB_TMP/err")"
nothing_left "progress run"
err=$(cat "$SB_TMP/err")
for v in 1 2; do
	for r in 1 2; do
		n=$(grep -c "variant $v of 2, repeat $r of 2: mount.options=" <<<"$err" || true)
		assert_eq "$n" 1 "start line of variant $v, repeat $r"
		for ph in "block write" rewrite "block read" seeks; do
			grep -q "^stackbench: \[variant $v of 2, repeat $r of 2\] seq: $ph: [0-9.]* s, " <<<"$err" ||
				fail "no line for phase '$ph' of variant $v, repeat $r: $(grep seq: <<<"$err" | head -3)"
		done
	done
done
# The first run cannot be estimated; every later one is.
assert_eq "$(grep -c 'repeat [12] of 2: .*(about [0-9hms]* left)$' <<<"$err")" 3 "time left on runs 2 to 4"
# No terminal: no line updated in place.
! grep -q $'\r' "$SB_TMP/err" || fail "carriage returns on a log"
# Stdout: results only.
! grep -q "variant [0-9] of\|seq: block write:" "$SB_TMP/out" || fail "progress on stdout"
head -1 "$SB_TMP/out" | grep -q "^verdict$" || fail "stdout does not start with the report: $(head -1 "$SB_TMP/out")"
tail -1 "$SB_TMP/out" | grep -q "^results: " || fail "stdout does not end with the results path"
pass_msg "per-phase and per-run progress on stderr, results alone on stdout"
