#!/bin/sh
# The first three steps of the bring-up on a clean cluster (no OFED, no
# peer memory module, no SM): --check plans them and changes nothing;
# deploy of ofed, peermem and subnet_manager converges; precheck's OFED,
# peer-memory and SM checks turn from red to green; a second run changes
# nothing and sends nothing; the tarball went to each host exactly once.
# Then the same on HGX H100 nodes (RHEL 9.4, a 24.04 bundle, nvidia_peermem
# from the driver instead of a build).
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip x86_64 "the test bundles are x86_64 binaries"
sim_up -n 4 --state bare
STATE=$TEST_DIR/state
NODES=$BRINGUP_SIM_DIR/nodes
FIXTURES=$(cd "$(dirname "$0")/../fixtures/ofed" && pwd)
TGZ=$("$FIXTURES/make-bundle.sh" "$TEST_DIR/bundles" 4.7-3.2.9.0 rhel7.6 x86_64) || fail "make-bundle"
PB=$TEST_DIR/node-bringup.yaml
cat >"$PB" <<YAML
name: node-bringup
stages:
  - name: ofed
    module: ofed
    hosts: gpu_worker
    params:
      tarball: $TGZ
  - name: peermem
    module: peermem
    hosts: gpu_worker
  - name: subnet_manager
    module: subnet_manager
    hosts: sm_host
  - name: sm_fabric
    module: subnet_manager
    hosts: gpu_worker
    params:
      run_sm: false
YAML
CHECKS=ofed.version,peermem.loaded,sm.master
deploy() { "$BRINGUP" deploy -i "$INV" -p "$PB" --state-dir "$STATE" "$@"; }
sftps() { grep -c 'sftp-server' "$NODES/$1/log/commands.log"; }

out=$("$BRINGUP" precheck -i "$INV" --checks "$CHECKS") && fail "precheck green on a bare cluster: $out"
for c in ofed.version peermem.loaded sm.master; do
	echo "$out" | grep -q "^FAIL $c " || fail "bare: $c not failed: $out"
done

out=$(deploy --check) || fail "check: $out"
echo "$out" | grep -q "^  - send $TGZ (.*) to /var/tmp/bringup-ofed/" || fail "no transfer planned: $out"
echo "$out" | grep -q '^  - install MLNX_OFED_LINUX-4.7-3.2.9.0 over no OFED (mlnxofedinstall --force --without-fw-update), restart openibd$' ||
	fail "install plan: $out"
[ ! -e "$NODES/dgx01/root/var/tmp/bringup-ofed" ] || fail "--check sent the tarball"

out=$(deploy) || fail "deploy failed: $out"
echo "$out" | grep -Eq '^  ofed +changed +dgx\[01-04\]$' || fail "ofed: $out"
echo "$out" | grep -Eq '^  peermem +changed +dgx\[01-04\]$' || fail "peermem: $out"
echo "$out" | grep -Eq '^  subnet_manager +changed +dgx01$' || fail "subnet_manager: $out"
echo "$out" | grep -Eq '^  sm_fabric +ok +dgx\[01-04\]$' || fail "sm_fabric: $out"
for n in dgx01 dgx02 dgx03 dgx04; do
	d=$NODES/$n
	[ "$(cat "$d/state/ofed_version")" = MLNX_OFED_LINUX-4.7-3.2.9.0 ] || fail "$n: ofed"
	[ ! -e "$d/state/ofed_fw_updated" ] || fail "$n: firmware updated without fw_update"
	grep -qx nv_peer_mem "$d/state/modules/loaded" || fail "$n: nv_peer_mem not loaded"
	grep -qx nv_peer_mem "$d/root/etc/modules-load.d/bringup-peermem.conf" || fail "$n: not persisted"
	[ -d "$d/root/usr/src/kernels/3.10.0-957.el7.x86_64" ] || fail "$n: headers not installed"
	[ "$(sftps $n)" = 1 ] || fail "$n: $(sftps $n) SFTP sessions, want 1"
done
grep -qx 'sm_priority 14' "$NODES/dgx01/root/etc/opensm/opensm.conf" || fail "opensm.conf priority"
grep -qx 'guid 0xec0d9a0300000100' "$NODES/dgx01/root/etc/opensm/opensm.conf" || fail "opensm.conf guid"
[ "$(cat "$NODES/dgx01/state/services/opensm/enabled")" = enabled ] || fail "opensm not enabled"
run=$(readlink "$STATE/last")
grep -q "^\$ .*'--force' '--without-fw-update'  # stdin: templates/ofed/install.sh" \
	"$STATE/$run/hosts/dgx02.log" || fail "installer options not logged"

out=$("$BRINGUP" precheck -i "$INV" --checks "$CHECKS") || fail "precheck after deploy: $out"

out=$(deploy -o json) || fail "second deploy: $out"
echo "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["totals"] == {"ok": 13, "changed": 0, "failed": 0, "skipped": 0, "unreachable": 0}, d["totals"]
' || fail "second deploy was not all ok: $out"
for n in dgx01 dgx02 dgx03 dgx04; do
	[ "$(sftps $n)" = 1 ] || fail "$n: sent again on the second run"
done

"$BRINGUP" sim down >/dev/null || fail "sim down"
sim_up -n 2 --profile hgx-h100-ndr --state bare
TGZ=$("$FIXTURES/make-bundle.sh" "$TEST_DIR/bundles" 24.04-0.7.0.0 rhel9.4 x86_64) || fail "make-bundle"
sed -i "s|tarball: .*|tarball: $TGZ|" "$PB"
STATE=$TEST_DIR/state-hgx
out=$(deploy) || fail "deploy on hgx: $out"
echo "$out" | grep -Eq '^  peermem +changed +hgx\[01-02\]$' || fail "hgx peermem: $out"
for n in hgx01 hgx02; do
	grep -qx nvidia_peermem "$NODES/$n/state/modules/loaded" || fail "$n: nvidia_peermem not loaded"
	[ ! -e "$NODES/$n/root/usr/src/kernels" ] || fail "$n: built although the driver ships it"
done
out=$("$BRINGUP" precheck -i "$INV" --checks "$CHECKS") || fail "precheck on hgx: $out"
exit 0
