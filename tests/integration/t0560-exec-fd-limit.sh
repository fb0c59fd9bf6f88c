#!/bin/sh
# Descriptors grow with -f, not with the number of hosts: under a limit of
# open files smaller than the number of hosts (hard limit too, so raising the
# soft one cannot help), exec still reaches every host, directly and through
# a jump host, by closing idle connections; a limit too small for even one
# connection is named as the cause.
. "$(dirname "$0")/lib.sh"
N=32
sim_up -n $N --state ready
grep -q '^    known_hosts:' "$INV" || skip "sim inventory layout changed; cannot add proxy_jump"
sed 's|^    known_hosts: .*|&\n    proxy_jump: dgx01|' "$INV" >"$TEST_DIR/jump.yaml"

all_hosts() { # FILE: every dgxNN printed its name and exited 0
	for i in $(seq 1 $N); do
		h=$(printf 'dgx%02d' "$i")
		grep -qx "$h" "$1" || fail "$h missing: $(grep -v '^dgx' "$1" | head -n 5)"
	done
	grep -qx "exit 0: dgx\[01-$N\]" "$1" || fail "not every host exited 0: $(tail -n 5 "$1")"
}

for inv in "$INV" "$TEST_DIR/jump.yaml"; do
	(ulimit -n $N && exec "$BRINGUP" exec -i "$inv" -- hostname) >"$TEST_DIR/out" 2>&1 ||
		fail "exec under ulimit -n $N ($inv): $(grep -v '^dgx' "$TEST_DIR/out" | head -n 5)"
	all_hosts "$TEST_DIR/out"
done

out=$( (ulimit -n 12 && exec "$BRINGUP" exec -i "$INV" -l dgx01 -- true) 2>&1)
[ $? -eq 1 ] || fail "no room for a connection must fail the host: $out"
echo "$out" | grep -q '^failed: dgx01: .*limit of open files (ulimit -n 12)' ||
	fail "the limit is not named as the cause: $out"
exit 0
