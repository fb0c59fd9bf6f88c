#!/bin/sh
# The ofed stage's upload directory (default /var/tmp/bringup-ofed, a
# predictable path anyone can create first) is the login user's alone:
# created 0700 when missing; refused, naming the path, when someone else
# owns it or it is a symlink; and a symlink planted at the tarball's part
# file (NAME.bringup-part -> /etc/victim) is never written through. The
# other hosts converge.
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip "the test bundles are x86_64"
sim_up -n 4 --state bare
STATE=$TEST_DIR/state
NODES=$BRINGUP_SIM_DIR/nodes
FIXTURES=$(cd "$(dirname "$0")/../fixtures/ofed" && pwd)
TGZ=$("$FIXTURES/make-bundle.sh" "$TEST_DIR/b" 4.7-3.2.9.0 rhel7.6 x86_64)
NAME=$(basename "$TGZ")
D=/var/tmp/bringup-ofed
ofed_playbook "$TGZ"
on() { a=$1; shift; sim_ssh "$a" "$@" || fail "on $a: $*"; }

# dgx01: another user made the directory first (world-writable, as a
# squatter would). dgx02: it is a symlink. dgx03: ours, but a symlink
# waits at the part file's name. dgx04: nothing there.
on 127.0.1.1 "mkdir -p $D && chown 65534 $D && chmod 0777 $D"
on 127.0.1.2 "mkdir -p /etc/victim.d && ln -s /etc/victim.d $D"
on 127.0.1.3 "echo precious >/etc/victim && mkdir -p -m 0700 $D && ln -s /etc/victim $D/$NAME.bringup-part"

out=$("$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/pb.yaml" --state-dir "$STATE") &&
	fail "deploy passed with planted directories: $out"
owner=$(getent passwd 65534 | cut -d: -f1)
echo "$out" | grep -Eq "^  ofed +failed +dgx01: apply: $D is owned by ${owner:-UNKNOWN}, not by $USER_: refusing to upload there" ||
	fail "dgx01's foreign directory is not refused by name: $out"
echo "$out" | grep -Eq "^  ofed +failed +dgx02: apply: $D is a symbolic link \(to /etc/victim.d\): refusing to upload there" ||
	fail "dgx02's symlinked directory is not refused by name: $out"
echo "$out" | grep -Eq "^  ofed +failed +dgx03: apply: .*$D/$NAME.bringup-part is a symbolic link" ||
	fail "dgx03's planted part symlink is not named: $out"
echo "$out" | grep -Eq '^  ofed +changed +dgx04$' || fail "dgx04 did not converge: $out"

[ -z "$(on 127.0.1.1 "ls -A $D")" ] || fail "dgx01: something went into the foreign directory"
[ -z "$(on 127.0.1.2 'ls -A /etc/victim.d')" ] || fail "dgx02: the upload followed the symlink"
[ "$(on 127.0.1.3 cat /etc/victim)" = precious ] || fail "dgx03: the upload wrote through the symlink"
[ "$(on 127.0.1.4 "stat -c '%a %U' $D")" = "700 $USER_" ] || fail "dgx04: $D is not 0700 $USER_"
[ -n "$(cat "$NODES/dgx04/state/ofed_version" 2>/dev/null)" ] || fail "dgx04: OFED not installed"
for n in dgx01 dgx02 dgx03; do
	[ ! -e "$NODES/$n/state/ofed_version" ] || fail "$n: installed from a directory it refused"
done
exit 0
