# peermem stage: the GPUDirect peer-memory module on this host.
# $1: the module (nvidia_peermem | nv_peer_mem); $2: the nv_peer_memory
# source tree used to build nv_peer_mem. Prints kernel=, loaded=yes|no,
# available=yes|no (modinfo finds it for the running kernel),
# headers=DIR|none (kernel-devel of the running kernel), source=yes|no,
# gpu=yes|no, pkg=deb|rpm (how the host installs packages: Debian and
# Ubuntu by /etc/os-release, else the RPM family), and the holders of ib_core and nvidia as
# lsmod lists them.
kver=$(uname -r)
echo "kernel=$kver"
mods=$(lsmod 2>/dev/null)
if echo "$mods" | grep -q "^$1 "; then echo loaded=yes; else echo loaded=no; fi
# By what it prints: the exit status of some modinfo builds lies with -F.
if [ -n "$(modinfo -F filename "$1" 2>/dev/null)" ]; then echo available=yes; else echo available=no; fi
headers=none
for d in /usr/src/kernels/$kver /lib/modules/$kver/build /usr/src/linux-headers-$kver; do
	[ -e "$d" ] && { headers=$d; break; }
done
echo "headers=$headers"
if [ -x "$2/build_module.sh" ]; then echo source=yes; else echo source=no; fi
if command -v nvidia-smi >/dev/null 2>&1; then echo gpu=yes; else echo gpu=no; fi
ID= ID_LIKE=
. /etc/os-release 2>/dev/null
case " $ID $ID_LIKE " in
*" debian "*|*" ubuntu "*) echo pkg=deb;;
*) echo pkg=rpm;;
esac
echo "$mods" | awk '$1 == "ib_core" { print "ib_core_holders=" $4 }
		    $1 == "nvidia" { print "nvidia_holders=" $4 }'
