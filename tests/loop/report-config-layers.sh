#!/bin/bash
# Every layer's configuration in the report's configuration block: a pair
# of dm-cache sets recorded in the VM (profiles/lvmcache-ssd-hdd.conf,
# writethrough against writeback, tests/golden/report/inputs/lvmcache-mode)
# carries the rows lvmcache made of what the kernel runs
# (extra.config.rows), and the text and HTML reports say that the cache mode
# changed as asked. Made equal, the same rows are an A/A test posing as A/B.
# Sets recorded before the rows (the md demo) report as they always did.
# No root, no stacks.
. "$SB_TOP/tests/lib.sh"
need_prog jq
cd "$SB_TOP"
G=tests/golden/report/inputs
S=$G/lvmcache-mode
w='.repeats[0].workloads[0].extra.config'

# the recorded pair: what the kernel ran, and the rows made of it
modes=$(jq -r ".variants[] | $w.lvmcache[].mode" $S/result.json | tr '\n' ' ')
assert_eq "$modes" "writethrough writeback " "the kernel's cache modes in the recorded pair"
rows=$(jq -r ".variants[] | $w.rows[\"lvmcache0.mode\"]" $S/result.json | tr '\n' ' ')
assert_eq "$rows" "writethrough writeback " "lvmcache's rows in the recorded pair"

want="lvmcache0.mode is writethrough vs writeback, as asked"
expect_exit 0 "$STACKBENCH" report --width 1000 $S
assert_contains "$OUT" "effective configuration (extra.config):" "text: the configuration block"
assert_contains "$OUT" "changed: " "text: a changed line"
assert_contains "$OUT" "$want" "text: the cache mode compared"
assert_not_contains "$OUT" "same effective configuration" "text: no A/A warning"
expect_exit 0 "$STACKBENCH" report --format html $S
sect=$(sed -n '/<h2 id="devices">/,/<\/pre>/p' <<<"$OUT")
assert_contains "$sect" "$want" "html: the cache mode in the devices section"

# the rows are what is compared: the writeback variant given the
# writethrough variant's rows ran, by them, the same configuration
mkdir -p "$SB_TMP/same"
jq ".variants[1].repeats[].workloads[].extra.config.rows = .variants[0]$w.rows" \
	$S/result.json >"$SB_TMP/same/result.json"
expect_exit 0 "$STACKBENCH" report --width 1000 "$SB_TMP/same"
assert_contains "$OUT" "ran with the same effective configuration" "equal rows: A/A warning"
assert_not_contains "$OUT" "$want" "equal rows: no change"

# before the rows: md's sections flattened by the report, nothing new said
expect_exit 0 "$STACKBENCH" report --width 1000 $G/demo
assert_not_contains "$OUT" "changed: " "the md demo (no rows): as before"
pass_msg "lvmcache writethrough vs writeback compared in the configuration block"
