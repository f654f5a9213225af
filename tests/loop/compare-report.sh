#!/bin/bash
# What a comparison shows: the text report of a real `mixed` run has p50,
# p99, p99.9 and max rows for every operation of every phase (from the
# histograms stored in result.json, version 2); the HTML of three variants
# whose names share a long prefix (the md demo's) has three distinct column
# labels in the DOM Chromium renders, with the full names in the legend.
. "$SB_TOP/tests/lib.sh"
need_prog python3
cd "$SB_TOP"
export LC_ALL=C

mkdir -p "$SB_TMP/dir"
expect_exit 0 "$STACKBENCH" bench "$SB_TMP/dir" --quick --workload mixed:2r1w,time=1s \
	--results "$SB_TMP/mixed"
text=$("$STACKBENCH" report --all "$SB_TMP/mixed")
ops=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["version"] == 2, r["version"]
wl = r["variants"][0]["repeats"][0]["workloads"][0]
for l in wl["latency"]:
    assert l["hist"]["count"] == l["count"] and l["hist"]["buckets"], l["op"]
    print(l["op"])
for m in wl["metrics"]:
    assert m["label"] and "headline" in m, m
' "$SB_TMP/mixed/result.json") || fail "result.json of mixed: no histograms or labels"
n=0
while IFS= read -r op; do
	for p in p50 p99 p99.9 max; do
		line=$(grep -F -- "-$op $p " <<<"$text") || fail "no '$op $p' row"
		[[ "$line" =~ \ ms\ +lower\ +[-a-z/]+\ +[0-9] ]] || fail "'$op $p' row without a value: $line"
	done
	n=$((n + 1))
done <<<"$ops"
[ "$n" -ge 13 ] || fail "only $n operations (3 phases of mixed:2r1w have 5 + 5 + 10)"
assert_contains "$text" "2 readers + 1 writer: write rate (data)" "rate label from the metric table"

BROWSER=$(command -v chromium || command -v chromium-browser || true)
[ -n "$BROWSER" ] || skip "chromium not installed (the mixed rows passed)"
python3 - "$SB_TMP/md" <<'EOP'
import json, os, sys
d = sys.argv[1]; os.makedirs(d)
long = ",mount.options=noatime,logbufs=8,logbsize=256k"
vs = [({"md.write-mostly": "none"}, "md.write-mostly=none" + long),
      ({"md.write-mostly": "hdd", "md.write-behind": "0"}, "md.write-mostly=hdd,md.write-behind=0" + long),
      ({"md.write-mostly": "hdd", "md.write-behind": "16383"}, "md.write-mostly=hdd,md.write-behind=16383" + long)]
variants = []
for i, (params, name) in enumerate(vs):
    reps = [{"index": k, "started": "2026-12-01T00:00:00Z", "workloads": [
        {"workload": "rand", "spec": "rand:16k,direct=1", "flags": [], "latency": [],
         "metrics": [{"name": "write_mbs", "unit": "MB/s", "better": "higher",
                      "value": 10.0 + i + 0.1 * k}]}]} for k in range(3)]
    variants.append({"name": name, "params": params, "repeats": reps})
json.dump({"format": "stackbench-result", "version": 1, "command": "run", "created": "x",
           "variants": variants}, open(d + "/result.json", "w"))
EOP
"$STACKBENCH" report --format html "$SB_TMP/md" >"$SB_TMP/md.html"
dom=$(timeout 120 "$BROWSER" --headless --no-sandbox --disable-gpu --disable-background-networking \
	--disable-component-update --disable-sync --no-first-run --user-data-dir="$SB_TMP/profile" \
	--dump-dom "file://$SB_TMP/md.html" 2>>"$SB_TMP/chromium.log") ||
	fail "chromium --dump-dom failed: $(tail -5 "$SB_TMP/chromium.log")"
labels=$(grep -o '<th class="col"[^>]*>[^<]*' <<<"$dom" | sed 's/.*>//; s/ (baseline)$//')
assert_eq "$(wc -l <<<"$labels")" 3 "column headers"
assert_eq "$(sort -u <<<"$labels" | wc -l)" 3 "distinct column labels: $labels"
assert_contains "$labels" "write-mostly=hdd write-behind=16383" "label by the keys that differ"
assert_contains "$dom" "write-mostly=hdd write-behind=0 = md.write-mostly=hdd,md.write-behind=0,mount" \
	"full name in the legend"
assert_not_contains "$dom" "…" "nothing cut short"
pass_msg "mixed: p50/p99/p99.9/max rows for $n operations; html: 3 distinct labels: $(tr '\n' ';' <<<"$labels")"
