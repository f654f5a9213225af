#!/bin/bash
# The man page renders without a warning (groff -ww, man -l) and stays true:
# every command, every option of `stackbench CMD --help`, every environment
# variable the sources read and every exit code is documented, and the
# options a command's section documents are ones the command accepts.
# No root needed.
source "$SB_TOP/tests/lib.sh"
need_prog groff
need_prog man
PAGE=$SB_TOP/doc/stackbench.8
[ -f "$PAGE" ] || fail "$PAGE missing"

# Rendering: no warning at all, from groff's strictest mode or from man.
err=$(LC_ALL=C.UTF-8 groff -ww -man -Tutf8 -z "$PAGE" 2>&1) || fail "groff failed: $err"
[ -z "$err" ] || fail "groff -ww warnings: $err"
err=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$PAGE" 2>&1 >/dev/null) || fail "man -l failed: $err"
[ -z "$err" ] || fail "man -l warnings: $err"
text=$(LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$PAGE" 2>/dev/null | col -b)
for sec in NAME SYNOPSIS DESCRIPTION COMMANDS PROFILES WORKLOADS SAFETY "EXIT STATUS" \
	ENVIRONMENT FILES EXAMPLES "SEE ALSO"; do
	grep -q "^$sec\$" <<<"$text" || fail "section $sec not rendered"
done

# The roff source with \- turned into -, for plain greps.
src=$(sed 's/\\-/-/g' "$PAGE")
# section_of CMD: the text of the man page's ".SS CMD ..." subsection
section_of() {
	awk -v c="$1" '
		/^\.S[SH] / { on = ($0 ~ "^\\.SS \"" c " ") || ($0 ~ "^\\.SS \"" c "\"") }
		on' <<<"$src"
}

cmds=$("$STACKBENCH" --help | awk '/^Commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}')
[ -n "$cmds" ] || fail "no commands in 'stackbench --help'"
checked=0 unimplemented=()
for c in $cmds; do
	sec=$(section_of "$c")
	[ -n "$sec" ] || fail "command '$c' has no .SS section in the man page"
	if ! help=$("$STACKBENCH" "$c" --help 2>&1); then
		unimplemented+=("$c")
		continue
	fi
	checked=$((checked + 1))
	# Options the command accepts, long and short.
	longs=$(grep -oE -- '(^|[ ,])--[a-z][a-z0-9-]*' <<<"$help" | sed 's/^[ ,]*//' | sort -u)
	for o in $longs; do
		case $o in --help|--quiet|--verbose) grep -qF -- "$o" <<<"$src" ;; *) grep -qF -- "$o" <<<"$sec" ;; esac ||
			fail "'$c $o' (from --help) is not documented in its man page section"
	done
	# Short forms ("  -J, --json") are documented next to their long option.
	while read -r short long; do
		grep -qE -- "(^|[ \"])${short}[ \",]" <<<"$sec" ||
			fail "'$c $short' ($long) is not documented in its man page section"
	done < <(sed -n 's/^  \(-[A-Za-z]\), \(--[a-z][a-z0-9-]*\).*/\1 \2/p' <<<"$help" |
		grep -vE -- '--(help|quiet|verbose)$')
	# Options the man page section claims, that the command must accept.
	for o in $(grep -oE -- '--[a-z][a-z0-9-]*' <<<"$sec" | sort -u); do
		grep -qF -- "$o" <<<"$help" || fail "man page documents '$c $o', which '$c --help' does not list"
	done
done
[ "$checked" -gt 0 ] || fail "no command answered --help"

# section_text NAME: the man source of ".SH NAME" up to the next .SH
section_text() { awk -v s=".SH $1" '$0 == s {on = 1; next} /^\.SH/ {on = 0} on' <<<"$src"; }
# Words of a section with the roff markup taken off, one per line.
words_of() { section_text "$1" | sed 's/\\f[BIRP]//g; s/^\.[A-Z]* //' | tr -c 'A-Za-z0-9_.+-' '\n' | sort -u; }

# Every workload and each of its keys, as `list workloads` prints them.
if wl=$("$STACKBENCH" list workloads 2>/dev/null); then
	ww=$(words_of WORKLOADS)
	for name in $(grep -vE '^[|`]|^WORKLOAD' <<<"$wl" | awk 'NF {print $1}' | sed 's/[:[].*//'); do
		grep -qxF -- "$name" <<<"$ww" || grep -qF -- "$name" <<<"$(section_text WORKLOADS)" ||
			fail "workload '$name' (list workloads) is not under WORKLOADS"
	done
	for key in $(sed -n 's/^[|`]-\([a-z0-9-]*\)=.*/\1/p' <<<"$wl" | sort -u); do
		grep -qxF -- "$key" <<<"$ww" || fail "workload key '$key' (list workloads) is not under WORKLOADS"
	done
