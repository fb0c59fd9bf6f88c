#!/bin/sh
# ProxyJump: hosts behind a jump host are reached through a direct-tcpip
# channel on one session to it (no ssh process forked), and a dead jump host
# is reported on each host behind it.
. "$(dirname "$0")/lib.sh"
sim_up -n 4 --state ready
grep -q '^    known_hosts:' "$INV" || skip "sim inventory layout changed; cannot add proxy_jump"
sed 's|^    known_hosts: .*|&\n    proxy_jump: dgx01|' "$INV" >"$TEST_DIR/jump.yaml"
log="$BRINGUP_SIM_DIR/nodes/dgx01/sshd.log"
before=$(grep -c 'Accepted publickey' "$log")

out=$("$BRINGUP" exec -i "$TEST_DIR/jump.yaml" -- hostname) || fail "exec via jump: $out"
for n in 01 02 03 04; do echo "$out" | grep -qx "dgx$n" || fail "dgx$n missing: $out"; done
after=$(grep -c 'Accepted publickey' "$log")
# dgx01 itself (direct) + one jump session per host behind it.
[ $((after - before)) -eq 4 ] || fail "dgx01 saw $((after - before)) logins, want 4"
pgrep -ax ssh | grep -q "$BRINGUP_SIM_DIR" && fail "an ssh process was forked"

"$BRINGUP" sim fault dgx01 unreachable
out=$("$BRINGUP" exec -i "$TEST_DIR/jump.yaml" --connect-timeout 3 -- hostname)
[ $? -eq 3 ] || fail "dead jump host must give exit 3"
for n in 02 03 04; do
	echo "$out" | grep -q "^unreachable: dgx$n: .*jump host for dgx$n" ||
		fail "dgx$n not reported through its jump host: $out"
done
exit 0
