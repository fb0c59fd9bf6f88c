#!/bin/sh
# The stand-ins the OFED, peer-memory and SM stages use, run directly on a
# plain node directory (no sshd, as sim/README.md allows): the MLNX_OFED
# installer of a test bundle checks distribution and architecture, takes
# its time, changes what ofed_info says and needs an openibd restart
# (ports retrain); yum, rpmbuild and rpm build nv_peer_mem only with
# kernel headers; faults make the installer and yum fail as the real ones;
# yum installs mlnx-ofed-all from a configured MLNX_OFED repository.
. "$(dirname "$0")/lib.sh"
TOOLS=$(cd "$(dirname "$0")/../../sim/tools" && pwd)
FIXTURES=$(cd "$(dirname "$0")/../fixtures/ofed" && pwd)
N=$TEST_DIR/node C=$TEST_DIR/cluster W=$TEST_DIR/work
mkdir -p "$N" "$C" "$W"
cat >"$N/node.conf" <<'CONF'
NODE_NAME='dgx01'
NODE_INDEX='0'
NODE_COUNT='1'
PROFILE='dgx1-edr'
STATE='bare'
OS_ID='rhel'
OS_VERSION_ID='7.6'
OS_PRETTY_NAME='Red Hat Enterprise Linux Server 7.6 (Maipo)'
KERNEL='3.10.0-957.el7.x86_64'
GPU_COUNT='8'
GPU_DRIVER='418.87.01'
HCAS='mlx5_0'
HCA_mlx5_0='InfiniBand 100 4X EDR compute'
OFED_VERSION='MLNX_OFED_LINUX-4.7-3.2.9.0'
PEERMEM_MODULE='nv_peer_mem'
SM_HOST='0'
CONF
"$TOOLS/sim-node-init" "$N" "$C" || fail "sim-node-init"
export BRINGUP_SIM_NODE=$N BRINGUP_SIM_CLUSTER=$C HOME=$N/home PATH="$TOOLS:$PATH"
ARCH=$(uname -m)
[ "$ARCH" = x86_64 ] || skip x86_64 "the test bundles are x86_64 binaries"
# sim-node-init (its sim-init-ofed hook) leaves the node's bundle for the admin host.
tar -tzf "$C/ofed/MLNX_OFED_LINUX-4.7-3.2.9.0-rhel7.6-x86_64.tgz" |
	grep -qx 'MLNX_OFED_LINUX-4.7-3.2.9.0-rhel7.6-x86_64/mlnxofedinstall' || fail "no bundle in $C/ofed"

# Unpacks a bundle made by tests/fixtures/ofed/make-bundle.sh into W.
bundle() {
	tgz=$("$FIXTURES/make-bundle.sh" "$W" "$@") || fail "make-bundle $*"
	tar -xzf "$tgz" -C "$W" || fail "untar $tgz"
	echo "$W/$(basename "$tgz" .tgz)"
}

ofed_info -s 2>/dev/null && fail "ofed_info on a node without OFED"
other=$(bundle 24.04-0.7.0.0 rhel9.4 x86_64)
out=$("$other/mlnxofedinstall" --force 2>&1) && fail "installed a rhel9.4 bundle on rhel7.6"
echo "$out" | grep -qx 'Error: The current MLNX_OFED_LINUX is intended for rhel9.4' || fail "wording: $out"
[ ! -e "$N/state/ofed_version" ] || fail "a refused bundle changed the node"

top=$(bundle 4.7-3.2.9.0 rhel7.6 x86_64 3.10.0-1062.el7.x86_64)
out=$(SIM_OFED_SECONDS=0 "$top/mlnxofedinstall" --force 2>&1) && fail "installed for another kernel"
echo "$out" | grep -q 'Use --add-kernel-support' || fail "no kernel support hint: $out"
echo "boom" >"$N/faults/ofed-install-fail"
out=$(SIM_OFED_SECONDS=0 "$top/mlnxofedinstall" --force --add-kernel-support 2>&1) &&
	fail "installed with ofed-install-fail"
echo "$out" | grep -qx 'Error: boom' || fail "fault message: $out"
[ ! -e "$N/state/ofed_version" ] || fail "a failed install changed ofed_info"
rm "$N/faults/ofed-install-fail"

start=$(date +%s)
out=$(SIM_OFED_SECONDS=1 "$top/mlnxofedinstall" --force --without-fw-update --add-kernel-support) ||
	fail "install: $out"
