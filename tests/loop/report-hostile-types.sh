#!/bin/bash
# Issue 24 items 4 (reading) and 5: a wrong type, NaN, Infinity, a figure
# out of any sane range or two variants of one name, in a result.json, an
# imported fio JSON or a bonnie++ CSV line, is refused: exit 2, the file
# (and line) and the member named, nothing on stdout, never a crash
# ("jobname": null crashed report with a strcmp of NULL). No root needed.
. "$SB_TOP/tests/lib.sh"
need_prog python3
cd "$SB_TOP"
export LC_ALL=C
R1=tests/golden/report/inputs/run1/result.json
FIO=tests/golden/report/import/fio-jsonplus.json
CSV=tests/golden/report/import/host1-1.96.csv
T=$SB_TMP

# mutate SRC DST PYTHON: DST is SRC's JSON after PYTHON ran on d (as text,
# so that NaN and Infinity are written as json-c would read them)
mutate() {
	python3 - "$1" "$2" "$3" <<'EOP'
import json, sys
src, dst, code = sys.argv[1:]
text = open(src).read()
d = json.loads(text[text.index("{"):])
exec(code)
open(dst, "w").write(json.dumps(d, allow_nan=True))
EOP
}

M='d["variants"][0]["repeats"][0]["workloads"][0]["metrics"][0]'
P='variants[0].repeats[0].workloads[0].metrics[0]'
mutate $R1 "$T/nan.json" "${M}[\"value\"] = float(\"nan\")"
mutate $R1 "$T/inf.json" "${M}[\"value\"] = float(\"inf\")"
mutate $R1 "$T/ninf.json" "${M}[\"value\"] = float(\"-inf\")"
mutate $R1 "$T/huge.json" "${M}[\"value\"] = 1e300"
mutate $R1 "$T/str.json" "${M}[\"value\"] = \"111000\""
mutate $R1 "$T/lat.json" 'd["variants"][1]["repeats"][0]["workloads"][0].setdefault("latency", []).append({"op": "x", "max_ms": -3})'
mutate $R1 "$T/dup.json" 'd["variants"][2]["name"] = d["variants"][0]["name"]'
mutate $R1 "$T/host.json" 'd["host"]["hostname"] = ["a"]'
# 1e999: json-c 0.16 refuses it (out of range); an older one read infinity
sed 's/"value":111000/"value":1e999/' $R1 >"$T/e999.json"
grep -q 1e999 "$T/e999.json" || fail "fixture: 1e999 not written"
J='d["jobs"][0]'
mutate $FIO "$T/jobnull.json" "${J}[\"jobname\"] = None"
mutate $FIO "$T/jobnum.json" "${J}[\"jobname\"] = 5"
mutate $FIO "$T/iopsnull.json" "${J}[\"read\"][\"iops\"] = None"
mutate $FIO "$T/iopsnan.json" "${J}[\"read\"][\"iops\"] = float(\"nan\")"
mutate $FIO "$T/clat.json" "${J}[\"read\"][\"clat_ns\"] = \"fast\""
line=$(grep -v '^#' $CSV | head -1)
bonnie() { # NAME FIELD VALUE: the 1.96 line with field FIELD (1-based) set
	awk -F, -v OFS=, -v f="$2" -v v="$3" '{$f = v; print}' <<<"$line" >"$T/$1.csv"
}
bonnie bnan 10 nan      # block_write (1.96 field 10)
bonnie binf 10 inf
bonnie be999 10 1e999
bonnie bneg 10 -5
bonnie bhex 10 0x1p20
bonnie blat 37 nanus   # the first latency

cases=(
	"nan.json|nan.json: $P.value: NaN is not a number JSON has"
	"inf.json|inf.json: $P.value: Infinity is not a number JSON has"
	"ninf.json|ninf.json: $P.value: -Infinity is not a number JSON has"
	"e999.json|e999.json: line "
	"huge.json|huge.json: $P.value: 1e+300 out of range"
	"str.json|str.json: $P.value: expected a number, got a string"
	"lat.json|lat.json: variants[1].repeats[0].workloads[0].latency[0].max_ms: -3 out of range"
	"dup.json|dup.json: variants[0] and variants[2] are both named 'ext4'"
	"host.json|host.json: host.hostname: expected a string, got an array"
	"jobnull.json|jobnull.json: not fio JSON output with results: jobs[0].jobname: expected a value, got null"
	"jobnum.json|jobs[0].jobname: expected a string, got an integer"
	"iopsnull.json|jobs[0].read.iops: expected a value, got null"
	"iopsnan.json|jobs[0].read.iops: NaN is not a number JSON has"
	"clat.json|jobs[0].read.clat_ns: expected an object, got a string"
	"bnan.csv|bnan.csv: line 1: 'nan' where a figure belongs (block_write)"
	"binf.csv|binf.csv: line 1: 'inf' where a figure belongs (block_write)"
	"be999.csv|be999.csv: line 1: '1e999' where a figure belongs (block_write)"
	"bneg.csv|bneg.csv: line 1: '-5' where a figure belongs (block_write)"
	"bhex.csv|bhex.csv: line 1: '0x1p20' where a figure belongs (block_write)"
	"blat.csv|blat.csv: line 1: 'nanus' where a latency belongs (putc_write latency)"
)
for c in "${cases[@]}"; do
	f=$T/${c%%|*}
	expect_exit 2 "$STACKBENCH" report "$f"
	assert_contains "$OUT" "${c#*|}" "error for ${c%%|*}"
	stdout=$("$STACKBENCH" report $R1 "$f" 2>/dev/null) || true
	assert_eq "$stdout" "" "stdout for ${c%%|*}"
done
# --check reads through the same reader: refused, never passed
for f in nan.json inf.json dup.json; do
	expect_exit 2 "$STACKBENCH" report --check $R1 "$T/$f"
done

# What we write for a figure not measured (null) still reads.
mutate $R1 "$T/null.json" "${M}[\"value\"] = None"
expect_exit 0 "$STACKBENCH" report "$T/null.json"
echo "ok: wrong types, NaN, Infinity and duplicate names refused with the member named"
