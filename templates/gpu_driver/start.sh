# gpu_driver stage: after the install (and the reboot, when the stage
# reboots), the new driver runs: its modules loaded (a no-op after a boot,
# which loads them) and the GPU services stopped for the install started
# again ($@), in case they are not enabled to start at boot.
modprobe nvidia && modprobe nvidia_uvm && modprobe nvidia_modeset || exit 1
for u in "$@"; do
	systemctl start "$u" || exit 1
done
