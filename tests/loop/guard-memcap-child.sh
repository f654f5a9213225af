#!/bin/bash
# --cap-cache puts only the workload into the capped memory cgroup, never
# stackbench itself:
#  1. a workload that outgrows the cap (dd with a 64M buffer under 24M) is
#     OOM-killed; the run survives, says "killed by the memory cap", exits 1
#     and tears down: no mount, no loop device, no journal, no cgroup;
#  2. a run killed with -9 during its workload, or right when the cgroup
#     step has acted, leaves the cgroup (journaled as a step); `teardown
#     --all` removes it with the rest;
#  3. a cap below the workload's own buffers (rand:16M with 8 threads under
#     32M) is refused before anything is built: exit 2, both sizes named;
#  4. bench makes a cgroup of its own per workload (mkdir: a name taken is
#     skipped, never entered) and removes it.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog mkfs.ext4
memcg=/sys/fs/cgroup/memory$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3 }' /proc/self/cgroup)
[ -f "$memcg/memory.limit_in_bytes" ] || [ -f /sys/fs/cgroup/cgroup.controllers ] ||
	skip "no memory cgroup here (v1 or v2)"
[ -f "$memcg/memory.limit_in_bytes" ] || memcg=/sys/fs/cgroup$(awk -F: '$1 == 0 { print $3 }' /proc/self/cgroup)
cd "$SB_TOP"
cgroups_of() { find "$memcg" -maxdepth 1 -type d -name "stackbench-$1*" 2>/dev/null; }
before=$(cgroups_of "" | sort)
mkdir -p "$STACKBENCH_LOOP_DIR"

# ---- 1. OOM of the workload: the run survives and cleans up ----
expect_exit 1 "$STACKBENCH" run single-disk --loop --quick --yes --ram 24M --cap-cache -o fs.type=ext4 \
	-o "workloads.run=command:dd if=/dev/zero of=/dev/null bs=64M count=4" --results "$SB_TMP/res1"
assert_contains "$OUT" "workload killed by the memory cap (25165824 bytes)" "OOM reported"
assert_not_contains "$OUT" "Killed" "stackbench itself not killed"
nothing_left "after the OOM"
assert_eq "$(cgroups_of "" | sort)" "$before" "no cgroup left after the OOM"
pass_msg "OOM under the cap: exit 1, 'killed by the memory cap', nothing left"

# ---- 2. kill -9 mid-workload: teardown --all removes the cgroup ----
"$STACKBENCH" run single-disk --loop --quick --yes --ram 64M --cap-cache -o fs.type=ext4 \
	-o "workloads.run=command:sleep 60" --results "$SB_TMP/res2" -q >/dev/null 2>&1 &
kill_mid_run $!
id=$(basename "$(dirname "$(dirname "$KILLED_MNT")")")
[ -d "$STACKBENCH_STATE_DIR/$id" ] || id=$(basename "$(dirname "$KILLED_MNT")")
left=$(cgroups_of "$id")
[ -n "$left" ] || fail "no cgroup stackbench-$id after the kill (the test would prove nothing)"
grep -q '"kind":"memory-cgroup"' "$STACKBENCH_STATE_DIR/$id/journal" || fail "the cgroup is not journaled"
expect_exit 0 "$STACKBENCH" teardown --all
[ ! -d "$left" ] || fail "teardown --all left the cgroup $left"
nothing_left "after teardown --all"
pass_msg "kill -9 during the workload: teardown --all removed $(basename "$left")"

# The same after a kill -9 right when the cgroup step has acted, before
# its "done" record (STACKBENCH_KILL_STEP: the step is the plan's last, 4).
STACKBENCH_KILL_STEP=4 expect_exit 137 "$STACKBENCH" run single-disk --loop --quick --yes --ram 64M \
	--cap-cache -o fs.type=ext4 -o workloads.run=command:true --results "$SB_TMP/res2k"
assert_contains "$OUT" "step 4/4: memory-cgroup" "the kill came at the cgroup step"
left=$(cgroups_of "" | sort | comm -13 <(echo "$before") -)
[ -n "$left" ] || fail "no cgroup after the kill at its step (the test would prove nothing)"
expect_exit 0 "$STACKBENCH" teardown --all
[ ! -d "$left" ] || fail "teardown --all left the cgroup $left (begun, not done)"
nothing_left "after teardown --all of the killed cgroup step"
pass_msg "kill -9 at the cgroup step: teardown --all removed it"

