# nouveau stage: what the host's boot and kernel say about nouveau.
# $1: the blacklist file. Prints tool= (what rebuilds the initramfs here),
# initramfs=current|stale|missing (the image of the running kernel against
# the blacklist file), loaded=yes|no.
. /etc/os-release 2>/dev/null
kver=$(uname -r)
case " ${ID-} ${ID_LIKE-} " in
*" debian "*|*" ubuntu "*) img=/boot/initrd.img-$kver tool=update-initramfs;;
*) img=/boot/initramfs-$kver.img tool=dracut;;
esac
echo "tool=$tool"
if [ ! -e "$img" ]; then
	echo initramfs=missing
elif [ -e "$1" ] && [ "$1" -nt "$img" ]; then
	echo initramfs=stale
else
	echo initramfs=current
fi
if lsmod 2>/dev/null | grep -q '^nouveau '; then echo loaded=yes; else echo loaded=no; fi
