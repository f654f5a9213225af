#!/bin/bash
# Without root: probe, plan, list, report and bench (on a directory the user
# owns) work; run and teardown refuse with a clear message and exit 2, and
# nothing is created. Runs the commands as nobody (needs root to switch).
source "$SB_TOP/tests/lib.sh"
need_root
if command -v setpriv >/dev/null; then
	as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all -- "$@"; }
elif command -v runuser >/dev/null; then
	as_user() { runuser -u nobody -- "$@"; }
else
	skip "neither setpriv nor runuser"
fi
implemented() { "$STACKBENCH" "$1" --help >/dev/null 2>&1; }

# nobody may not reach the checkout (CI clones under /root): a copy of the
# binary and the shipped profiles in a directory everyone can read.
chmod 755 "$SB_TMP"
w=$SB_TMP/nr
mkdir -p "$w/home"
cp "$STACKBENCH" "$w/stackbench"
cp -r "$SB_TOP/profiles" "$w/" 2>/dev/null || true
cp "$SB_TOP/fuzz/corpus/result/run-two-variants.json" "$w/result.json"
chmod -R a+rX "$w"
chown 65534:65534 "$w/home"
SB=$w/stackbench
cd "$w"
state=$STACKBENCH_STATE_DIR
n=0

# user_ok WHAT CMD...: exit 0 as nobody; output in $OUT
user_ok() {
	local what=$1 rc=0
	shift
	OUT=$(as_user "$@" 2>&1) || rc=$?
	[ $rc -eq 0 ] || fail "$what as a user: exit $rc: $OUT"
	n=$((n + 1))
}

user_ok "probe" "$SB" probe
assert_contains "$OUT" "VERDICT" "probe as a user prints its table"
user_ok "probe --json" "$SB" probe --json
python3 -m json.tool >/dev/null <<<"$OUT" || fail "probe --json as a user: not JSON"
# (each only where this build has it: as root first)
for l in profiles workloads; do
	if "$STACKBENCH" list $l >/dev/null 2>&1; then
		user_ok "list $l" "$SB" list $l
	fi
done

if implemented plan && [ -d "$w/profiles" ]; then
	for p in "$w"/profiles/*.conf; do
		# What fails as root too (a workload this build lacks) is no
		# question of privileges.
		"$SB" plan "$p" --loop --quick >/dev/null 2>&1 || continue
		user_ok "plan $(basename "$p")" "$SB" plan "$p" --loop --quick
		[ -n "$OUT" ] || fail "plan $(basename "$p") as a user printed nothing"
	done
fi
# A mounted loop device whose backing file a user may not reach (as any
# run's images are, or another test's): mkfs.btrfs's dry run as a user then
# cannot check whether its scratch file is mounted, which is no verdict on
# the words and must not fail plan (it did, whenever such a mount existed).
need_prog mkfs.btrfs
mkdir -m 700 "$SB_TMP/priv"
mkdir "$SB_TMP/privmnt"
truncate -s 64M "$SB_TMP/priv/x.img"
mkfs.ext4 -q -F "$SB_TMP/priv/x.img"
pdev=$(losetup --find --show "$SB_TMP/priv/x.img")
SB_LOOPS+=("$pdev")
SB_MOUNTS+=("$SB_TMP/privmnt")
mount "$pdev" "$SB_TMP/privmnt"
if implemented plan && [ -f "$w/profiles/single-disk.conf" ]; then
	user_ok "plan btrfs beside a mount a user cannot see" "$SB" plan \
		"$w/profiles/single-disk.conf" --loop --quick -o fs.type=btrfs
	assert_contains "$OUT" "mkfs.btrfs" "plan as a user shows the btrfs steps"
fi
umount "$SB_TMP/privmnt"
losetup -d "$pdev"
# A profile plans as a user also with a workload every build has.
if implemented plan && [ -f "$w/profiles/single-disk.conf" ]; then
	user_ok "plan single-disk -o workloads.run=command:true" "$SB" plan \
		"$w/profiles/single-disk.conf" --loop --quick -o workloads.run=command:true
	assert_contains "$OUT" "mkfs" "plan as a user shows the steps"
fi
if implemented report; then
	user_ok "report" "$SB" report result.json
	user_ok "report --format html" "$SB" report --format html result.json
fi
if implemented bench; then
	user_ok "bench in the user's directory" "$SB" bench "$w/home" --quick -w meta,files=1
	left=$(find "$w/home" -mindepth 1 | head -3)
	[ -z "$left" ] || fail "bench as a user left files: $left"
fi

# Commands that build and destroy: a clear refusal, exit 2, nothing made.
for c in "run profiles/single-disk.conf --loop --quick --yes" "teardown --all"; do
	rc=0
	# shellcheck disable=SC2086
	OUT=$(as_user "$SB" $c 2>&1) || rc=$?
	[ $rc -eq 2 ] || fail "'$c' as a user: exit $rc, want 2: $OUT"
	assert_contains "$OUT" "must be run as root" "'$c' as a user"
	n=$((n + 1))
done
if [ -d "$state" ]; then
	left=$(find "$state" -mindepth 1 | head -3)
	[ -z "$left" ] || fail "state created by a user's commands: $left"
fi
nothing_left "non-root"
pass_msg "$n commands as a user behaved"
