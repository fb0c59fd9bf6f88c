#!/bin/sh
# ProxyJump: hosts behind a jump host are reached through direct-tcpip
# channels multiplexed over one session to it (jump_sessions of them when
# set), also 90 hosts at -f 256 against the sim's stock MaxStartups
# 10:30:100, which resets logins arriving together; no ssh process is
# forked, and a dead jump host is reported on each host behind it.
. "$(dirname "$0")/lib.sh"
sim_up -n 8 --state ready
grep -q '^    known_hosts:' "$INV" || fail "sim inventory layout changed; cannot add proxy_jump"
sed 's|^    known_hosts: .*|&\n    proxy_jump: dgx01|' "$INV" >"$TEST_DIR/jump.yaml"
log="$BRINGUP_SIM_DIR/nodes/dgx01/sshd.log"
before=$(grep -c 'Accepted publickey' "$log")

out=$("$BRINGUP" exec -i "$TEST_DIR/jump.yaml" -- hostname) || fail "exec via jump: $out"
for n in 01 02 03 04; do echo "$out" | grep -qx "dgx$n" || fail "dgx$n missing: $out"; done
after=$(grep -c 'Accepted publickey' "$log")
# dgx01 itself (direct) + one jump session for the three behind it.
[ $((after - before)) -eq 2 ] || fail "dgx01 saw $((after - before)) logins, want 2"
pgrep -ax ssh | grep -q "$BRINGUP_SIM_DIR" && fail "an ssh process was forked"

# 90 hosts behind dgx01 (inventory names for the sim's nodes 2-8, whose
# keys known_hosts has), all at once.
many="$TEST_DIR/many.yaml"
many_inv() { # JUMP_SESSIONS
	sed -n '/^cluster:/,/^  vars:/p' "$INV" | sed '$d'
	echo "    proxy_jump: dgx01"
	[ -n "$1" ] && echo "    jump_sessions: $1"
	echo "hosts:"
	echo "  dgx01: { address: 127.0.1.1 }"
	# 7 machines under 90 names: each after the first seven says which
	# machine it is (one address twice is otherwise refused)
	for i in $(seq 1 90); do
		printf '  h%02d: { address: 127.0.1.%d' $i $((2 + i % 7))
		[ $i -gt 7 ] && printf ', same_machine: h%02d' $(( (i - 1) % 7 + 1 ))
		echo ' }'
	done
}
for js in "" 3; do
	many_inv "$js" >"$many"
	before=$(grep -c 'Accepted publickey' "$log")
	out=$("$BRINGUP" exec -i "$many" -f 256 --connect-timeout 30 -- true) ||
		fail "90 hosts via jump (jump_sessions ${js:-unset}): $(echo "$out" | grep -v '^exit 0' | head -n 5)"
	echo "$out" | grep -qx 'exit 0: dgx01,h\[01-90\]' || fail "not every host ran: $out"
	after=$(grep -c 'Accepted publickey' "$log")
	[ $((after - before)) -ge 2 ] && [ $((after - before)) -le $((1 + ${js:-1})) ] ||
		fail "dgx01 saw $((after - before)) logins for 90 hosts, want 1 + ${js:-1} at most"
done

"$BRINGUP" sim fault dgx01 unreachable
out=$("$BRINGUP" exec -i "$TEST_DIR/jump.yaml" --connect-timeout 3 -- hostname)
[ $? -eq 3 ] || fail "dead jump host must give exit 3"
for n in 02 03 04; do
	echo "$out" | grep -q "^unreachable: dgx$n: host dgx$n: its jump host failed: host dgx01 " ||
		fail "dgx$n not reported through its jump host: $out"
done
exit 0
