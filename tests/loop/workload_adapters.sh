#!/bin/bash
# The adapters against the programs' own output from a short real run: what
# we import from fio's JSON and bonnie++'s CSV equals what they printed.
# Our bonnie++-compatible CSV line (seq + meta) is accepted by bon_csv2txt
# and bon_csv2html and shows our numbers. A missing program is a clear error.
. "$SB_TOP/tests/lib.sh"
need_root
need_prog jq

d="$SB_TMP/tmpfs"
mkdir -p "$d"
mount -t tmpfs -o size=256m sbtest "$d"
SB_MOUNTS+=("$d")
w='.variants[0].repeats[0].workloads[0]'

if command -v fio >/dev/null; then
	cat >"$SB_TMP/job.fio" <<'JOB'
[global]
size=8m
ioengine=psync
[rr]
rw=randread
bs=4k
[sw]
rw=write
bs=1m
[tb]
rw=randread
bs=4k
time_based=1
runtime=2500ms
JOB
	res="$SB_TMP/fio"
	expect_exit 0 "$STACKBENCH" bench "$d" --results "$res" -w "fio:$SB_TMP/job.fio"
	r="$res/result.json"
	for pair in "rr_read_iops|.jobs[0].read.iops" "rr_read_mbs|(.jobs[0].read.bw_bytes / 1048576)" \
		"sw_write_iops|.jobs[1].write.iops" "sw_write_mbs|(.jobs[1].write.bw_bytes / 1048576)"; do
		m=${pair%%|*} raw=${pair#*|}
		got=$(jq -r "$w.metrics[] | select(.name == \"$m\") | .value" "$r")
		want=$(jq -r "$w.extra.fio_output | $raw" "$r")
		[ -n "$got" ] && jq -e -n "($got - $want) | fabs < 1e-6 * ($want + 1)" >/dev/null ||
			fail "fio $m: imported '$got', fio printed '$want'"
	done
	got=$(jq -r "$w.latency[] | select(.op == \"rr read\") | [.count, .p99_ms * 1e6, .max_ms * 1e6] | map(round) | join(\" \")" "$r")
	want=$(jq -r "$w.extra.fio_output.jobs[0].read.clat_ns | [.N, .percentile[\"99.000000\"], .max] | map(round) | join(\" \")" "$r")
	assert_eq "$got" "$want" "fio rr read latency (count p99 max)"
	assert_eq "${got%% *}" 2048 "fio rr read count (8m / 4k)"
	# json+: fio's latency bins are kept as our histogram, so repeats pool.
	hc=$(jq -r "$w.latency[] | select(.op == \"rr read\") | .hist.count // 0" "$r")
	assert_eq "$hc" 2048 "fio rr read histogram from json+ bins"
	# fio's per-second logs as series: a 2.5 s job has a point a second.
	np=$(jq -r "$w.extra.series[\"tb read\"].iops | length" "$r")
	[ "$np" -ge 2 ] || fail "fio tb read: $np per-second points for 2.5 s"
	[ -z "$(ls -A "$d")" ] || fail "fio left files: $(ls -A "$d")"
	# missing program: a clear error, exit 1
	expect_exit 1 env PATH=/nonexistent "$STACKBENCH" bench "$d" -w "fio:$SB_TMP/job.fio"
	assert_contains "$OUT" "fio is not installed" "fio missing"
else
	echo "fio not installed: fio adapter not checked"
fi

if command -v bonnie++ >/dev/null; then
	res="$SB_TMP/bonnie"
	expect_exit 0 "$STACKBENCH" bench "$d" --results "$res" -w "bonnie++:-s 64 -r 32 -n 1"
	r="$res/result.json"
	csv=$(jq -r "$w.extra.bonnie_csv" "$r")
	IFS=, read -ra f <<<"$csv"
	assert_eq "${#f[@]}" 50 "bonnie++ CSV fields"
	checked=0
	for pair in 9:putc_write 10:putc_write_cpu 11:block_write 13:rewrite 15:getc_read 17:block_read \
		19:seeks 26:seq_create 28:seq_stat 30:seq_delete 32:rand_create 34:rand_stat 36:rand_delete; do
		i=${pair%%:*} m=${pair#*:}
		got=$(jq -r "$w.metrics[] | select(.name == \"$m\") | .value" "$r")
		if [[ "${f[$i]}" =~ ^[0-9]+$ ]]; then
			[ -n "$got" ] && jq -e -n "$got == ${f[$i]}" >/dev/null ||
				fail "bonnie++ $m: imported '$got', bonnie++ printed '${f[$i]}'"
			checked=$((checked + 1))
		else
			# "+++++": too fast for bonnie++ to measure, not imported
			assert_eq "$got" "" "bonnie++ $m ('${f[$i]}')"
		fi
	done
	[ $checked -ge 2 ] || fail "bonnie++: only $checked figures to compare in: $csv"
	[ -z "$(ls -A "$d")" ] || fail "bonnie++ left files: $(ls -A "$d")"
else
	echo "bonnie++ not installed: bonnie++ adapter not checked"
fi

if command -v bon_csv2txt >/dev/null; then
	res="$SB_TMP/ours"
	expect_exit 0 "$STACKBENCH" bench "$d" --quick --results "$res" --name "sbhost" --bonnie "$SB_TMP/ours.csv" \
		-w seq,size=32M,seeks=300 -w meta,files=1
	r="$res/result.json"
	txt=$(bon_csv2txt <"$SB_TMP/ours.csv")
	html=$(bon_csv2html <"$SB_TMP/ours.csv")
	assert_contains "$txt" sbhost "bon_csv2txt name"
	for m in block_write rewrite block_read seeks; do
		v=$(jq -r "$w.metrics[] | select(.name == \"$m\") | .value | round" "$r")
		# bon_csv2html shows K/s as M/sec, truncated
		found=
		for form in $(awk -v v="$v" 'BEGIN { printf "%d %d %.0f", v, v / 1024, v / 1024 }'); do
			grep -qF -- "<td>$form</td>" <<<"$html" && found=$form
		done
		[ -n "$found" ] || fail "bon_csv2html does not show $m ($v K/s)"
		# bon_csv2txt scales big rates: 873867 K/s is printed as 853m
		found=
		# (rounded or truncated: either is our number)
		for form in $(awk -v v="$v" 'BEGIN { m = v / 1024; g = m / 1024
			printf "%d %.0fm %dm %.1fm %.1fm %.1fg %.1fg", v, m, int(m), m, int(m * 10) / 10, g, int(g * 10) / 10 }'); do
			grep -qF -- " $form " <<<"$txt " && found=$form
		done
		[ -n "$found" ] || fail "bon_csv2txt does not show $m ($v K/s) in: $txt"
	done
	for m in seq_create rand_delete; do
		v=$(jq -r ".variants[0].repeats[0].workloads[1].metrics[] | select(.name == \"$m\") | .value | round" "$r")
		assert_contains "$txt" "$v" "bon_csv2txt shows $m"
	done
else
	echo "bon_csv2txt not installed: bonnie++ CSV not checked"
fi

if ! command -v iozone >/dev/null; then
	expect_exit 1 "$STACKBENCH" bench "$d" -w iozone
	assert_contains "$OUT" "iozone is not installed" "iozone missing"
fi
umount "$d"
SB_MOUNTS=()
pass_msg "fio and bonnie++ imports match their own output; bon_csv2txt/html read our CSV"
