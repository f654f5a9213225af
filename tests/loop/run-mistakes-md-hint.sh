#!/bin/bash
# On a host without md, run says so before anything is written and names
# the exact command that runs this profile, with this run's options, in
# the VM runner (contrib/vm/replicate, and make demo for its profile), not
# tests/vm; the command it names is one replicate accepts (checked with
# --print-vm-args, which boots nothing).
. "$SB_TOP/tests/lib.sh"
need_loop
[ ! -e /proc/mdstat ] || skip "this kernel has md (the hint is for hosts without it)"
cd "$SB_TOP" || exit
expect_exit 1 "$STACKBENCH" run md-raid1-ssd-2hdd --loop --quick --yes --results "$SB_TMP/res" \
	-o md.assume-clean=yes -o 'workloads.run=seq,size=8M'
assert_contains "$OUT" "md: this kernel has no md driver" "the reason"
assert_not_contains "$OUT" "tests/vm" "the hint"
line=$(sed -n "s/.*in the VM runner (from a stackbench source tree, as root): \(contrib\/vm\/replicate .*\) (or 'make demo'.*/\1/p" <<<"$OUT")
assert_eq "$line" "contrib/vm/replicate profiles/md-raid1-ssd-2hdd.conf --quick -- -o md.assume-clean=yes -o workloads.run=seq,size=8M" "the command named"
assert_contains "$OUT" "'make demo'" "make demo named for its profile"
[ ! -e "$SB_TMP/res" ] || fail "results written"
nothing_left "md hint"
# The command works as written (its arguments, without booting).
eval "set -- $line"
args=$("$1" "$2" --print-vm-args "${@:3}") || fail "replicate refuses the named command: $args"
assert_eq "$(tail -2 <<<"$args" | head -1)" "-o" "run options passed to the guest"
assert_eq "$(tail -1 <<<"$args")" "workloads.run=seq,size=8M" "run options passed to the guest"
# device-mapper: the same hint, without make demo.
expect_exit 1 "$STACKBENCH" run lvm-hwraid6 --loop --quick --yes --results "$SB_TMP/res"
assert_contains "$OUT" "contrib/vm/replicate profiles/lvm-hwraid6.conf --quick" "lvm-hwraid6's command"
assert_not_contains "$OUT" "make demo" "lvm-hwraid6's hint"
pass_msg "no md here: the VM runner's exact command named"
