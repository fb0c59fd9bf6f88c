#!/bin/sh
# libcurl and libarchive are loaded when first used, not at start
# (engine/base/lazylib.h): the binary does not name them as needed, and a
# command that uses neither never maps them (linked, they cost every command
# about 7 MB of resident memory before main). The commands that use them
# load them: t1420 (air-gap bundles), the OFED tarball tests (t08xx) and the
# Kubernetes ones (t12xx) run through the loader.
. "$(dirname "$0")/lib.sh"
command -v readelf >/dev/null || skip readelf "binutils"
needed=$(readelf -d "$BRINGUP" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
echo "$needed" | grep -q '^libssh\.' || fail "readelf: no libssh among NEEDED: $needed"
echo "$needed" | grep -Eq '^lib(curl|archive)\.' && fail "linked at start: $(echo "$needed" | tr '\n' ' ')"

# a command held open while it reads its inventory from a FIFO: its maps
mkfifo "$TEST_DIR/inv"
"$BRINGUP" inventory check -i "$TEST_DIR/inv" >"$TEST_DIR/out" 2>&1 &
pid=$!
i=0
until grep -qs 'libssh' "/proc/$pid/maps"; do
	i=$((i + 1)); [ $i -lt 200 ] || { kill $pid; fail "bringup never started"; }
	sleep 0.05
done
maps=$(cat "/proc/$pid/maps")
printf 'cluster: { name: t }\nhosts: { a: { address: 127.0.0.1 } }\n' >"$TEST_DIR/inv"
wait $pid || fail "inventory check: $(cat "$TEST_DIR/out")"
echo "$maps" | grep -q 'libjansson' || fail "the maps read are not bringup's: $maps"
echo "$maps" | grep -Eq 'lib(curl|archive)\.so' &&
	fail "an inventory check mapped: $(echo "$maps" | grep -E 'lib(curl|archive)')"
exit 0
