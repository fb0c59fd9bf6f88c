#!/bin/sh
# The OFED tarball crosses to each host at most once, also across a cut:
# a deploy killed (SIGKILL) in the middle of the transfer leaves
# NAME.bringup-part on the host, never a half file under the real name, and
# --resume continues the transfer from the byte where it stopped; a part
# file that is not this tarball's beginning is sent again whole, once; the
# installed file always has the tarball's SHA-256. While one deploy runs, a
# second on the same cluster is refused; the SIGKILL leaves no stale lock.
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip x86_64 "the test bundles are x86_64 binaries"
sim_up -n 2 --state bare
STATE=$TEST_DIR/state
NODES=$BRINGUP_SIM_DIR/nodes
FIXTURES=$(cd "$(dirname "$0")/../fixtures/ofed" && pwd)
TGZ=$(SIM_OFED_PAD_MB=64 "$FIXTURES/make-bundle.sh" "$TEST_DIR/b" 4.7-3.2.9.0 rhel7.6 x86_64)
NAME=$(basename "$TGZ")
SIZE=$(stat -c %s "$TGZ")
SUM=$(sha256sum <"$TGZ" | cut -d' ' -f1)
ofed_playbook "$TGZ"
deploy() { "$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/pb.yaml" --state-dir "$STATE" "$@"; }
dest() { echo "$NODES/$1/root/var/tmp/bringup-ofed/$NAME"; }

# dgx02 holds a part file from some other transfer: not a prefix of ours.
mkdir -p "$(dirname "$(dest dgx02)")"
head -c 4096 /dev/urandom >"$(dest dgx02).bringup-part"

# Cut dgx01's transfer: SIGKILL once its part file has grown.
# (bringup itself, not a subshell: $! must be the process that uploads)
"$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/pb.yaml" --state-dir "$STATE" --limit dgx01 \
	>"$TEST_DIR/cut.out" 2>&1 &
pid=$!
part=$(dest dgx01).bringup-part
i=0
while [ "$(stat -c %s "$part" 2>/dev/null || echo 0)" -lt 1048576 ]; do
	kill -0 $pid 2>/dev/null || fail "deploy ended before the cut: $(cat "$TEST_DIR/cut.out")"
	i=$((i + 1)); [ $i -lt 600 ] || fail "the transfer never started"
	sleep 0.05
done
# Meanwhile a second deploy on the cluster is refused, naming the first.
out=$(deploy 2>&1) && fail "a second deploy ran beside the first: $out"
echo "$out" | grep -q "another bringup deploy is running on this cluster (pid $pid, lock $STATE/lock)" ||
	fail "no clear refusal of the second deploy: $out"
kill -KILL $pid
wait $pid 2>/dev/null
cut=$(stat -c %s "$part")
[ "$cut" -gt 0 ] && [ "$cut" -lt "$SIZE" ] || fail "part file of $cut bytes after the cut, tarball $SIZE"
[ ! -e "$(dest dgx01)" ] || fail "a half tarball under the real name"

out=$(deploy --resume) || fail "resume: $out"
log=$STATE/$(readlink "$STATE/last")/hosts
grep -Eq "^.*resumed a cut transfer at byte [0-9]+ of $SIZE" "$log/dgx01.log" ||
	fail "dgx01 did not resume the cut transfer: $(grep -A3 sftp "$log/dgx01.log")"
at=$(sed -n 's/.*resumed a cut transfer at byte \([0-9]*\) of.*/\1/p' "$log/dgx01.log")
[ "$at" -ge "$cut" ] || fail "resumed at $at, but $cut bytes were there"
grep -q "the 4096 bytes left by a cut transfer were not this file's: sent whole" "$log/dgx02.log" ||
	fail "dgx02's foreign part file: $(grep -A3 sftp "$log/dgx02.log")"
for n in dgx01 dgx02; do
	[ "$(sha256sum <"$(dest $n)" | cut -d' ' -f1)" = "$SUM" ] || fail "$n: tarball corrupt"
	[ ! -e "$(dest $n).bringup-part" ] || fail "$n: part file left behind"
	[ -n "$(cat "$NODES/$n/state/ofed_version" 2>/dev/null)" ] || fail "$n: OFED not installed"
done

# Converged: nothing crosses again.
before=$(grep -c sftp-server "$NODES/dgx01/log/commands.log")
out=$(deploy) || fail "second deploy: $out"
echo "$out" | grep -q "changed=0 failed=0" || fail "second deploy changed something: $out"
[ "$(grep -c sftp-server "$NODES/dgx01/log/commands.log")" = "$before" ] || fail "sent again"
# ... and the 64 MB tarball is not read again either: no checksum of it is
# wanted once the desired release runs.
log=$STATE/$(readlink "$STATE/last")/hosts/dgx01.log
grep -qx 'tarball=' "$log" || fail "a converged check hashed the tarball: $(grep tarball= "$log")"
