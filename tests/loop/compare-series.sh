#!/bin/bash
# Per-second series in the HTML report: extra.series of each workload result
# (per phase: t, iops, mbps, p99_ms, ramp_s; see doc/result-format.md) drawn
# as SVG line charts per phase and measure, a line per variant and repeat,
# the warm-up shaded; rendered by headless Chromium and checked in its DOM.
# Results without series get no such charts.
. "$SB_TOP/tests/lib.sh"
need_prog python3
cd "$SB_TOP"
BROWSER=$(command -v chromium || command -v chromium-browser || true)
[ -n "$BROWSER" ] || skip "chromium not installed (tools/install-deps installs it)"

python3 - "$SB_TMP/set" <<'EOP'
import json, os, sys
d = sys.argv[1]; os.makedirs(d)
variants = []
for vi, v in enumerate(["ext4", "xfs"]):
    reps = []
    for k in range(2):
        series = {}
        for ph in ["random read", "random write"]:
            t = list(range(1, 11))
            series[ph] = {"interval_s": 1, "ramp_s": 2, "t": t,
                          "iops": [1000 + 100 * vi + 10 * k + x for x in t],
                          "mbps": [4 + vi + 0.1 * x for x in t],
                          "p99_ms": [0.5 + 0.01 * x for x in t]}
        reps.append({"index": k, "started": "2026-12-01T00:00:00Z", "workloads": [
            {"workload": "rand", "spec": "rand:4k", "flags": [], "latency": [],
             "metrics": [{"name": "read_mbs", "unit": "MB/s", "better": "higher", "value": 4.0 + vi + k / 10}],
             "extra": {"series": series}},
            {"workload": "command", "spec": "command:true", "flags": [], "latency": [],
             "metrics": [{"name": "wall", "unit": "s", "better": "lower", "value": 0.01}]}]})
    variants.append({"name": v, "params": {"fs.type": v}, "repeats": reps})
json.dump({"format": "stackbench-result", "version": 2, "command": "run", "created": "x",
           "variants": variants}, open(d + "/result.json", "w"))
EOP
"$STACKBENCH" report --format html "$SB_TMP/set" >"$SB_TMP/r.html" || fail "html report"
dom=$(timeout 120 "$BROWSER" --headless --no-sandbox --disable-gpu --disable-background-networking \
	--disable-component-update --disable-sync --no-first-run --user-data-dir="$SB_TMP/profile" \
	--dump-dom "file://$SB_TMP/r.html" 2>>"$SB_TMP/chromium.log") ||
	fail "chromium --dump-dom failed: $(tail -5 "$SB_TMP/chromium.log")"
count() { grep -o -- "$1" <<<"$dom" | wc -l; }
# 2 phases x 3 measures; each with 2 variants x 2 repeats; warm-up shaded in each
assert_eq "$(count '<svg class="series"')" 6 "series charts"
assert_eq "$(count '<polyline class="sline"')" 24 "series lines"
assert_eq "$(count '<rect class="warmup"')" 6 "warm-up shading"
assert_contains "$dom" "random write: p99 latency (ms)" "panel title"
assert_contains "$dom" "<title>xfs, repeat 2</title>" "line labelled by variant and repeat"
assert_eq "$(count '<h3>Over time</h3>')" 1 "only the workload with series gets them"
pass_msg "series: 6 charts, 24 lines, warm-up shaded, rendered by $(basename "$BROWSER")"
