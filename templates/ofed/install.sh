# ofed stage: installs MLNX_OFED from the tarball $1 (top directory $2)
# with the installer options that follow, then restarts the driver stack
# so that the new one runs. Unpacks beside the tarball, afresh each time,
# so that a run cut in the middle starts the installer over cleanly.
set -e
tarball=$1 top=$2
shift 2
dir=$(dirname "$tarball")
rm -rf "$dir/$top"
tar -xzf "$tarball" -C "$dir"
"$dir/$top/mlnxofedinstall" "$@"
if command -v systemctl >/dev/null 2>&1; then
	systemctl restart openibd
else
	/etc/init.d/openibd restart
fi
rm -rf "$dir/$top"
