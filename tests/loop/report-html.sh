#!/bin/bash
# The HTML report renders in a real browser (headless Chromium from Debian):
# the DOM after rendering holds the table, one bar chart per metric with error
# bars and a dot per repeat, and the latency percentile chart; the file pulls
# nothing from the network and runs no script; a screenshot is produced.
. "$SB_TOP/tests/lib.sh"
cd "$SB_TOP"
BROWSER=$(command -v chromium || command -v chromium-browser || true)
[ -n "$BROWSER" ] || skip "chromium not installed (tools/install-deps installs it)"
G=tests/golden/report/inputs
html=$SB_TMP/report.html

expect_exit 0 "$STACKBENCH" report --format html $G/run1 $G/run2
"$STACKBENCH" report --format html $G/run1 $G/run2 >"$html"

# Self-contained: no scripts, no external resources (the SVG namespace is a
# name, not a fetch).
! grep -qi '<script' "$html" || fail "html has a script"
! grep -Eqi '(src|href)="(https?:|//)' "$html" || fail "html refers to the network"
! grep -Eqi '@import|url\(' "$html" || fail "html css imports something"

browse() {
	timeout 120 "$BROWSER" --headless --no-sandbox --disable-gpu \
		--disable-background-networking --disable-component-update --disable-sync \
		--no-first-run --user-data-dir="$SB_TMP/profile" "$@" 2>>"$SB_TMP/chromium.log"
}
dom=$(browse --dump-dom "file://$html") || fail "chromium --dump-dom failed: $(tail -5 "$SB_TMP/chromium.log")"
[ -n "$dom" ] || fail "empty DOM"

count() { grep -o -- "$1" <<<"$dom" | wc -l; }
# 6 metric rows and 4 latency rows (p50, p99, p99.9, max of random read)
# -> 10 bar charts over 4 columns; cells with values: block_write 4,
# block_write_cpu 2, block_read 2, seeks 1, read_iops 2, wall 2, latency
# 4 x 2 = 21 bars; every one of them has n >= 2, hence an error bar.
assert_eq "$(count '<svg class="bars"')" 10 "bar charts"
assert_eq "$(count '<rect class="bar ')" 21 "bars"
assert_eq "$(count '<g class="errorbar">')" 21 "error bars"
# a dot per repeat: 3+3+2+3 + 3+3 + 3+3 + 3 + 3+3 + 3+3 = 38, + 8 x 3 = 62
assert_eq "$(count '<circle class="rep"')" 62 "repeat dots"
assert_eq "$(count '<svg class="latency"')" 1 "latency charts"
assert_eq "$(count '<polyline class="pline"')" 2 "latency series (run1:ext4, xfs)"
assert_contains "$dom" '<rect class="bar better"' "significant improvement coloured"
assert_contains "$dom" '<rect class="bar worse"' "significant regression coloured"
assert_contains "$dom" '<td class="better"' "table cell marked better"
assert_contains "$dom" 'Sequential Output Block' "bonnie-style label"

browse --screenshot="$SB_TMP/report.png" --window-size=1200,1600 "file://$html" >/dev/null ||
	fail "chromium --screenshot failed"
size=$(stat -c %s "$SB_TMP/report.png")
[ "$size" -gt 20000 ] || fail "screenshot suspiciously small ($size bytes)"
pass_msg "html report rendered by $(basename "$BROWSER"): 10 bar charts, 21 error bars, 1 latency chart"
