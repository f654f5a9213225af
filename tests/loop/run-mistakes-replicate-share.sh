#!/bin/bash
# contrib/vm/replicate shares with the guest (read-write, 9p passthrough)
# the output directory itself and nothing above it: for --out /x/y the
# only share is /x/y, never /x (and --out / is refused). Checked through
# --print-vm-args, which boots nothing and creates nothing. No root needed.
. "$SB_TOP/tests/lib.sh"
REP=$SB_TOP/contrib/vm/replicate
[ -x "$SB_TOP/build/stackbench" ] || fail "build/stackbench not built"

# shares ARGS...: the -s/--share values of the contrib/vm/run command line.
shares() {
	"$REP" "$@" --print-vm-args | awk 'prev == "-s" || prev == "--share" {print} {prev = $0}'
}
out=$SB_TMP/x/y
assert_eq "$(shares single-disk --out "$out")" "$out" "shares for --out $out"
[ ! -e "$SB_TMP/x" ] || fail "--print-vm-args created $SB_TMP/x"
# Relative, with .. and a trailing slash: still the directory itself.
cd "$SB_TMP" || exit
assert_eq "$(shares single-disk --out x/../x/y/)" "$out" "shares for --out x/../x/y/"
# One level under /: that directory, not /.
assert_eq "$(shares single-disk --out /x)" "/x" "shares for --out /x"
# The guest also writes its results there, and only there.
args=$("$REP" single-disk --out "$out" --print-vm-args)
assert_eq "$(tail -1 <<<"$args")" "$out" "the guest's results directory"
expect_exit 2 "$REP" single-disk --out / --print-vm-args
assert_contains "$OUT" "a directory of their own" "--out /"
pass_msg "replicate shares only the output directory with the guest"
