# scale_install stage: what this host holds. Prints family=rpm|deb (the
# package tool), arch=, kernel= (running), headers=yes|no (the running
# kernel's build tree, which mmbuildgpl needs), pkg_NAME=VERSION for every
# installed gpfs.* package (VERSION as the package manager writes it,
# 5.0.4-3), gpl_kernel= (the kernel bringup built the portability layer for;
# empty when never built) and gpl_module=yes|no (the layer's mmfs26.ko for
# the running kernel).
k=$(uname -r)
echo "arch=$(uname -m)"
echo "kernel=$k"
# where mmbuildgpl looks: the build link, kernel-devel (RHEL), linux-headers (Ubuntu)
h=no
for d in "/lib/modules/$k/build" "/usr/src/kernels/$k" "/usr/src/linux-headers-$k"; do
	[ -d "$d" ] && h=yes
done
echo "headers=$h"
if command -v rpm >/dev/null 2>&1; then
	echo family=rpm
	rpm -qa 2>/dev/null | sed -n 's/^\(gpfs\.[A-Za-z0-9_.]*\)-\([0-9][^-]*-[^.]*\)\..*$/pkg_\1=\2/p'
else
	echo family=deb
	dpkg-query -W -f '${Package} ${Version}\n' 'gpfs.*' 2>/dev/null |
		awk '$2 != "" { print "pkg_" $1 "=" $2 }'
fi
echo "gpl_kernel=$(head -n 1 /var/lib/bringup/scale-gpl.kernel 2>/dev/null)"
m=no
for d in /lib/modules /usr/lib/modules; do
	[ -f "$d/$k/extra/mmfs26.ko" ] && m=yes
done
echo "gpl_module=$m"
