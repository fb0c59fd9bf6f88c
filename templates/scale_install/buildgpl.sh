# scale_install stage: builds the GPFS portability layer for the running
# kernel and records that kernel, so that check finds a kernel change
# (an OFED or OS update) and builds again.
set -e
/usr/lpp/mmfs/bin/mmbuildgpl
mkdir -p /var/lib/bringup
uname -r >/var/lib/bringup/scale-gpl.kernel.tmp
mv /var/lib/bringup/scale-gpl.kernel.tmp /var/lib/bringup/scale-gpl.kernel
