#!/bin/bash
# The Debian package: `make deb` builds it with dpkg-buildpackage and lintian
# finds no error; it holds exactly what `make install PREFIX=/usr` installs
# (plus Debian's doc files); apt would accept it here (simulated); installed
# into a fresh root with dpkg --root, its binary lists the packaged profiles
# and runs single-disk on loop devices; removal leaves no file behind.
. "$SB_TOP/tests/lib.sh"
need_loop
need_prog dpkg-buildpackage
need_prog lintian
need_prog dh

cd "$SB_TOP"
# nocheck: the package build's own unit run (debian/rules, dh_auto_test) is
# make check's unit tier over the same tree, which ran minutes before; it
# was 32 of make-deb's 82 s here (building 44 test binaries once more).
# `make deb` by hand, and a Debian build, still run it.
out=$(DEB_BUILD_OPTIONS=nocheck tools/make-deb 2>&1) || fail "make deb failed: $(tail -20 <<<"$out")"
assert_contains "$out" "lintian: no errors" "lintian verdict"
# The build flags reach the compiler (the Makefile honours CPPFLAGS, and
# debian/rules exports dpkg-buildflags): a root tool without
# _FORTIFY_SOURCE is a failure here, not a warning.
# (the tag is of severity info: asked for by name)
hard=$(lintian -I --tags hardening-no-fortify-functions build/deb/stackbench_*.deb 2>&1) ||
	fail "lintian --tags hardening-no-fortify-functions: $hard"
! grep -q "hardening-no-fortify-functions" <<<"$hard" ||
	fail "lintian: $hard"
grep -q -- "-D_FORTIFY_SOURCE=2" build/deb/build.log ||
	fail "the package build did not compile with -D_FORTIFY_SOURCE=2 (build/deb/build.log)"
deb=$(ls build/deb/stackbench_*.deb)

# Same files as make install, at the same places.
make -s PREFIX=/usr DESTDIR="$SB_TMP/inst" install >/dev/null
want=$(cd "$SB_TMP/inst" && find . -type f | sed 's/\.8$/.8.gz/' | sort)
got=$(dpkg -c "$deb" | awk '$1 !~ /^d/ {print $6}' | grep -v '^\./usr/share/doc/' | sort)
assert_eq "$got" "$want" "package contents against make install"
# (into a variable first: grep -q would close the pipe early, and pipefail
# would count dpkg's SIGPIPE as a failure)
info=$(dpkg -I "$deb")
grep -q 'Recommends:.*mdadm.*lvm2' <<<"$info" || fail "Recommends lacks mdadm/lvm2"
grep -q 'Depends:.*libblkid1.*util-linux' <<<"$info" || fail "Depends lacks the libraries or util-linux"

# apt resolves its dependencies on this machine (simulation: nothing changes).
sim=$(apt-get -s install "./$deb" 2>&1) || fail "apt-get -s install: $sim"
assert_contains "$sim" "Inst stackbench" "apt simulation"

# A fresh root.
root="$SB_TMP/root"
mkdir -p "$root"/var/lib/dpkg/{info,updates,triggers}
touch "$root"/var/lib/dpkg/status "$root"/var/lib/dpkg/available
dpkg --root="$root" --force-depends -i "$deb" >/dev/null 2>&1 || fail "dpkg --root -i failed"
bin="$root/usr/sbin/stackbench"
[ -x "$bin" ] || fail "no $bin"
cd "$SB_TMP"
profiles=$("$bin" list profiles)
for p in single-disk md-raid1-ssd-2hdd btrfs-raid1-partitions lvm-hwraid6; do
	grep -q "^$p .*$root/usr/share/stackbench/profiles/$p.conf" <<<"$profiles" ||
		fail "packaged profile $p not listed from the package: $profiles"
done
expect_exit 0 "$bin" run single-disk --loop --quick --yes --results "$SB_TMP/res" \
	-o 'workloads.run=seq,size=8M,chunk=64k,seeks=100' -o 'matrix.fs.type=ext4'
[ -s "$SB_TMP/res/result.json" ] || fail "packaged binary wrote no result.json"
[ -z "$(ls -A "$STACKBENCH_STATE_DIR" 2>/dev/null)" ] || fail "state left by the packaged run"
dpkg --root="$root" -r stackbench >/dev/null 2>&1 || fail "dpkg -r failed"
left=$(cd "$root" && find . -type f ! -path './var/lib/dpkg/*')
assert_eq "$left" "" "files left after removal"
pass_msg "deb: built, lintian clean, contents = make install, installs, runs, removes"
