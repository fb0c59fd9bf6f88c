# ofed stage: installs MLNX_OFED from the package repository the host is
# configured for (the mlnx-ofed-all metapackage, as NVIDIA's repository
# documentation has it). Its output also goes to $1/mlnxofedinstall.out,
# for ofed/restart.sh.
set -e
mkdir -p "$1"
# until restart.sh has run, the next check knows this install was begun
mkdir -p /var/lib/bringup && echo mlnx-ofed-all >/var/lib/bringup/ofed-install-pending
out=$1/mlnxofedinstall.out
yum install -y mlnx-ofed-all >"$out" || { rc=$?; cat "$out"; exit "$rc"; }
cat "$out"
