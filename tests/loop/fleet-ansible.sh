#!/bin/bash
# A fleet of two hosts driven by contrib/ansible: two OpenSSH servers of our
# own on 127.0.0.1 (throwaway host and client keys, nothing of the machine's
# ssh configuration used), each an inventory host with its own state and
# result directories. run.yml installs the package (dpkg -x, so the machine
# itself is not changed), runs single-disk --loop --quick on both, fetches
# results/HOST/ and reports them together. Then one host's run is killed
# mid-way (its sshd and its stackbench process): the other host finishes,
# and teardown.yml leaves the killed host with nothing behind. A bare
# /dev/sdX in host vars is refused before anything runs.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog ansible-playbook
need_prog ssh-keygen
[ -x /usr/sbin/sshd ] || skip "openssh-server not installed"
need_prog dpkg-buildpackage

cd "$SB_TOP"
deb=$(ls build/deb/stackbench_*.deb 2>/dev/null | head -1 || true)
if [ -z "$deb" ]; then
	DEB_BUILD_OPTIONS=nocheck tools/make-deb >/dev/null 2>&1 || fail "make deb failed"
	deb=$(ls build/deb/stackbench_*.deb)
fi
deb=$SB_TOP/$deb

pids=()
stop_sshd() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; }
# Whatever a killed host's run left, undone from its journal before
# tests/lib.sh removes the directories.
undo_hosts() { for h in h1 h2; do STACKBENCH_STATE_DIR=$SB_TMP/state-$h "$STACKBENCH" teardown --all; done; }
SB_CLEANUPS+=("stop_sshd" "undo_hosts")
mkdir -p /run/sshd
chmod 700 "$SB_TMP"
ssh-keygen -q -t ed25519 -N '' -f "$SB_TMP/client" -C sbtest
ssh-keygen -q -t ed25519 -N '' -f "$SB_TMP/hostkey" -C sbtest-host
cp "$SB_TMP/client.pub" "$SB_TMP/authorized_keys"

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
start_sshd() { # NAME PORT
	cat >"$SB_TMP/sshd-$1.conf" <<CONF
ListenAddress 127.0.0.1
Port $2
HostKey $SB_TMP/hostkey
AuthorizedKeysFile $SB_TMP/authorized_keys
PidFile $SB_TMP/sshd-$1.pid
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
Subsystem sftp internal-sftp
CONF
	/usr/sbin/sshd -D -e -f "$SB_TMP/sshd-$1.conf" 2>"$SB_TMP/sshd-$1.log" &
	pids+=($!)
	eval "sshd_$1=$!"
	for _ in $(seq 50); do
		ssh -q -p "$2" -i "$SB_TMP/client" -o BatchMode=yes -o StrictHostKeyChecking=no \
			-o UserKnownHostsFile=/dev/null root@127.0.0.1 true 2>/dev/null && return 0
		sleep 0.1
	done
	fail "sshd $1 did not answer: $(cat "$SB_TMP/sshd-$1.log")"
}
p1=$(free_port)
p2=$(free_port)
start_sshd h1 "$p1"
start_sshd h2 "$p2"

play="$SB_TMP/play"
mkdir -p "$play"
cp -r contrib/ansible/. "$play/"
inv="$play/hosts"
cat >"$inv" <<INV
[fleet]
h1 ansible_port=$p1 stackbench_loop_dir=$SB_TMP/loops-h1 stackbench_state_dir=$SB_TMP/state-h1 stackbench_root=$SB_TMP/root-h1 stackbench_remote_results=$SB_TMP/remote-h1
h2 ansible_port=$p2 stackbench_loop_dir=$SB_TMP/loops-h2 stackbench_state_dir=$SB_TMP/state-h2 stackbench_root=$SB_TMP/root-h2 stackbench_remote_results=$SB_TMP/remote-h2

[fleet:vars]
ansible_host=127.0.0.1
ansible_user=root
ansible_python_interpreter=/usr/bin/python3
ansible_pipelining=true
ansible_ssh_private_key_file=$SB_TMP/client
ansible_ssh_common_args='-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null'
stackbench_install=extract
stackbench_deb=$deb
stackbench_remote_tmp=$SB_TMP
stackbench_devices=loop
INV
export ANSIBLE_LOCAL_TEMP="$SB_TMP/ansible-local" ANSIBLE_REMOTE_TEMP="$SB_TMP/ansible-remote"
# No persistent connection: a host whose sshd is gone is then unreachable
# at the next task, as a lost host is.
export ANSIBLE_SSH_ARGS="-o ControlMaster=no -o ControlPersist=no -o ConnectTimeout=5"
export ANSIBLE_NOCOLOR=1 ANSIBLE_HOST_KEY_CHECKING=False ANSIBLE_RETRY_FILES_ENABLED=False
# --no-db: the "hosts" are this machine over ssh, whose environment the
# test cannot set: without it their runs would write the machine's own
# history database.
args='["--quick", "--no-db", "-o", "workloads.run=seq,size=8M,chunk=64k,seeks=100", "-o", "matrix.fs.type=ext4|xfs"]'

left_on() { # HOST: what stackbench left on that host
	losetup -a | grep -F "$SB_TMP/state-$1" || true
	findmnt -rn -o TARGET | grep -F "$SB_TMP/state-$1" || true
	find "$SB_TMP/state-$1" -mindepth 1 -maxdepth 1 ! -name lock -printf '%f\n' 2>/dev/null || true
}

