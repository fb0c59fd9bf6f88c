# ofed stage: installs MLNX_OFED from the tarball $1 (top directory $2)
# with the installer options that follow. Unpacks beside the tarball,
# afresh each time, so that a run cut in the middle starts the installer
# over cleanly. The installer's output also goes to mlnxofedinstall.out
# there, for ofed/restart.sh.
set -e
tarball=$1 top=$2
shift 2
dir=$(dirname "$tarball")
out=$dir/mlnxofedinstall.out
# until restart.sh has run, the next check knows this install was begun
mkdir -p /var/lib/bringup && echo "$top" >/var/lib/bringup/ofed-install-pending
rm -rf "$dir/$top"
tar -xzf "$tarball" -C "$dir"
"$dir/$top/mlnxofedinstall" "$@" >"$out" || { rc=$?; cat "$out"; exit "$rc"; }
cat "$out"
rm -rf "$dir/$top"
