#!/bin/sh
# sim up starts one real sshd per node on its own loopback address; OpenSSH
# logs in with the sim's key and known_hosts (strict checking) and lands on the
# node (its own hostname); status reports it; a second sim in another dir
# gets another port; sim down leaves no process of the cluster behind, not
# even a command hanging on a `hang` node. A command runs under the login
# shell of the node's OS (bash), whose words a missing command gets.
. "$(dirname "$0")/lib.sh"
command -v ssh >/dev/null && [ -x /usr/sbin/sshd ] || skip sshd "needs the OpenSSH client and server"
D=$BRINGUP_SIM_DIR
sim_up -n 4
[ "$INV" = "$D/inventory.yaml" ] || fail "inventory at $INV, want $D/inventory.yaml"
[ -n "$PORT" ] && [ "$USER_" = "$(id -un)" ] || fail "inventory ssh section: port '$PORT' user '$USER_'"
grep -q "^\[127.0.1.4\]:$PORT ssh-ed25519 " "$D/known_hosts" || fail "known_hosts lacks node 4"

status=$("$BRINGUP" sim status) || fail "status exit $? while running"
echo "$status"
[ "$(echo "$status" | grep -c ' sshd up ')" -eq 4 ] || fail "status: not 4 sshd up"
name1=$(echo "$status" | awk -v a="127.0.1.1:$PORT" '$2 == a { print $1 }')
name4=$(echo "$status" | awk -v a="127.0.1.4:$PORT" '$2 == a { print $1 }')
[ -n "$name1" ] && [ -n "$name4" ] && [ "$name1" != "$name4" ] || fail "status lacks node names"
grep -qx "NODE_NAME='$name1'" "$D/nodes/$name1/node.conf" || fail "node.conf of $name1"

[ "$(sim_ssh 127.0.1.1 hostname)" = "$name1" ] || fail "hostname on 127.0.1.1 is not $name1"
[ "$(sim_ssh 127.0.1.4 hostname)" = "$name4" ] || fail "hostname on 127.0.1.4 is not $name4"
sim_ssh 127.0.1.1 'exit 7' </dev/null; [ $? -eq 7 ] || fail "exit status not passed through"
# root's login shell is bash; a missing command reads as RHEL 7.6's bash 4 says it
err=$(sim_ssh 127.0.1.1 'nosuchtool --version' 2>&1 </dev/null); rc=$?
[ $rc -eq 127 ] && [ "$err" = "bash: nosuchtool: command not found" ] ||
	fail "a missing command on a RHEL 7 node: exit $rc, '$err'"
[ "$(echo piped | sim_ssh 127.0.1.2 'cat; echo err >&2' 2>/dev/null)" = piped ] ||
	fail "stdin/stdout not passed through"
grep -q ' hostname$' "$D/nodes/$name1/log/commands.log" || fail "command not logged"

# One cluster per dir; another dir gets its own port.
out=$("$BRINGUP" sim up -n 2 2>&1) && fail "second sim up in the same dir succeeded"
echo "$out" | grep -q 'sim down' || fail "refusal does not say how to stop: $out"
INV2=$(BRINGUP_SIM_DIR="$TEST_DIR/sim2" "$BRINGUP" sim up -n 2 --port "$PORT" |
	sed -n 's/^inventory: //p')
[ -f "$INV2" ] || fail "second sim in another dir did not start"
PORT2=$(sed -n 's/^    port: //p' "$INV2")
BRINGUP_SIM_DIR="$TEST_DIR/sim2" "$BRINGUP" sim down >/dev/null || fail "down of sim2"
[ "$PORT2" != "$PORT" ] || fail "second sim took the same port $PORT"

# A hung node holding a command, then down.
"$BRINGUP" sim fault "$name4" hang >/dev/null || fail "fault hang"
sim_ssh 127.0.1.4 true >/dev/null 2>&1 &
sshpid=$!
token=$(cat "$D/token")
i=0
while ! grep -qs ' true$' "$D/nodes/$name4/log/commands.log"; do
	i=$((i + 1)); [ $i -lt 100 ] || fail "hung command never reached the node"; sleep 0.1
done
ours() { grep -ls "BRINGUP_SIM_TOKEN=$token" /proc/[0-9]*/environ 2>/dev/null | grep -v "^/proc/$$/"; }
[ -n "$(ours)" ] || fail "no process carries the token while running"
"$BRINGUP" sim down || fail "down failed"
left=$(ours)
[ -z "$left" ] || fail "processes left after down: $left"
for f in "$D"/nodes/*/sshd.pid; do
	pid=$(cat "$f")
	! grep -qs sshd "/proc/$pid/cmdline" || fail "sshd $pid of $f still runs"
done
wait $sshpid
expect_status 1 "$BRINGUP" sim status >/dev/null
expect_status 0 "$BRINGUP" sim down >/dev/null
exit 0
