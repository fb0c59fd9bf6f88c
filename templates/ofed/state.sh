# ofed stage: what this host runs and holds. $1: where the tarball goes;
# $2: the source (tarball or repo); $3: the desired release (4.7-3.2.9.0).
# Prints installed= (ofed_info -s, empty when none), distro= (ID and
# VERSION_ID as MLNX_OFED names distributions: rhel7.6, ubuntu22.04),
# arch=, kernel=, gpu=yes|no (an NVIDIA driver: the bundled peer memory
# package is wanted), tarball= (SHA-256 of $1; empty when absent, or when
# the desired release runs already and no install of it was cut: a
# converged run need not read a few hundred MB on every host), free_mb=
# (space where it goes), reboot_pending= (why an install of this boot
# still needs a reboot; empty when none or the host rebooted since).
v=$(ofed_info -s 2>/dev/null | head -n 1)
echo "installed=$v"
. /etc/os-release 2>/dev/null
echo "distro=${ID-}${VERSION_ID-}"
echo "arch=$(uname -m)"
echo "kernel=$(uname -r)"
if command -v nvidia-smi >/dev/null 2>&1; then echo gpu=yes; else echo gpu=no; fi
rel=${v%%:*}
rel=${rel#"${rel%%[0-9]*}"}
sum=
cut=
[ -e /var/lib/bringup/ofed-install-pending ] && cut=yes
if [ -f "$1" ] && { [ -z "${3-}" ] || [ "$rel" != "$3" ] || [ -n "$cut" ]; }; then
	sum=$(sha256sum <"$1" | cut -d' ' -f1)
fi
echo "tarball=$sum"
d=$(dirname "$1")
while [ ! -d "$d" ]; do d=$(dirname "$d"); done
echo "free_mb=$(df -Pm "$d" | awk 'NR == 2 { print $4 }')"
# $2 = repo: what the configured MLNX_OFED repository offers.
if [ "${2-}" = repo ]; then
	echo "repo=$(yum -q list available mlnx-ofed-all 2>/dev/null | awk '$1 ~ /^mlnx-ofed-all/ { v = $2 } END { print v }')"
fi
# An install an earlier run began and did not see through (cut before
# restart.sh, or in the installer): ofed/install.sh leaves its mark,
# restart.sh removes it. And the stack the release must leave running:
# openibd active, ib_core loaded (install_cut=, openibd=, stack=).
echo "install_cut=$cut"
if command -v systemctl >/dev/null 2>&1; then
	echo "openibd=$(systemctl is-active openibd 2>/dev/null | head -n 1)"
else
	echo openibd=unknown
fi
if lsmod 2>/dev/null | grep -q '^ib_core '; then echo stack=loaded; else echo stack=; fi
mark=/var/lib/bringup/ofed-reboot-pending
pending=
if [ -f "$mark" ] && [ "$(head -n 1 "$mark")" = "$(cat /proc/sys/kernel/random/boot_id)" ]; then
	pending=$(sed -n 2p "$mark")
fi
echo "reboot_pending=$pending"
