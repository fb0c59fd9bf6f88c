#!/bin/sh
# Installs what bringup needs to build and test on Debian 12 (bookworm):
# the compiler, the libraries (pkg-config names them in the Makefile),
# OpenSSH + util-linux for the simulated cluster, python3-paramiko for the
# scripted SSH servers of the tests (tests/tools/), and clang with libFuzzer's
# runtime for `make fuzz` (valgrind for its replay pass), debhelper, lintian and fakeroot for `make deb` (zsh
# so that t1400 parses the zsh completion), python3-jsonschema
# + python3-yaml to check rendered manifests against the upstream schemas
# (tests/tools/kube-check.py), tmux to drive the TUI in tests. Does nothing when all of
# it is there already; uses sudo when not run as root.
set -eu
PKGS="build-essential pkg-config git ca-certificates
libssh-dev libyaml-dev libarchive-dev libcurl4-openssl-dev libncurses-dev zlib1g-dev
libcmocka-dev libibverbs-dev libjansson-dev
openssh-server openssh-client util-linux procps python3 python3-paramiko time libxml2-utils
clang libclang-rt-14-dev valgrind
debhelper lintian fakeroot zsh
python3-jsonschema python3-yaml
tmux"
# openmpi-bin: the real mpirun/orted that validate's multi-node NCCL runs use
# on the simulated nodes (t1150).
PKGS="$PKGS openmpi-bin"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "install-deps: installing:$missing" >&2
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# shellcheck disable=SC2086
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
