# shellcheck shell=bash
# The helpers every shell test uses, on the host (tests/lib.sh sources this)
# and in the VM runner's guest (contrib/vm/guest-lib.sh does): no side
# effects when sourced, so a guest script can source it as well.

fail() { echo "FAIL: $*" >&2; exit 1; }
pass_msg() { echo "ok: $*"; }

# assert_eq GOT WANT MSG
assert_eq() { [ "$1" = "$2" ] || fail "$3: got '$1', want '$2'"; }
assert_contains() { grep -qF -- "$2" <<<"$1" || fail "$3: '$2' not found in: $1"; }
assert_not_contains() { ! grep -qF -- "$2" <<<"$1" || fail "$3: '$2' unexpectedly found"; }

# expect_exit CODE CMD...: runs CMD, fails unless it exits CODE; output in $OUT
expect_exit() {
	local want=$1 rc=0
	shift
	OUT=$("$@" 2>&1) || rc=$?
	[ "$rc" -eq "$want" ] || fail "'$*' exited $rc, want $want; output: $OUT"
}

# no_journal_left WHAT DIR: no stackbench journal under the state directory DIR
no_journal_left() {
	local j
	[ -d "$2" ] || return 0
	j=$(find "$2" -name 'journal*' -print -quit 2>/dev/null)
	[ -z "$j" ] || fail "$1: journal left: $j"
}

# no_mount_left WHAT TEXT [COLUMNS]: no mount whose findmnt COLUMNS
# (default TARGET,SOURCE) contain TEXT
no_mount_left() {
	local cols=${3:-TARGET,SOURCE}
	# (grep without -q: an early exit would SIGPIPE the writer, and under
	# pipefail the negated pipeline would then pass whatever was found)
	! findmnt -rn -o "$cols" | grep -F "$2" >/dev/null ||
		fail "$1: mounts left: $(findmnt -rn -o "$cols" | grep -F "$2" | tr '\n' ' ')"
}
