# ofed stage: installs MLNX_OFED from the package repository the host is
# configured for (the mlnx-ofed-all metapackage, as NVIDIA's repository
# documentation has it), then restarts the driver stack.
set -e
yum install -y mlnx-ofed-all
if command -v systemctl >/dev/null 2>&1; then
	systemctl restart openibd
else
	/etc/init.d/openibd restart
fi
