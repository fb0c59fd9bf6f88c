# gpu_driver stage: before the runfile runs, nothing may hold the nvidia
# module (its installer refuses otherwise). $@: the GPU services to stop
# (state.sh's services=). Stops them and nv_peer_mem's service, then
# unloads the peer memory and NVIDIA modules, holders first. A module that
# stays loaded (a CUDA program still running) fails with lsmod's line.
for u in "$@"; do
	systemctl stop "$u" || exit 1
done
if systemctl is-active -q nv_peer_mem 2>/dev/null; then
	systemctl stop nv_peer_mem || exit 1
fi
for m in nvidia_peermem nv_peer_mem nvidia_drm nvidia_modeset nvidia_uvm nvidia; do
	lsmod | awk -v m="$m" '$1 == m { f = 1 } END { exit !f }' || continue
	if ! modprobe -r "$m"; then
		echo "$m stays loaded (lsmod: $(lsmod | awk -v m="$m" '$1 == m { print }'))" >&2
		exit 1
	fi
done