# 1. Both hosts, together.
t0=$(date +%s)
out=$(timeout 600 ansible-playbook -i "$inv" "$play/run.yml" -e profile=single-disk \
	-e "report_bin=$STACKBENCH" -e "{\"stackbench_args\": $args}" 2>&1) ||
	fail "run.yml failed: $(tail -40 <<<"$out")"
t_fleet=$(( $(date +%s) - t0 ))
for h in h1 h2; do
	[ -s "$play/results/$h/result.json" ] || fail "no results/$h/result.json: $(tail -30 <<<"$out")"
	[ -z "$(left_on $h)" ] || fail "$h: left behind: $(left_on $h)"
done
assert_contains "$out" "h1:fs.type=ext4" "fleet report: a column per host and variant"
assert_contains "$out" "h2:fs.type=xfs" "fleet report: the other host's columns"
assert_contains "$out" "h2:fs.type=xfs vs h2:fs.type=ext4" "fleet report: variants compared within their host"
assert_contains "$out" "fleet: each variant against its own host" "fleet summary"
# --by host: one variant's hosts side by side.
"$STACKBENCH" report --width 10000 --by host "$play/results/h1" "$play/results/h2" >"$SB_TMP/byhost.txt"
hdr=$(grep -m1 "^METRIC" "$SB_TMP/byhost.txt")
[[ "$hdr" =~ h1:fs.type=ext4\ +h2:fs.type=ext4\ +h1:fs.type=xfs\ +h2:fs.type=xfs ]] ||
	fail "--by host: columns not grouped by variant: $hdr"
# The HTML's per-host chart: a bar per host for each variant.
"$STACKBENCH" report --fleet --format html "$play/results/h1" "$play/results/h2" >"$SB_TMP/fleet.html"
grep -q 'id="fleet"' "$SB_TMP/fleet.html" || fail "HTML: no fleet section"
for h in h1 h2; do
	grep -q "class=\"vlabel host\"[^>]*>$h<" "$SB_TMP/fleet.html" || fail "HTML fleet chart: no bar for $h"
done
grep -q 'h1 *: ok=.*failed=0' <<<"$out" || fail "h1 not ok: $(tail -10 <<<"$out")"
grep -q 'h2 *: ok=.*failed=0' <<<"$out" || fail "h2 not ok: $(tail -10 <<<"$out")"
echo "fleet of two: ${t_fleet}s"

# 2. A bare /dev/sdX is refused before anything runs, on that host only.
out=$(timeout 600 ansible-playbook -i "$inv" "$play/run.yml" -l h1 -e report=false \
	-e '{"stackbench_devices": [{"path": "/dev/sdz", "serial": "X"}]}' 2>&1) &&
	fail "a bare /dev/sdz was accepted"
assert_contains "$out" "bare /dev/sdX" "refusal names the reason"

# 3. Kill h2 mid-run: h1 finishes; teardown.yml cleans h2.
rm -rf "$play/results"
slow='["--quick", "--no-db", "-o", "workloads.run=command:sleep 15", "-o", "matrix.fs.type=ext4"]'
timeout 600 ansible-playbook -i "$inv" "$play/run.yml" -e profile=single-disk -e report=false \
	-e "{\"stackbench_args\": $slow}" >"$SB_TMP/kill.log" 2>&1 &
apid=$!
# Up to 5 minutes for the play to get there: its earlier tasks (copy, dpkg
# -x, probe) took over a minute in CI with the VM tier's guests beside.
deadline=$(($(date +%s) + 300))
while [ "$(date +%s)" -lt $deadline ]; do
	findmnt -rn -o TARGET | grep -F "$SB_TMP/state-h2" >/dev/null && break
	sleep 0.2
done
findmnt -rn -o TARGET | grep -F "$SB_TMP/state-h2" >/dev/null || fail "h2 never mounted: $(tail -20 "$SB_TMP/kill.log")"
# The host is lost: its sshd goes away.
kill -9 "${sshd_h2:?}"
# The run's own process: killed as a lost host's would be, no teardown.
# (pgrep -x: ansible's own processes carry the same words in their argv.)
runs=$(pgrep -f "^$SB_TMP/root-h2/usr/sbin/stackbench run" || true)
[ -n "$runs" ] || fail "h2's run process not found: $(ps -eo pid,args | grep -F root-h2 | grep -v grep)"
for p in $runs; do
	kill -9 "$p"
	pkill -9 -x -P "$p" sleep || true
done
wait "$apid" || true
grep -q 'h2 *: .*\(unreachable\|failed\)=[1-9]' "$SB_TMP/kill.log" || fail "h2 not reported failed: $(tail -15 "$SB_TMP/kill.log")"
grep -q 'h1 *: ok=.*failed=0' "$SB_TMP/kill.log" || fail "h1 stopped by h2's failure: $(tail -15 "$SB_TMP/kill.log")"
[ -n "$(left_on h2)" ] || fail "the killed run left nothing: the scenario did not kill it mid-run; losetup: $(losetup -a); state: $(ls -laR $SB_TMP/state-h2); log: $(tail -30 $SB_TMP/kill.log)"
start_sshd h2 "$p2"
out=$(timeout 600 ansible-playbook -i "$inv" "$play/teardown.yml" 2>&1) || fail "teardown.yml failed: $(tail -30 <<<"$out")"
[ -z "$(left_on h2)" ] || fail "h2 after teardown.yml: $(left_on h2)"
[ -z "$(left_on h1)" ] || fail "h1 after teardown.yml: $(left_on h1)"
pass_msg "fleet: two hosts ran and reported (${t_fleet}s), a bare /dev/sdX refused, a killed host torn down"