# A journal naming a cgroup that is not its run's: left alone.
victim="$memcg/stackbench-victim-$$"
mkdir "$victim"
SB_CLEANUPS+=("rmdir $victim")
rid=20260101-000000-1
mkdir -p "$STACKBENCH_STATE_DIR/$rid"
chmod 700 "$STACKBENCH_STATE_DIR" "$STACKBENCH_STATE_DIR/$rid"
printf '%s\n' "{\"journal\":\"stackbench\",\"version\":1,\"run\":\"$rid\",\"pid\":1}" \
	"{\"rec\":\"begin\",\"step\":1,\"kind\":\"memory-cgroup\",\"args\":{\"name\":\"stackbench-$rid\",\"bytes\":1,\"dir\":\"$victim\"}}" \
	>"$STACKBENCH_STATE_DIR/$rid/journal"
expect_exit 1 "$STACKBENCH" teardown --all
assert_contains "$OUT" "is no memory cgroup of this run's" "another run's cgroup named"
[ -d "$victim" ] || fail "teardown removed a cgroup that is not its run's"
rm -rf "${STACKBENCH_STATE_DIR:?}/$rid"
rmdir "$victim"
pass_msg "a journal naming another cgroup: left alone"

# ---- 3. a cap below the workload's own buffers: refused before the build ----
expect_exit 2 "$STACKBENCH" run single-disk --loop --quick --yes --ram 32M --cap-cache -o fs.type=ext4 \
	-o "workloads.run=rand:16M,threads=8,size=64M" --results "$SB_TMP/res3"
assert_contains "$OUT" "the cap of 32M (33554432 bytes) is smaller than" "the cap named"
assert_contains "$OUT" "bytes) at least" "the need named"
[ -z "$(ls -A "$STACKBENCH_LOOP_DIR")" ] || fail "images made for a refused run: $(ls -A "$STACKBENCH_LOOP_DIR")"
[ ! -d "$SB_TMP/res3" ] || [ -z "$(ls -A "$SB_TMP/res3")" ] || fail "results written for a refused run"
nothing_left "after the refused cap"
expect_exit 2 "$STACKBENCH" bench "$SB_TMP" --ram 32M --cap-cache -w "rand:16M,threads=8,size=64M"
assert_contains "$OUT" "is smaller than workload 'rand:16M,threads=8,size=64M' needs" "bench: refused"
pass_msg "cap smaller than the buffers: exit 2 before anything is built"

# ---- 4. bench: each workload in a fresh cgroup, gone after ----
expect_exit 0 "$STACKBENCH" bench "$SB_TMP" --quick --ram 64M --cap-cache -w "command:true"
assert_eq "$(cgroups_of "" | sort)" "$before" "bench leaves no cgroup"
# A cgroup of the name bench would take first (its pid: the subshell's,
# which exec hands on) exists already: not entered, not removed.
rc=0
OUT=$( (taken="$memcg/stackbench-bench-$BASHPID-0"; mkdir "$taken" && echo "$taken" >"$SB_TMP/taken" &&
	exec "$STACKBENCH" bench "$SB_TMP" --quick --ram 64M --cap-cache --results "$SB_TMP/res4" \
		-w "command:cat /proc/self/cgroup") 2>&1) || rc=$?
taken=$(cat "$SB_TMP/taken")
[ -d "$taken" ] || fail "the existing cgroup $taken was removed"
rmdir "$taken"
assert_eq "$rc" 0 "bench beside an existing cgroup"
assert_contains "$OUT" "$(basename "${taken%-0}")-1" "the workload ran in the next name"
grep -q "memory:.*/$(basename "${taken%-0}")-1\$" <<<"$OUT" || fail "the workload's memory cgroup is not the next name: $OUT"
assert_eq "$(cgroups_of "" | sort)" "$before" "bench leaves no cgroup"
pass_msg "bench --cap-cache: the cgroup removed after; an existing one of the name neither entered nor removed"
