#!/bin/sh
# The GPU driver's runfile never runs twice at once on a node (issue 24,
# item 1), as t0828 proves for OFED and t0905 for the Scale packages: a
# deploy SIGKILLed while nvidia-installer builds the modules leaves the
# installer running without its client; a --resume at once finds its lock
# held (flock on /var/lib/bringup/gpu-driver-install.lock,
# templates/gpu_driver/install.sh), waits for it and adopts its result
# instead of starting the installer again. The stand-in logs every start
# (NODE/log/installers.log, nvidia-installer): one per node. The stage is
# the one `bringup upgrade --to driver=` writes (release_change: true,
# since deploy never changes a running release by itself). Without the
# lock the resume's check still saw the old driver on disk and started a
# second installer beside the first on both nodes.
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip x86_64 "the test runfiles are x86_64"
TOOLS=$(cd "$(dirname "$0")/../../sim/tools" && pwd)
sim_up -n 2 --profile hgx-h100-ndr --state ready
STATE=$TEST_DIR/state
NODES=$BRINGUP_SIM_DIR/nodes
OLD=550.90.07 NEW=570.124.06
RUN=$("$TOOLS/sim-nvidia-runfile" "$TEST_DIR/drv" "$NEW") || fail "sim-nvidia-runfile"
cat >"$TEST_DIR/pb.yaml" <<YAML
name: driver
stages:
  - name: driver
    module: gpu_driver
    hosts: gpu_worker
    params:
      release_change: true
      version: "$NEW"
      installer: "$RUN"
YAML
deploy() { "$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/pb.yaml" --state-dir "$STATE" --timeout "$(slow 120)" "$@"; }
starts() { grep -c ' nvidia-installer pid=' "$NODES/$1/log/installers.log" 2>/dev/null; }
drivers() { sim_ssh "127.0.1.$1" "nvidia-smi --query-gpu=driver_version --format=csv,noheader" | sort | uniq -c | sed 's/^ *//'; }

for n in hgx01 hgx02; do
	"$BRINGUP" sim fault $n install-slow 30 >/dev/null || fail "fault install-slow $n"
done
# (bringup itself in the background: $! of a function is a subshell's)
"$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/pb.yaml" --state-dir "$STATE" --timeout "$(slow 120)" \
	>"$TEST_DIR/cut.out" 2>&1 &
pid=$!
both_started() { [ "$(starts hgx01)" = 1 ] && [ "$(starts hgx02)" = 1 ]; }
wait_while_running $pid "$TEST_DIR/cut.out" 1200 "the installs started" both_started
sleep 1
kill -KILL $pid
wait $pid 2>/dev/null
# the installers go on without their client (the case this test is about)
for n in hgx01 hgx02; do
	# (a ready node's driver is its profile's until an installer writes one)
	[ "$(cat "$NODES/$n/state/gpu_driver" 2>/dev/null || echo "$OLD")" = "$OLD" ] ||
		fail "$n: the install ended before the resume; make install-slow longer"
done

# resume at once, while the orphaned installers still run
out=$(deploy --resume 2>&1) || fail "resume: $out"
echo "$out" | grep -Eq "^  driver +changed +hgx\[01-02\]$" || fail "resume: $out"
run=$(readlink "$STATE/last")
for n in hgx01 hgx02; do
	[ "$(starts $n)" = 1 ] || fail "$n: $(starts $n) installer starts: $(cat "$NODES/$n/log/installers.log")"
	[ "$(drivers ${n#hgx0})" = "8 $NEW" ] || fail "$n not on $NEW: $(drivers ${n#hgx0})"
	grep -q "adopted the driver install that was not seen through: .*$(basename "$RUN"), exit 0" "$STATE/$run/hosts/$n.log" ||
		fail "$n: the resume did not adopt the installer's result: $(cat "$STATE/$run/hosts/$n.log")"
done
cat "$STATE/$run/hosts/"*.log | grep -q "waiting for the GPU driver installer already running here (pid [0-9]*, $(basename "$RUN"), since 20" ||
	fail "the resume waited for no running installer: $(cat "$STATE/$run/hosts/"*.log)"
for n in hgx01 hgx02; do "$BRINGUP" sim fault $n clear install-slow >/dev/null; done
out=$(deploy 2>&1) || fail "deploy: $out"
echo "$out" | grep -q "changed=0 failed=0" || fail "not converged: $out"
for n in hgx01 hgx02; do
	[ "$(starts $n)" = 1 ] || fail "$n: the converged deploy started an installer"
done
exit 0
