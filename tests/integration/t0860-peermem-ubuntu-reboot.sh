#!/bin/sh
# The node bring-up on Ubuntu (DGX-1 on DGX OS 4): the ubuntu18.04 OFED
# bundle, nv_peer_mem built the Debian way (linux-headers-$(uname -r) with
# apt-get, build_module.sh's debian tarball, dpkg-buildpackage, dpkg -i
# with DKMS); headers the archive lacks fail clearly. The module is
# persisted in modules-load.d: after a reboot with its service disabled it
# is loaded again; a node whose file was removed comes back without it, and
# the next run repairs that. A final run changes nothing.
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip x86_64 "the test bundles are x86_64 binaries"
sim_up -n 3 --profile dgx1-ubuntu --state bare
STATE=$TEST_DIR/state
NODES=$BRINGUP_SIM_DIR/nodes
KVER=4.15.0-58-generic
FIXTURES=$(cd "$(dirname "$0")/../fixtures/ofed" && pwd)
TGZ=$("$FIXTURES/make-bundle.sh" "$TEST_DIR/bundles" 4.7-3.2.9.0 ubuntu18.04 x86_64) || fail "make-bundle"
PB=$TEST_DIR/pb.yaml
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
YAML
deploy() { "$BRINGUP" deploy -i "$INV" -p "$PB" --state-dir "$STATE" "$@"; }
boot_id() { cat "$NODES/$1/state/boot_id"; }
# reboot ADDR NODE: reboots the node over plain ssh and waits for its new boot.
reboot_node() {
	old=$(boot_id "$2")
	sim_ssh "$1" systemctl reboot || fail "$2: systemctl reboot"
	for i in $(seq 60); do
		sleep 1
		now=$(sim_ssh "$1" cat /proc/sys/kernel/random/boot_id 2>/dev/null) || continue
		[ "$now" != "$old" ] && return 0
	done
	fail "$2 did not come back from its reboot"
}

"$BRINGUP" sim fault dgx03 no-kernel-headers >/dev/null || fail "fault no-kernel-headers"
out=$(deploy --check) || fail "check: $out"
echo "$out" | grep -q "^  - install linux-headers-$KVER$" || fail "headers plan: $out"
out=$(deploy) && fail "deploy passed without headers on dgx03: $out"
echo "$out" | grep -Eq '^  ofed +changed +dgx\[01-03\]$' || fail "ofed: $out"
echo "$out" | grep -Eq '^  peermem +changed +dgx\[01-02\]$' || fail "peermem: $out"
echo "$out" | grep -Eq "^  peermem +failed +dgx03: apply: no kernel headers for the running kernel $KVER: apt-get install linux-headers-$KVER failed: .*E: Unable to locate package linux-headers-$KVER" ||
	fail "headers failure on dgx03: $out"
for n in dgx01 dgx02; do
	d=$NODES/$n
	[ -d "$d/root/usr/src/linux-headers-$KVER" ] || fail "$n: linux-headers not installed"
	[ ! -e "$d/root/usr/src/kernels" ] || fail "$n: RHEL's kernel-devel path used"
	grep -q '^nvidia-peer-memory-dkms 1.0-9$' "$d/state/debs/nvidia-peer-memory-dkms" ||
		fail "$n: the DKMS package is not installed"
	[ ! -e "$d/state/rpms/nvidia_peer_memory" ] || fail "$n: built as an RPM"
	grep -qx nv_peer_mem "$d/state/modules/loaded" || fail "$n: nv_peer_mem not loaded"
	grep -qx nv_peer_mem "$d/root/etc/modules-load.d/bringup-peermem.conf" || fail "$n: not persisted"
done
[ ! -e "$NODES/dgx03/state/debs/nvidia-peer-memory-dkms" ] || fail "dgx03: installed without headers"

# Persisted: with its service disabled, only modules-load.d loads it at boot.
sim_ssh 127.0.1.1 systemctl disable nv_peer_mem 2>/dev/null || fail "disable on dgx01"
sim_ssh 127.0.1.2 'systemctl disable nv_peer_mem; rm /etc/modules-load.d/bringup-peermem.conf' \
	2>/dev/null || fail "unpersist dgx02"
reboot_node 127.0.1.1 dgx01
reboot_node 127.0.1.2 dgx02
sim_ssh 127.0.1.1 lsmod | grep -q '^nv_peer_mem ' || fail "dgx01: nv_peer_mem not loaded after the reboot"
sim_ssh 127.0.1.1 lsmod | grep -q '^ib_core .*nv_peer_mem' || fail "dgx01: not bound to ib_core after boot"
sim_ssh 127.0.1.2 lsmod | grep -q '^nv_peer_mem ' && fail "dgx02 loaded nv_peer_mem without modules-load.d"

"$BRINGUP" sim fault dgx03 clear >/dev/null || fail "clear"
out=$(deploy) || fail "second deploy: $out"
echo "$out" | grep -Eq '^  peermem +changed +dgx\[02-03\]$' || fail "second run: $out"
echo "$out" | grep -Eq '^  peermem +ok +dgx01$' || fail "dgx01 on the second run: $out"
grep -qx nv_peer_mem "$NODES/dgx02/root/etc/modules-load.d/bringup-peermem.conf" || fail "dgx02 not repaired"
out=$(deploy -o json) || fail "third deploy: $out"
all_ok 6 "$out" || fail "third deploy changed something: $out"
exit 0
