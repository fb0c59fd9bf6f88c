# ofed stage: after an install, restarts the driver stack so that the new
# one runs. $1: the installer's output. The last line, bringup-reboot=WHY,
# says why the host must reboot to finish (empty: it need not): the
# installer flashed HCA firmware, which runs only after a restart, or
# openibd could not restart (an application holds the old modules). The
# same goes to $mark with this boot's id, so that a later check still
# knows until the host has rebooted.
mark=/var/lib/bringup/ofed-reboot-pending
why=
if grep -q 'Restart needed for updates to take effect' "$1" 2>/dev/null; then
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
if [ -n "$why" ]; then
	mkdir -p "${mark%/*}" &&
		printf '%s\n%s\n' "$(cat /proc/sys/kernel/random/boot_id)" "$why" >"$mark" ||
		exit 1
fi
# the install is seen through (a reboot still owed has its own mark)
rm -f /var/lib/bringup/ofed-install-pending || exit 1
echo "bringup-reboot=$why"
