# peermem stage: builds and installs nv_peer_mem from the nv_peer_memory
# source tree ($1) for the running kernel, as the Redpaper does on RHEL and
# the sources' README does on Debian and Ubuntu. build_module.sh makes a
# source RPM, or on a Debian-based host the debian tarball: which one it
# built says which way to go on. RHEL: rpmbuild --rebuild compiles it
# against kernel-devel, rpm installs the binary package. Debian/Ubuntu: dpkg-buildpackage builds the
# packages from the unpacked tarball, dpkg installs them (DKMS compiles the
# module against linux-headers-$(uname -r)).
set -e
cd "$1"
out=$(./build_module.sh)
echo "$out"
if echo "$out" | grep -q '^Built: .*\.orig\.tar\.gz$'; then
	tgz=$(echo "$out" | sed -n 's/^Built: *\(.*\.orig\.tar\.gz\)$/\1/p' | tail -n 1)
	[ -n "$tgz" ] || { echo "build_module.sh named no debian tarball" >&2; exit 1; }
	w=$(mktemp -d)
	trap 'rm -rf "$w"' EXIT
	tar -xzf "$tgz" -C "$w"
	cd "$w"/nvidia-peer-memory-*
	dpkg-buildpackage -us -uc
	dpkg -i "$w"/nvidia-peer-memory*.deb
	exit 0
fi
srpm=$(echo "$out" | sed -n 's/^Built: *\(.*\.src\.rpm\)$/\1/p' | tail -n 1)
[ -n "$srpm" ] || { echo "build_module.sh named no source RPM" >&2; exit 1; }
rpmbuild --rebuild "$srpm"
arch=$(uname -m)
name=$(basename "$srpm" .src.rpm)
rpm -Uvh --replacepkgs "$HOME/rpmbuild/RPMS/$arch/$name.$arch.rpm"
