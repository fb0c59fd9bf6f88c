#!/bin/sh
# One run per cluster, whatever the state directory (issue 24, item 5): a
# deploy holds a lease on every node (/var/lib/bringup/run.lock); a second
# deploy with another --state-dir is refused before it changes a node,
# naming the holder (run id, client host, pid, start time). The lease does
# not outlive its run: a SIGKILLed client's lease is taken over at once
# from the same client host, and by --resume of the same run; an expired
# lease of another client host is taken over; a finished run gives it back.
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip x86_64 "the test bundles are x86_64 binaries"
sim_up -n 3 --state bare
NODES=$BRINGUP_SIM_DIR/nodes
FIXTURES=$(cd "$(dirname "$0")/../fixtures/ofed" && pwd)
TGZ=$("$FIXTURES/make-bundle.sh" "$TEST_DIR/b" 4.7-3.2.9.0 rhel7.6 x86_64)
ofed_playbook "$TGZ"
deploy() { # STATE ARGS...
	s=$1; shift
	"$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/pb.yaml" --state-dir "$TEST_DIR/$s" "$@"
}
lease() { echo "$NODES/$1/root/var/lib/bringup/run.lock"; }
lines() { cat "$NODES"/*/log/commands.log | wc -l; }
# fake_lease RUN CLIENT PID EXPIRES-IN: a lease as another run left it, on every node
fake_lease() {
	now=$(date +%s)
	for n in dgx01 dgx02 dgx03; do
		mkdir -p "$(dirname "$(lease $n)")"
		echo "cluster=sim run=$1 client=$2 pid=$3 pstart=1 started=$((now - 10)) expires=$((now + $4))" \
			>"$(lease $n)"
	done
}

# A: a deploy in the middle of a slow install on dgx01
# held open until the fault is cleared below (at most 1200 s, well inside
# install_timeout's 3600), however slow the machine (a sanitized build at
# load 20 took over 300 s to get A past dgx02 and dgx03)
"$BRINGUP" sim fault dgx01 install-slow 1200 >/dev/null || fail "fault install-slow"
"$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/pb.yaml" --state-dir "$TEST_DIR/A" >"$TEST_DIR/a.out" 2>&1 &
apid=$!
i=0
until grep -q -- "'--force'" "$NODES/dgx01/log/commands.log" 2>/dev/null; do
	kill -0 $apid 2>/dev/null || fail "deploy A ended before the install: $(cat "$TEST_DIR/a.out")"
	i=$((i + 1)); [ $i -lt 600 ] || fail "the install never started"
	sleep 0.05
done
runa=$(basename "$(readlink "$TEST_DIR/A/last")")
grep -q "run=$runa client=$(hostname) pid=$apid " "$(lease dgx02)" ||
	fail "no lease of run A ($runa, pid $apid) on dgx02: $(cat "$(lease dgx02)" 2>&1)"

# A is done with dgx02 and dgx03 (their stack restarted) and waits for dgx01
# (a deadline in seconds: each try starts a python, slow on a loaded machine)
deadline=$(( $(date +%s) + $(slow 300) ))
until python3 - "$TEST_DIR/A/$(readlink "$TEST_DIR/A/last")/journal.json" <<'PY' 2>/dev/null
import json, sys
h = json.load(open(sys.argv[1]))["stages"][0]["hosts"]
sys.exit(0 if h["dgx02"].get("finished") and h["dgx03"].get("finished") else 1)
PY
do
	[ "$(date +%s)" -lt "$deadline" ] || fail "A never finished dgx02 and dgx03: $(cat "$TEST_DIR/a.out";
		cat "$TEST_DIR/A/$(readlink "$TEST_DIR/A/last")/journal.json"; tail -n 20 "$NODES"/dgx0[23]/log/commands.log)"
	kill -0 $apid 2>/dev/null || fail "deploy A ended early: $(cat "$TEST_DIR/a.out")"
	sleep 0.2
done
[ -s "$NODES/dgx01/state/ofed_version" ] &&
	fail "A's install on dgx01 ended before B could meet A's lease (the hold was cleared?)"

# B, another state directory: refused, naming A, and nothing but the lock ran
for n in dgx02 dgx03; do wc -l <"$NODES/$n/log/commands.log" >"$TEST_DIR/lines.$n"; done
out=$(deploy B 2>&1) && fail "a second deploy ran beside the first: $out"
echo "$out" | grep -q "cluster 'sim' is locked by run $runa (client $(hostname), pid $apid, started 20[0-9-]*T[0-9:]*Z" ||
	fail "the refusal does not name the holder: $out"
echo "$out" | grep -qF "on dgx[01-03]: another deploy, upgrade or validate is running" ||
	fail "the refusal does not name the hosts: $out"
for n in dgx02 dgx03; do
	# the log's entries since, one a line (a command spans two), but run
	# A's own (its lease's refresh or, on a slow machine, its release)
	new=$(tail -n +$(($(cat "$TEST_DIR/lines.$n") + 1)) "$NODES/$n/log/commands.log" |
		awk '/^20[0-9-]*T[0-9:]*Z / { if (e != "") print e; e = $0; next } { e = e " " $0 }
		     END { if (e != "") print e }' | grep -vF "'$runa'")
	[ -n "$new" ] || fail "$n: B never looked at the lock"
	# one command: the lock's take
	[ "$(echo "$new" | grep -c '^20[0-9-]*T[0-9:]*Z ')" = 1 ] && echo "$new" | grep -qF "'take'" ||
		fail "$n: B ran more than the lock: $new"
done
[ -e "$TEST_DIR/B/last" ] && fail "the refused deploy recorded a run: $(ls -R "$TEST_DIR/B")"
grep -q "run=$runa " "$(lease dgx03)" || fail "B's refusal cost A its lease: $(cat "$(lease dgx03)")"
[ "$(grep -c -- "'--force'" "$NODES/dgx01/log/commands.log")" = 1 ] || fail "B started an installer on dgx01"

# SIGKILL A: its lease stays behind, its pid is gone
kill -KILL $apid
wait $apid 2>/dev/null
"$BRINGUP" sim fault dgx01 clear install-slow >/dev/null || fail "clear install-slow"
i=0
until [ -s "$NODES/dgx01/state/ofed_version" ]; do # the orphaned installer ends
	i=$((i + 1)); [ $i -lt 300 ] || fail "the orphaned install never ended"
	sleep 0.1
done
grep -q "run=$runa " "$(lease dgx01)" || fail "A's lease is not there after SIGKILL"

# a live lease of another client host: refused; --resume of that run takes it
fake_lease "$runa" other-admin 4242 300
out=$(deploy C 2>&1) && fail "deploy C ran over another host's live lease: $out"
echo "$out" | grep -q "locked by run $runa (client other-admin, pid 4242, started .*; its lease expires in [0-9]* s" ||
	fail "the refusal does not name the other host: $out"
# validate and upgrade take the same lock: refused before their first test or probe
out=$("$BRINGUP" validate -i "$INV" --stage rdma 2>&1) && fail "validate ran over a live lease: $out"
echo "$out" | grep -q "locked by run $runa (client other-admin, pid 4242" || fail "validate: $out"
out=$("$BRINGUP" upgrade -i "$INV" --state-dir "$TEST_DIR/U" --to ofed=4.7-3.2.9.0 --ofed-tarball "$TGZ" 2>&1) &&
	fail "upgrade ran over a live lease: $out"
echo "$out" | grep -q "locked by run $runa (client other-admin, pid 4242" || fail "upgrade: $out"
[ -e "$TEST_DIR/U/upgrade/playbook.yaml" ] && fail "a refused upgrade wrote its playbook"
out=$(deploy A --resume 2>&1) || fail "--resume of the holder's run could not take its lease: $out"
for n in dgx01 dgx02 dgx03; do
	[ ! -e "$(lease $n)" ] || fail "$n: a finished run left its lease: $(cat "$(lease $n)")"
done

# a SIGKILLed client of this host (pid gone): taken over at once
sh -c 'exit 0' & dead=$!; wait $dead
fake_lease 20260101T000000Z-$dead "$(hostname)" $dead 300
out=$(deploy C 2>&1) || fail "the lease of a dead client was not taken over: $out"
echo "$out" | grep -qF "took over the cluster lock of run 20260101T000000Z-$dead (expired, or its client is gone) on dgx[01-03]" ||
	fail "the take-over is not said: $out"
# an expired lease of another host: taken over
fake_lease 20260101T000000Z-1 other-admin 4242 -5
out=$(deploy C 2>&1) || fail "an expired lease was not taken over: $out"
echo "$out" | grep -q "changed=0 failed=0" || fail "not converged: $out"
[ ! -e "$(lease dgx03)" ] || fail "the lease is left after the run"

# A run cut (^C) while it takes the lease: recorded before the lock, so its
# journal says "interrupted" and --resume runs it whole (chaos seed 55968
# cycle 17: a run cut there recorded nothing, and --resume took up the
# run before it). dgx02 answers the take 60 s late (fault slow).
"$BRINGUP" sim fault dgx02 slow 60 >/dev/null || fail "fault slow"
# (a background job of sh ignores SIGINT; an admin's ^C reaches a
# foreground one with the default action; exec: $! is the run itself)
sh -c 'exec env --default-signal=INT "$@"' - "$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/pb.yaml" \
	--state-dir "$TEST_DIR/D" >"$TEST_DIR/d.out" 2>&1 &
dpid=$!
i=0
until grep -qs "run=$(basename "$(readlink "$TEST_DIR/D/last" 2>/dev/null)") " "$(lease dgx01)"; do
	kill -0 $dpid 2>/dev/null || fail "deploy D ended before its lease: $(cat "$TEST_DIR/d.out")"
	i=$((i + 1)); [ $i -lt 600 ] || fail "deploy D never took dgx01's lease"
	sleep 0.05
done
rund=$(basename "$(readlink "$TEST_DIR/D/last")")
kill -INT $dpid
wait $dpid; rc=$?
"$BRINGUP" sim fault dgx02 clear >/dev/null || fail "clear slow"
[ $rc = 130 ] || fail "^C while taking the lease: exit $rc: $(cat "$TEST_DIR/d.out")"
python3 - "$TEST_DIR/D/runs/$rund/journal.json" <<'PY' || fail "the cut run's journal: $(cat "$TEST_DIR/D/runs/$rund/journal.json")"
import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if j["state"] == "interrupted" and not j["stages"] else 1)
PY
out=$(deploy D --resume 2>&1) || fail "--resume of a run cut while it took the lease: $out"
echo "$out" | grep -q "completed in an earlier attempt" && fail "--resume skipped stages the cut run never ran: $out"
echo "$out" | grep -Eq "^  ofed +ok +dgx\[01-03\]" || fail "--resume did not run the ofed stage: $out"
[ "$(basename "$(readlink "$TEST_DIR/D/last")")" = "$rund" ] || fail "--resume did not go on with run $rund"
[ ! -e "$(lease dgx02)" ] || fail "the resumed run left its lease"
exit 0
