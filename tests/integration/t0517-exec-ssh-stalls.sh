#!/bin/sh
# A server that logs us in and then stalls is cut by the command's own limit
# (-t), not the much longer connect timeout, and the message names the phase
# that stalled: the channel open, or the exec request. A server that never
# answers the login says "authentication ... stalled", not "failed". Real
# OpenSSH will not stall on request: tests/tools/stall-sshd.py (paramiko)
# does, on a loopback address.
. "$(dirname "$0")/lib.sh"
TOOLS=$(cd "$(dirname "$0")/../tools" && pwd)
PY=
for p in python3 /usr/bin/python3; do
	"$p" -c 'import paramiko' 2>/dev/null && { PY=$p; break; }
done
[ -n "$PY" ] || skip "no python3 with paramiko (tools/install-deps.sh installs python3-paramiko)"
ADDR=127.0.9.1
ssh-keygen -q -t ed25519 -N '' -f "$TEST_DIR/hostkey" || fail "ssh-keygen"
ssh-keygen -q -t ed25519 -N '' -f "$TEST_DIR/id" || fail "ssh-keygen"
SRV=
trap '[ -n "$SRV" ] && kill $SRV 2>/dev/null; cleanup' EXIT INT TERM

# start MODE CONNECT_TIMEOUT: a stalling server and an inventory for it.
start() {
	[ -n "$SRV" ] && { kill $SRV; wait $SRV 2>/dev/null; }
	"$PY" "$TOOLS/stall-sshd.py" "$1" "$ADDR" "$TEST_DIR/hostkey" >"$TEST_DIR/srv.out" 2>&1 &
	SRV=$!
	wait_ready "$TEST_DIR/srv.out" $SRV
	port=$(sed -n 's/^ready //p' "$TEST_DIR/srv.out")
	echo "[$ADDR]:$port $(cut -d' ' -f1,2 "$TEST_DIR/hostkey.pub")" >"$TEST_DIR/known_hosts"
	cat >"$TEST_DIR/inv.yaml" <<YAML
cluster:
  name: stalls
  ssh:
    user: "$(id -un)"
    port: $port
    key: "$TEST_DIR/id"
    known_hosts: "$TEST_DIR/known_hosts"
    connect_timeout: $2
hosts:
  stall01:
    address: "$ADDR"
YAML
}

for mode in channel exec; do
	start $mode 60
	t0=$(date +%s)
	out=$("$BRINGUP" exec -i "$TEST_DIR/inv.yaml" -t 3 -- true)
	rc=$?
	secs=$(( $(date +%s) - t0 ))
	[ $rc -eq 1 ] || fail "$mode: exit $rc, want 1: $out"
	# The connect timeout is 60 s: well under it means -t cut it.
	[ $secs -lt 30 ] || fail "$mode: took ${secs}s: not cut by -t 3: $out"
	case $mode in
	channel) want='channel open stalled after 3 s';;
	exec) want='exec request stalled after 3 s';;
	esac
	echo "$out" | grep -q "^timed out: stall01: host stall01: $want" ||
		fail "$mode: phase not named: $out"
done

start auth 3
out=$("$BRINGUP" exec -i "$TEST_DIR/inv.yaml" -t 30 -- true)
rc=$?
[ $rc -eq 3 ] || fail "auth: exit $rc, want 3: $out"
echo "$out" | grep -q "^unreachable: stall01: host stall01: authentication as .* stalled" ||
	fail "auth: stall not named: $out"
echo "$out" | grep -q 'failed' && fail "auth: a stall called a failure: $out"
exit 0
