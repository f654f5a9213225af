#!/bin/bash
# Bash completion: sourced, it registers itself for stackbench, and driving
# it through COMP_WORDS/COMP_CWORD gives commands, each command's options
# (from its --help), argument values, profile files, result sets and block
# devices (also after a comma in --devices). No root needed.
source "$SB_TOP/tests/lib.sh"
COMP=$SB_TOP/contrib/bash-completion/stackbench
[ -f "$COMP" ] || fail "$COMP missing"
[ -x "$STACKBENCH" ] || fail "$STACKBENCH not built"
PATH=$(dirname "$STACKBENCH"):$PATH

# shellcheck source=/dev/null
source "$COMP"
spec=$(complete -p stackbench) || fail "no completion registered for stackbench"
assert_contains "$spec" "-F _stackbench" "complete -p stackbench"

# complete LINE: COMPREPLY for the last word of LINE (LINE ending in a space
# completes an empty word), one per line in $GOT.
complete_line() {
	local line=$1
	read -r -a COMP_WORDS <<<"$line"
	[[ $line == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE=$line
	COMP_POINT=${#line}
	COMPREPLY=()
	_stackbench stackbench "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
	GOT=$(printf '%s\n' "${COMPREPLY[@]}")
}

# Fixtures: a profile file, a result set, a directory.
cd "$SB_TMP"
mkdir -p work/res1 work/sub
touch work/mine.conf work/other.txt work/res1/result.json
mkdir -p state/run-1 state/run-2 && touch state/journal-file
export STACKBENCH_STATE_DIR=$SB_TMP/state
dev=$(ls /sys/class/block | head -1)
[ -n "$dev" ] || skip "no block devices in /sys/class/block"

# {line, words that must be offered, words that must not}
cases=(
	"stackbench |probe plan run bench teardown report list|"
	"stackbench pr|probe|plan"
	"stackbench --v|--version|"
	"stackbench run --de|--devices|--yes"
	"stackbench run --|--loop --yes --results --quick --repeat --help|--format"
	"stackbench report --format |text csv json html bonnie|"
	"stackbench report -f h|html|text"
	"stackbench list |profiles workloads|"
	"stackbench list w|workloads|profiles"
	"stackbench bench --workload ra|rand:|seq"
	"stackbench bench -w |seq meta rand: mixed: command:|"
	"stackbench run --repeat |auto|"
	"stackbench plan -o m|md. mount. matrix.|fs."
	"stackbench probe /dev/${dev:0:2}|/dev/$dev|"
	"stackbench run --devices /dev/${dev:0:2}|/dev/$dev|"
	"stackbench run --devices /dev/$dev,/dev/${dev:0:2}|/dev/$dev,/dev/$dev|"
	"stackbench plan work/|work/mine.conf work/res1/ work/sub/|work/other.txt"
	"stackbench bench work/|work/res1 work/sub|work/mine.conf"
	"stackbench report work/res1/|work/res1/result.json|"
	"stackbench report work/|work/res1 work/sub|work/other.txt"
	"stackbench run --results work/|work/res1 work/sub|work/mine.conf"
	"stackbench teardown |run-1 run-2|journal-file"
)
n=0
for c in "${cases[@]}"; do
	IFS='|' read -r line want wantnot <<<"$c"
	complete_line "$line"
	for w in $want; do
		grep -qxF -- "$w" <<<"$GOT" || fail "'$line<TAB>': '$w' not offered; got: $(echo $GOT)"
	done
	for w in $wantnot; do
		! grep -qxF -- "$w" <<<"$GOT" || fail "'$line<TAB>': '$w' offered but should not be"
	done
	n=$((n + 1))
done

# Options come from each command's own --help when it answers: every
# option listed there is offered.
for c in probe plan run bench teardown report list; do
	help=$("$STACKBENCH" "$c" --help 2>/dev/null) || continue
	complete_line "stackbench $c --"
	for o in $(sed -n 's/^ \{1,\}\(-[A-Za-z], \)\{0,1\}\(--[a-z][a-z0-9-]*\).*/\2/p' <<<"$help" | sort -u); do
		grep -qxF -- "$o" <<<"$GOT" || fail "'$c --help' lists $o, completion does not offer it"
	done
done
# Shipped profiles by name, when `list profiles` answers.
if names=$("$STACKBENCH" list profiles 2>/dev/null) && [ -n "$names" ]; then
	complete_line "stackbench run "
	first=$(awk 'NF && $1 != "NAME" {print $1; exit}' <<<"$names")
	grep -qxF -- "$first" <<<"$GOT" || fail "profile '$first' not offered after 'run'"
	! grep -qxF NAME <<<"$GOT" || fail "the table header NAME offered as a profile"
fi
# Without STACKBENCH_STATE_DIR, run ids come from the tool's own default
# state directory (src/stack/state.h), not from /run/stackbench.
want_state=$(sed -n 's/^#define SB_STATE_DIR_DEFAULT "\(.*\)"$/\1/p' "$SB_TOP/src/stack/state.h")
[ -n "$want_state" ] || fail "SB_STATE_DIR_DEFAULT not found in src/stack/state.h"
got_state=$(sed -n 's/.*STACKBENCH_STATE_DIR:-\([^}]*\)}.*/\1/p' "$COMP")
assert_eq "$got_state" "$want_state" "the completion's default state directory"
# And it is the one it reads: with the variable unset, teardown offers
# exactly the run directories there (none, on a host without runs).
unset STACKBENCH_STATE_DIR
complete_line "stackbench teardown "
want_ids=$( (find "$want_state" -mindepth 1 -maxdepth 1 -type d -printf "%f\n" 2>/dev/null || :) | sort)
assert_eq "$(sort <<<"$GOT" | sed '/^$/d')" "$want_ids" "run ids offered from $want_state"
export STACKBENCH_STATE_DIR=$SB_TMP/state
pass_msg "$n completion cases, state directory $want_state"
