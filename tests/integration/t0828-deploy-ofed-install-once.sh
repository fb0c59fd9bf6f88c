#!/bin/sh
# An installer never runs twice on a node (issue 24, item 1): a deploy
# SIGKILLed in the middle of a slow OFED install leaves the installers
# running without their client; a --resume at once finds each one's lock
# held (flock on /var/lib/bringup/ofed-install.lock), waits for it and
# adopts its result instead of starting a second installer. The stand-in
# logs every installer start (NODE/log/installers.log): one per node.
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip x86_64 "the test bundles are x86_64 binaries"
sim_up -n 3 --state bare
STATE=$TEST_DIR/state
NODES=$BRINGUP_SIM_DIR/nodes
FIXTURES=$(cd "$(dirname "$0")/../fixtures/ofed" && pwd)
TGZ=$("$FIXTURES/make-bundle.sh" "$TEST_DIR/b" 4.7-3.2.9.0 rhel7.6 x86_64)
ofed_playbook "$TGZ"
starts() { grep -c ' mlnxofedinstall pid=' "$NODES/$1/log/installers.log" 2>/dev/null; }

for n in dgx01 dgx02 dgx03; do
	"$BRINGUP" sim fault $n install-slow 25 >/dev/null || fail "fault install-slow $n"
done
"$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/pb.yaml" --state-dir "$STATE" >"$TEST_DIR/cut.out" 2>&1 &
pid=$!
i=0
until [ "$(starts dgx01)" = 1 ] && [ "$(starts dgx02)" = 1 ] && [ "$(starts dgx03)" = 1 ]; do
	kill -0 $pid 2>/dev/null || fail "deploy ended before the installs: $(cat "$TEST_DIR/cut.out")"
	i=$((i + 1)); [ $i -lt 600 ] || fail "the installs never started"
	sleep 0.05
done
sleep 1
kill -KILL $pid
wait $pid 2>/dev/null
# the installers go on without their client (the case this test is about)
for n in dgx01 dgx02 dgx03; do
	[ -s "$NODES/$n/state/ofed_version" ] &&
		fail "$n: the install ended before the resume; make install-slow longer"
done

# resume at once, while the orphaned installers still run
out=$("$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/pb.yaml" --state-dir "$STATE" --resume 2>&1) ||
	fail "resume: $out"
for n in dgx01 dgx02 dgx03; do
	echo "$out" | grep -Eq "^  ofed +changed +.*dgx" || fail "the install was not finished: $out"
	[ "$(starts $n)" = 1 ] || fail "$n: $(starts $n) installer starts: $(cat "$NODES/$n/log/installers.log")"
	[ "$(cat "$NODES/$n/state/ofed_version")" = MLNX_OFED_LINUX-4.7-3.2.9.0 ] || fail "$n: OFED"
	[ "$(cat "$NODES/$n/state/services/openibd/active")" = active ] || fail "$n: openibd not running"
done
run=$(readlink "$STATE/last")
# each host took the orphan's result; on a loaded machine the resume's
# checks may outlast an installer, so at least one must have waited for it
for n in dgx01 dgx02 dgx03; do
	grep -q "adopted the installer run that was not seen through" "$STATE/$run/hosts/$n.log" ||
		fail "$n: the resume did not adopt the installer's result: $(cat "$STATE/$run/hosts/$n.log")"
done
cat "$STATE/$run/hosts/"*.log | grep -q "waiting for the OFED installer already running here (pid [0-9]*, MLNX_OFED_LINUX-4.7-3.2.9.0-rhel7.6-x86_64, since 20" ||
	fail "the resume waited for no running installer"
for n in dgx01 dgx02 dgx03; do "$BRINGUP" sim fault $n clear install-slow >/dev/null; done
out=$("$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/pb.yaml" --state-dir "$STATE" 2>&1) || fail "deploy: $out"
echo "$out" | grep -q "changed=0 failed=0" || fail "not converged: $out"
[ "$(starts dgx03)" = 1 ] || fail "dgx03: the converged deploy started an installer"
exit 0
