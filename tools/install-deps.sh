#!/bin/sh
# Installs what bringup needs to build and test on Debian 12 (bookworm):
# the compiler, the libraries (pkg-config names them in the Makefile), and
# OpenSSH + util-linux for the simulated cluster. Does nothing when all of
# it is there already; uses sudo when not run as root.
set -eu
PKGS="build-essential pkg-config git ca-certificates
libssh-dev libyaml-dev libarchive-dev libcurl4-openssl-dev libncurses-dev
libcmocka-dev libibverbs-dev libjansson-dev
openssh-server openssh-client util-linux procps python3 time libxml2-utils"

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
