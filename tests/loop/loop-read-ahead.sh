#!/bin/bash
# A read-ahead stays with a loop device after it is detached: a loop device
# of ours is left reading ahead 4096 KiB (as an earlier user or run may
# leave one), then a run on --loop must see every loop device it made at
# the kernel's 128 KiB for a new one (result.json's queue capture), and
# run.log says where it set one back. Side by side would otherwise copy the
# first stack's read-ahead to every stack.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog python3
cd "$SB_TOP"

# Our own loop device, left with a large read-ahead and detached: the next
# free device, which the run is likely to take first.
truncate -s 16M "$SB_TMP/ours.img"
dev=$(losetup --find --show "$SB_TMP/ours.img")
echo 4096 >"/sys/block/${dev#/dev/}/queue/read_ahead_kb"
losetup -d "$dev"

expect_exit 0 "$STACKBENCH" run single-disk --loop --quick -o fs.type=ext4 \
	-o "workloads.run=command:true" --results "$SB_TMP/r" </dev/null
nothing_left "after the run"
python3 - "$SB_TMP/r/result.json" <<'PY' || fail "a loop device read ahead otherwise: see above"
import json, sys
seen, bad = {}, []
def walk(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if k.startswith("loop") and isinstance(v, dict) and "read_ahead_kb" in v and "kind" in v:
                seen[k] = v["read_ahead_kb"]
            walk(v)
    elif isinstance(o, list):
        for v in o:
            walk(v)
walk(json.load(open(sys.argv[1])))
if not seen:
    sys.exit("no loop device's queue captured")
bad = {k: v for k, v in seen.items() if v != "128"}
if bad:
    sys.exit("read_ahead_kb not 128: %r" % bad)
print("captured: %r" % seen)
PY
used=$(grep -o "attached as /dev/loop[0-9]*" "$SB_TMP/r/run.log" | awk '{print $3}')
if grep -qx "$dev" <<<"$used"; then
	grep -q "^.*$dev: read-ahead 4096 KiB, left by an earlier user: set to 128 KiB" "$SB_TMP/r/run.log" ||
		fail "run.log does not say $dev's read-ahead was set back"
fi
pass_msg "loop devices start at 128 KiB read-ahead, whatever an earlier user left"
