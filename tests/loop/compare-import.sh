#!/bin/bash
# Other tools' results as result sets: the two bonnie++ 1.03 lines of the
# btrfs RAID-1 report (../shared/seeds), a 1.96 line, bonnie++ 2.00's own
# 1.98 line and a captured fio json+ file read by `report`, with values equal
# to the input's, +++++ as "too fast to measure" (no number), n = 1 marked,
# and side by side with our own result set. A bad line is refused naming the
# file and line, with nothing on stdout.
. "$SB_TOP/tests/lib.sh"
need_prog python3
cd "$SB_TOP"
I=tests/golden/report/import
export LC_ALL=C

# figures of the report's JSON: {(variant, metric): mean}
figures() {
	"$STACKBENCH" report --format json "$@" | python3 -c '
import json, sys
r = json.load(sys.stdin)
out = {}
for row in r["rows"]:
    for c in row["cells"]:
        if c["n"]:
            assert c["n"] == 1 and c["ci95"] is None, (row["metric"], c)
            out["%s %s" % (c["variant"], row["metric"])] = c["mean"]
print(json.dumps(out))'
}

# 1.03 (27 fields): every number of the line, under our metric names.
got=$(figures $I/btrfs-raid1-1.03.csv) || fail "report of the 1.03 lines"
python3 - "$got" $I/btrfs-raid1-1.03.csv <<'EOP' || fail "1.03 values differ from the input"
import json, sys
got = json.loads(sys.argv[1])
names = ["putc_write", "block_write", "rewrite", "getc_read", "block_read", "seeks"]
meta = ["seq_create", "seq_stat", "seq_delete", "rand_create", "rand_stat", "rand_delete"]
for i, line in enumerate(open(sys.argv[2])):
    f = line.strip().split(",")
    var = f[0] if i == 0 else "%s#%d" % (f[0], i + 1)
    cols = [(n, 2 + 2 * k) for k, n in enumerate(names)] + [(n + "_cpu", 3 + 2 * k) for k, n in enumerate(names)]
    cols += [(n, 15 + 2 * k) for k, n in enumerate(meta)] + [(n + "_cpu", 16 + 2 * k) for k, n in enumerate(meta)]
    for metric, idx in cols:
        key = "%s %s" % (var, metric)
        if f[idx] in ("", "+++++", "+++"):
            assert key not in got, (key, "should have no value")
        else:
            assert got[key] == float(f[idx]), (key, got.get(key), f[idx])
print("1.03 ok", len(got))
EOP
# (wide enough that the notes are not folded: their words are checked whole)
text=$("$STACKBENCH" report --width 1000 $I/btrfs-raid1-1.03.csv)
assert_contains "$text" "note: sys26: meta: bonnie++ printed +++++ (too fast to measure, not a number) for seq_stat, rand_stat" "+++++ note"
assert_contains "$text" "imported from $I/btrfs-raid1-1.03.csv line 1 (bonnie++ 1.03 CSV): one figure each (n = 1), no interval and no test" "n = 1 note"
assert_contains "$text" "Sequential Output Block" "bonnie labels"

# 1.96 (48 fields) and 1.98 (50): the numbers land where the 1.98 order says.
got=$(figures $I/host1-1.96.csv) || fail "report of the 1.96 line"
python3 -c '
import json, sys
g = json.loads(sys.argv[1])
want = {"putc_write": 500, "block_write": 90000, "rewrite": 40000, "getc_read": 1200,
        "block_read": 100000, "seeks": 350.5, "seq_create": 2000, "seq_delete": 3000,
        "rand_create": 2100, "rand_delete": 2900, "seeks_cpu": 5, "rand_delete_cpu": 26}
for k, v in want.items():
    assert g["host1 " + k] == v, (k, g.get("host1 " + k), v)
assert "host1 seq_stat" not in g
' "$got" || fail "1.96 values"
got=$(figures $I/vm-1.98.csv) || fail "report of the 1.98 lines"
python3 -c '
import json, sys
g = json.loads(sys.argv[1])
assert g["ext4 block_write"] == 100000 and g["ext4 seeks"] == 300, g
assert not any(k.startswith("vm ") for k in g), g   # bonnie++ 2.00: all +++++
' "$got" || fail "1.98 values"

# fio json+: bandwidth and IOPS as fio wrote them; latency rows from its bins.
got=$(figures $I/fio-jsonplus.json) || fail "report of the fio JSON"
python3 - "$got" $I/fio-jsonplus.json <<'EOP' || fail "fio values differ from the input"
import json, sys
g = json.loads(sys.argv[1])
fio = json.load(open(sys.argv[2]))
for j in fio["jobs"]:
    for d in ("read", "write"):
        if j[d]["total_ios"] <= 0:
            continue
        assert abs(g["fio-jsonplus %s_%s_mbs" % (j["jobname"], d)] - j[d]["bw_bytes"] / 1048576) < 1e-9
        assert g["fio-jsonplus %s_%s_iops" % (j["jobname"], d)] == j[d]["iops"]
        c = j[d]["clat_ns"]
        assert abs(g["fio-jsonplus latency:%s %s:max" % (j["jobname"], d)] - c["max"] / 1e6) < 1e-9
        # p99 from the bins, within the histogram's bound (1/64) of fio's own
        p99 = c["percentile"]["99.000000"] / 1e6
        ours = g["fio-jsonplus latency:%s %s:p99" % (j["jobname"], d)]
        assert abs(ours - p99) <= p99 / 32, (ours, p99)
print("fio ok")
EOP

# Published beside measured: one table.
text=$("$STACKBENCH" report $I/btrfs-raid1-1.03.csv tests/golden/report/inputs/run1)
grep -E '^.-Sequential Output Block +KB/s +higher +28299 +62075' <<<"$text" >/dev/null ||
	fail "published and measured not side by side: $text"

# Bad input: file and line named, exit 2, nothing on stdout.
printf 'sys26,2G,,,28299,17\n' >"$SB_TMP/short.csv"
printf '%s\n' "$(head -1 $I/btrfs-raid1-1.03.csv)" 'sys26,2G,,,x28299,17,18633,12,,,85702,29,3093.9,18,16,7513,99,+++++,+++,5140,98,3964,67,+++++,+++,5652,99' >"$SB_TMP/word.csv"
printf '{"fio version": "fio-3.33", "jobs": 3}' >"$SB_TMP/fio.json"
for c in "short.csv|line 1: not a bonnie++ CSV line" "word.csv|line 2: 'x28299' where a figure belongs" \
	"fio.json|not fio JSON output with results"; do
	f=${c%%|*}
	out=$("$STACKBENCH" report "$SB_TMP/$f" 2>"$SB_TMP/err") && fail "$f accepted"
	[ -z "$out" ] || fail "$f: something on stdout"
	assert_contains "$(cat "$SB_TMP/err")" "$SB_TMP/$f: ${c#*|}" "$f error"
done
pass_msg "bonnie++ 1.03/1.96/1.98 and fio json+ read with the input's values, side by side with ours"
