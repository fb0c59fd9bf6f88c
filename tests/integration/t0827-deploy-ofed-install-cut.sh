#!/bin/sh
# An OFED install cut anywhere is finished by the next run (issue 24): a
# deploy killed (SIGKILL) while the installer runs leaves its mark on the
# node (/var/lib/bringup/ofed-install-pending); --resume sees it and
# installs again and restarts openibd, where it used to say "ofed ok" over
# a driver stack that never ran (and subnet_manager then failed forever).
# A host whose release is installed but whose stack is not running (openibd
# stopped) has openibd restarted. After that, nothing to do.
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip x86_64 "the test bundles are x86_64 binaries"
sim_up -n 2 --state bare
STATE=$TEST_DIR/state
NODES=$BRINGUP_SIM_DIR/nodes
FIXTURES=$(cd "$(dirname "$0")/../fixtures/ofed" && pwd)
TGZ=$("$FIXTURES/make-bundle.sh" "$TEST_DIR/b" 4.7-3.2.9.0 rhel7.6 x86_64)
ofed_playbook "$TGZ"
deploy() { "$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/pb.yaml" --state-dir "$STATE" "$@"; }
mark() { echo "$NODES/$1/root/var/lib/bringup/ofed-install-pending"; }
active() { cat "$NODES/$1/state/services/openibd/active" 2>/dev/null; }

"$BRINGUP" sim fault dgx01 install-slow 3 >/dev/null || fail "fault install-slow"
"$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/pb.yaml" --state-dir "$STATE" --limit dgx01 \
	>"$TEST_DIR/cut.out" 2>&1 &
pid=$!
i=0
# the install command has started (the only one with the installer's flags)
until grep -q -- "'--force'" "$NODES/dgx01/log/commands.log" 2>/dev/null; do
	kill -0 $pid 2>/dev/null || fail "deploy ended before the install: $(cat "$TEST_DIR/cut.out")"
	i=$((i + 1)); [ $i -lt 600 ] || fail "the install never started"
	sleep 0.05
done
sleep 1
kill -KILL $pid
wait $pid 2>/dev/null
# whatever the installer left (it may go on without its client), the stack
# it installed has not been restarted
sleep 4
[ -s "$NODES/dgx01/state/ofed_version" ] ||
	fail "the installer did not finish without its client (the case this test is about)"
[ "$(active dgx01)" = active ] && fail "openibd active before any restart"
"$BRINGUP" sim fault dgx01 clear install-slow >/dev/null || fail "clear install-slow"

out=$(deploy --resume --limit dgx01 2>&1) || fail "resume: $out"
echo "$out" | grep -Eq "^  ofed +changed +dgx01$" || fail "the cut install was not finished: $out"
[ "$(active dgx01)" = active ] || fail "openibd not running after resume: $(active dgx01)"
grep -qx ib_core "$NODES/dgx01/state/modules/loaded" 2>/dev/null ||
	sim_ssh 127.0.1.1 lsmod | grep -q '^ib_core ' || fail "ib_core not loaded after resume"
[ ! -e "$(mark dgx01)" ] || fail "the install mark is left after the restart"
[ "$(cat "$NODES/dgx01/state/ofed_version")" = MLNX_OFED_LINUX-4.7-3.2.9.0 ] || fail "dgx01: OFED"

# installed, converged, then the stack stopped behind bringup's back
out=$(deploy 2>&1) || fail "deploy: $out"
sim_ssh 127.0.1.2 systemctl stop openibd || fail "stop openibd"
[ "$(active dgx02)" = inactive ] || fail "openibd still active: $(active dgx02)"
out=$(deploy 2>&1) || fail "deploy over a stopped stack: $out"
echo "$out" | grep -Eq "^  ofed +changed +dgx02$" || fail "a stopped stack was not restarted: $out"
grep -q "restart openibd: MLNX_OFED_LINUX-4.7-3.2.9.0 is installed but its driver stack is not running" \
	"$STATE/$(readlink "$STATE/last")/journal.json" || fail "the change is not the restart: $out"
[ "$(active dgx02)" = active ] || fail "openibd not restarted: $(active dgx02)"
out=$(deploy 2>&1) || fail "last deploy: $out"
echo "$out" | grep -q "changed=0 failed=0" || fail "not converged: $out"
exit 0
