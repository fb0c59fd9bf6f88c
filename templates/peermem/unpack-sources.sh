# peermem stage: unpacks the nv_peer_memory sources an air-gap bundle
# carried ($1, a .tar.gz whose top directory is nv_peer_memory/) into the
# source directory ($2), where the build expects them, then removes the
# upload. Refuses a tarball without build_module.sh at its top.
set -e
trap 'rm -f "$1"' EXIT
mkdir -p "$2"
tar -xzf "$1" -C "$2" --strip-components=1 --no-same-owner
[ -x "$2/build_module.sh" ] || { echo "$1 has no nv_peer_memory/build_module.sh" >&2; exit 1; }
