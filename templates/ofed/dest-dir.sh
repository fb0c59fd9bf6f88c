# ofed stage: the directory the tarball goes to and is unpacked in. $1: its
# path. Created 0700 for the login user when missing; when it is there, it
# is used only if it is a real directory that user owns. The default path
# is predictable and in /var/tmp, where anyone may create it first: a
# directory or symlink someone else made there could steer the upload or
# swap the tarball between its checksum and the installer running as root.
d=$1
if [ ! -e "$d" ] && [ ! -L "$d" ]; then
	umask 022
	mkdir -p -- "$(dirname -- "$d")" && mkdir -m 0700 -- "$d" || exit 1
fi
if [ -L "$d" ]; then
	echo "$d is a symbolic link (to $(readlink -- "$d")): refusing to upload there" >&2
	exit 3
fi
if [ ! -d "$d" ]; then
	echo "$d is not a directory: refusing to upload there" >&2
	exit 3
fi
if [ ! -O "$d" ]; then
	echo "$d is owned by $(stat -c %U -- "$d"), not by $(id -un): refusing to upload there" >&2
	exit 3
fi
