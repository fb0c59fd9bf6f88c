#!/bin/sh
# A simulated node never changes the host or another node: files written on
# node 1 in /etc, /usr and /tmp (over ssh, and uploaded over SFTP) are seen
# on node 1 only, and land in node 1's overlay under the sim dir.
. "$(dirname "$0")/lib.sh"
command -v sftp >/dev/null && [ -x /usr/sbin/sshd ] || skip sftp "needs the OpenSSH client, sftp and server"
D=$BRINGUP_SIM_DIR
sim_up -n 2
n1=$(sim_ssh 127.0.1.1 hostname) && n2=$(sim_ssh 127.0.1.2 hostname) || fail "nodes unreachable"
[ "$n1" != "$n2" ] && [ "$n1" != "$(hostname)" ] || fail "hostnames: '$n1' '$n2' host '$(hostname)'"

x=bringup-t0210-$$
# Without root, subdirectories the host's root owns stay read-only in the
# node (sim/README.md, "Running without root"); the overlay itself still works.
ulib=/usr/lib
[ "$(id -u)" = 0 ] || ulib=/usr
files="/etc/$x $ulib/$x /tmp/$x"
for f in $files; do
	[ ! -e "$f" ] || fail "$f exists on the host before the test"
done
sim_ssh 127.0.1.1 "for f in $files; do echo \"on $n1\" >\$f || exit 1; done" ||
	fail "cannot write on $n1"
for f in $files; do
	[ "$(sim_ssh 127.0.1.1 cat "$f")" = "on $n1" ] || fail "$f not on $n1"
	sim_ssh 127.0.1.2 test ! -e "$f" || fail "$f leaked to $n2"
	[ ! -e "$f" ] || { rm -f "$f"; fail "$f leaked to the host"; }
done
[ "$(cat "$D/nodes/$n1/root/etc/$x")" = "on $n1" ] || fail "/etc write not in $n1's overlay"
[ "$(cat "$D/nodes/$n1/tmp/$x")" = "on $n1" ] || fail "/tmp write not in $n1's tmp"

# SFTP goes through the same wrapper, so uploads land in the node too.
echo "sftp to $n2" >"$TEST_DIR/up"
printf 'put %s /etc/%s.sftp\nput %s /tmp/%s.sftp\n' "$TEST_DIR/up" "$x" "$TEST_DIR/up" "$x" \
	>"$TEST_DIR/batch"
sftp -b "$TEST_DIR/batch" -i "$D/id_ed25519" -o UserKnownHostsFile="$D/known_hosts" \
	-o StrictHostKeyChecking=yes -P "$PORT" "$USER_@127.0.1.2" >/dev/null || fail "sftp put failed"
[ "$(sim_ssh 127.0.1.2 cat "/etc/$x.sftp")" = "sftp to $n2" ] || fail "sftp upload not on $n2"
[ "$(cat "$D/nodes/$n2/root/etc/$x.sftp")" = "sftp to $n2" ] || fail "sftp upload not in overlay"
[ -e "$D/nodes/$n2/tmp/$x.sftp" ] || fail "sftp /tmp upload not in $n2's tmp"
[ ! -e "/etc/$x.sftp" ] && [ ! -e "/tmp/$x.sftp" ] || fail "sftp upload reached the host"
sim_ssh 127.0.1.1 test ! -e "/etc/$x.sftp" || fail "sftp upload leaked to $n1"

# The node sees the contract's environment and the stand-ins first on PATH.
env=$(sim_ssh 127.0.1.1 'echo "$BRINGUP_SIM_NODE $BRINGUP_SIM_CLUSTER $PATH"')
[ "$env" = "/run/bringup-sim/node /run/bringup-sim/cluster /run/bringup-sim/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" ] ||
	fail "node environment: $env"
sim_ssh 127.0.1.1 'grep -q "^NODE_NAME=" "$BRINGUP_SIM_NODE/node.conf"' || fail "node dir not bound"
[ ! -e /run/bringup-sim ] || fail "/run/bringup-sim exists on the host"
exit 0
