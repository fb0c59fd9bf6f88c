# peermem stage: builds and installs nv_peer_mem from the nv_peer_memory
# source tree ($1) for the running kernel, as the Redpaper does on RHEL:
# build_module.sh makes a source RPM, rpmbuild --rebuild compiles it
# against the kernel headers, rpm installs the binary package.
set -e
cd "$1"
out=$(./build_module.sh)
echo "$out"
srpm=$(echo "$out" | sed -n 's/^Built: *//p' | tail -n 1)
[ -n "$srpm" ] || { echo "build_module.sh named no source RPM" >&2; exit 1; }
rpmbuild --rebuild "$srpm"
arch=$(uname -m)
name=$(basename "$srpm" .src.rpm)
rpm -Uvh --replacepkgs "$HOME/rpmbuild/RPMS/$arch/$name.$arch.rpm"
