#!/bin/sh
# An OFED installer that runs past install_timeout (mod_exec_timeout) is
# stopped on the host at once, not just abandoned while the run goes on: its
# process group is killed, the run log says so, and nothing of it goes on
# to install behind our back (a --resume must never find a second installer
# under the first). dgx02's slow stage keeps the run, and dgx01's
# connection, going meanwhile.
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip "the test bundles are x86_64"
sim_up -n 2 --state bare
STATE=$TEST_DIR/state
NODES=$BRINGUP_SIM_DIR/nodes
FIXTURES=$(cd "$(dirname "$0")/../fixtures/ofed" && pwd)
TGZ=$("$FIXTURES/make-bundle.sh" "$TEST_DIR/bundles" 4.7-3.2.9.0 rhel7.6 x86_64) || fail "make-bundle"
cat >"$TEST_DIR/pb.yaml" <<YAML
name: ofed-slow
stages:
  - name: ofed
    module: ofed
    hosts: dgx01
    params:
      tarball: $TGZ
      install_timeout: 5
  - name: ofed_later
    module: ofed
    hosts: dgx02
    params:
      tarball: $TGZ
      install_timeout: 120
YAML
# dgx01's installer sleeps this long: a number no other process has.
secs=53.$$
"$BRINGUP" sim fault dgx01 install-slow "$secs" >/dev/null || fail "fault install-slow"
"$BRINGUP" sim fault dgx02 install-slow 15 >/dev/null || fail "fault install-slow"
"$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/pb.yaml" --state-dir "$STATE" >"$TEST_DIR/out" 2>&1 &
pid=$!
i=0
until grep -q '^ofed dgx01 failed' "$TEST_DIR/out"; do
	i=$((i + 1))
	[ $i -le 1200 ] && kill -0 $pid 2>/dev/null || fail "dgx01 never failed: $(cat "$TEST_DIR/out")"
	sleep 0.1
done
grep -q '^ofed dgx01 failed .*: apply: mlnxofedinstall did not finish within install_timeout' \
	"$TEST_DIR/out" || fail "no installer timeout: $(cat "$TEST_DIR/out")"
# Gone while the run still goes on: not merely because bringup disconnected.
i=0
while pgrep -f "sleep $secs" >/dev/null; do
	i=$((i + 1))
	kill -0 $pid 2>/dev/null || fail "dgx01's installer outlived its timeout until the run ended"
	[ $i -le 150 ] || fail "dgx01's installer still runs: $(pgrep -af "sleep $secs")"
	sleep 0.1
done
wait $pid
log=$STATE/$(readlink "$STATE/last")/hosts/dgx01.log
grep -Eq '^remote process group [0-9]+: ended after SIGTERM$' "$log" ||
	fail "the run log does not say the installer was stopped: $(tail -n 20 "$log")"
[ ! -e "$NODES/dgx01/state/ofed_version" ] || fail "dgx01: installed although timed out"
exit 0