[ $(($(date +%s) - start)) -ge 1 ] || fail "the installer took no time"
echo "$out" | grep -qx 'Skipping FW update.' || fail "fw update not skipped: $out"
echo "$out" | grep -qx 'Installation passed successfully' || fail "no success line: $out"
[ "$(ofed_info -s)" = "MLNX_OFED_LINUX-4.7-3.2.9.0:" ] || fail "ofed_info -s: $(ofed_info -s)"
[ ! -e "$N/state/ofed_fw_updated" ] || fail "firmware updated despite --without-fw-update"
[ -x "$N/root/usr/src/nv_peer_memory/build_module.sh" ] || fail "no nv_peer_memory sources"
[ "$(systemctl is-enabled opensm)" = disabled ] || fail "opensm not installed disabled"

# The new stack runs after openibd restarts; the ports poll for a while.
SIM_LINK_UP_SECONDS=3 systemctl restart openibd || fail "restart openibd"
lsmod | grep -q '^mlx5_ib ' || fail "mlx5_ib not loaded"
ibstat mlx5_0 1 | grep -qx 'Physical state: Polling' || fail "port did not go down: $(ibstat mlx5_0 1)"
sleep 4
ibstat mlx5_0 1 | grep -qx 'Physical state: LinkUp' || fail "port did not come back: $(ibstat mlx5_0 1)"

# nv_peer_mem from source: no headers, no build; yum brings them unless
# the repository lacks them (no-kernel-headers).
srpm=$(cd "$N/root/usr/src/nv_peer_memory" && ./build_module.sh | sed -n 's/^Built: //p')
[ "$srpm" = /tmp/nvidia_peer_memory-1.0-9.src.rpm ] || fail "build_module.sh: $srpm"
out=$(rpmbuild --rebuild "$srpm" 2>&1) && fail "built without kernel headers"
echo "$out" | grep -qx "make: \*\*\* /lib/modules/3.10.0-957.el7.x86_64/build: No such file or directory.  Stop." ||
	fail "wording: $out"
touch "$N/faults/no-kernel-headers"
out=$(yum install -y kernel-devel-3.10.0-957.el7.x86_64 2>&1) && fail "yum with no-kernel-headers"
echo "$out" | grep -qx 'No package kernel-devel-3.10.0-957.el7.x86_64 available.' || fail "wording: $out"
rm "$N/faults/no-kernel-headers"
yum install -y kernel-devel-3.10.0-957.el7.x86_64 kernel-headers-3.10.0-957.el7.x86_64 >/dev/null ||
	fail "yum install kernel-devel"
[ -d "$N/root/usr/src/kernels/3.10.0-957.el7.x86_64" ] || fail "no build tree after yum"
SIM_BUILD_SECONDS=0 rpmbuild --rebuild "$srpm" >/dev/null || fail "rpmbuild with headers"
rpm=$HOME/rpmbuild/RPMS/$ARCH/nvidia_peer_memory-1.0-9.$ARCH.rpm
modprobe nv_peer_mem 2>/dev/null && fail "nv_peer_mem loads before rpm -i"
rpm -ivh "$rpm" >/dev/null || fail "rpm -ivh"
rpm -ivh "$rpm" 2>/dev/null && fail "installed twice without --replacepkgs"
[ "$(rpm -q nvidia_peer_memory)" = "nvidia_peer_memory-1.0-9.$ARCH" ] || fail "rpm -q"
rpm -q nosuch >/dev/null && fail "rpm -q of a missing package"
modprobe nv_peer_mem || fail "modprobe nv_peer_mem after rpm -i"
lsmod | grep -Eq '^ib_core .*nv_peer_mem' || fail "nv_peer_mem not holding ib_core: $(lsmod)"
rm -f /tmp/nvidia_peer_memory-1.0-9.src.rpm

# A configured MLNX_OFED repository offers mlnx-ofed-all of its release.
yum -q list available mlnx-ofed-all 2>/dev/null && fail "mlnx-ofed-all without a repository"
mkdir -p "$N/root/etc/yum.repos.d"
printf '[mlnx_ofed]\nbaseurl=http://repo.example/MLNX_OFED_LINUX-4.6-1.0.1.1-rhel7.6-x86_64/RPMS\n' \
	>"$N/root/etc/yum.repos.d/mlnx_ofed.repo"
yum -q list available mlnx-ofed-all | grep -Eqx 'mlnx-ofed-all.noarch +4.6-1.0.1.1.rhel7u6 +mlnx_ofed' ||
	fail "yum list: $(yum list available mlnx-ofed-all)"
SIM_OFED_SECONDS=0 yum install -y mlnx-ofed-all >/dev/null || fail "yum install mlnx-ofed-all"
[ "$(ofed_info -s)" = "MLNX_OFED_LINUX-4.6-1.0.1.1:" ] || fail "after yum: $(ofed_info -s)"
[ "$(yum list installed mlnx-ofed-all)" = mlnx-ofed-all-4.6-1.0.1.1.noarch ] || fail "yum list installed"
exit 0
