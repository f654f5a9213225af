# Helpers for the probe's shell tests (sourced after tests/lib.sh; kept here
# because every tests/loop/*.sh file is run as a test).

# q JSON EXPR: evaluates EXPR with devs = {name: device} from probe JSON
q() { python3 -c "import json,sys; devs={d['name']: d for d in json.loads(sys.argv[1])['devices']}; print(($2))" "$1"; }
probe_json() { "$STACKBENCH" probe --json "$@"; }

# lsblk and we must agree on size and rotational for every device named
same_as_lsblk() {
	local ours theirs
	ours=$(probe_json "$@")
	theirs=$(lsblk -J -b -o NAME,SIZE,ROTA "$@")
	python3 - "$ours" "$theirs" <<'PY' || fail "probe and lsblk disagree on $*"
import json, sys
ours = {d["name"]: d for d in json.loads(sys.argv[1])["devices"]}
def walk(devs):
    for d in devs:
        yield d
        yield from walk(d.get("children", []))
n = 0
for d in walk(json.loads(sys.argv[2])["blockdevices"]):
    o = ours.get(d["name"])
    if o is None:
        continue
    n += 1
    rota = d["rota"] in (True, "1", 1)
    if o["size"] != int(d["size"]) or o["rotational"] != rota:
        sys.exit(f"{d['name']}: ours size={o['size']} rota={o['rotational']}, lsblk {d}")
if n != len(ours):
    sys.exit(f"compared {n} of {len(ours)} devices")
PY
}
