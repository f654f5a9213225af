#!/bin/bash
# `bench` and `list workloads` at the edges: bad specs are refused before
# anything runs (exit 2, the spec and the expected form named), the list
# comes from the option tables.
. "$SB_TOP/tests/lib.sh"

d="$SB_TMP/dir"
mkdir -p "$d"

cases=(
	"rnd:4k|workload 'rnd:4k': unknown workload 'rnd' (did you mean 'rand'?)"
	"rand|workload 'rand': rand needs BS (expected rand:BS[,key=value...], e.g. rand:16k,direct=1)"
	"rand:16q|bad record size '16q'"
	"rand:4k,thread=2|unknown key 'thread' (did you mean 'threads'?)"
	"mixed:3x3w|expected RrWw"
	"seq,size=lots|bad value 'lots' for size: expected a size such as 4k, 512M, 2G"
	"meta,files=0|files=0 out of range"
)
for c in "${cases[@]}"; do
	spec=${c%%|*} want=${c#*|}
	# a good spec first: nothing may run when a later one is bad
	expect_exit 2 "$STACKBENCH" bench "$d" -w seq,size=1M -w "$spec"
	assert_contains "$OUT" "stackbench: workload '$spec': " "spec '$spec' named"
	assert_contains "$OUT" "$want" "spec '$spec'"
	assert_contains "$OUT" "(expected " "spec '$spec' expected form"
	assert_not_contains "$OUT" "running" "spec '$spec' ran something"
done
[ -z "$(ls -A "$d")" ] || fail "a refused run left files: $(ls -A "$d")"

expect_exit 2 "$STACKBENCH" bench "$SB_TMP/nonexistent" -w seq
assert_contains "$OUT" "not an existing directory" "missing directory"
expect_exit 2 "$STACKBENCH" bench "$d" --workloads seq
assert_contains "$OUT" "did you mean '--workload'" "option typo"
expect_exit 2 "$STACKBENCH" bench "$d" --ram lots
assert_contains "$OUT" "--ram 'lots'" "bad --ram"

expect_exit 0 "$STACKBENCH" list workloads
for w in seq meta rand:BS mixed:RrWw command:CMD fio:JOBFILE "bonnie++[:ARGS]" "iozone[:ARGS]"; do
	assert_contains "$OUT" "$w" "list workloads"
done
for k in "chunk=SIZE" "threads=N" "direct=0|1" "time=TIME" "timeout=TIME"; do
	assert_contains "$OUT" "$k" "list workloads keys"
done

# the bench help comes from the same option table
expect_exit 0 "$STACKBENCH" bench --help
assert_contains "$OUT" "--workload SPEC" "bench --help"
pass_msg "bad specs refused with exit 2, list from the tables"
