#!/bin/sh
# make deb-test (.ci/run; not in make check, which make asan runs again: one
# package build per CI run is enough).
# usage: BRINGUP=build/bringup DEB=path/to/bringup_V_ARCH.deb deb-install.sh
# `make deb` built DEB with dpkg-buildpackage, and lintian found no error
# (the target fails otherwise). This proves that DEB, installed into a clean
# root with `dpkg --root` (the machine's own package database untouched),
# holds the layout of `make install`, and that the installed bringup prints
# the package's version and passes precheck on a ready simulated cluster.
. "$(dirname "$0")/../integration/lib.sh"
deb=${DEB:?set DEB to the .deb}
[ -f "$deb" ] || fail "no $deb"
sysdb=$(md5sum /var/lib/dpkg/status)
version=$(dpkg-deb -f "$deb" Version)
dpkg-deb -f "$deb" Depends | grep -q 'libssh' || fail "Depends lacks libssh: $(dpkg-deb -f "$deb" Depends)"

# A clean root with an empty package database of its own.
root=$TEST_DIR/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/triggers"
: >"$root/var/lib/dpkg/status"
: >"$root/var/lib/dpkg/available"
# --force-depends: the root has no libraries; the binary runs with this
# machine's, as it would on a host that has them.
dpkg --root="$root" --force-depends --force-script-chrootless -i "$deb" >"$TEST_DIR/dpkg.log" 2>&1 ||
	fail "dpkg --root -i: $(cat "$TEST_DIR/dpkg.log")"
dpkg --root="$root" -s bringup | grep -q '^Status: install ok installed' || fail "not installed in the root"
[ "$(md5sum /var/lib/dpkg/status)" = "$sysdb" ] || fail "the machine's package database changed"
for f in /usr/bin/bringup /usr/share/man/man1/bringup.1.gz /usr/share/bash-completion/completions/bringup \
	/usr/share/zsh/vendor-completions/_bringup /usr/share/doc/bringup/examples/redbook-poc.yaml \
	/usr/share/doc/bringup/copyright; do
	dpkg --root="$root" -L bringup | grep -qx "$f" || fail "the package lacks $f"
	[ -e "$root$f" ] || fail "$f not on disk"
done

bin=$root/usr/bin/bringup
out=$("$bin" --version)
[ "$out" = "bringup $version" ] || fail "installed --version: '$out', package $version"
sim_up -n 2 --state ready
out=$(BRINGUP="$bin" "$bin" precheck -i "$INV" --timeout 120 2>&1)
rc=$?
[ $rc -eq 0 ] || fail "installed precheck exited $rc: $out"
echo "$out" | grep -q '^precheck: 2 hosts: 2 ok, 0 failed' || echo "$out" | grep -q '^dgx\[01-02\] ' ||
	fail "no all-ok summary: $out"
echo "ok: $deb"
