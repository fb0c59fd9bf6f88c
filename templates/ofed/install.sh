# ofed stage: installs MLNX_OFED from the tarball $1 (top directory $2)
# with the installer options that follow, then restarts the driver stack
# so that the new one runs. Unpacks beside the tarball, afresh each time,
# so that a run cut in the middle starts the installer over cleanly.
# The last line, bringup-reboot=WHY, says why the host must reboot to
# finish (empty: it need not): the installer flashed HCA firmware, which
# runs only after a restart, or openibd could not restart (an application
# holds the old modules). The same goes to $REBOOT_MARK with this boot's
# id, so that a later check still knows until the host has rebooted.
set -e
tarball=$1 top=$2
shift 2
dir=$(dirname "$tarball")
out=$dir/mlnxofedinstall.out
REBOOT_MARK=/var/lib/bringup/ofed-reboot-pending
rm -rf "$dir/$top"
tar -xzf "$tarball" -C "$dir"
"$dir/$top/mlnxofedinstall" "$@" >"$out" || { rc=$?; cat "$out"; exit "$rc"; }
cat "$out"
why=
if grep -q 'Restart needed for updates to take effect' "$out"; then
	why="the installer updated the HCA firmware (Restart needed for updates to take effect)"
fi
if command -v systemctl >/dev/null 2>&1; then
	restart="systemctl restart openibd"
else
	restart="/etc/init.d/openibd restart"
fi
if ! msg=$($restart 2>&1); then
	echo "$msg" >&2
	line=$(echo "$msg" | grep -m 1 '^Error' || echo "$msg" | tail -n 1)
	why="${why:+$why; }$restart failed: $line"
fi
rm -rf "$dir/$top"
if [ -n "$why" ]; then
	mkdir -p "${REBOOT_MARK%/*}"
	printf '%s\n%s\n' "$(cat /proc/sys/kernel/random/boot_id)" "$why" >"$REBOOT_MARK"
fi
echo "bringup-reboot=$why"
