# gpu_driver stage: the NVIDIA driver on this host. $1: where the runfile
# goes; $2: the desired version. Prints kernel=, arch=, gpu=yes|no (the
# driver's nvidia-smi is there), installed= (the nvidia module on disk,
# modinfo; empty: none), running= (the driver each GPU runs, as nvidia-smi
# reports it, space-separated; empty when nvidia-smi fails), smi= (its
# first line then: "Failed to initialize NVML: Driver/library version
# mismatch" after an install the running module predates), headers=DIR|none
# (the running kernel's source tree, which the runfile's DKMS build needs),
# services= (the GPU services active now: they hold the module),
# runfile= (SHA-256 of $1; empty when absent or when the desired driver is
# installed already), free_mb= (space where $1 goes).
kver=$(uname -r)
echo "kernel=$kver"
echo "arch=$(uname -m)"
if command -v nvidia-smi >/dev/null 2>&1; then echo gpu=yes; else echo gpu=no; fi
installed=$(modinfo -F version nvidia 2>/dev/null)
echo "installed=$installed"
if v=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>&1); then
	echo "running=$(echo $v)"
else
	echo "running="
	echo "smi=$(echo "$v" | head -n 1)"
fi
headers=none
for d in /usr/src/kernels/$kver /usr/src/linux-headers-$kver; do
	[ -d "$d" ] && { headers=$d; break; }
done
echo "headers=$headers"
active=
for u in nvidia-persistenced nvidia-dcgm dcgm nvidia-fabricmanager; do
	systemctl is-active -q "$u" 2>/dev/null && active="$active $u"
done
echo "services=${active# }"
sum=
if [ -f "$1" ] && [ "$installed" != "$2" ]; then
	sum=$(sha256sum <"$1" | cut -d' ' -f1)
fi
echo "runfile=$sum"
d=$(dirname "$1")
while [ ! -d "$d" ]; do d=$(dirname "$d"); done
echo "free_mb=$(df -Pm "$d" | awk 'NR == 2 { print $4 }')"
