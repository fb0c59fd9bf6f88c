#!/bin/sh
# A command bringup stops does not go on running on the host. Out of time
# (-t), its process group is killed there (SIGTERM; SIGKILL when it ignores
# that) and the output says so: the marker it would have written never comes.
# On ^C, exec and precheck stop starting hosts, cancel what runs (killing it
# on the hosts the same way), print what finished and exit promptly; a
# second ^C quits at once.
. "$(dirname "$0")/lib.sh"
sim_up -n 3 --state ready
tok=$$
# gone PATTERN SECONDS: waits until no process's command line matches PATTERN.
gone() {
	i=0
	while pgrep -f "$1" >/dev/null; do
		i=$((i + 1))
		[ $i -le $(($2 * 10)) ] || return 1
		sleep 0.1
	done
}
# running PATTERN N SECONDS: waits until N processes match PATTERN.
running() {
	i=0
	while [ "$(pgrep -fc "$1")" -lt "$2" ]; do
		i=$((i + 1))
		[ $i -le $(($3 * 10)) ] || return 1
		sleep 0.1
	done
}
# finishes PID SECONDS: waits for PID to exit, at most SECONDS; sets RC.
finishes() {
	i=0
	while kill -0 "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -le $(($2 * 10)) ] || { kill -KILL "$1"; return 1; }
		sleep 0.1
	done
	wait "$1"
	RC=$?
}
no_marker() {
	for a in 127.0.1.1 127.0.1.2 127.0.1.3; do
		sim_ssh "$a" test ! -e "/tmp/marker-$tok" || fail "$a: the stopped command wrote its marker"
	done
}

# 1. Timed out: the group ends with SIGTERM.
"$BRINGUP" exec -i "$INV" -t 2 -o json -- "sleep 37.$tok; touch /tmp/marker-$tok" \
	>"$TEST_DIR/t.json"
rc=$?
[ $rc -eq 1 ] || fail "timeout: exit $rc, want 1: $(cat "$TEST_DIR/t.json")"
python3 - "$TEST_DIR/t.json" <<'PY' || fail "timeout: results wrong: $(cat "$TEST_DIR/t.json")"
import json, sys
hosts = json.load(open(sys.argv[1]))["hosts"]
assert len(hosts) == 3
for h in hosts:
    assert h["status"] == "timed out", h
    assert h["remote_processes"] == "ended after SIGTERM", h
    assert "bringup-pgid" not in h["stderr"], h
PY
gone "sleep 37.$tok" 10 || fail "timeout: still running on the nodes: $(pgrep -af "sleep 37.$tok")"
no_marker

# 2. A command that ignores SIGTERM gets SIGKILL after the grace period.
out=$("$BRINGUP" exec -i "$INV" -t 2 -- "trap '' TERM; sleep 38.$tok; touch /tmp/marker-$tok")
echo "$out" | grep -qx 'timed out (after 2 s): dgx\[01-03\]; remote processes killed' ||
	fail "ignoring TERM: $out"
gone "sleep 38.$tok" 10 || fail "ignoring TERM: still running: $(pgrep -af "sleep 38.$tok")"
no_marker

# 3. ^C during exec: prompt, says which hosts were cancelled, leaves nothing.
"$BRINGUP" exec -i "$INV" -t 300 -- "sleep 39.$tok" >"$TEST_DIR/int.out" 2>"$TEST_DIR/int.err" &
pid=$!
running "^sleep 39.$tok" 3 60 || { kill -KILL $pid; fail "the sleeps never started"; }
kill -INT $pid
finishes $pid 30 || fail "exec ignored ^C: $(cat "$TEST_DIR/int.out" "$TEST_DIR/int.err")"
[ $RC -eq 1 ] || fail "^C: exit $RC, want 1"
grep -qx 'cancelled (interrupted): dgx\[01-03\]; remote processes killed' "$TEST_DIR/int.out" ||
	fail "^C: cancelled hosts not named: $(cat "$TEST_DIR/int.out")"
grep -q 'interrupted' "$TEST_DIR/int.err" || fail "^C: nothing said on stderr"
gone "sleep 39.$tok" 10 || fail "^C: sleeps left on the nodes: $(pgrep -af "sleep 39.$tok")"

# 4. A second ^C quits at once, whatever the first one is waiting for.
"$BRINGUP" exec -i "$INV" -t 300 -- "trap '' TERM; sleep 40.$tok" >/dev/null 2>&1 &
pid=$!
running "^sleep 40.$tok" 3 60 || { kill -KILL $pid; fail "the sleeps never started"; }
kill -INT $pid
sleep 0.2
kill -INT $pid
# Death by SIGINT (130), not the first ^C's orderly exit 1 after the group
# (which ignores TERM) has waited out the grace period for SIGKILL.
finishes $pid 20 || fail "a second ^C did not quit"
[ $RC -eq 130 ] || fail "second ^C: exit $RC, want death by SIGINT (130)"

# 5. ^C during precheck: prompt, the report still comes, exit 1.
"$BRINGUP" sim fault dgx02 slow 41 >/dev/null || fail "fault slow"
"$BRINGUP" precheck -i "$INV" -t 300 -o json >"$TEST_DIR/pre.json" 2>"$TEST_DIR/pre.err" &
pid=$!
running "^sleep 41" 1 60 || { kill -KILL $pid; fail "the slow probe never started"; }
# The other two have answered: their probes were sent and have ended.
for n in dgx01 dgx03; do
	i=0
	until grep -q "BRINGUP_NAME=[^;]*$n" "$BRINGUP_SIM_DIR/nodes/$n/log/commands.log"; do
		i=$((i + 1))
		[ $i -le 600 ] || { kill -KILL $pid; fail "$n: no probe sent"; }
		sleep 0.1
	done
done
gone "BRINGUP_NAME='dgx0[13]'" 60 || { kill -KILL $pid; fail "probes of dgx01, dgx03 never ended"; }
kill -INT $pid
finishes $pid 30 || fail "precheck ignored ^C"
[ $RC -eq 1 ] || fail "precheck ^C: exit $RC, want 1: $(cat "$TEST_DIR/pre.err")"
grep -q 'interrupted' "$TEST_DIR/pre.err" || fail "precheck ^C: nothing said"
python3 - "$TEST_DIR/pre.json" <<'PY' || fail "precheck ^C: report wrong: $(cat "$TEST_DIR/pre.json")"
import json, sys
d = json.load(open(sys.argv[1]))
r = {(x["host"], x["check"]): x for x in d["results"]}
for n in ("dgx01", "dgx03"):
    assert r[(n, "ssh.reachable")]["status"] == "pass", r[(n, "ssh.reachable")]
assert r[("dgx02", "ssh.reachable")]["status"] == "skip", r[("dgx02", "ssh.reachable")]
assert "cancelled" in r[("dgx02", "ssh.reachable")]["detail"], r[("dgx02", "ssh.reachable")]
assert d["summary"]["unreachable"] == 0, d["summary"]
PY
"$BRINGUP" sim fault dgx02 clear >/dev/null
exit 0
