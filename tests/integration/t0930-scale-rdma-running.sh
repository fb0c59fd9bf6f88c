#!/bin/sh
# RDMA proven from the running daemon (issue 28): a daemon that runs with
# verbs RDMA off while the configuration says verbsRdma enable (sim fault
# verbs-off: mmdiag --config shows verbsRdma disable, mmfsadm test verbs
# status "disabled") fails precheck's scale.rdma and the scale_rdma stage on
# exactly that node, naming the attribute and both values (it used to skip,
# which counts as a pass); cleared, both pass. And scale.config_running: a
# value changed without a restart (mmchconfig workerThreads without -i)
# fails that node, naming attribute, configured and running values, until
# the daemon restarts.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scale-lib.sh"
sim_up -n 3 --state ready
STATE=$TEST_DIR/state
scale_inventory "$INV" "$TEST_DIR/inv.yaml"
mm() { sim_ssh 127.0.1.1 "/usr/lpp/mmfs/bin/$*"; }
pre() { "$BRINGUP" precheck -i "$TEST_DIR/inv.yaml" --timeout "$(slow 180)" --checks "$1"; }
rdma() { "$BRINGUP" deploy -i "$TEST_DIR/inv.yaml" --state-dir "$STATE" --tags scale_rdma; }

# every attribute, running values as numbers (the real layout)
sim_ssh 127.0.1.2 /usr/lpp/mmfs/bin/mmdiag --config | grep -qx ' ! pagepool 17179869184' ||
	fail "mmdiag --config: $(sim_ssh 127.0.1.2 /usr/lpp/mmfs/bin/mmdiag --config)"
out=$(pre 'scale.rdma,scale.config_running') || fail "precheck on the ready cluster: $out"

"$BRINGUP" sim fault dgx02 verbs-off >/dev/null || fail "sim fault verbs-off"
sim_ssh 127.0.1.2 /usr/lpp/mmfs/bin/mmfsadm test verbs status | grep -qx 'VERBS RDMA status: disabled' ||
	fail "verbs status under verbs-off"
out=$(pre scale.rdma) && fail "precheck passed with verbs off on dgx02: $out"
echo "$out" | grep -q '^FAIL scale.rdma  *dgx02$' || fail "scale.rdma dgx02: $out"
echo "$out" | grep -q 'FAIL scale.rdma  *dgx0[13]' && fail "scale.rdma failed another node: $out"
echo "$out" | grep -q "verbsRdma is enable in the configuration (mmlsconfig) but the running daemon has verbsRdma disable (mmdiag --config), mmfsadm test verbs status: disabled" ||
	fail "scale.rdma message: $out"
out=$(rdma 2>&1) && fail "scale_rdma passed with verbs off on dgx02: $out"
echo "$out" | grep -q '^  scale_rdma       failed   dgx02: .*verbsRdma is enable in the configuration (mmlsconfig) but the running daemon has verbsRdma disable' ||
	fail "scale_rdma dgx02: $out"
echo "$out" | grep -Eq '^  scale_rdma +ok +dgx\[01,03\]$' || fail "scale_rdma on the others: $out"

"$BRINGUP" sim fault dgx02 clear verbs-off >/dev/null || fail "clear verbs-off"
out=$(pre scale.rdma) || fail "precheck after clear: $out"
out=$(rdma 2>&1) || fail "scale_rdma after clear: $out"

# configured, not running: mmchconfig without -i changes mmlsconfig only
mm "mmchconfig workerThreads=4096 -N dgx03" >/dev/null || fail "mmchconfig workerThreads"
out=$(pre scale.config_running) && fail "config_running passed with a change not applied: $out"
echo "$out" | grep -q '^FAIL scale.config_running  *dgx03$' || fail "config_running dgx03: $out"
echo "$out" | grep -q 'workerThreads configured 4096, running 1024' || fail "config_running message: $out"
echo "$out" | grep -q 'FAIL scale.config_running  *dgx0[12]' && fail "config_running failed another node: $out"
mm "mmshutdown -N dgx03" >/dev/null && mm "mmstartup -N dgx03" >/dev/null || fail "restart dgx03"
i=0
until mm "mmgetstate -N dgx03" | grep -q ' active'; do
	i=$((i + 1)); [ $i -le 50 ] || fail "dgx03 not active again"; sleep 0.2
done
out=$(pre scale.config_running) || fail "config_running after the restart: $out"

# gpfs_gui is refused on its node before anything changes, not ignored
# (dgx03 on a host entry of its own, with the variable)
python3 - "$TEST_DIR/inv.yaml" "$TEST_DIR/inv-gui.yaml" <<'PY' || fail "inventory with gpfs_gui"
import sys
s = open(sys.argv[1]).read()
old = '  "dgx[01-03]":\n    address: "127.0.1.[1-3]"\n'
assert old in s, s
s = s.replace(old, '  "dgx[01-02]":\n    address: "127.0.1.[1-2]"\n', 1)
s = s.replace("\nhosts:\n", "\nhosts:\n  dgx03:\n    address: 127.0.1.3\n    hardware: dgx1-edr\n"
              "    vars:\n      gpfs_gui: true\n", 1)
open(sys.argv[2], "w").write(s)
PY
out=$("$BRINGUP" deploy -i "$TEST_DIR/inv-gui.yaml" --state-dir "$STATE" --tags scale_install 2>&1) &&
	fail "deploy with gpfs_gui passed: $out"
echo "$out" | grep -q '^  scale_install    failed   dgx03: .*gpfs_gui is true for dgx03, but bringup does not install the Spectrum Scale GUI' ||
	fail "gpfs_gui not refused on dgx03: $out"
echo "$out" | grep -Eq '^  scale_install +(ok|changed) +dgx\[01-02\]$' || fail "scale_install on the others: $out"
exit 0