fi

# Every profile section and key of the key table.
keys_c=$SB_TOP/src/profile/profile_keys.c
if [ -f "$keys_c" ]; then
	pw=$(words_of PROFILES)
	for sec in $(grep -oE '\[SB_SEC_[A-Z]+\] = "[a-z]+"' "$keys_c" | sed 's/.*"\(.*\)"/\1/'); do
		grep -qF "[$sec]" <<<"$(section_text PROFILES)" || fail "profile section [$sec] is not under PROFILES"
	done
	for key in $(grep -oE '\{SB_SEC_[A-Z]+, "[a-z.-]+"' "$keys_c" | sed 's/.*"\(.*\)"/\1/' | sort -u); do
		grep -qxF -- "$key" <<<"$pw" || fail "profile key '$key' (profile_keys.c) is not under PROFILES"
	done
fi

# Environment variables read anywhere in the sources.
for v in $(grep -rhoE 'getenv\("[A-Z_]+"\)' "$SB_TOP/src" | sed 's/getenv("\(.*\)")/\1/' | sort -u) \
	STACKBENCH_STATE_DIR STACKBENCH_FAIL_STEP NO_COLOR; do
	awk '/^\.SH ENVIRONMENT/ {on = 1; next} /^\.SH/ {on = 0} on' <<<"$src" | grep -qx "\.B $v" ||
		fail "environment variable $v is not documented under ENVIRONMENT"
done

# Exit codes of src/cmd.h.
for code in $(sed -n 's/^\s*SB_EXIT_[A-Z]* = \([0-9]*\).*/\1/p' "$SB_TOP/src/cmd.h"); do
	awk '/^\.SH "EXIT STATUS"/ {on = 1; next} /^\.SH/ {on = 0} on' <<<"$src" | grep -qx "\.B $code" ||
		fail "exit code $code is not documented under EXIT STATUS"
done

# The generated parts (tools/gen-man: each workload's spec, summary and
# keys, the shipped profiles) are what the tables and the tree give now.
out=$("$SB_TOP/tools/gen-man" --check "$STACKBENCH" "$PAGE" 2>&1) ||
	fail "the committed man page is not what tools/gen-man makes (run make): $out"
# ... and the check can fail: a page that documents meta[:N], which the
# parser refuses, or lacks a profile of the tree, is caught.
sed 's/^\\fBmeta\\fR$/\\fBmeta\\fR[:\\fIN\\fR]/' "$PAGE" >"$SB_TMP/meta.8"
! cmp -s "$PAGE" "$SB_TMP/meta.8" || fail "meta's generated entry not found in the page"
! "$SB_TOP/tools/gen-man" --check "$STACKBENCH" "$SB_TMP/meta.8" >/dev/null 2>&1 ||
	fail "gen-man --check passed a page documenting meta[:N]"
awk '!/^\.B single\\-disk$/' "$PAGE" >"$SB_TMP/prof.8"
! "$SB_TOP/tools/gen-man" --check "$STACKBENCH" "$SB_TMP/prof.8" >/dev/null 2>&1 ||
	fail "gen-man --check passed a page without the single-disk profile"
for p in "$SB_TOP"/profiles/*.conf; do
	n=$(basename "$p" .conf)
	grep -qxF ".B ${n//-/\\-}" "$PAGE" || fail "profile $n is not listed under FILES"
done
# Every workload spec the page shows parses as written (no meta[:N]).
for spec in $(sed -n 's/^\\fB\([a-z+]*\)\\fR$/\1/p' "$PAGE"); do
	out=$("$STACKBENCH" plan single-disk --loop --quick -o "workloads.run=$spec" 2>&1 >/dev/null) ||
		fail "the page's workload '$spec' does not parse: $out"
done
! grep -qF 'meta [: N ]' <<<"$src" || fail "meta[:N] documented"

msg="man page renders cleanly; $checked commands checked against --help"
[ ${#unimplemented[@]} -eq 0 ] || msg+=" (no --help yet: ${unimplemented[*]})"
pass_msg "$msg"
