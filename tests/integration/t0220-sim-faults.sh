#!/bin/sh
# Faults the wrapper and sim up handle: unreachable stops a node's sshd and
# clear brings it back (the other nodes see it in cluster/unreachable/
# meanwhile); hang never answers and clear ends the hung command;
# slow delays every command; a bad node or kind is a usage error that names
# the valid ones.
. "$(dirname "$0")/lib.sh"
command -v ssh >/dev/null && [ -x /usr/sbin/sshd ] || skip sshd "needs the OpenSSH client and server"
D=$BRINGUP_SIM_DIR
sim_up -n 3
now_ms() { echo $(($(date +%s%N) / 1000000)); }
n1=$(sim_ssh 127.0.1.1 hostname) && n2=$(sim_ssh 127.0.1.2 hostname) &&
	n3=$(sim_ssh 127.0.1.3 hostname) || fail "nodes unreachable at start"

"$BRINGUP" sim fault "$n2" unreachable || fail "fault unreachable"
sim_ssh 127.0.1.2 true 2>/dev/null && fail "$n2 still answers when unreachable"
"$BRINGUP" sim status | grep "^$n2 .* sshd down .*unreachable" >/dev/null ||
	fail "status does not show $n2 down and unreachable"
[ "$(sim_ssh 127.0.1.1 hostname)" = "$n1" ] || fail "$n1 affected by $n2's fault"
# what the other nodes' stand-ins see of it (mmaddnode: cannot be reached)
[ "$(sim_ssh 127.0.1.1 cat "/run/bringup-sim/cluster/unreachable/$n2")" = unreachable ] ||
	fail "the other nodes do not see $n2 unreachable"
"$BRINGUP" sim fault "$n2" clear || fail "clear"
[ ! -e "$D/cluster/unreachable/$n2" ] || fail "$n2 still seen unreachable after clear"
[ "$(sim_ssh 127.0.1.2 hostname)" = "$n2" ] || fail "$n2 not back after clear"
[ ! -e "$D/nodes/$n2/faults/unreachable" ] || fail "unreachable still recorded after clear"

"$BRINGUP" sim fault "$n3" hang || fail "fault hang"
timeout 5 ssh -i "$D/id_ed25519" -o UserKnownHostsFile="$D/known_hosts" \
	-o StrictHostKeyChecking=yes -o BatchMode=yes -p "$PORT" "$USER_@127.0.1.3" true
[ $? -eq 124 ] || fail "command on hung $n3 did not time out"
sleepers() { grep -ls "BRINGUP_SIM_NODE=$D/nodes/$1" /proc/[0-9]*/environ 2>/dev/null; }
[ -n "$(sleepers "$n3")" ] || fail "no hung command on $n3"
"$BRINGUP" sim fault "$n3" clear || fail "clear hang"
i=0
while [ -n "$(sleepers "$n3")" ]; do
	i=$((i + 1)); [ $i -lt 50 ] || fail "clear left the hung command of $n3 running"; sleep 0.1
done
[ "$(sim_ssh 127.0.1.3 hostname)" = "$n3" ] || fail "$n3 not back after clear"

t0=$(now_ms); sim_ssh 127.0.1.1 true || fail "plain command"; base=$(($(now_ms) - t0))
"$BRINGUP" sim fault "$n1" slow 2 || fail "fault slow"
t0=$(now_ms); sim_ssh 127.0.1.1 true || fail "slow command failed"; slow=$(($(now_ms) - t0))
echo "plain ${base} ms, slow ${slow} ms"
[ "$slow" -ge 2000 ] && [ "$slow" -ge $((base + 1500)) ] || fail "slow 2 added too little"
"$BRINGUP" sim fault "$n1" clear || fail "clear slow"

out=$("$BRINGUP" sim fault "$n1" no-such-kind 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q hang || fail "unknown kind: exit $rc, $out"
out=$("$BRINGUP" sim fault no-such-node hang 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "nodes: ${n1%%[0-9]*}\[" || fail "unknown node: exit $rc, $out"
[ -z "$(ls "$D/nodes/$n1/faults")" ] || fail "faults left on $n1 after clear"
exit 0
