#!/bin/sh
# Injected failures in the node bring-up each fail on their host and step
# with a clear message and leave the other hosts converged: a bundle for
# another distribution is refused on the admin host before anything is
# sent; an installer that exits 1, and kernel headers the repository does
# not have, fail that host's ofed and peermem steps; after the cause is
# gone --resume converges without sending the tarball again; a second
# master SM is named by its GUID; a standby SM stays below the master.
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip x86_64 "the test bundles are x86_64 binaries"
sim_up -n 4 --state bare
STATE=$TEST_DIR/state
NODES=$BRINGUP_SIM_DIR/nodes
FIXTURES=$(cd "$(dirname "$0")/../fixtures/ofed" && pwd)
playbook() {
	cat >"$TEST_DIR/pb.yaml" <<YAML
name: node-bringup
stages:
  - name: ofed
    module: ofed
    hosts: gpu_worker
    params:
      tarball: $1
  - name: peermem
    module: peermem
    hosts: gpu_worker
  - name: subnet_manager
    module: subnet_manager
    hosts: sm_host
YAML
}
deploy() { "$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/pb.yaml" --state-dir "$STATE" "$@"; }
sftps() { grep -c 'sftp-server' "$NODES/$1/log/commands.log"; }

# A bundle for RHEL 9.4 on RHEL 7.6 nodes: refused in check, nothing sent.
playbook "$("$FIXTURES/make-bundle.sh" "$TEST_DIR/b" 4.7-3.2.9.0 rhel9.4 x86_64)"
out=$(deploy) && fail "deployed a bundle for another distribution: $out"
echo "$out" | grep -Eq "^  ofed +failed +dgx\[01-04\]: check: .*MLNX_OFED_LINUX-4.7-3.2.9.0-rhel9.4-x86_64.tgz is built for rhel9.4; this host runs rhel7.6" ||
	fail "no distribution failure: $out"
for n in dgx01 dgx02 dgx03 dgx04; do
	[ "$(sftps $n)" = 0 ] || fail "$n: a refused bundle was sent"
	[ ! -e "$NODES/$n/state/ofed_version" ] || fail "$n: changed by a refused bundle"
done

# The installer fails on dgx02; the repository has no headers for dgx03.
playbook "$("$FIXTURES/make-bundle.sh" "$TEST_DIR/b" 4.7-3.2.9.0 rhel7.6 x86_64)"
echo "Failed to install mlnx-ofa_kernel RPM" >"$NODES/dgx02/faults/ofed-install-fail"
"$BRINGUP" sim fault dgx03 no-kernel-headers >/dev/null || fail "fault no-kernel-headers"
out=$(deploy) && fail "deploy passed with failures injected: $out"
echo "$out" | grep -Eq '^  ofed +failed +dgx02: apply: mlnxofedinstall failed \(exit 1\): Error: Failed to install mlnx-ofa_kernel RPM' ||
	fail "installer failure: $out"
echo "$out" | grep -Eq '^  ofed +changed +dgx\[01,03-04\]$' || fail "ofed on the others: $out"
echo "$out" | grep -Eq '^  peermem +failed +dgx03: apply: no kernel headers for the running kernel 3.10.0-957.el7.x86_64: yum install kernel-devel-3.10.0-957.el7.x86_64 failed' ||
	fail "headers failure: $out"
echo "$out" | grep -Eq '^  peermem +changed +dgx\[01,04\]$' || fail "peermem on the others: $out"
echo "$out" | grep -Eq '^  peermem +skipped +dgx02: failed at stage ofed$' || fail "dgx02 went on: $out"
echo "$out" | grep -Eq '^  subnet_manager +changed +dgx01$' || fail "subnet_manager: $out"
[ ! -e "$NODES/dgx02/state/ofed_version" ] || fail "dgx02: half-installed OFED"
[ ! -e "$NODES/dgx03/root/etc/modules-load.d/bringup-peermem.conf" ] || fail "dgx03: half-done peermem"
for n in dgx01 dgx04; do
	grep -qx nv_peer_mem "$NODES/$n/state/modules/loaded" || fail "$n: not converged"
done

# Causes gone: --resume finishes dgx02 and dgx03 without sending again.
rm "$NODES/dgx02/faults/ofed-install-fail"
"$BRINGUP" sim fault dgx03 clear >/dev/null || fail "clear"
out=$(deploy --resume) || fail "resume: $out"
for n in dgx01 dgx02 dgx03 dgx04; do
	[ "$(sftps $n)" = 1 ] || fail "$n: $(sftps $n) transfers, want 1"
	grep -qx nv_peer_mem "$NODES/$n/state/modules/loaded" || fail "$n: not converged after resume"
done

# A rogue master beside dgx01's opensm.
"$BRINGUP" sim fault dgx01 two-sm-masters >/dev/null || fail "fault two-sm-masters"
out=$(deploy --tags subnet_manager) && fail "two masters passed: $out"
echo "$out" | grep -Eq "^  subnet_manager +failed +dgx01: check: two master SMs: this host's opensm \(port GUID 0xec0d9a0300000100, priority 14\) is not the master; sminfo names 0x7cfe900300000001 \(priority 15\) as master$" ||
	fail "two masters: $out"
"$BRINGUP" sim fault dgx01 clear >/dev/null
out=$(deploy --tags subnet_manager) || fail "after clearing the rogue SM: $out"

# A standby beside the master: lower priority, and every node still sees
# dgx01 as master; a standby priority that could win is refused.
cat >"$TEST_DIR/sm.yaml" <<YAML
name: sm-pair
stages:
  - name: subnet_manager
    module: subnet_manager
    hosts: "dgx[01-02]"
    params:
      master: dgx01
  - name: sm_fabric
    module: subnet_manager
    hosts: gpu_worker
    params:
      run_sm: false
YAML
out=$("$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/sm.yaml" --state-dir "$STATE") || fail "standby: $out"
echo "$out" | grep -Eq '^  subnet_manager +changed +dgx02$' || fail "standby not set up: $out"
grep -qx 'sm_priority 13' "$NODES/dgx02/root/etc/opensm/opensm.conf" || fail "standby priority"
"$BRINGUP" exec -i "$INV" --limit dgx03 -- sminfo | grep -q 'sm guid 0xec0d9a0300000100, .* priority 14 state 3 SMINFO_MASTER' ||
	fail "dgx01 is not the master dgx03 sees"
sed -i 's/master: dgx01/master: dgx01\n      standby_priority: 14/' "$TEST_DIR/sm.yaml"
out=$("$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/sm.yaml" --state-dir "$STATE") && fail "standby 14 passed: $out"
echo "$out" | grep -q 'standby_priority 14 is not below the master.s priority 14' || fail "wording: $out"
exit 0
